"""The ``nsvision`` command: thin Typer wrappers over the library.

Each command lives in a ``cmd_*.py`` module of this package and registers itself on ``app``;
importing the package loads them all, so ``app`` is complete for ``CliRunner`` tests too.
"""

import importlib
import pkgutil

from nsvision.cli.app import app, main

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if _info.name.startswith("cmd_"):
        importlib.import_module(f"{__name__}.{_info.name}")

__all__ = ["app", "main"]
