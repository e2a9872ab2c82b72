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
    Fix,
    SectionFix,
    SheetFailure,
    SheetReport,
    SheetResult,
    analyze_file,
    conflicting_fixes,
    overall_exit_code,
    parse_fix,
    score_network_file,
)
from nsvision.report import render_result, results_json
from nsvision.vision.load import page_count


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


def read_any(
    file: Path,
    calibration: Path | None,
    objectives: list[str] | None,
    solo: bool,
    fixes: list[str] | None = None,
    closeups: bool = False,
) -> list[SheetResult]:
    """Every sheet of ``file``: a network JSON gives one, a PDF one per page.

    ``fixes`` (``--fix``) settle sections and circled stations of a picture after a review; a bad
    one is a usage error. ``closeups``: take the sections to check close from the picture (for an
    overlay).
    """
    cal = load_calibration(calibration)
    options = game_options(objectives, solo)
    try:
        settled = [parse_fix(text, cal.map) for text in fixes or []]
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--fix'") from None
    conflict = conflicting_fixes(settled)
    if conflict:
        raise typer.BadParameter(conflict, param_hint="'--fix'")
    if not file.exists():
        raise InputError(str(file), "no such file", "check the path")
    if is_network_file(file):
        if settled:
            raise typer.BadParameter(f"{file} is a network file: edit it instead", param_hint="'--fix'")
        return [score_network_file(file, cal, options)]
    pages = page_count(file) if any(f.page for f in settled) else 1
    beyond = [f for f in settled if f.page is not None and f.page > pages]
    if beyond:
        raise typer.BadParameter(
            f"{file} has {pages} page(s); no page {beyond[0].page} to settle {_what(beyond[0])} on",
            param_hint="'--fix'",
        )
    return analyze_file(file, cal, options, settled, closeups)


def _what(fix: Fix) -> str:
    return fix.section.name if isinstance(fix, SectionFix) else f"the {fix.colour} line's circled station"


FixOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--fix",
        help="After a review, what a section is: x,y-x,y=COLOUR (purple, blue, pink, green or none; "
        "COLOUR+COLOUR: drawn in both), "
        "or the station a line circled (double-station power): COLOUR=x,y (or COLOUR=none); "
        "PAGE:... for one page of a PDF; repeat for each one checked.",
    ),
]


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
        Path | None,
        typer.Option(
            "--overlay",
            help="Write what was read over the straightened sheet (PNG), with close-ups of the sections to check.",
        ),
    ] = None,
    debug_dir: Annotated[
        Path | None, typer.Option("--debug-dir", help="Write intermediate images of each stage here.")
    ] = None,
    calibration: CalibrationOpt = None,
    objective: ObjectiveOpt = None,
    solo: Annotated[bool, typer.Option("--solo", help="Solo game: −10 per advanced module, rating band.")] = False,
    fix: FixOpt = None,
) -> None:
    """Score one sheet (or every page of a PDF) and list the rules it breaks.

    Exit code: 0 legal, 1 rules broken, 3 needs review, 4 unreadable input, 5 no map found.
    """
    pictures = overlay is not None or debug_dir is not None
    results = guarded(lambda: read_any(file, calibration, objective, solo, fix, closeups=pictures))
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
