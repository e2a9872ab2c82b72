"""``nsvision calibrate BLANK -o FILE``: teach nsvision a print from a photo or scan of a blank sheet."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nsvision.calibration import load_calibration
from nsvision.cli.app import app, err_console, guarded, out_console
from nsvision.errors import InputError
from nsvision.overlay import write_image
from nsvision.vision.calibrate import BlankSurvey, render_calibration_overlay, survey_blank, write_calibration
from nsvision.vision.load import load_page


def run_calibration(blank: Path, out: Path, base: Path | None, overlay: Path | None) -> tuple[BlankSurvey, list[Path]]:
    if out.suffix.lower() != ".json":
        raise InputError(str(out), "the calibration file must end in .json", "e.g. -o calibration/my-print.json")
    base_cal = load_calibration(base)
    page = load_page(blank)
    survey = survey_blank(page.image, base_cal, str(blank), name=out.stem)
    written = write_calibration(survey.calibration, out)
    if overlay is not None:
        written.append(write_image(overlay, render_calibration_overlay(page.image, survey)))
    return survey, written


def _report(survey: BlankSurvey, written: list[Path]) -> None:
    reg = survey.registration
    cal = survey.calibration
    look = cal.appearance
    out_console.print(f"stations   {reg.stations_found} / {len(reg.station_xy_px)} symbols seen")
    boxes = len(cal.sheet.score_boxes)
    line = f"boxes      {len(survey.boxes_found)} / {boxes} score boxes found"
    if survey.boxes_placed:
        line += f" (placed from the base layout: {', '.join(survey.boxes_placed)})"
    out_console.print(line)
    out_console.print(f"circles    {survey.circles_found} / {len(cal.sheet.tourist_track)} tourist-track circles found")
    stats = ", ".join(
        f"{key} {look[key]}"
        for key in ("symbol_reach", "tourist_reach", "river_width", "track_digit_half_height")
        if look.get(key) is not None
    )
    out_console.print(f"appearance {stats}")
    if survey.pencil_sections:
        err_console.print(
            "warning: these sections look drawn to the reader; check that the sheet is blank there: "
            + ", ".join(survey.pencil_sections)
        )
    for path in written:
        out_console.print(f"wrote      {path}", highlight=False)


@app.command()
def calibrate(
    blank: Annotated[Path, typer.Argument(help="Photo or scan of an unfilled sheet of the print (image or PDF).")],
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="Calibration file to write (.json); the blank map is saved beside it as a PNG."
        ),
    ],
    overlay: Annotated[
        Path | None, typer.Option("--overlay", help="Write what was found over the picture (PNG), to check by eye.")
    ] = None,
    base: Annotated[
        Path | None,
        typer.Option(
            "--base", help="Calibration to start from: map data and score-zone layout (default: bundled London)."
        ),
    ] = None,
) -> None:
    """Teach nsvision a print: find its lattice, score boxes and tourist track, and record how it looks.

    Use the result with 'nsvision score --calibration FILE'. Exit code: 0 written, 4 unreadable
    input, 6 not a blank London sheet (no map, lines drawn, score zone not found).
    """
    survey, written = guarded(lambda: run_calibration(blank, out, base, overlay))
    _report(survey, written)
