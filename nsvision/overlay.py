"""Overlay images: what was read, drawn over the straightened sheet, and close-ups of the sections a
person is asked to look at, so that a reading can be checked at a glance."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from nsvision.errors import InputError
from nsvision.game.board import LINE_COLOURS, Colour, Section, parse_section_name, parse_station_name
from nsvision.pipeline import SheetReport
from nsvision.vision.channels import channel_min
from nsvision.vision.closeups import CLOSEUP_MAX, CLOSEUP_PX, closeup_square
from nsvision.vision.straighten import Straightened

_BGR = {"purple": (150, 40, 110), "blue": (220, 120, 0), "pink": (130, 30, 235), "green": (40, 170, 40)}
SCALE = 2
"""The overlay is drawn at twice the canonical resolution so labels stay legible."""
CLOSEUP_GAIN = (1.5, 6.0)
"""The second view of a close-up, on paper evened out (``Straightened.density``: the light's
unevenness and colour cast taken away): each thin mark's optical density, its grey part (the least
of its three channels) times the first number and its colour (the rest) times the second. Grey
guides stay light, and a light stroke shows plainly in its pencil's colour."""
_ORANGE = (0, 140, 255)


def render_overlay(report: SheetReport, closeups: bool = True) -> np.ndarray:
    """A BGR image of the straightened map with each read line, doubtful sections and rule breaks
    marked; below it, with ``closeups``, the sections a person is asked to check seen close
    (``render_closeups``), when there are any.

    Legend: solid lines = read sections in their colour (two thin ones side by side: drawn in both);
    dashed orange with "?" = in doubt; thin dotted orange = worth a look on a sheet that needs review
    (read as not drawn, or where the tourist track disagrees, a section to a tourist site);
    red rings/crosses = stations or sections named by a violation; grey rings = station symbols
    that registration had to predict (not seen). Sections in doubt or worth a look are labelled
    with their name, and the lattice's columns and rows are numbered in the margin.
    """
    if report.straightened is None or report.registration is None:
        raise ValueError("an overlay needs a report read from an image")
    st = report.straightened
    base = cv2.cvtColor(st.image, cv2.COLOR_RGB2BGR)
    base = cv2.resize(base, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_CUBIC)
    img = (base.astype(np.float32) * 0.55 + 255 * 0.45).astype(np.uint8)

    def px(p: tuple[int, int]) -> tuple[int, int]:
        x, y = st.lattice_to_px(*p)
        return int(round(x * SCALE)), int(round(y * SCALE))

    width = max(3, st.px_per_pitch * SCALE // 14)
    # A section drawn twice shows both pencils side by side, each half the width.
    drawn_in: dict[Section, list[Colour]] = {}
    for colour, s in report.network.all_sections():
        drawn_in.setdefault(s, []).append(colour)
    for colour in LINE_COLOURS:
        for s in report.network.sections(colour):
            both = drawn_in[s]
            if len(both) == 1:
                cv2.line(img, px(s.a), px(s.b), _BGR[colour], width, cv2.LINE_AA)
                continue
            a, b = np.array(px(s.a), float), np.array(px(s.b), float)
            side = np.array([a[1] - b[1], b[0] - a[0]]) / max(float(np.linalg.norm(b - a)), 1e-9)
            shift = side * width * (both.index(colour) - (len(both) - 1) / 2) / 2
            p0, p1 = tuple((a + shift).astype(int)), tuple((b + shift).astype(int))
            cv2.line(img, p0, p1, _BGR[colour], max(2, width // 2), cv2.LINE_AA)
    if report.reading is not None:
        for r in report.reading.doubtful:
            a, b = np.array(px(r.section.a), float), np.array(px(r.section.b), float)
            n = max(2, int(np.linalg.norm(b - a) / 12))
            for k in range(0, n, 2):
                p0 = a + (b - a) * k / n
                p1 = a + (b - a) * (k + 1) / n
                cv2.line(img, tuple(p0.astype(int)), tuple(p1.astype(int)), _ORANGE, width, cv2.LINE_AA)
            mid = ((a + b) / 2).astype(int)
            _label(img, f"? {r.section.name}", (int(mid[0]) + 4, int(mid[1]) - 4), (0, 90, 230))
    for s, _why in report.also_check:
        a, b = np.array(px(s.a), float), np.array(px(s.b), float)
        n = max(2, int(np.linalg.norm(b - a) / 8))
        for k in range(n + 1):
            cv2.circle(img, tuple((a + (b - a) * k / n).astype(int)), max(2, width // 2), _ORANGE, -1, cv2.LINE_AA)
        mid = ((a + b) / 2).astype(int)
        _label(img, s.name, (int(mid[0]) + 4, int(mid[1]) - 4), (0, 110, 200))
    # Lattice numbers in the margin: a person names a section "x,y-x,y" by them (``--fix``).
    for i in range(10):
        cx, top = px((i, 0))
        _label(img, str(i), (cx - 6, top - int(0.22 * st.px_per_pitch * SCALE)), (90, 90, 90))
        left, cy = px((0, i))
        _label(img, str(i), (left - int(0.45 * st.px_per_pitch * SCALE), cy + 8), (90, 90, 90))
    found = report.registration.found
    r_px = int(st.px_per_pitch * SCALE * 0.3)
    for p in report.registration.station_xy_px:
        if p not in found:
            cv2.circle(img, px(p), r_px, (150, 150, 150), 2, cv2.LINE_AA)
    for v in report.violations:
        for name in v.stations:
            try:
                cv2.circle(img, px(parse_station_name(name)), r_px + 4, (0, 0, 230), 3, cv2.LINE_AA)
            except ValueError:
                continue
        for name in v.sections:
            try:
                section = parse_section_name(name)
            except ValueError:
                continue
            a, b = np.array(px(section.a)), np.array(px(section.b))
            mid = ((a + b) // 2).astype(int)
            d = r_px // 2
            cv2.line(img, (int(mid[0]) - d, int(mid[1]) - d), (int(mid[0]) + d, int(mid[1]) + d), (0, 0, 230), 3)
            cv2.line(img, (int(mid[0]) - d, int(mid[1]) + d), (int(mid[0]) + d, int(mid[1]) - d), (0, 0, 230), 3)
    status = {"ok": "legal", "rules_broken": "rules broken", "needs_review": "NEEDS REVIEW"}[report.status]
    banner = f"total {report.total} - {status}"
    cv2.rectangle(img, (0, 0), (img.shape[1], 34), (255, 255, 255), -1)
    cv2.putText(img, banner, (8, 25), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2, cv2.LINE_AA)
    strip = render_closeups(report, img.shape[1]) if closeups else None
    return img if strip is None else np.vstack([img, strip])


def closeup_captions(report: SheetReport) -> list[tuple[Section, str]]:
    """The sections a person is asked to look at (``SheetReport.sections_to_check``), each with a
    caption: what a section in doubt was read as, and how sure; or that it is worth a look."""
    if report.reading is None:
        return []
    read = report.reading.sections
    return [
        (s, f"? {s.name}: {read[s].as_read}, {read[s].confidence:.0%}")
        if read[s].doubtful
        else (s, f"{s.name}: {read[s].as_read}, worth a look")
        for s in report.sections_to_check
    ]


def render_closeups(report: SheetReport, width: int, size: int = CLOSEUP_PX) -> np.ndarray | None:
    """A BGR strip ``width`` px wide: for each section to check (``closeup_captions``, at most
    ``CLOSEUP_MAX``), the square round it (``closeup_square``) twice in ``size`` px, as photographed
    and with the pencils' colour strengthened, an orange dot at each of its two stations; ``None``
    when there is nothing to check or no picture. The square is the picture's own close-up when the
    sheet was read with them (``SheetReport.closeups``), else the straightened map's. The overlay's
    lines cover the pencil they stand for; here a person sees it without leaving the report."""
    st = report.straightened
    wanted = closeup_captions(report)
    if st is None or not wanted:
        return None
    scale = 0.7 * min(1.0, size / CLOSEUP_PX)
    gap, gutter, caption = 6, 24, int(48 * scale)
    pair = 2 * size + gap
    per_row = max(1, (width - 8 + gutter) // (pair + gutter))
    shown = wanted[:CLOSEUP_MAX]
    rows = -(-len(shown) // per_row)
    strip = np.full((caption + rows * (caption + size + gutter), width, 3), 255, np.uint8)
    heading = "close-ups: as photographed | pencil strengthened"
    if len(wanted) > len(shown):
        heading += f" ({len(wanted) - len(shown)} more not shown)"
    _label(strip, heading, (8, caption - 10), (60, 60, 60), _fitting(heading, width - 16, scale))
    straight_views: tuple[np.ndarray, np.ndarray] | None = None
    paper: np.ndarray | None = None
    for i, (section, text) in enumerate(shown):
        x0 = (i % per_row) * (pair + gutter) + 8
        y0 = caption + (i // per_row) * (caption + size + gutter)
        bgr = (0, 90, 230) if text.startswith("?") else (0, 110, 200)
        _label(strip, text, (x0, y0 + caption - 10), bgr, _fitting(text, min(pair, width - x0), scale))
        (cx, cy), side = closeup_square(section)
        centre = np.array(st.lattice_to_px(cx, cy))
        own = report.closeups.get(section)
        if own is not None:
            photographed = cv2.cvtColor(own, cv2.COLOR_RGB2BGR)
            n, side_px = photographed.shape[0], side * st.px_per_pitch
            paper = _paper(st) if paper is None else paper
            ignore = _square(st.ignore.astype(np.uint8), centre, side_px, n, cv2.INTER_NEAREST) > 0
            views = [
                photographed,
                _strengthened(photographed, _square(paper, centre, side_px, n, cv2.INTER_LINEAR), ignore),
            ]
            views = [cv2.resize(v, (size, size), interpolation=cv2.INTER_AREA) for v in views]
        else:
            if straight_views is None:
                straight_views = (cv2.cvtColor(st.image, cv2.COLOR_RGB2BGR), pencil_view(st))
            views = [_square(v, centre, side * st.px_per_pitch, size) for v in straight_views]
        for k, tile in enumerate(views):
            for station in (section.a, section.b):
                q = ((np.array(station, float) - (cx, cy)) / side + 0.5) * size
                cv2.circle(tile, (int(q[0]), int(q[1])), 4, _ORANGE, -1, cv2.LINE_AA)
            x = x0 + k * (size + gap)
            strip[y0 + caption : y0 + caption + size, x : x + size] = tile[:, : max(0, width - x)]
    return strip


def _fitting(text: str, width: int, scale: float) -> float:
    """``scale``, or less so that ``text`` fits in ``width`` px."""
    (w, _h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    return scale * min(1.0, width / max(w, 1))


def pencil_view(st: Straightened) -> np.ndarray:
    """The straightened picture (BGR) with the pencils' colour strengthened (``CLOSEUP_GAIN``) on
    paper evened out; dark print (rings, symbols), where no thin mark is measured, as photographed."""
    photographed = cv2.cvtColor(st.image, cv2.COLOR_RGB2BGR)
    return _colour_strengthened(np.ascontiguousarray(st.density[..., ::-1]), photographed, st.ignore)


def _paper(st: Straightened) -> np.ndarray:
    """The level each straightened pixel's thin marks were measured against (BGR, float32): the paper
    and the print without the marks, recovered from the picture and ``Straightened.density``."""
    return ((st.image.astype(np.float32) + 4.0) * np.exp(st.density) - 4.0)[..., ::-1]


def _strengthened(photographed: np.ndarray, paper: np.ndarray, ignore: np.ndarray) -> np.ndarray:
    """A close-up from the picture itself (BGR) with the pencils' colour strengthened over ``paper``
    (``_paper``'s, resampled to the close-up): the reader's own measure, at the picture's resolution."""
    density = -np.log((photographed.astype(np.float32) + 4.0) / (np.maximum(paper, 0.0) + 4.0))
    return _colour_strengthened(density, photographed, ignore)


def _colour_strengthened(density: np.ndarray, photographed: np.ndarray, ignore: np.ndarray) -> np.ndarray:
    """Optical density of thin marks (any channel order) shown as ``CLOSEUP_GAIN`` says, in the same
    channel order; where ``ignore`` (dark print), the picture as photographed."""
    density = np.clip(density, 0, None)
    grey = channel_min(density)[..., None]
    shown = CLOSEUP_GAIN[0] * grey + CLOSEUP_GAIN[1] * (density - grey)
    view = (255 * np.exp(-shown)).astype(np.uint8)
    view[ignore] = photographed[ignore]
    return view


def _square(
    image: np.ndarray, centre: np.ndarray, side: float, size: int, interpolation: int = cv2.INTER_CUBIC
) -> np.ndarray:
    """The square of ``side`` px of ``image`` round ``centre``, white beyond its edge, resized to ``size``."""
    half = side / 2
    x0, y0 = int(round(centre[0] - half)), int(round(centre[1] - half))
    n = int(round(side))
    out = np.full((n, n, *image.shape[2:]), 255, image.dtype)
    h, w = image.shape[:2]
    sx0, sy0, sx1, sy1 = max(0, x0), max(0, y0), min(w, x0 + n), min(h, y0 + n)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = image[sy0:sy1, sx0:sx1]
    return cv2.resize(out, (size, size), interpolation=interpolation)


def _label(img: np.ndarray, text: str, origin: tuple[int, int], bgr: tuple[int, int, int], scale: float = 0.7) -> None:
    """Text in ``bgr`` with a white outline, legible over lines and print alike."""
    for colour, thickness in (((255, 255, 255), 5), (bgr, 2)):
        cv2.putText(img, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv2.LINE_AA)


def write_image(path: str | Path, image_bgr: np.ndarray) -> Path:
    """Write a BGR image; the format follows the extension (PNG when there is none)."""
    path = Path(path)
    if not path.suffix:
        path = path.with_suffix(".png")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        ok = cv2.imwrite(str(path), image_bgr)
    except cv2.error as exc:
        raise InputError(str(path), f"cannot write the image ({exc.msg})", "use a .png or .jpg name") from None
    if not ok:
        raise InputError(str(path), "cannot write the image", "check the folder exists and use a .png or .jpg name")
    return path


def page_path(path: str | Path, page: int, pages: int) -> Path:
    """``out.png`` for a single sheet, ``out-p2.png`` for page 2 of several."""
    path = Path(path)
    if pages <= 1:
        return path
    return path.with_name(f"{path.stem}-p{page}{path.suffix or '.png'}")


def write_debug_images(report: SheetReport, folder: str | Path) -> list[Path]:
    """Intermediate images of one sheet, named by page and stage."""
    folder = Path(folder)
    out: list[Path] = []
    if report.straightened is None:
        return out
    st = report.straightened
    stem = f"p{report.page}"
    out.append(write_image(folder / f"{stem}-1-straightened.png", cv2.cvtColor(st.image, cv2.COLOR_RGB2BGR)))
    dens = np.clip(st.density * 255 / 1.5, 0, 255).astype(np.uint8)
    out.append(write_image(folder / f"{stem}-2-stroke-density.png", 255 - dens[..., ::-1]))
    out.append(write_image(folder / f"{stem}-3-overlay.png", render_overlay(report)))
    # The whole map as the close-ups' second view shows it: every pencil mark, read or not, uncovered.
    out.append(write_image(folder / f"{stem}-4-pencil-strengthened.png", pencil_view(st)))
    return out
