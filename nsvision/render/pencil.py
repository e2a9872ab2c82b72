"""Coloured-pencil drawing of a network (and the other marks players make) onto a sheet image.

What makes it look hand-made, and what a reader must cope with:

* each section is drawn station to station in a few thin passes, each pass its own stroke
  with slight wobble, a bow, its own end points (short of the symbol, or into it) and a
  pressure that lands, varies and lifts;
* pencil is partly transparent and grainy: pigment sits on the paper's tooth, so light
  strokes are speckled, overlapping passes are darker, and the print shows through;
* it is pigment, not light: colours multiply with what is under them (the Thames, the yellow
  borders, the grey guides), and each sheet's pencils differ a little in hue and pressure;
* besides lines: crossed-out tourist circles, handwritten numbers in the score boxes, ticks
  in the objective boxes and a circle drawn around a station (pencil power).

All lengths here are in sheet units unless named ``*_px``.
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import cv2
import numpy as np

from nsvision.calibration import Calibration
from nsvision.game.board import LINE_COLOURS, Colour, Point, Section, station_name
from nsvision.game.network import Network
from nsvision.game.scoring import ScoreCard
from nsvision.render.sheet import RenderedSheet
from nsvision.render.style import RGB

PENCIL_RGB: dict[Colour, RGB] = {
    "purple": (110, 60, 140),
    "blue": (40, 110, 200),
    "pink": (225, 80, 140),
    "green": (60, 150, 80),
}
"""What a firm stroke of each coloured pencil looks like on white paper."""
PENCIL_SETS: dict[str, Mapping[Colour, RGB]] = {
    "default": PENCIL_RGB,
    "discs": {"purple": (96, 47, 147), "blue": (0, 173, 239), "pink": (237, 18, 123), "green": (64, 185, 60)},
    "violet": {"purple": (100, 70, 170), "blue": (30, 140, 200), "pink": (230, 70, 170), "green": (90, 160, 50)},
    "plum": {"purple": (130, 60, 130), "blue": (50, 80, 190), "pink": (235, 90, 110), "green": (40, 140, 110)},
}
"""Pencil sets a player may own. The reader was tuned on ``default``; ``discs`` matches the printed
departure discs (RULES.md §5: a cyan blue, a brighter green), ``violet`` turns every pencil one way
round the hue circle (violet, cyan, magenta, lime) and ``plum`` the other (plum, ultramarine, salmon
pink, teal green)."""
GRAPHITE_RGB: RGB = (80, 80, 88)
HANDS: dict[str, float] = {"default": 1.0, "sloppy": 3.0}
"""How far a player's strokes stray from the printed guide, as a factor on the drawn hand's bow and
side-to-side wander. The reader was tuned on ``default``, where the longest diagonal section (2,7–4,9,
42 mm) bows by up to a millimetre or so at its middle; a ``sloppy`` hand bows it by up to 2 to 4 mm,
past the reader's search across a section (a tenth of the stations' pitch either side, 1.5 mm)."""

_SHIFT = 3
_ONE = 1 << _SHIFT


@dataclass(frozen=True)
class SheetMarks:
    """What a player writes on the sheet besides the lines."""

    tourist_circles_crossed: int = 0
    """Circles crossed out on the tourist track, from the left."""
    objectives_ticked: tuple[int, ...] = ()
    """1-based objective boxes with a tick (``objective_1``, ``objective_2``)."""
    written: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """Numbers written in score boxes, by box name (``calibration.sheet.score_boxes``)."""
    circled_stations: Mapping[Colour, Point] = field(default_factory=lambda: MappingProxyType({}))
    """Stations circled with the double-station pencil power, per line colour."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "tourist_circles_crossed": self.tourist_circles_crossed,
            "objectives_ticked": list(self.objectives_ticked),
            "written": dict(self.written),
            "circled_stations": {c: station_name(p) for c, p in self.circled_stations.items()},
        }


def marks_from_card(card: ScoreCard, network: Network) -> SheetMarks:
    """The marks a truthful player makes for this score card (nothing at all on an empty sheet)."""
    if network.is_empty:
        return SheetMarks()
    written: dict[str, int] = {}
    for ls in card.lines:
        if ls.sections:
            written[f"{ls.colour}_districts"] = ls.districts
            written[f"{ls.colour}_max_stations"] = ls.max_in_district
            written[f"{ls.colour}_thames"] = ls.thames
        written[f"{ls.colour}_line_total"] = ls.score
    written["interchanges_2"] = card.interchanges.two
    written["interchanges_5"] = card.interchanges.three
    written["interchanges_9"] = card.interchanges.four
    written["tourist_points"] = card.tourist_points
    written["total"] = card.total
    ticked = tuple(i + 1 for i, o in enumerate(card.objectives) if o.met)
    return SheetMarks(
        tourist_circles_crossed=card.tourist_circles,
        objectives_ticked=ticked,
        written=MappingProxyType(written),
        circled_stations=MappingProxyType(dict(network.options.doubled_stations)),
    )


def draw_sheet(
    sheet: RenderedSheet,
    network: Network,
    calibration: Calibration,
    seed: int,
    marks: SheetMarks | None = None,
    pencils: Mapping[Colour, RGB] = PENCIL_RGB,
    *,
    lines: bool = True,
    sloppiness: float = 1.0,
) -> RenderedSheet:
    """A copy of ``sheet`` with the network drawn in coloured pencil and the marks written.

    ``marks=None`` writes the truthful marks of the network's score card; pass ``SheetMarks()``
    for none. ``pencils`` are the colours of the player's pencils (see ``PENCIL_SETS``),
    ``sloppiness`` how far the strokes stray from the guides (see ``HANDS``). The same
    seed always gives the same strokes. ``lines=False`` leaves the lines' pencil off the paper but
    makes every random draw as before: the same sheet without its lines, pixel for pixel elsewhere
    (how much of a stroke reaches a picture is the difference, see ``bench/visibility.py``).
    """
    if marks is None:
        from nsvision.game.scoring import score_network

        marks = marks_from_card(score_network(network, calibration.map), network)
    img = sheet.image.copy()
    rng = np.random.default_rng([seed, 0x9E11])
    hand = _Hand.sample(rng, pencils, sloppiness)
    pen = _Pen(img, sheet, hand, rng)
    for colour in LINE_COLOURS:
        for start, end in _drawing_order(network.sections(colour), calibration.map.departure(colour)):
            pen.section(calibration, start, end, hand.pigments[colour], lay=lines)
    for colour, point in marks.circled_stations.items():
        pen.station_circle(calibration, point, hand.pigments[colour])
    mark_pigment = hand.mark_pigment(rng)
    track = calibration.sheet.tourist_track
    for k in range(min(marks.tourist_circles_crossed, len(track))):
        pen.cross_out(track[k].center, track[k].radius, mark_pigment)
    for i in marks.objectives_ticked:
        box = calibration.sheet.box(f"objective_{i}")
        pen.tick(box.center, min(box.w, box.h), mark_pigment)
    for name, value in marks.written.items():
        box = calibration.sheet.box(name)
        prefix = name.split("_", 1)[0]
        pigment = hand.pigments[prefix] if hand.write_in_colour and prefix in hand.pigments else mark_pigment
        pen.write(str(value), box.center, box.h, pigment)
    return RenderedSheet(img, sheet.px_per_unit, sheet.origin_px, sheet.style)


def _drawing_order(sections: tuple[Section, ...], departure: Point) -> list[tuple[Point, Point]]:
    """Each section as (from, to), drawn from the station the line already reached when possible."""
    reached = {departure}
    out: list[tuple[Point, Point]] = []
    pending = list(sections)
    while pending:
        for i, s in enumerate(pending):
            if s.a in reached or s.b in reached:
                start = s.a if s.a in reached else s.b
                out.append((start, s.other(start)))
                reached.add(s.other(start))
                pending.pop(i)
                break
        else:
            s = pending.pop(0)
            out.append((s.a, s.b))
            reached.update((s.a, s.b))
    return out


@dataclass(frozen=True)
class _Hand:
    """One player's way of drawing, fixed for a sheet."""

    pigments: Mapping[str, np.ndarray]
    """Per colour: the multiplicative pigment colour in [0, 1] (RGB)."""
    pressure: float
    """Typical pressure, 0–1 (light players leave pale, grainy lines)."""
    width: float
    """Width of one pass at full pressure."""
    passes: tuple[int, int]
    """Fewest and most passes per section."""
    bow: float
    """Typical sideways bow of a section at its middle, as a fraction of its length."""
    wobble: float
    """Typical amplitude of the slow side-to-side wander."""
    short_ends: float
    """Probability that a stroke stops short of a station symbol rather than running into it."""
    light_strokes: float
    """Probability that a section is drawn notably lighter than the rest."""
    write_in_colour: bool
    """Whether line scores are written with that line's pencil."""
    cross_style: str
    """``"x"`` or ``"slash"`` on the tourist track."""
    digit_font: int

    @staticmethod
    def sample(rng: np.random.Generator, pencils: Mapping[Colour, RGB] = PENCIL_RGB, sloppiness: float = 1.0) -> _Hand:
        """A player's hand; ``sloppiness`` scales its bow and wander (every random draw as at 1)."""
        ruler = rng.random() < 0.15
        pigments: dict[str, np.ndarray] = {c: _pigment(pencils[c], rng) for c in LINE_COLOURS}
        return _Hand(
            pigments=MappingProxyType(pigments),
            pressure=float(rng.uniform(0.45, 1.0)),
            width=float(rng.uniform(2.3, 4.2)),
            passes=(int(rng.integers(1, 3)), int(rng.integers(2, 5))),
            bow=sloppiness * (0.001 if ruler else float(rng.uniform(0.003, 0.016))),
            wobble=sloppiness * (0.08 if ruler else float(rng.uniform(0.1, 0.55))),
            short_ends=float(rng.uniform(0.15, 0.75)),
            light_strokes=float(rng.uniform(0.0, 0.2)),
            write_in_colour=bool(rng.random() < 0.5),
            cross_style="x" if rng.random() < 0.6 else "slash",
            digit_font=int(rng.choice([cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SIMPLEX])),
        )

    def mark_pigment(self, rng: np.random.Generator) -> np.ndarray:
        """The pencil used for the score zone: graphite, or one of the coloured pencils."""
        if rng.random() < 0.5:
            return _pigment(GRAPHITE_RGB, rng)
        return self.pigments[LINE_COLOURS[int(rng.integers(0, 4))]]


def _pigment(rgb: RGB, rng: np.random.Generator) -> np.ndarray:
    """Per-sheet pencil colour: a few degrees of hue, some saturation and value, then as a multiplier."""
    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    h = (h + rng.normal(0, 0.015)) % 1.0
    s = float(np.clip(s * rng.uniform(0.85, 1.12), 0, 1))
    v = float(np.clip(v * rng.uniform(0.9, 1.06), 0, 1))
    # A firm stroke deposits ~85 % coverage, so the pigment is a little darker than the look.
    look = np.array(colorsys.hsv_to_rgb(h, s, v))
    return np.clip(1 - (1 - look) / 0.85, 0.02, 1).astype(np.float32)


_GRAIN: dict[int, np.ndarray] = {}
_GRAIN_TILE = 512


def _grain_tile(ppu: float) -> np.ndarray:
    """Paper tooth as seen by a pencil: a fixed noise texture with ~0.4-unit features, values ~[0, 1]."""
    key = round(ppu * 4)
    tile = _GRAIN.get(key)
    if tile is None:
        # Made from the cache key alone: a tile built from the first resolution that hit the key
        # made every later picture depend on what the process had rendered before.
        ppu = key / 4
        rng = np.random.default_rng(77)
        noise = rng.standard_normal((_GRAIN_TILE, _GRAIN_TILE)).astype(np.float32)
        fine = _periodic_blur(noise, max(0.6, 0.3 * ppu))
        coarse = _periodic_blur(noise[::-1], max(1.5, 1.5 * ppu))
        g = fine / fine.std() + 0.6 * coarse / coarse.std()
        tile = np.clip(0.5 + g / (2.6 * g.std()), 0, 1).astype(np.float32)
        _GRAIN[key] = tile
    return tile


def _eval_waves(waves: list[tuple[float, float, float]], t: np.ndarray) -> np.ndarray:
    out = np.zeros_like(t)
    for amp, wavelength, phase in waves:
        out += amp * np.sin(2 * np.pi * t / wavelength + phase)
    return out


def _periodic_blur(a: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of a tile that wraps around, so the tile repeats without seams."""
    fy = np.fft.fftfreq(a.shape[0])[:, None]
    fx = np.fft.rfftfreq(a.shape[1])[None, :]
    kernel = np.exp(-2 * (np.pi * sigma) ** 2 * (fx**2 + fy**2))
    return np.fft.irfft2(np.fft.rfft2(a) * kernel, s=a.shape).astype(np.float32)


class _Pen:
    """Draws pencil strokes onto ``img`` in place (private; ``draw_sheet`` owns the copy)."""

    def __init__(self, img: np.ndarray, sheet: RenderedSheet, hand: _Hand, rng: np.random.Generator) -> None:
        self.img = img
        self.sheet = sheet
        self.ppu = sheet.px_per_unit
        self.hand = hand
        self.rng = rng
        self.grain = _grain_tile(self.ppu)
        self.grain_offset = (int(rng.integers(0, _GRAIN_TILE)), int(rng.integers(0, _GRAIN_TILE)))

    # ---- shapes ---------------------------------------------------------------------------------

    def section(self, cal: Calibration, start: Point, end: Point, pigment: np.ndarray, lay: bool = True) -> None:
        """A section's passes; with ``lay=False`` every draw is made but nothing reaches the paper."""
        rng, hand = self.rng, self.hand
        r = cal.sheet.station_radius
        a = np.array(cal.sheet.lattice_to_sheet(*start))
        b = np.array(cal.sheet.lattice_to_sheet(*end))
        length = float(np.hypot(*(b - a)))
        u = (b - a) / length
        n = np.array([-u[1], u[0]])
        passes = int(rng.integers(hand.passes[0], hand.passes[1] + 1))
        light = rng.random() < hand.light_strokes
        base = hand.pressure * (0.5 if light else 1.0) * rng.uniform(0.85, 1.1)
        # The hand's motion is shared by every pass over a section: one bow, one slow wander;
        # the passes differ only a little from each other.
        bow = rng.normal(0, hand.bow * length)
        waves = self._waves(hand.wobble, (30, 120))
        strokes = []
        for _ in range(passes):
            e0 = self._end_gap(r)
            e1 = self._end_gap(r)
            t = np.arange(e0, length - e1, max(0.6, 2.5 / self.ppu))
            if len(t) < 4:
                continue
            tau = (t - t[0]) / (t[-1] - t[0])
            side = (
                bow * rng.uniform(0.8, 1.2) * np.sin(np.pi * tau)
                + _eval_waves(waves, t)
                + self._wander(t, 0.12)
                + rng.normal(0, 0.2 * hand.width)
                + rng.normal(0, 0.3) * (tau - 0.5)
            )
            path = a + np.outer(t, u) + np.outer(side, n)
            pressure = self._pressure(t, base)
            strokes.append((path, pressure))
        self._deposit(strokes, pigment, hand.width, lay)

    def station_circle(self, cal: Calibration, point: Point, pigment: np.ndarray) -> None:
        rng = self.rng
        c = np.array(cal.sheet.lattice_to_sheet(*point))
        r = cal.sheet.station_radius * rng.uniform(1.35, 1.75)
        turn = rng.uniform(1.05, 1.25) * 2 * np.pi
        phi0 = rng.uniform(0, 2 * np.pi)
        phi = phi0 + np.linspace(0, turn, 160)
        squash, tilt = rng.uniform(0.85, 1.0), rng.uniform(0, np.pi)
        rad = r * (1 + 0.05 * np.sin(3 * phi + rng.uniform(0, 6)) + np.linspace(0, rng.uniform(-0.1, 0.1), len(phi)))
        x, y = rad * np.cos(phi), rad * squash * np.sin(phi)
        path = c + np.stack([x * np.cos(tilt) - y * np.sin(tilt), x * np.sin(tilt) + y * np.cos(tilt)], axis=1)
        t = np.concatenate([[0], np.cumsum(np.hypot(*np.diff(path, axis=0).T))])
        self._deposit([(path, self._pressure(t, self.hand.pressure))], pigment, self.hand.width * 0.9)

    def cross_out(self, centre: tuple[float, float], radius: float, pigment: np.ndarray) -> None:
        rng = self.rng
        c = np.array(centre) + rng.normal(0, radius * 0.08, 2)
        strokes = []
        angles = (
            [rng.uniform(40, 55)] if self.hand.cross_style == "slash" else [rng.uniform(38, 52), rng.uniform(128, 142)]
        )
        for ang in angles:
            d = np.array([math.cos(math.radians(ang)), -math.sin(math.radians(ang))])
            half = radius * rng.uniform(0.9, 1.3)
            path = self._line_path(c - d * half, c + d * half, wobble=0.3)
            t = np.concatenate([[0], np.cumsum(np.hypot(*np.diff(path, axis=0).T))])
            strokes.append((path, self._pressure(t, self.hand.pressure)))
        self._deposit(strokes, pigment, self.hand.width * 0.8)

    def tick(self, centre: tuple[float, float], size: float, pigment: np.ndarray) -> None:
        rng = self.rng
        c = np.array(centre) + rng.normal(0, size * 0.06, 2)
        s = size * rng.uniform(0.3, 0.42)
        p0, p1, p2 = c + (-s, 0), c + (-s * 0.3, s * 0.7), c + (s * 1.1, -s * 0.9)
        path = np.concatenate([self._line_path(p0, p1, 0.15), self._line_path(p1, p2, 0.2)[1:]])
        t = np.concatenate([[0], np.cumsum(np.hypot(*np.diff(path, axis=0).T))])
        self._deposit([(path, self._pressure(t, self.hand.pressure))], pigment, self.hand.width * 0.8)

    def write(self, text: str, centre: tuple[float, float], box_h: float, pigment: np.ndarray) -> None:
        """Handwritten digits: a Hershey font, sized to the box, jittered, sheared and rotated."""
        rng = self.rng
        ppu = self.ppu
        height = box_h * rng.uniform(0.45, 0.65)
        thickness = max(1, round(self.hand.width * 0.55 * ppu))
        font = self.hand.digit_font
        (tw, th), base = cv2.getTextSize(text, font, 1.0, thickness)
        scale = height * ppu / max(th, 1)
        (tw, th), base = cv2.getTextSize(text, font, scale, thickness)
        pad = 2 * thickness + 4
        canvas = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
        x = pad
        for ch in text:
            # Each digit on its own baseline and size: handwriting is not typeset.
            dy = round(rng.normal(0, 0.06) * th)
            s = scale * rng.uniform(0.9, 1.08)
            cv2.putText(canvas, ch, (x, pad + th + dy), font, s, 255, thickness, cv2.LINE_AA)
            (cw, _), _ = cv2.getTextSize(ch, font, s, thickness)
            x += round(cw * rng.uniform(0.85, 1.0))
        ang = math.radians(rng.normal(0, 5))
        shear = rng.normal(0.12, 0.08)
        cx_px, cy_px = self.sheet.sheet_to_px(*(np.array(centre) + rng.normal(0, box_h * 0.06, 2)))
        h, w = canvas.shape
        m = np.array([[math.cos(ang), -math.sin(ang) - shear, 0], [math.sin(ang), math.cos(ang), 0]])
        src_c = np.array([w / 2, h / 2])
        m[:, 2] = np.array([cx_px, cy_px]) - m[:, :2] @ src_c
        x0, y0 = int(cx_px - w), int(cy_px - h)
        x1, y1 = int(cx_px + w), int(cy_px + h)
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(self.img.shape[1], x1), min(self.img.shape[0], y1)
        m[:, 2] -= (x0, y0)
        mask = cv2.warpAffine(canvas, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
        alpha = mask * np.clip(self.hand.pressure * rng.uniform(0.8, 1.05), 0, 1)
        self._composite(alpha, (x0, y0), pigment)

    # ---- stroke model ---------------------------------------------------------------------------

    def _end_gap(self, r: float) -> float:
        """Distance from a station centre where a pass begins or ends: short of the ring, or inside it."""
        if self.rng.random() < self.hand.short_ends:
            return r * float(self.rng.uniform(1.02, 1.5))
        return r * float(self.rng.uniform(0.15, 0.95))

    def _waves(self, amp: float, wavelengths: tuple[float, float]) -> list[tuple[float, float, float]]:
        """Three random sine components (amplitude, wavelength, phase) of about ``amp`` in all."""
        return [
            (
                float(self.rng.normal(0, amp / 1.7)),
                float(self.rng.uniform(*wavelengths)),
                float(self.rng.uniform(0, 6.3)),
            )
            for _ in range(3)
        ]

    def _wander(self, t: np.ndarray, amp: float) -> np.ndarray:
        """A slow random wander of about ``amp`` along ``t`` (units)."""
        return _eval_waves(self._waves(amp, (20, 90)), t)

    def _pressure(self, t: np.ndarray, base: float) -> np.ndarray:
        """Pressure along a stroke (t in units from its start): lands, varies slowly, lifts."""
        length = max(float(t[-1]), 1e-3)
        land = np.clip(t / self.rng.uniform(2, 7), 0, 1) ** 0.7
        lift = np.clip((length - t) / self.rng.uniform(4, 14), 0, 1) ** 0.8
        vary = 1 + self._wander(t, 0.18)
        return np.clip(base * (0.35 + 0.65 * land) * (0.25 + 0.75 * lift) * vary, 0.05, 1.0)

    def _line_path(self, p: np.ndarray, q: np.ndarray, wobble: float) -> np.ndarray:
        d = q - p
        length = float(np.hypot(*d))
        n = np.array([-d[1], d[0]]) / max(length, 1e-6)
        t = np.linspace(0, 1, max(4, int(length * self.ppu / 2.5)))
        side = self.rng.normal(0, wobble) * np.sin(np.pi * t) + self._wander(t * length, wobble * 0.4)
        return p + np.outer(t, d) + np.outer(side, n)

    def _deposit(
        self, strokes: list[tuple[np.ndarray, np.ndarray]], pigment: np.ndarray, width: float, lay: bool = True
    ) -> None:
        """Render passes (path in sheet units, pressure per point) and lay them down as one pencil
        layer (unless ``lay`` is False: then only the random draws are made)."""
        if not strokes:
            return
        ppu = self.ppu
        pts_px = [np.array(self.sheet.sheet_to_px(*p.T)).T for p, _ in strokes]
        allp = np.concatenate(pts_px)
        pad = width * ppu + 4
        x0 = max(0, int(allp[:, 0].min() - pad))
        y0 = max(0, int(allp[:, 1].min() - pad))
        x1 = min(self.img.shape[1], int(allp[:, 0].max() + pad) + 1)
        y1 = min(self.img.shape[0], int(allp[:, 1].max() + pad) + 1)
        if x1 <= x0 or y1 <= y0:
            return
        clear = np.ones((y1 - y0, x1 - x0), np.float32)
        for (_, pressure), p_px in zip(strokes, pts_px, strict=True):
            mask = np.zeros_like(clear, dtype=np.uint8)
            q = np.round((p_px - (x0, y0)) * _ONE).astype(np.int32)
            # Pressure changes both how dark and how wide the pass is (a blunt tip spreads).
            for i in range(len(q) - 1):
                pr = float(pressure[i])
                thick = max(1, round(width * ppu * (0.6 + 0.4 * pr)))
                cv2.line(mask, tuple(q[i]), tuple(q[i + 1]), round(255 * pr), thick, cv2.LINE_AA, _SHIFT)
            a = mask.astype(np.float32) / 255
            streak = self._streaks(a.shape, p_px - (x0, y0))
            clear *= 1 - np.clip(a * (0.7 + 0.3 * streak) * self.rng.uniform(0.75, 0.95), 0, 1)
        if lay:
            self._composite(1 - clear, (x0, y0), pigment)

    def _streaks(self, shape: tuple[int, ...], path_px: np.ndarray) -> np.ndarray:
        """Grain drawn out along the stroke: the tip leaves parallel tracks on the paper's tooth."""
        d = path_px[-1] - path_px[0]
        ang = math.atan2(d[1], d[0])
        h, w = shape
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        c, s = math.cos(ang), math.sin(ang)
        along = (xx * c + yy * s) / 4.0
        across = -xx * s + yy * c
        ox, oy = self.rng.uniform(0, _GRAIN_TILE, 2)
        return cv2.remap(
            self.grain,
            (along + ox).astype(np.float32),
            (across + oy).astype(np.float32),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_WRAP,
        )

    def _composite(self, alpha: np.ndarray, origin: tuple[int, int], pigment: np.ndarray) -> None:
        """Multiply the pigment into the image where ``alpha`` > 0, gated by the paper's tooth."""
        x0, y0 = origin
        h, w = alpha.shape
        gy = (np.arange(y0, y0 + h) + self.grain_offset[1]) % _GRAIN_TILE
        gx = (np.arange(x0, x0 + w) + self.grain_offset[0]) % _GRAIN_TILE
        tooth = self.grain[np.ix_(gy, gx)]
        # Light pressure only touches the peaks of the tooth; firm pressure fills the valleys too.
        a = np.clip(alpha * (1.0 + 0.9 * (tooth - 0.5)) - 0.25 * (1 - alpha) * (1 - tooth), 0, 1)
        roi = self.img[y0 : y0 + h, x0 : x0 + w].astype(np.float32)
        roi *= 1 - a[..., None] * (1 - pigment[None, None, :])
        self.img[y0 : y0 + h, x0 : x0 + w] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)
