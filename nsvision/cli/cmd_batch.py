"""``nsvision batch INPUT... --out results/``: a tournament round of sheets, results and a leaderboard."""

from __future__ import annotations

import signal
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from nsvision.batch import INDEX_HTML, LEADERBOARD_CSV, RESULTS_CSV, BatchSettings, BatchSummary, SheetRow, run_batch
from nsvision.calibration import load_calibration
from nsvision.cli.app import app, err_console, guarded, out_console
from nsvision.errors import ExitCode
from nsvision.game.network import OBJECTIVES


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """``kill`` stops a batch like Ctrl-C: queued sheets are cancelled, finished ones stay saved."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread (an embedding application): leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Progress:
    """A rich progress bar: sheets done, needing review, not read."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task: TaskID | None = None
        self.review = 0
        self.failed = 0

    def start(self, total: int, done: Sequence[SheetRow]) -> None:
        if done:
            err_console.print(f"resuming: {len(done)} of {total} sheets already done")
        self.task = self.progress.add_task("sheets", total=total, completed=0, review=0, failed=0)
        for row in done:
            self.row(row)

    def row(self, row: SheetRow) -> None:
        self.review += row.status == "needs_review"
        self.failed += not row.read
        if self.task is not None:
            self.progress.update(self.task, advance=1, review=self.review, failed=self.failed)


def _report(summary: BatchSummary, out: Path) -> None:
    out_console.print(
        f"{summary.sheets} sheets: {summary.ok} legal, {summary.rules_broken} rules broken, "
        f"{summary.needs_review} need review, {summary.failed} not read"
        + (f", {summary.claims_differ} with claims that differ" if summary.claims_differ else "")
    )
    for name in (INDEX_HTML, LEADERBOARD_CSV, RESULTS_CSV):
        out_console.print(f"  {out / name}", highlight=False)


def execute(
    inputs: list[Path],
    out: Path,
    workers: int | None,
    resume: bool,
    claims: Path | None,
    calibration: Path | None,
    objectives: list[str] | None,
    solo: bool,
    scheduler: str | None,
    fixes: Path | None = None,
) -> BatchSummary:
    settings = BatchSettings(
        calibration=str(calibration.absolute()) if calibration else None,
        objectives=tuple(objectives or ()),
        solo=solo,
        claims_csv=str(claims.absolute()) if claims else None,
    )
    load_calibration(calibration)  # a bad calibration stops the batch before any sheet is read
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[yellow]{task.fields[review]} need review[/]  [red]{task.fields[failed]} failed[/]"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err_console, transient=False) as progress, _sigterm_as_interrupt():
        shown = _Progress(progress)
        return run_batch(
            inputs,
            out,
            settings,
            workers=workers,
            scheduler=scheduler,
            resume=resume,
            fixes_csv=fixes,
            on_start=shown.start,
            on_row=shown.row,
        )


@app.command()
def batch(
    inputs: Annotated[
        list[Path], typer.Argument(help="Photos, scans, PDFs (one sheet per page), network JSON files or folders.")
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Folder for results.jsonl/.csv/.json, leaderboard.csv, index.html.")
    ],
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, help="Sheets read in parallel (default: all cores).")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue an interrupted batch in --out: skip the sheets already done.")
    ] = False,
    claims: Annotated[
        Path | None, typer.Option("--claims", help="Claims CSV: verify each sheet's claimed totals (see verify).")
    ] = None,
    fixes: Annotated[
        Path | None,
        typer.Option(
            "--fixes",
            help="Fixes CSV after a review (columns file, page, fix: what --fix takes): those sheets are read "
            "with them. With --resume, exactly the sheets whose fixes changed are read again.",
        ),
    ] = None,
    calibration: Annotated[
        Path | None, typer.Option("--calibration", help="Calibration file (default: the bundled London print).")
    ] = None,
    objective: Annotated[
        list[str] | None,
        typer.Option("--objective", help=f"Shared objective in play (repeat for two): {', '.join(OBJECTIVES)}."),
    ] = None,
    solo: Annotated[bool, typer.Option("--solo", help="Solo games: −10 per advanced module, rating band.")] = False,
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", help="Run on this Dask distributed scheduler (e.g. tcp://host:8786) instead."),
    ] = None,
) -> None:
    """Score many sheets in parallel; write results, a leaderboard and an HTML report.

    Each sheet's result is saved as soon as it is read, so an interrupted batch loses nothing:
    rerun it with --resume. A file that cannot be read is listed as failed and the batch goes on.
    Exit code: the most serious sheet's — 0 all legal (and claims match), 1 rules broken or
    claims differ, 3 needs review, 4 unreadable file, 5 no map found, 70 internal error.
    """
    summary = guarded(
        lambda: execute(inputs, out, workers, resume, claims, calibration, objective, solo, scheduler, fixes)
    )
    _report(summary, out)
    if summary.exit_code != ExitCode.OK:
        raise typer.Exit(int(summary.exit_code))
