"""``nsvision sample``: render filled sheets with known ground truth (photo, scan, clean or blank)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nsvision.calibration import load_calibration
from nsvision.cli.app import app, guarded, out_console
from nsvision.errors import InputError
from nsvision.render.pencil import HANDS, PENCIL_SETS
from nsvision.render.sample import FORMATS, MODES, make_sample, write_sample
from nsvision.render.style import OVERLAID_PREFIX, STYLES, UNSEEN_PREFIX, get_style

_CLI_MODES = (*MODES, "blank")


def _check_choice(option: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InputError(option, f"unknown value {value!r}", f"use one of {', '.join(choices)}")


def write_samples(
    out: Path,
    seed: int,
    mode: str,
    style: str,
    strength: float,
    count: int,
    violation: str | None,
    fmt: str | None,
    pages: int,
    px_per_unit: float | None,
    dpi: int,
    *,
    megapixels: float | None,
    blank: bool,
    advanced: bool,
    calibration: Path | None,
    pencils: str = "default",
    hand: str = "default",
) -> list[Path]:
    _check_choice("--mode", mode, _CLI_MODES)
    _check_choice("--pencils", pencils, tuple(PENCIL_SETS))
    _check_choice("--hand", hand, tuple(HANDS))
    try:
        get_style(style)
    except KeyError:
        raise InputError(
            "--style",
            f"unknown value {style!r}",
            f"use one of {', '.join(STYLES)}, {UNSEEN_PREFIX}N or {OVERLAID_PREFIX}N",
        ) from None
    if fmt is not None:
        _check_choice("--format", {"jpeg": "jpg", "tif": "tiff", "heif": "heic"}.get(fmt, fmt), FORMATS)
    if count < 1:
        raise InputError("--count", f"must be at least 1, got {count}")
    cal = load_calibration(calibration)
    render_mode = "clean" if mode == "blank" else mode
    blank = blank or mode == "blank"
    chosen = fmt or ("jpg" if render_mode == "photo" else "png")
    written: list[Path] = []
    for s in range(seed, seed + count):
        try:
            sample = make_sample(
                cal,
                s,
                mode=render_mode,
                style=style,
                strength=strength,
                violation=violation,
                blank=blank,
                pages=pages,
                dpi=dpi,
                px_per_unit=px_per_unit,
                megapixels=megapixels,
                advanced=advanced,
                pencils=pencils,
                hand=hand,
            )
        except ValueError as exc:
            raise InputError("nsvision sample", str(exc), "check the options (see nsvision sample --help)") from None
        target = out if count == 1 else out / f"seed-{s}"
        try:
            written.extend(write_sample(sample, target, chosen))
        except OSError as exc:
            raise InputError(str(target), f"cannot write ({exc.strerror or exc})", "check the --out folder") from None
    return written


@app.command()
def sample(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the image(s) and expected.json into.")],
    seed: Annotated[int, typer.Option("--seed", help="Seed of the game and of the picture.")] = 7,
    mode: Annotated[str, typer.Option("--mode", help=f"One of {', '.join(_CLI_MODES)}.")] = "photo",
    style: Annotated[
        str,
        typer.Option(
            "--style",
            help=f"Sheet style: {', '.join(STYLES)}, {UNSEEN_PREFIX}N (a random unseen print), or "
            f"{OVERLAID_PREFIX}N (the same with its Thames printed over the guides).",
        ),
    ] = "print",
    strength: Annotated[
        float, typer.Option("--strength", min=0.0, max=1.0, help="How hard the picture is: 0 easy, 1 hardest.")
    ] = 0.5,
    count: Annotated[int, typer.Option("--count", help="Samples of seeds seed..seed+N-1, one sub-folder each.")] = 1,
    violation: Annotated[
        str | None, typer.Option("--violation", help="Break this rule on purpose (a violation code).")
    ] = None,
    fmt: Annotated[
        str | None, typer.Option("--format", help=f"{', '.join(FORMATS)} (default: jpg for photos, else png).")
    ] = None,
    pages: Annotated[
        int, typer.Option("--pages", min=1, help="Sheets per sample (one file per page; pdf: one file).")
    ] = 1,
    px_per_unit: Annotated[
        float | None, typer.Option("--px-per-unit", help="Resolution of clean/blank sheets (default 4).")
    ] = None,
    dpi: Annotated[int, typer.Option("--dpi", min=150, max=600, help="Scan resolution.")] = 300,
    megapixels: Annotated[
        float | None,
        typer.Option("--megapixels", min=0.1, max=50.0, help="Scale the phone frame to this size (default 8–12 MP)."),
    ] = None,
    blank: Annotated[bool, typer.Option("--blank", help="Leave the sheet unused (score 0), in any mode.")] = False,
    advanced: Annotated[
        bool, typer.Option("--advanced", help="Play two shared objectives and circle stations (pencil power).")
    ] = False,
    calibration: Annotated[
        Path | None, typer.Option("--calibration", help="Calibration file (default: the bundled London print).")
    ] = None,
    pencils: Annotated[
        str, typer.Option("--pencils", help=f"The player's pencil set: {', '.join(PENCIL_SETS)}.")
    ] = "default",
    hand: Annotated[
        str,
        typer.Option("--hand", help=f"How far the player's strokes stray from the guides: {', '.join(HANDS)}."),
    ] = "default",
) -> None:
    """Render sheets with known ground truth: the image(s) and an expected.json per sample."""
    paths = guarded(
        lambda: write_samples(
            out,
            seed,
            mode,
            style,
            strength,
            count,
            violation,
            fmt,
            pages,
            px_per_unit,
            dpi,
            megapixels=megapixels,
            blank=blank,
            advanced=advanced,
            calibration=calibration,
            pencils=pencils,
            hand=hand,
        )
    )
    for p in paths:
        out_console.print(str(p), highlight=False)
