"""Visual styles of the printed sheet: colours, line widths and margins, never geometry.

Every style draws the same sheet geometry (``calibration.sheet``) in sheet units; a style only
changes how it looks. ``"print"`` follows RULES.md §5 (the real print); ``"cream"`` is a
deliberately different look so that the reader can be tested on a print it was not tuned on;
``"slate"`` and ``"mono"`` (the print from a black-and-white printer) are never used for tuning.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

import numpy as np

from nsvision.game.board import LINE_COLOURS, Colour

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class SheetStyle:
    """How a blank sheet looks. Lengths are in sheet units (the sheet is 532 × 924 units)."""

    name: str
    paper_rgb: RGB
    ink_rgb: RGB
    """Station rings and symbols."""
    station_fill_rgb: RGB
    ring_width: float
    """Width of the ring around each station disc."""
    symbol_width: float
    """Outline width of the symbol inside a station."""
    departure_rgb: tuple[RGB, ...]
    """Fill of the departure discs, in ``LINE_COLOURS`` order."""
    departure_symbol_rgb: RGB
    tourist_mark: Literal["compass", "bold_ring"]
    """A spiky compass ring around tourist sites, or a second bold circle."""
    central_mark: Literal["question", "star"]
    river_rgb: RGB
    river_alpha: float
    """Opacity of the river band over the paper (1 = opaque)."""
    river_width: float
    """Width of the river band, in lattice pitches."""
    bank_rgb: RGB | None
    """Thin lines along both banks, or ``None`` for none."""
    bank_width: float
    guide_rgb: RGB
    guide_width: float
    guide_dash: tuple[float, float]
    """Dash and gap lengths of the guide lines; a zero gap draws them solid."""
    asterisk_rgb: RGB
    asterisk_size: float
    """Arm length of the mark at empty lattice points (0 = no mark)."""
    border_rgb: RGB
    border_width: float
    """District borders."""
    map_frame_rgb: RGB | None
    """A frame around the map square, or ``None``."""
    score_zone_rgb: RGB
    box_fill_rgb: RGB
    box_line_rgb: RGB
    box_line_width: float
    label_rgb: RGB
    header: Literal["skyline", "blocks"]
    header_sky_rgb: tuple[RGB, RGB]
    """Header background, top and bottom of a vertical gradient."""
    header_ink_rgb: RGB
    title_rgb: RGB
    page_margin: float
    """Blank paper added around the sheet on every side (moves sheet point (0, 0) in the image)."""
    margin_rgb: RGB
    font: int
    """An OpenCV Hershey font id for labels and the title."""
    window_rgb: RGB = (250, 226, 140)
    """The lit windows of the header's skyline."""
    clock_rgb: RGB = (250, 240, 200)
    """The clock face on the header's tower."""
    river_over_guides: bool = False
    """The river band printed over the guides and borders (which then show through it, darkened by
    it, as far as it is transparent) instead of under them."""

    def departure_colour(self, colour: Colour) -> RGB:
        return self.departure_rgb[LINE_COLOURS.index(colour)]


# OpenCV Hershey font ids, spelled out so this module needs no cv2 import.
_FONT_DUPLEX = 2
_FONT_TRIPLEX = 4

PRINT = SheetStyle(
    name="print",
    paper_rgb=(251, 251, 248),
    ink_rgb=(33, 42, 92),
    station_fill_rgb=(255, 255, 255),
    ring_width=3.4,
    symbol_width=1.5,
    departure_rgb=((96, 47, 147), (0, 173, 239), (237, 18, 123), (64, 185, 60)),
    departure_symbol_rgb=(255, 255, 255),
    tourist_mark="compass",
    central_mark="question",
    river_rgb=(0, 171, 191),
    river_alpha=0.55,
    river_width=0.35,
    bank_rgb=(20, 95, 170),
    bank_width=0.8,
    guide_rgb=(168, 170, 176),
    guide_width=1.0,
    guide_dash=(4.0, 3.0),
    asterisk_rgb=(150, 152, 160),
    asterisk_size=3.2,
    border_rgb=(255, 242, 0),
    border_width=2.2,
    map_frame_rgb=(33, 42, 92),
    score_zone_rgb=(255, 226, 40),
    box_fill_rgb=(255, 255, 255),
    box_line_rgb=(33, 42, 92),
    box_line_width=1.4,
    label_rgb=(33, 42, 92),
    header="skyline",
    header_sky_rgb=((120, 196, 232), (214, 238, 248)),
    header_ink_rgb=(33, 42, 92),
    title_rgb=(237, 18, 123),
    page_margin=0.0,
    margin_rgb=(255, 255, 255),
    font=_FONT_DUPLEX,
)

CREAM = SheetStyle(
    name="cream",
    paper_rgb=(246, 236, 212),
    ink_rgb=(22, 22, 24),
    station_fill_rgb=(252, 248, 236),
    ring_width=2.2,
    symbol_width=1.9,
    departure_rgb=((120, 70, 160), (40, 130, 215), (220, 50, 120), (70, 160, 70)),
    departure_symbol_rgb=(20, 20, 20),
    tourist_mark="bold_ring",
    central_mark="star",
    river_rgb=(70, 120, 205),
    river_alpha=0.85,
    river_width=0.3,
    bank_rgb=None,
    bank_width=0.0,
    guide_rgb=(196, 188, 170),
    guide_width=1.5,
    guide_dash=(1.0, 0.0),
    asterisk_rgb=(150, 140, 120),
    asterisk_size=0.0,
    border_rgb=(232, 170, 60),
    border_width=1.4,
    map_frame_rgb=None,
    score_zone_rgb=(238, 222, 170),
    box_fill_rgb=(252, 248, 236),
    box_line_rgb=(22, 22, 24),
    box_line_width=2.2,
    label_rgb=(22, 22, 24),
    header="blocks",
    header_sky_rgb=((205, 70, 60), (225, 120, 70)),
    header_ink_rgb=(22, 22, 24),
    title_rgb=(252, 248, 236),
    page_margin=30.0,
    margin_rgb=(255, 255, 255),
    font=_FONT_TRIPLEX,
)

SLATE = dataclasses.replace(
    CREAM,
    name="slate",
    paper_rgb=(236, 240, 244),
    ink_rgb=(84, 36, 30),
    station_fill_rgb=(246, 248, 250),
    ring_width=2.8,
    symbol_width=1.3,
    tourist_mark="compass",
    central_mark="question",
    river_rgb=(120, 180, 110),
    river_alpha=0.6,
    river_width=0.45,
    guide_rgb=(180, 186, 196),
    guide_dash=(2.0, 2.5),
    border_rgb=(240, 150, 200),
    score_zone_rgb=(196, 222, 240),
    box_fill_rgb=(255, 255, 255),
    box_line_rgb=(84, 36, 30),
    box_line_width=1.7,
    label_rgb=(84, 36, 30),
    header="skyline",
    page_margin=12.0,
)
"""A third print, never used to tune the reader: brown ink on blue-grey paper, a green river, pink
borders, dashed guides. Calibration tests and ``bench/calibrated.py`` teach nsvision this print."""


def monochrome(style: SheetStyle, name: str) -> SheetStyle:
    """``style`` printed on a black-and-white printer (or photocopied): every printed colour becomes
    the grey of its luminance. The departure discs, the Thames and the district borders keep their
    place and lose their colour; only the pencil is coloured."""

    def grey(value: object) -> object:
        if isinstance(value, tuple) and len(value) == 3 and all(isinstance(v, int) for v in value):
            r, g, b = value
            level = round(0.299 * r + 0.587 * g + 0.114 * b)
            return (level, level, level)
        if isinstance(value, tuple) and value and all(isinstance(v, tuple) for v in value):
            return tuple(grey(v) for v in value)
        return value

    colours = {f.name: grey(getattr(style, f.name)) for f in dataclasses.fields(style) if f.name != "name"}
    return dataclasses.replace(style, name=name, **colours)  # type: ignore[arg-type]


MONO = monochrome(PRINT, "mono")
"""The real print's layout from a black-and-white printer or a photocopier, as many players print
their sheets at home: grey discs, a grey Thames, grey borders. Never used to tune the reader."""

OVERLAID = dataclasses.replace(PRINT, name="overlaid", river_over_guides=True)
"""The real print's colours with its semi-transparent Thames laid over the guides, not under them:
the guides' dashes show through the band darker than it. Which way the real sheet lays them is not
known here; never used to tune the reader."""

STYLES: dict[str, SheetStyle] = {s.name: s for s in (PRINT, CREAM, SLATE, MONO, OVERLAID)}
"""The known styles by name; ``"print"`` is the default."""


def get_style(style: str | SheetStyle) -> SheetStyle:
    """A style by name (or the style itself); ``"unseen-<n>"`` is ``random_style(n)``, and
    ``"overlaid-<n>"`` the same print with its river laid over the guides. ``KeyError`` names the
    known styles."""
    if isinstance(style, SheetStyle):
        return style
    if style.startswith(UNSEEN_PREFIX) and style[len(UNSEEN_PREFIX) :].isdigit():
        return random_style(int(style[len(UNSEEN_PREFIX) :]))
    if style.startswith(OVERLAID_PREFIX) and style[len(OVERLAID_PREFIX) :].isdigit():
        seed = int(style[len(OVERLAID_PREFIX) :])
        return dataclasses.replace(random_style(seed), name=style, river_over_guides=True)
    try:
        return STYLES[style]
    except KeyError:
        known = ", ".join([*STYLES, UNSEEN_PREFIX + "<n>", OVERLAID_PREFIX + "<n>"])
        raise KeyError(f"unknown sheet style {style!r}; expected one of {known}") from None


UNSEEN_PREFIX = "unseen-"
"""Names of the random prints of ``random_style``: ``unseen-0``, ``unseen-1``, ..."""
OVERLAID_PREFIX = "overlaid-"
"""Names of the same random prints with the river laid over the guides (``river_over_guides``), as
on a sheet whose semi-transparent Thames is printed over them: ``overlaid-0``, ``overlaid-1``, ..."""


def random_style(seed: int) -> SheetStyle:
    """A print nobody tuned the reader on: colours, widths and marks drawn at random around the
    known styles (navy, black or brown ink; thin or thick rings; a teal, blue or green river of any
    opacity, with or without banks; grey guides, dashed or solid; yellow, orange, pink, green or red
    borders). Geometry is never changed. Named ``unseen-<seed>`` (``get_style`` knows it); deterministic."""
    rng = np.random.default_rng([seed, 0x57E1])

    def pick(options: tuple[RGB, ...]) -> RGB:
        return options[int(rng.integers(len(options)))]

    grey = int(rng.integers(150, 210))
    tint = rng.integers(-12, 13, 3)
    return dataclasses.replace(
        (PRINT, CREAM, SLATE)[int(rng.integers(3))],
        name=f"{UNSEEN_PREFIX}{seed}",
        paper_rgb=tuple(int(v) for v in 248 - rng.integers(0, 20, 3)),  # type: ignore[arg-type]
        ink_rgb=pick(((33, 42, 92), (20, 20, 20), (84, 36, 30), (40, 40, 60), (10, 60, 90))),
        ring_width=float(rng.uniform(1.6, 4.2)),
        symbol_width=float(rng.uniform(1.0, 2.2)),
        tourist_mark=("compass", "bold_ring")[int(rng.integers(2))],
        central_mark=("question", "star")[int(rng.integers(2))],
        river_rgb=pick(((0, 171, 191), (70, 120, 205), (120, 180, 110), (90, 170, 220), (40, 160, 170))),
        river_alpha=float(rng.uniform(0.45, 1.0)),
        river_width=float(rng.uniform(0.25, 0.45)),
        bank_rgb=(None, (20, 95, 170))[int(rng.integers(2))],
        bank_width=float(rng.uniform(0.5, 1.0)),
        guide_rgb=tuple(int(v) for v in np.clip(grey + tint, 0, 255)),  # type: ignore[arg-type]
        guide_width=float(rng.uniform(0.7, 1.6)),
        guide_dash=((4.0, 3.0), (1.0, 0.0), (2.0, 2.5), (6.0, 2.0))[int(rng.integers(4))],
        border_rgb=pick(((255, 242, 0), (232, 170, 60), (240, 150, 200), (120, 200, 90), (230, 90, 40))),
        border_width=float(rng.uniform(1.2, 2.6)),
        page_margin=float(rng.uniform(0.0, 30.0)),
    )
