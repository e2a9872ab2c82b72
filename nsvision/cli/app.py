"""The Typer application and the one place where library errors become exit codes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import typer
from rich.console import Console

from nsvision.errors import ExitCode, NsvisionError

app = typer.Typer(
    name="nsvision",
    help="Score Next Station: London sheets from a photo, a scan, a PDF or a network JSON file.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)
out_console = Console(highlight=False, soft_wrap=True)

T = TypeVar("T")


def guarded(fn: Callable[[], T]) -> T:
    """Run library code; turn an ``NsvisionError`` into its message on stderr and its exit code."""
    try:
        return fn()
    except NsvisionError as exc:
        err_console.print(f"[bold red]error:[/] {exc.message}", markup=True, highlight=False)
        raise typer.Exit(int(exc.exit_code)) from None
    except KeyboardInterrupt:
        err_console.print("interrupted")
        raise typer.Exit(130) from None


def main() -> None:
    try:
        app()
    except SystemExit as exc:
        sys.exit(exc.code)
    except Exception as exc:  # a bug: say so plainly, without a traceback wall
        err_console.print(f"internal error: {type(exc).__name__}: {exc} — please report it with the input file")
        sys.exit(int(ExitCode.INTERNAL))
