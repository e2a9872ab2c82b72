"""The blank printed sheet (RULES.md §5), drawn from the calibration at any resolution.

Coordinates: sheet units ``(u, v)`` (the sheet is 532 × 924 units, portrait, origin top-left)
map to image pixels ``x = origin_x + u * px_per_unit``; pixel centres sit at integer pixel
coordinates (the OpenCV convention), so sheet point ``(0, 0)`` is the centre of pixel (0, 0)
when the style has no page margin.

Everything is drawn with OpenCV anti-aliased primitives at sub-pixel precision, so the same
sheet renders cleanly from ~1.5 px per unit (a far-away photo) to 8 px per unit (a 600 dpi scan).
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

from nsvision.calibration import Calibration
from nsvision.game.board import CENTRAL
from nsvision.render.style import RGB, SheetStyle, get_style

_SHIFT = 4
"""Fractional bits of OpenCV drawing coordinates: 1/16 px precision."""
_ONE = 1 << _SHIFT

_CACHE_SIZE = 6
"""Blank sheets kept per process: a photo sweep reuses a handful of resolutions."""
_CACHE: OrderedDict[tuple[int, SheetStyle, float], tuple[Calibration, RenderedSheet]] = OrderedDict()


@dataclass(frozen=True, eq=False)
class RenderedSheet:
    """A sheet image with the mapping from sheet units to its pixels."""

    image: np.ndarray
    """(H, W, 3) uint8 RGB. Blank sheets from the cache are read-only; draw on a copy."""
    px_per_unit: float
    """Image pixels per sheet unit."""
    origin_px: tuple[float, float]
    """Image position of sheet point (0, 0); non-zero when the style adds a page margin."""
    style: str = "print"
    """Name of the style the sheet was printed in."""

    def sheet_to_px(self, u: float, v: float) -> tuple[float, float]:
        """Image pixel position ``(x, y)`` of sheet point ``(u, v)``."""
        return (self.origin_px[0] + u * self.px_per_unit, self.origin_px[1] + v * self.px_per_unit)

    @property
    def sheet_to_px_matrix(self) -> np.ndarray:
        """3x3 affine matrix: sheet units -> image px."""
        s = self.px_per_unit
        return np.array([[s, 0.0, self.origin_px[0]], [0.0, s, self.origin_px[1]], [0.0, 0.0, 1.0]])


def render_blank(
    calibration: Calibration, style: str | SheetStyle = "print", px_per_unit: float = 4.0
) -> RenderedSheet:
    """The empty printed sheet at ``px_per_unit`` pixels per sheet unit (cached; the image is read-only)."""
    if not 0.5 <= px_per_unit <= 16.0:
        raise ValueError(f"px_per_unit must lie between 0.5 and 16, got {px_per_unit}")
    st = get_style(style)
    key = (id(calibration), st, float(px_per_unit))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is calibration:
        _CACHE.move_to_end(key)
        return hit[1]
    sheet = _draw_blank(calibration, st, float(px_per_unit))
    sheet.image.setflags(write=False)
    _CACHE[key] = (calibration, sheet)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return sheet


class _Canvas:
    """Draws in sheet units onto an RGB image (mutates ``img``; private to this module)."""

    def __init__(self, img: np.ndarray, ppu: float, origin: tuple[float, float]) -> None:
        self.img = img
        self.ppu = ppu
        self.origin = origin

    def px(self, u: float, v: float) -> tuple[float, float]:
        return (self.origin[0] + u * self.ppu, self.origin[1] + v * self.ppu)

    def pt(self, u: float, v: float) -> tuple[int, int]:
        x, y = self.px(u, v)
        return (round(x * _ONE), round(y * _ONE))

    def pts(self, points: list[tuple[float, float]]) -> np.ndarray:
        return np.array([self.pt(u, v) for u, v in points], dtype=np.int32)

    def width(self, w: float) -> int:
        return max(1, round(w * self.ppu))

    def line(self, a: tuple[float, float], b: tuple[float, float], rgb: RGB, w: float) -> None:
        cv2.line(self.img, self.pt(*a), self.pt(*b), rgb, self.width(w), cv2.LINE_AA, _SHIFT)

    def circle(self, c: tuple[float, float], r: float, rgb: RGB, w: float | None = None) -> None:
        thickness = -1 if w is None else self.width(w)
        cv2.circle(self.img, self.pt(*c), round(r * self.ppu * _ONE), rgb, thickness, cv2.LINE_AA, _SHIFT)

    def poly(self, points: list[tuple[float, float]], rgb: RGB, w: float | None = None, closed: bool = True) -> None:
        p = self.pts(points)
        if w is None:
            cv2.fillPoly(self.img, [p], rgb, cv2.LINE_AA, _SHIFT)
        else:
            cv2.polylines(self.img, [p], closed, rgb, self.width(w), cv2.LINE_AA, _SHIFT)

    def rect(self, x: float, y: float, w: float, h: float, rgb: RGB, line: float | None = None) -> None:
        self.poly([(x, y), (x + w, y), (x + w, y + h), (x, y + h)], rgb, line)

    def text(
        self,
        s: str,
        centre: tuple[float, float],
        height: float,
        rgb: RGB,
        font: int,
        weight: float = 0.12,
        anchor: str = "centre",
    ) -> None:
        """Text whose capital height is ``height`` units; ``weight`` is the stroke width relative to it."""
        thickness = max(1, round(height * weight * self.ppu))
        (tw, th), _ = cv2.getTextSize(s, font, 1.0, thickness)
        scale = height * self.ppu / max(th, 1)
        (tw, th), _ = cv2.getTextSize(s, font, scale, thickness)
        x, y = self.px(*centre)
        left = x - tw / 2 if anchor == "centre" else x
        org = (round(left), round(y + th / 2))
        cv2.putText(self.img, s, org, font, scale, rgb, thickness, cv2.LINE_AA)

    def clipped(self, box: tuple[float, float, float, float]) -> _Canvas:
        """A canvas drawing into a view of the image limited to ``box`` (sheet units ``x, y, w, h``)."""
        x, y, w, h = box
        x0, y0 = (max(0, round(c)) for c in self.px(x, y))
        x1, y1 = (round(c) for c in self.px(x + w, y + h))
        view = self.img[y0 : min(y1, self.img.shape[0]), x0 : min(x1, self.img.shape[1])]
        return _Canvas(view, self.ppu, (self.origin[0] - x0, self.origin[1] - y0))

    def blend_mask(self, mask: np.ndarray, rgb: RGB, alpha: float) -> None:
        """Lay ``rgb`` over the image with opacity ``alpha * mask`` (mask float in [0, 1], image-sized)."""
        ys, xs = np.nonzero(mask.any(axis=1))[0], np.nonzero(mask.any(axis=0))[0]
        if len(ys) == 0:
            return
        roi = (slice(ys[0], ys[-1] + 1), slice(xs[0], xs[-1] + 1))
        a = (mask[roi] * alpha)[..., None]
        out = self.img[roi].astype(np.float32) * (1 - a) + np.array(rgb, np.float32) * a
        self.img[roi] = np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _draw_blank(cal: Calibration, st: SheetStyle, ppu: float) -> RenderedSheet:
    sh = cal.sheet
    m = st.page_margin
    w_px = round((sh.width + 2 * m) * ppu)
    h_px = round((sh.height + 2 * m) * ppu)
    img = np.empty((h_px, w_px, 3), np.uint8)
    img[...] = st.margin_rgb
    origin = (m * ppu, m * ppu)
    cv = _Canvas(img, ppu, origin)
    cv.rect(0, 0, sh.width, sh.height, st.paper_rgb)
    _draw_header(cv, cal, st)
    _draw_map(cv, cal, st)
    _draw_score_zone(cv, cal, st)
    return RenderedSheet(img, ppu, origin, st.name)


# ---- header -------------------------------------------------------------------------------------


def _gradient(cv: _Canvas, box: tuple[float, float, float, float], top: RGB, bottom: RGB) -> None:
    x, y, w, h = box
    x0, y0 = (max(0, math.floor(c)) for c in cv.px(x, y))
    x1, y1 = (math.ceil(c) for c in cv.px(x + w, y + h))
    x1, y1 = min(x1, cv.img.shape[1]), min(y1, cv.img.shape[0])
    t = np.linspace(0.0, 1.0, y1 - y0, dtype=np.float32)[:, None]
    col = np.array(top, np.float32) * (1 - t) + np.array(bottom, np.float32) * t
    cv.img[y0:y1, x0:x1] = col[:, None, :].astype(np.uint8)


def _draw_header(cv: _Canvas, cal: Calibration, st: SheetStyle) -> None:
    hx, hy, hw, hh = cal.sheet.header_box
    _gradient(cv, (hx, hy, hw, hh), *st.header_sky_rgb)
    cv = cv.clipped((hx, hy, hw, hh))
    # The print is the same on every sheet, so its decoration uses a fixed seed.
    rng = np.random.default_rng(5310)
    base = hy + hh
    if st.header == "skyline":
        _skyline(cv, rng, hx, hw, base, hh, st)
        cv.text("NEXT STATION", (hx + 18, hy + 22), 15, st.title_rgb, st.font, weight=0.16, anchor="left")
        cv.text("LONDON", (hx + 18, hy + 44), 13, st.header_ink_rgb, st.font, weight=0.16, anchor="left")
    else:
        _blocks(cv, hx, hy, hw, hh, st)
        cv.rect(hx + 12, hy + 12, 250, 44, st.header_ink_rgb)
        cv.text("NEXT STATION: LONDON", (hx + 137, hy + 34), 14, st.title_rgb, st.font, weight=0.12)


def _skyline(
    cv: _Canvas, rng: np.random.Generator, x0: float, w: float, base: float, hh: float, st: SheetStyle
) -> None:
    ink = st.header_ink_rgb
    far = tuple(int(c * 0.45 + s * 0.55) for c, s in zip(ink, st.header_sky_rgb[1], strict=True))
    x = x0
    while x < x0 + w:
        bw = float(rng.uniform(14, 34))
        bh = float(rng.uniform(18, 46))
        cv.rect(x, base - bh, bw, bh, far)  # type: ignore[arg-type]
        x += bw + float(rng.uniform(-4, 2))
    x = x0
    while x < x0 + w:
        bw = float(rng.uniform(12, 30))
        bh = float(rng.uniform(10, 32))
        cv.rect(x, base - bh, bw, bh, ink)
        for wy in np.arange(base - bh + 4, base - 3, 6):
            for wx in np.arange(x + 3, x + bw - 3, 5):
                if rng.random() < 0.55:
                    cv.rect(float(wx), float(wy), 2, 2.5, st.window_rgb)
        x += bw + float(rng.uniform(0, 3))
    # Landmarks: a clock tower, a dome, a glass spire and a big wheel.
    tx = x0 + 0.62 * w
    cv.rect(tx, base - 78, 12, 78, ink)
    cv.poly([(tx - 1, base - 78), (tx + 13, base - 78), (tx + 6, base - 100)], ink)
    cv.circle((tx + 6, base - 66), 4, st.clock_rgb)
    dx = x0 + 0.36 * w
    cv.rect(dx - 20, base - 40, 40, 40, ink)
    cv.poly([(dx - 18 * math.cos(a), base - 40 - 18 * math.sin(a)) for a in np.linspace(0, math.pi, 24)], ink)
    cv.line((dx, base - 58), (dx, base - 70), ink, 2)
    sx = x0 + 0.48 * w
    cv.poly([(sx - 15, base), (sx + 15, base), (sx + 2, base - 96)], ink)
    ex, ey, er = x0 + 0.86 * w, base - 42, 38
    cv.circle((ex, ey), er, ink, 2.2)
    for a in np.linspace(0, 2 * math.pi, 16, endpoint=False):
        cv.line((ex, ey), (ex + er * math.cos(a), ey + er * math.sin(a)), ink, 0.8)
        cv.circle((ex + er * math.cos(a), ey + er * math.sin(a)), 2.4, ink)
    cv.poly([(ex - 14, base), (ex, ey), (ex + 14, base)], ink, 2.2, closed=False)


def _blocks(cv: _Canvas, x0: float, y0: float, w: float, h: float, st: SheetStyle) -> None:
    ink = st.header_ink_rgb
    light = st.title_rgb
    step = 26.0
    for row, v in enumerate(np.arange(y0 + 8, y0 + h, step)):
        for col, u in enumerate(np.arange(x0 + 8 + (row % 2) * step / 2, x0 + w, step)):
            kind = (row * 7 + col * 3) % 5
            c = (float(u), float(v))
            if kind == 0:
                cv.circle(c, 8, light, 2.5)
                cv.rect(c[0] - 11, c[1] - 2, 22, 4, ink)
            elif kind == 1:
                cv.poly([(c[0], c[1] - 8), (c[0] + 8, c[1]), (c[0], c[1] + 8), (c[0] - 8, c[1])], ink)
            elif kind == 2:
                cv.circle(c, 3, light)


# ---- map ----------------------------------------------------------------------------------------


def _lattice(cal: Calibration, x: float, y: float) -> tuple[float, float]:
    return cal.sheet.lattice_to_sheet(x, y)


def _draw_map(cv: _Canvas, cal: Calibration, st: SheetStyle) -> None:
    mx, my, mw, mh = cal.sheet.map_box
    if not st.river_over_guides:
        _draw_river(cv, cal, st)
    _draw_borders(cv, cal, st)
    _draw_guides(cv, cal, st)
    if st.river_over_guides:
        _draw_river(cv, cal, st)
    r = cal.sheet.station_radius
    for s in cal.map.stations:
        c = _lattice(cal, *s.point)
        if s.tourist_site:
            _tourist_mark(cv, c, r, st)
    for s in cal.map.stations:
        c = _lattice(cal, *s.point)
        if s.departure is not None:
            cv.circle(c, r, st.departure_colour(s.departure))
            _symbol(cv, c, r, s.symbol, st.departure_symbol_rgb, st.symbol_width * 1.5, st)
        else:
            cv.circle(c, r, st.station_fill_rgb)
            cv.circle(c, r - st.ring_width / 2, st.ink_rgb, st.ring_width)
            _symbol(cv, c, r, s.symbol, st.ink_rgb, st.symbol_width, st)
    if st.map_frame_rgb is not None:
        cv.rect(mx, my, mw, mh, st.map_frame_rgb, 1.2)


def _draw_river(cv: _Canvas, cal: Calibration, st: SheetStyle) -> None:
    pts = list(cal.map.thames)
    # Extend both ends past the map edge so the band leaves the map at full width.
    (ax, ay), (bx, by) = pts[0], pts[1]
    (cx, cy), (dx, dy) = pts[-2], pts[-1]
    pts[0] = (ax - (bx - ax) * 0.6, ay - (by - ay) * 0.6)
    pts[-1] = (dx + (dx - cx) * 0.6, dy + (dy - cy) * 0.6)
    sheet_pts = [_lattice(cal, x, y) for x, y in pts]
    h, w = cv.img.shape[:2]
    band = np.zeros((h, w), np.uint8)
    width = st.river_width * cal.sheet.lattice_pitch
    p = cv.pts(sheet_pts)
    cv2.polylines(band, [p], False, 255, cv.width(width), cv2.LINE_AA, _SHIFT)
    clip = np.zeros((h, w), np.uint8)
    mx, my, mw, mh = cal.sheet.map_box
    cv2.fillPoly(clip, [cv.pts([(mx, my), (mx + mw, my), (mx + mw, my + mh), (mx, my + mh)])], 255, cv2.LINE_8, _SHIFT)
    band_f = band.astype(np.float32) / 255 * (clip > 0)
    cv.blend_mask(band_f, st.river_rgb, st.river_alpha)
    if st.bank_rgb is not None:
        banks = np.zeros((h, w), np.uint8)
        contours, _ = cv2.findContours((band > 127).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        cv2.drawContours(banks, contours, -1, 255, cv.width(st.bank_width), cv2.LINE_AA)
        # The contour also runs along the image edge where the band is cut; the map clip removes it.
        bank_f = banks.astype(np.float32) / 255 * (clip > 0)
        bank_f[cv2.erode(clip, np.ones((5, 5), np.uint8)) == 0] = 0
        cv.blend_mask(bank_f, st.bank_rgb, 1.0)


def _draw_borders(cv: _Canvas, cal: Calibration, st: SheetStyle) -> None:
    """Every edge of every district box that is not on the map's outer edge."""
    gm = cal.map
    lo_x, hi_x, lo_y, hi_y = -0.5, gm.columns - 0.5, -0.5, gm.rows - 0.5
    drawn: set[tuple[float, float, float, float]] = set()
    for d in gm.districts:
        x0, y0, x1, y1 = d.box
        ex0, ey0, ex1, ey1 = x0 - 0.5, y0 - 0.5, x1 + 0.5, y1 + 0.5
        edges = [
            (ex0, ey0, ex1, ey0),
            (ex0, ey1, ex1, ey1),
            (ex0, ey0, ex0, ey1),
            (ex1, ey0, ex1, ey1),
        ]
        for e in edges:
            vertical = e[0] == e[2]
            on_edge = (vertical and e[0] in (lo_x, hi_x)) or (not vertical and e[1] in (lo_y, hi_y))
            if on_edge or e in drawn:
                continue
            drawn.add(e)
            cv.line(_lattice(cal, e[0], e[1]), _lattice(cal, e[2], e[3]), st.border_rgb, st.border_width)


def _draw_guides(cv: _Canvas, cal: Calibration, st: SheetStyle) -> None:
    r = cal.sheet.station_radius
    dash, gap = st.guide_dash
    for sec in cal.map.sections:
        a = np.array(_lattice(cal, *sec.a))
        b = np.array(_lattice(cal, *sec.b))
        d = b - a
        length = float(np.hypot(*d))
        u = d / length
        start, end = r * 0.9, length - r * 0.9
        if gap <= 0:
            cv.line(tuple(a + u * start), tuple(a + u * end), st.guide_rgb, st.guide_width)
            continue
        t = start + ((end - start) % (dash + gap)) / 2
        while t < end:
            t1 = min(t + dash, end)
            cv.line(tuple(a + u * t), tuple(a + u * t1), st.guide_rgb, st.guide_width)
            t = t1 + gap
    if st.asterisk_size > 0:
        occupied = set(cal.map.by_point)
        for x in range(cal.map.columns):
            for y in range(cal.map.rows):
                if (x, y) in occupied:
                    continue
                c = _lattice(cal, x, y)
                for ang in (math.pi / 2, math.pi / 2 + 2 * math.pi / 3, math.pi / 2 + 4 * math.pi / 3):
                    du, dv = st.asterisk_size * math.cos(ang), st.asterisk_size * math.sin(ang)
                    cv.line((c[0] - du, c[1] - dv), (c[0] + du, c[1] + dv), st.asterisk_rgb, 0.9)


def _tourist_mark(cv: _Canvas, c: tuple[float, float], r: float, st: SheetStyle) -> None:
    if st.tourist_mark == "bold_ring":
        cv.circle(c, r * 1.38, st.ink_rgb, 3.0)
        return
    points = []
    spikes = 16
    for k in range(spikes * 2):
        ang = math.pi * k / spikes - math.pi / 2
        if k % 2 == 1:
            rad = r * 1.02
        elif k % 4 == 0:
            rad = r * 1.62
        else:
            rad = r * 1.34
        points.append((c[0] + rad * math.cos(ang), c[1] + rad * math.sin(ang)))
    cv.poly(points, st.ink_rgb)


def _regular(c: tuple[float, float], radius: float, n: int, phase: float) -> list[tuple[float, float]]:
    return [
        (c[0] + radius * math.cos(phase + 2 * math.pi * k / n), c[1] + radius * math.sin(phase + 2 * math.pi * k / n))
        for k in range(n)
    ]


def _symbol(cv: _Canvas, c: tuple[float, float], r: float, symbol: str, rgb: RGB, w: float, st: SheetStyle) -> None:
    if symbol == "square":
        h = 0.4 * r
        cv.rect(c[0] - h, c[1] - h, 2 * h, 2 * h, rgb, w)
    elif symbol == "triangle":
        cv.poly(_regular((c[0], c[1] + 0.08 * r), 0.55 * r, 3, -math.pi / 2), rgb, w)
    elif symbol == "pentagon":
        cv.poly(_regular(c, 0.5 * r, 5, -math.pi / 2), rgb, w)
    elif symbol == "circle":
        cv.circle(c, 0.4 * r, rgb, w)
    elif symbol == CENTRAL:
        if st.central_mark == "question":
            cv.text("?", c, 0.95 * r, rgb, st.font, weight=0.16)
        else:
            star = []
            for k in range(10):
                rad = 0.62 * r if k % 2 == 0 else 0.26 * r
                ang = -math.pi / 2 + math.pi * k / 5
                star.append((c[0] + rad * math.cos(ang), c[1] + rad * math.sin(ang)))
            cv.poly(star, rgb, w)


# ---- score zone ---------------------------------------------------------------------------------


def _draw_score_zone(cv: _Canvas, cal: Calibration, st: SheetStyle) -> None:
    sh = cal.sheet
    zx, zy, zw, zh = sh.score_zone_box
    cv.rect(zx, zy, zw, zh, st.score_zone_rgb)
    ink = st.label_rgb
    columns: dict[str, float] = {}
    for b in sh.score_boxes:
        cv.rect(b.x, b.y, b.w, b.h, st.box_fill_rgb)
        weight = st.box_line_width * (1.8 if b.name == "total" else 1.0)
        cv.rect(b.x, b.y, b.w, b.h, st.box_line_rgb, weight)
        colour = b.name.split("_", 1)[0]
        if colour in ("purple", "blue", "pink", "green"):
            columns[colour] = b.x + b.w / 2
        if b.name.startswith("interchanges_"):
            # Hershey fonts have no "×": two short strokes, then the digit.
            cx, cy = b.x - 17, b.y + b.h / 2
            cv.line((cx - 2.6, cy - 2.6), (cx + 2.6, cy + 2.6), ink, 1.3)
            cv.line((cx - 2.6, cy + 2.6), (cx + 2.6, cy - 2.6), ink, 1.3)
            cv.text(b.name.rsplit("_", 1)[1], (cx + 9, cy), 9, ink, st.font)
        elif b.name.startswith("objective_"):
            cv.text("+10", (b.x - 12, b.y + b.h / 2), 7, ink, st.font)
        elif b.name == "tourist_points":
            _tourist_icon(cv, (b.x - 12, b.y + b.h / 2), 8, st)
        elif b.name == "total":
            cv.text("=", (b.x - 10, b.y + b.h / 2), 10, ink, st.font)
    # A pencil-coloured tab above each line column, as on the print.
    first = {b.name.split("_", 1)[0]: b for b in sh.score_boxes if b.name.endswith("_districts")}
    for colour, b in first.items():
        st_col = st.departure_colour(colour)  # type: ignore[arg-type]
        cv.rect(b.x, b.y - 11, b.w, 7, st_col)
    rows = [b for b in sh.score_boxes if b.name.startswith("purple_")]
    icons = ("districts", "stations", "thames", "total")
    for b, icon in zip(rows, icons, strict=False):
        _row_icon(cv, (b.x - 20, b.y + b.h / 2), icon, st)
    track = sh.tourist_track
    for a, b2 in itertools.pairwise(track):
        cv.line((a.center[0] + a.radius, a.center[1]), (b2.center[0] - b2.radius, b2.center[1]), st.box_line_rgb, 1.2)
    for t in track:
        cv.circle(t.center, t.radius, st.box_fill_rgb)
        cv.circle(t.center, t.radius, st.box_line_rgb, st.box_line_width)
        cv.text(str(t.value), t.center, t.radius * 0.75, ink, st.font, weight=0.13)
    if track:
        _tourist_icon(cv, (track[0].center[0] - track[0].radius - 9, track[0].center[1]), 7, st)


def _tourist_icon(cv: _Canvas, c: tuple[float, float], r: float, st: SheetStyle) -> None:
    if st.tourist_mark == "compass":
        _tourist_mark(cv, c, r * 0.62, st)
        cv.circle(c, r * 0.5, st.box_fill_rgb)
    else:
        cv.circle(c, r * 0.8, st.ink_rgb, 1.5)
    cv.circle(c, r * 0.22, st.ink_rgb)


def _row_icon(cv: _Canvas, c: tuple[float, float], icon: str, st: SheetStyle) -> None:
    ink = st.label_rgb
    x, y = c
    if icon == "districts":
        for du in (-6, 0):
            for dv in (-6, 0):
                cv.rect(x + du, y + dv, 5.2, 5.2, ink, 1.0)
    elif icon == "stations":
        cv.circle((x, y), 6, ink, 1.6)
        cv.text("max", (x, y + 11), 4, ink, st.font)
    elif icon == "thames":
        for off in (-2.5, 2.5):
            wave = [(x - 8 + k, y + off + 1.6 * math.sin(k / 2.2)) for k in range(17)]
            cv.poly(wave, st.river_rgb, 1.2, closed=False)
    else:
        cv.text("=", (x, y), 8, ink, st.font)
