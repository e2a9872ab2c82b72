"""``nsvision score FILE``: score a photo, scan, PDF or network JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nsvision.calibration import load_calibration
from nsvision.cli.app import app, err_console, guarded, out_console
from nsvision.errors import ExitCode, InputError
from nsvision.game.network import OBJECTIVES, GameOptions
from nsvision.overlay import page_path, render_overlay, write_debug_images, write_image
from nsvision.pipeline import (
    SheetFailure,
    SheetReport,
    SheetResult,
    analyze_file,
    overall_exit_code,
    score_network_file,
)
from nsvision.report import render_result, results_json


def is_network_file(path: Path) -> bool:
    """A network JSON (by extension, or a text file that starts like JSON)."""
    if path.suffix.lower() == ".json":
        return True
    try:
        with path.open("rb") as fh:
            head = fh.read(64).lstrip()
    except OSError:
        return False
    return head.startswith(b"{")


def game_options(objectives: list[str] | None, solo: bool) -> GameOptions | None:
    for key in objectives or []:
        if key not in OBJECTIVES:
            raise InputError("--objective", f"unknown objective {key!r}", f"use one of {', '.join(OBJECTIVES)}")
    if not objectives and not solo:
        return None
    return GameOptions(objectives=tuple(objectives or ()), solo=solo)


def read_any(file: Path, calibration: Path | None, objectives: list[str] | None, solo: bool) -> list[SheetResult]:
    """Every sheet of ``file``: a network JSON gives one, a PDF one per page."""
    cal = load_calibration(calibration)
    options = game_options(objectives, solo)
    if not file.exists():
        raise InputError(str(file), "no such file", "check the path")
    if is_network_file(file):
        return [score_network_file(file, cal, options)]
    return analyze_file(file, cal, options)


ObjectiveOpt = Annotated[
    list[str] | None,
    typer.Option("--objective", help=f"Shared objective in play (repeat for two): {', '.join(OBJECTIVES)}."),
]
CalibrationOpt = Annotated[
    Path | None, typer.Option("--calibration", help="Calibration file (default: the bundled London print).")
]


def _write_pictures(report: SheetReport, overlay: Path | None, debug_dir: Path | None, pages: int) -> None:
    if overlay is not None:
        target = page_path(overlay, report.page, pages)
        guarded(lambda: write_image(target, render_overlay(report)))
    if debug_dir is not None:
        guarded(lambda: write_debug_images(report, debug_dir))


@app.command()
def score(
    file: Annotated[Path, typer.Argument(help="Photo, scan (JPEG, PNG, TIFF, WebP, BMP, HEIC), PDF or network JSON.")],
    json_out: Annotated[bool, typer.Option("--json", help="Print a machine-readable JSON report.")] = False,
    overlay: Annotated[
        Path | None, typer.Option("--overlay", help="Write what was read over the straightened sheet (PNG).")
    ] = None,
    debug_dir: Annotated[
        Path | None, typer.Option("--debug-dir", help="Write intermediate images of each stage here.")
    ] = None,
    calibration: CalibrationOpt = None,
    objective: ObjectiveOpt = None,
    solo: Annotated[bool, typer.Option("--solo", help="Solo game: −10 per advanced module, rating band.")] = False,
) -> None:
    """Score one sheet (or every page of a PDF) and list the rules it breaks.

    Exit code: 0 legal, 1 rules broken, 3 needs review, 4 unreadable input, 5 no map found.
    """
    results = guarded(lambda: read_any(file, calibration, objective, solo))
    images = [r for r in results if isinstance(r, SheetReport) and r.straightened is not None]
    for report in images:
        _write_pictures(report, overlay, debug_dir, len(results))
    if json_out:
        typer.echo(results_json(results, multi=len(results) > 1))
    for result in results:
        # A sheet that could not be read is an error message (stderr); a score card is output.
        if isinstance(result, SheetFailure):
            render_result(result, err_console)
        elif not json_out:
            render_result(result, out_console)
    code = overall_exit_code(results)
    if code != ExitCode.OK:
        raise typer.Exit(int(code))
