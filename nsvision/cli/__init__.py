"""The ``nsvision`` command: thin Typer wrappers over the library, one module per command."""

from nsvision.cli.app import app, main

__all__ = ["app", "main"]
