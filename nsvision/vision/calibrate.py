"""Teach nsvision a print from a photo or scan of a blank sheet (``nsvision calibrate``).

Prints differ (editions, languages, printers, photocopies) in how they look and where their
score zone sits, never in the map itself. From one picture of an unfilled sheet:

1. the station lattice is registered as for any sheet; it defines the sheet-unit frame, so the
   lattice origin and pitch stay those of the base calibration;
2. the score zone below the map is straightened and its outlined boxes and ringed track circles
   are found in it, then named by matching them to the base layout (a shift and a scale apart);
3. the print's appearance is recorded: its straightened blank map (saved as a PNG beside the
   JSON, so the reader can tell printed colour from pencil) and a few measured statistics.

A picture that holds no London map, or a sheet that already has lines drawn, is refused.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from nsvision.calibration import Box, Calibration, SheetLayout, TrackCircle, calibration_to_dict, parse_calibration
from nsvision.errors import CalibrationError, InputError, NoMapFoundError
from nsvision.game.board import GameMap
from nsvision.vision.channels import channel_max
from nsvision.vision.detect import measure_sections
from nsvision.vision.marks import (
    FoundBox,
    FoundRing,
    ZoneImage,
    find_shapes,
    ink_mask,
    sheet_to_image_px,
    straighten_region,
)
from nsvision.vision.register import Registration, register
from nsvision.vision.straighten import MARGIN, PX_PER_PITCH, straighten

PENCIL_INK = 0.5
"""A potential section with pencil-like marks along more than this share of it may be drawn."""
PENCIL_STRENGTH = 0.2
"""... and counts as drawn when those marks are also this dense (OD). The uncalibrated reader takes
some prints' own colours for faint pencil (rendered cream blanks: up to 0.24 on two sections)."""
DRAWN_SECTIONS = 5
"""A blank with this many drawn sections is refused: on rendered blanks of three prints at most 2
sections pass the test above, on every filled sheet at least 16 do."""
CLEAR_STRENGTH = 0.35
"""One section drawn this densely along most (``CLEAR_INK``) of it is refused on its own: no blank shows it."""
CLEAR_INK = 0.8
MIN_FOUND = 0.5
"""Share of the base layout's boxes, and of its track circles, that must be found to trust the match."""
LAYOUT_TOLERANCE = 0.3
"""A found shape matches a base shape within this share of the base shape's smaller side (or diameter)."""
SIZE_RANGE = (0.85, 1.18)
"""Ratio of a found shape's sides to the (scaled) base shape's for the two to match."""


@dataclass(frozen=True)
class BlankSurvey:
    """Everything ``nsvision calibrate`` found on a blank sheet."""

    calibration: Calibration
    """The new calibration (its ``blank_image`` holds the straightened blank map)."""
    registration: Registration
    boxes_found: tuple[str, ...]
    """Score boxes found in the picture."""
    boxes_placed: tuple[str, ...]
    """Score boxes not seen, placed from the base layout by the fitted shift and scale."""
    circles_found: int
    """Tourist-track circles found in the picture (the others are placed like the boxes)."""
    pencil_sections: tuple[str, ...]
    """Sections that look drawn, though too few to refuse the sheet (print colours the reader
    mistakes for pencil, or a stray line a person should check)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "stations_found": self.registration.stations_found,
            "stations_total": len(self.registration.station_xy_px),
            "boxes_found": list(self.boxes_found),
            "boxes_placed": list(self.boxes_placed),
            "circles_found": self.circles_found,
            "circles_total": len(self.calibration.sheet.tourist_track),
            "appearance": self.calibration.appearance,
        }


def calibrate_blank(image: np.ndarray, base: Calibration, source: str = "<image>", name: str = "") -> Calibration:
    """A calibration of the print in ``image`` (an RGB blank sheet): see ``survey_blank``."""
    return survey_blank(image, base, source, name).calibration


def survey_blank(image: np.ndarray, base: Calibration, source: str = "<image>", name: str = "") -> BlankSurvey:
    """Register a blank sheet, find its score zone and measure its look.

    Raises ``CalibrationError`` when the picture holds no London map, when lines are drawn on
    the sheet, or when the score zone cannot be found below the map.
    """
    try:
        reg = register(image, base.map, source)
    except NoMapFoundError as exc:
        raise CalibrationError(
            source,
            [f"not a blank Map of London: {exc.detail or 'no station lattice found'}"],
            "calibrate with a photo or scan of an unfilled Next Station: London sheet, the whole sheet in view",
        ) from None
    straight = straighten(image, reg, base.map)
    radius_pitch = base.sheet.station_radius / base.sheet.lattice_pitch
    evidence = measure_sections(straight, base.map, radius_pitch)
    inked = sorted(
        (e for e in evidence.values() if e.ink > PENCIL_INK and e.strength >= PENCIL_STRENGTH),
        key=lambda e: e.section,
    )
    clear = [e for e in inked if e.ink >= CLEAR_INK and e.strength >= CLEAR_STRENGTH]
    if len(inked) >= DRAWN_SECTIONS or clear:
        names = ", ".join(e.section.name for e in (inked if len(inked) >= DRAWN_SECTIONS else clear))
        count = len(inked) if len(inked) >= DRAWN_SECTIONS else len(clear)
        raise CalibrationError(
            source,
            [f"the sheet is not blank: {count} section(s) carry pencil lines ({names})"],
            "calibrate with an unfilled sheet of the same print",
        )
    faint = tuple(e.section.name for e in inked)
    zone = straighten_region(image, reg, base.sheet, _search_region(base))
    boxes, rings = find_shapes(zone)
    layout = _match_layout(base.sheet, boxes, rings, source)
    appearance = {
        "px_per_pitch": PX_PER_PITCH,
        "margin": MARGIN,
        "source": Path(source).name,
        "stations_found": reg.stations_found,
        **map_statistics(straight.image, base.map),
        **zone_statistics(zone, layout.circles, layout.boxes),
    }
    if layout.boxes_placed or layout.circles_placed:
        appearance["placed_from_base"] = [*layout.boxes_placed, *(f"track_{v}" for v in layout.circles_placed)]
    sheet = replace(
        base.sheet,
        score_boxes=layout.boxes,
        tourist_track=layout.circles,
        score_zone_box=_zone_box(base.sheet, layout.boxes, layout.circles),
    )
    cal = Calibration(
        map=base.map,
        sheet=sheet,
        name=name or f"{base.name}-calibrated",
        source=source,
        appearance=appearance,
        blank_image=straight.image,
    )
    described = replace(cal, raw={"description": f"{base.map.name} print calibrated by nsvision from {source}"})
    cal = replace(cal, raw=calibration_to_dict(described))
    return BlankSurvey(
        calibration=cal,
        registration=reg,
        boxes_found=tuple(b.name for b in layout.boxes if b.name not in layout.boxes_placed),
        boxes_placed=layout.boxes_placed,
        circles_found=len(layout.circles) - len(layout.circles_placed),
        pencil_sections=faint,
    )


def _search_region(base: Calibration) -> tuple[float, float, float, float]:
    """Where to look for the score zone: below the map's last row of symbols, a little wider than the sheet."""
    sh = base.sheet
    top = max(sh.map_box[1] + sh.map_box[3], sh.lattice_to_sheet(0, base.map.rows - 1 + 0.6)[1])
    _x, zy, _w, zh = sh.score_zone_box
    bottom = max(zy + zh, sh.height) + 0.1 * sh.height
    return (-0.1 * sh.width, top, 1.2 * sh.width, bottom - top)


def _zone_box(
    sheet: SheetLayout, boxes: tuple[Box, ...], circles: tuple[TrackCircle, ...]
) -> tuple[float, float, float, float]:
    """The base score zone, grown to hold every box and circle found."""
    x, y, w, h = sheet.score_zone_box
    x0, y0, x1, y1 = x, y, x + w, y + h
    for b in boxes:
        x0, y0, x1, y1 = min(x0, b.x), min(y0, b.y), max(x1, b.x + b.w), max(y1, b.y + b.h)
    for c in circles:
        (u, v), r = c.center, c.radius
        x0, y0, x1, y1 = min(x0, u - r), min(y0, v - r), max(x1, u + r), max(y1, v + r)
    return (x0, y0, x1 - x0, y1 - y0)


# ---- naming the shapes found: match them to the base layout ------------------------------------------


@dataclass(frozen=True)
class _Layout:
    boxes: tuple[Box, ...]
    circles: tuple[TrackCircle, ...]
    boxes_placed: tuple[str, ...]
    circles_placed: tuple[int, ...]
    """Values of the track circles placed from the base layout."""


def _match_layout(sheet: SheetLayout, boxes: list[FoundBox], rings: list[FoundRing], source: str) -> _Layout:
    """Name every found box and circle after the base shape it lies on, a shift and a scale apart.

    Each pairing of a base shape with a found one of the same kind and size proposes a shift and
    scale; the proposal under which the most base shapes land on a found one wins, and is then
    refined by least squares on its matches. Base shapes still without a match are placed by it.
    """
    base_pts, base_kind, base_size = _base_shapes(sheet)
    cand_pts = np.array([b.center for b in boxes] + [r.center for r in rings], dtype=np.float64).reshape(-1, 2)
    cand_kind = np.array([0] * len(boxes) + [1] * len(rings))
    cand_size = np.array([(b.w, b.h) for b in boxes] + [(2 * r.radius, 2 * r.radius) for r in rings]).reshape(-1, 2)
    tol = LAYOUT_TOLERANCE * base_size.min(axis=1)
    pairs = [
        (i, j)
        for i in range(len(base_pts))
        for j in np.flatnonzero(cand_kind == base_kind[i])
        if (cand_size[j] / base_size[i]).min() >= 0.8 and (cand_size[j] / base_size[i]).max() <= 1.25
    ]
    if not pairs:
        raise _zone_not_found(source, sheet, 0, 0)
    bi, cj = np.array(pairs).T
    scales = np.sqrt((cand_size[cj] / base_size[bi]).prod(axis=1))
    shifts = cand_pts[cj] - scales[:, None] * base_pts[bi]
    counts, errs = _score_proposals(base_pts, base_kind, base_size, cand_pts, cand_kind, cand_size, scales, shifts, tol)
    # Most base shapes matched first, then the smallest total distance.
    k = int(np.lexsort((errs, -counts))[0])
    best = (int(counts[k]), float(errs[k]), float(scales[k]), shifts[k])
    _n, _err, scale0, shift0 = best
    # One shift and scale for the whole zone first, then each kind of shape (boxes, track) its own:
    # a print may space its track differently from its boxes.
    scale = np.full(len(base_pts), scale0)
    shift = np.tile(shift0, (len(base_pts), 1))
    match = np.full(len(base_pts), -1)
    for group in (np.ones(len(base_pts), bool), base_kind == 0, base_kind == 1):
        for _ in range(3):
            match = _assign(base_pts, base_kind, base_size, cand_pts, cand_kind, cand_size, scale, shift, tol)
            ok = (match >= 0) & group
            if ok.sum() < 2:
                break
            # Least squares for u' = s * u + t over the matched centres.
            a = np.zeros((2 * ok.sum(), 3))
            a[0::2, 0], a[0::2, 1] = base_pts[ok, 0], 1.0
            a[1::2, 0], a[1::2, 2] = base_pts[ok, 1], 1.0
            sol, *_ = np.linalg.lstsq(a, cand_pts[match[ok]].ravel(), rcond=None)
            scale[group], shift[group] = float(sol[0]), sol[1:]
    n_boxes = len(sheet.score_boxes)
    found_boxes = int((match[:n_boxes] >= 0).sum())
    found_circles = int((match[n_boxes:] >= 0).sum())
    if found_boxes < MIN_FOUND * n_boxes or found_circles < MIN_FOUND * len(sheet.tourist_track):
        raise _zone_not_found(source, sheet, found_boxes, found_circles)
    out_boxes: list[Box] = []
    placed: list[str] = []
    for k, b in enumerate(sheet.score_boxes):
        j = match[k]
        if j >= 0:
            f = boxes[j]
            out_boxes.append(Box(b.name, _r(f.x), _r(f.y), _r(f.w), _r(f.h)))
        else:
            sk, (tx, ty) = scale[k], shift[k]
            out_boxes.append(Box(b.name, _r(sk * b.x + tx), _r(sk * b.y + ty), _r(sk * b.w), _r(sk * b.h)))
            placed.append(b.name)
    out_circles: list[TrackCircle] = []
    placed_values: list[int] = []
    for k, c in enumerate(sheet.tourist_track):
        j = match[n_boxes + k]
        if j >= 0:
            ring = rings[j - len(boxes)]
            out_circles.append(TrackCircle(c.value, (_r(ring.center[0]), _r(ring.center[1])), _r(ring.radius)))
        else:
            sk, (tx, ty) = scale[n_boxes + k], shift[n_boxes + k]
            center = (_r(sk * c.center[0] + tx), _r(sk * c.center[1] + ty))
            out_circles.append(TrackCircle(c.value, center, _r(sk * c.radius)))
            placed_values.append(c.value)
    return _Layout(tuple(out_boxes), tuple(out_circles), tuple(placed), tuple(placed_values))


def _r(v: float) -> float:
    """Sheet units rounded for the file: a hundredth of a unit is far below what a picture resolves."""
    return round(float(v), 2)


def _base_shapes(sheet: SheetLayout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pts = [b.center for b in sheet.score_boxes] + [c.center for c in sheet.tourist_track]
    kind = [0] * len(sheet.score_boxes) + [1] * len(sheet.tourist_track)
    size = [(b.w, b.h) for b in sheet.score_boxes] + [(2 * c.radius, 2 * c.radius) for c in sheet.tourist_track]
    return (
        np.array(pts, dtype=np.float64).reshape(-1, 2),
        np.array(kind),
        np.array(size, dtype=np.float64).reshape(-1, 2),
    )


def _score_proposals(
    base_pts: np.ndarray,
    base_kind: np.ndarray,
    base_size: np.ndarray,
    cand_pts: np.ndarray,
    cand_kind: np.ndarray,
    cand_size: np.ndarray,
    scales: np.ndarray,
    shifts: np.ndarray,
    tol: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """For each proposed scale/shift: how many base shapes land on a found shape, and their total distance."""
    moved = scales[:, None, None] * base_pts[None] + shifts[:, None, :]
    d = np.linalg.norm(moved[:, :, None, :] - cand_pts[None, None, :, :], axis=3)
    ratio = cand_size[None, None, :, :] / (scales[:, None, None, None] * base_size[None, :, None, :])
    ok = (
        (base_kind[:, None] == cand_kind[None, :])[None]
        & (ratio.min(axis=3) >= SIZE_RANGE[0])
        & (ratio.max(axis=3) <= SIZE_RANGE[1])
        & (d < tol[None, :, None])
    )
    nearest = np.where(ok, d, np.inf).min(axis=2)
    hit = np.isfinite(nearest)
    return hit.sum(axis=1), np.where(hit, nearest, 0.0).sum(axis=1)


def _assign(
    base_pts: np.ndarray,
    base_kind: np.ndarray,
    base_size: np.ndarray,
    cand_pts: np.ndarray,
    cand_kind: np.ndarray,
    cand_size: np.ndarray,
    scale: np.ndarray,
    shift: np.ndarray,
    tol: np.ndarray,
) -> np.ndarray:
    """For each base shape under its ``scale``/``shift`` (per shape), the nearest unused found shape
    of its kind and size (or -1)."""
    moved = scale[:, None] * base_pts + shift
    d = np.linalg.norm(moved[:, None, :] - cand_pts[None, :, :], axis=2)
    ratio = cand_size[None, :, :] / (scale[:, None, None] * base_size[:, None, :])
    ok = (
        (base_kind[:, None] == cand_kind[None, :])
        & (ratio.min(axis=2) >= SIZE_RANGE[0])
        & (ratio.max(axis=2) <= SIZE_RANGE[1])
        & (d < tol[:, None])
    )
    d = np.where(ok, d, np.inf)
    match = np.full(len(base_pts), -1)
    # Closest pairs first, each found shape named once.
    for flat in np.argsort(d, axis=None):
        i, j = np.unravel_index(flat, d.shape)
        if not np.isfinite(d[i, j]):
            break
        if match[i] < 0 and j not in match:
            match[i] = j
    return match


def _zone_not_found(source: str, sheet: SheetLayout, boxes: int, circles: int) -> CalibrationError:
    return CalibrationError(
        source,
        [
            f"the score zone was not found below the map: {boxes} of {len(sheet.score_boxes)} score boxes and "
            f"{circles} of {len(sheet.tourist_track)} tourist-track circles match the base layout"
        ],
        "photograph or scan the whole sheet, flat and evenly lit; for a print whose score zone is laid out "
        "differently, give a base calibration of that layout with --base",
    )


# ---- the print's appearance ---------------------------------------------------------------------------


def map_statistics(blank: np.ndarray, game_map: GameMap) -> dict[str, Any]:
    """What the reader may want to know of a print, measured on its straightened blank map.

    ``symbol_reach`` / ``tourist_reach``: how far dark ink reaches from an ordinary station's /
    a tourist site's centre (lattice pitches); ``river_width``: width of the Thames band
    (pitches); ``paper_rgb`` / ``ink_rgb``: the paper's and the dark print's colours.
    """
    ppp = PX_PER_PITCH
    value = channel_max(blank).astype(np.float32)
    k = int(ppp * 0.7) | 1
    paper_level = cv2.GaussianBlur(cv2.dilate(value, np.ones((k, k), np.uint8)), (0, 0), ppp * 0.3)
    dark = value < 0.5 * paper_level
    ys, xs = np.mgrid[0 : blank.shape[0], 0 : blank.shape[1]]
    ordinary: list[float] = []
    tourist: list[float] = []
    for st in game_map.stations:
        if st.departure is not None:
            continue
        cx, cy = (st.point[0] + MARGIN) * ppp, (st.point[1] + MARGIN) * ppp
        y0, y1 = int(cy - 0.6 * ppp), int(cy + 0.6 * ppp) + 1
        x0, x1 = int(cx - 0.6 * ppp), int(cx + 0.6 * ppp) + 1
        d = np.hypot(xs[y0:y1, x0:x1] - cx, ys[y0:y1, x0:x1] - cy)
        # Only ink centred on the station (its rings, spikes): a map frame or a neighbour's spikes are off-centre.
        n, labels, _stats, centroids = cv2.connectedComponentsWithStats(
            (dark[y0:y1, x0:x1] & (d < 0.6 * ppp)).astype(np.uint8)
        )
        off = np.hypot(centroids[:, 0] + x0 - cx, centroids[:, 1] + y0 - cy)
        own = [k for k in range(1, n) if off[k] < 0.15 * ppp]
        sel = np.isin(labels, own)
        if sel.sum() < 10:
            continue
        (tourist if st.tourist_site else ordinary).append(float(np.percentile(d[sel], 99)) / ppp)
    bright = value >= np.percentile(value, 60)
    out: dict[str, Any] = {
        "symbol_reach": round(float(np.median(ordinary)), 3) if ordinary else None,
        "tourist_reach": round(float(np.median(tourist)), 3) if tourist else None,
        "river_width": _river_width(blank, game_map),
        "paper_rgb": [int(v) for v in np.median(blank[bright], axis=0)],
        "ink_rgb": [int(v) for v in np.median(blank[dark], axis=0)] if dark.any() else None,
    }
    return out


def _river_width(blank: np.ndarray, game_map: GameMap) -> float | None:
    """Width (pitches) of the band of colour along the Thames centre line, measured across it away from stations."""
    ppp = PX_PER_PITCH
    img = blank.astype(np.float32)
    value = channel_max(img)
    paper = np.median(img[value >= np.percentile(value, 60)], axis=0)
    stations = np.array([s.point for s in game_map.stations], dtype=np.float64)
    widths: list[float] = []
    offsets = np.arange(-0.6, 0.6001, 1 / ppp)
    pts = [np.array(p, dtype=np.float64) for p in game_map.thames]
    for a, b in itertools.pairwise(pts):
        seg = b - a
        length = float(np.hypot(*seg))
        if length == 0:
            continue
        along, normal = seg / length, np.array([-seg[1], seg[0]]) / length
        for t in np.arange(0.25, length, 0.5):
            p = a + along * t
            if not (0 <= p[0] <= game_map.columns - 1 and 0 <= p[1] <= game_map.rows - 1):
                continue
            if np.hypot(*(stations - p).T).min() < 0.75:
                continue
            line = p[None, :] + offsets[:, None] * normal[None, :]
            px = ((line + MARGIN) * ppp).astype(np.float32)
            prof = cv2.remap(img, px[:, 0].reshape(1, -1), px[:, 1].reshape(1, -1), cv2.INTER_LINEAR)[0]
            dist = np.linalg.norm(prof - paper, axis=1)
            if dist.max() < 30:
                continue
            inside = dist > 0.5 * dist.max()
            centre = len(offsets) // 2
            if not inside[centre - 2 : centre + 3].any():
                continue
            lo = hi = int(np.argmax(dist[centre - 2 : centre + 3])) + centre - 2
            while lo > 0 and inside[lo - 1]:
                lo -= 1
            while hi < len(inside) - 1 and inside[hi + 1]:
                hi += 1
            widths.append((hi - lo + 1) / ppp)
    return round(float(np.median(widths)), 3) if widths else None


def zone_statistics(zone: ZoneImage, circles: tuple[TrackCircle, ...], boxes: tuple[Box, ...]) -> dict[str, Any]:
    """What the marks reader needs of the score zone: how tall the track circles' numbers are.

    ``track_digit_half_height`` is the half-height of the printed number as a share of the
    circle's radius (``nsvision.vision.marks`` looks for crosses above and below it).
    """
    ink = ink_mask(zone).astype(bool)
    s = zone.px_per_unit
    halves: list[float] = []
    for c in circles:
        cx, cy = zone.to_px(np.array(c.center))
        r = c.radius * s
        x0, y0, x1, y1 = int(cx - r), int(cy - r), int(cx + r) + 2, int(cy + r) + 2
        if x0 < 0 or y0 < 0 or x1 > ink.shape[1] or y1 > ink.shape[0]:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1]
        dy = (yy - cy) / r
        inside = np.hypot((xx - cx) / r, dy) < 0.75
        sel = ink[y0:y1, x0:x1] & inside
        if sel.sum() >= 5:
            halves.append(float(np.percentile(np.abs(dy[sel]), 98)))
    return {"track_digit_half_height": round(float(np.median(halves)), 3) if halves else None}


# ---- files ---------------------------------------------------------------------------------------------


def write_calibration(calibration: Calibration, path: str | Path) -> list[Path]:
    """Write the calibration JSON (and its blank map as ``<name>.blank.png`` beside it); returns the files.

    The JSON is what ``load_calibration`` reads; ``appearance.blank_image`` names the PNG
    relative to the JSON's folder.
    """
    path = Path(path)
    written: list[Path] = []
    appearance = dict(calibration.appearance)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if calibration.blank_image is not None:
            png = path.with_name(f"{path.stem}.blank.png")
            rgb = np.asarray(calibration.blank_image)
            if not cv2.imwrite(str(png), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)):
                raise OSError(f"cannot write {png}")
            appearance["blank_image"] = png.name
            written.append(png)
        doc = calibration_to_dict(replace(calibration, appearance=appearance))
        # The file must read back: a calibration that does not is a bug, caught before it is written.
        parse_calibration(json.loads(json.dumps(doc)), str(path))
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(
            str(path), f"cannot write the calibration ({exc.strerror or exc})", "check the folder"
        ) from None
    written.insert(0, path)
    return written


def load_blank(calibration: Calibration) -> np.ndarray | None:
    """The print's straightened blank map (RGB uint8): lattice point (x, y) at
    ``((x + margin) * px_per_pitch, (y + margin) * px_per_pitch)`` with the ``appearance`` values
    (those of ``straighten.straighten`` when it was made).

    ``None`` when the calibration has none (the default one). Raises ``CalibrationError`` when the
    file it names is missing, unreadable or not of the size the calibration states.
    """
    if calibration.blank_image is not None:
        return np.asarray(calibration.blank_image)
    name = calibration.appearance.get("blank_image")
    if name is None:
        return None
    source = calibration.source or "<calibration>"
    if not isinstance(name, str) or not name:
        raise CalibrationError(source, ["$.appearance.blank_image: expected a file name"])
    path = Path(source).parent / name
    hint = "run 'nsvision calibrate' again, or remove appearance.blank_image from the file"
    if not path.is_file():
        raise CalibrationError(source, [f"$.appearance.blank_image: {path} does not exist"], hint)
    bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if bgr is None:
        raise CalibrationError(source, [f"$.appearance.blank_image: {path} is not a readable image"], hint)
    ppp = calibration.appearance.get("px_per_pitch", PX_PER_PITCH)
    margin = calibration.appearance.get("margin", MARGIN)
    game_map = calibration.map
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in (ppp, margin))
    expected = (
        (int(round((game_map.rows - 1 + 2 * margin) * ppp)), int(round((game_map.columns - 1 + 2 * margin) * ppp)))
        if numbers
        else None
    )
    # Any resolution and margin will do (the reader resamples), as long as the file says which.
    if expected is None or abs(bgr.shape[0] - expected[0]) > 1 or abs(bgr.shape[1] - expected[1]) > 1:
        raise CalibrationError(
            source,
            [
                f"$.appearance.blank_image: {path} is {bgr.shape[1]}x{bgr.shape[0]} px, but px_per_pitch "
                f"{ppp!r} and margin {margin!r} make a {game_map.columns}x{game_map.rows} map "
                + (f"{expected[1]}x{expected[0]} px" if expected else "of no size")
            ],
            hint,
        )
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


# ---- overlay -------------------------------------------------------------------------------------------

OVERLAY_LONG_SIDE = 1600
"""Long side (px) of the overlay: enough to see every box and circle, small enough to open anywhere."""


def render_calibration_overlay(image: np.ndarray, survey: BlankSurvey) -> np.ndarray:
    """A BGR picture of what calibration found, drawn over the (downscaled) input.

    Green: station symbols seen; grey: stations predicted by the lattice; blue: score boxes and
    track circles found; orange: placed from the base layout (not seen).
    """
    scale = min(1.0, OVERLAY_LONG_SIDE / max(image.shape[:2]))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    out = (cv2.cvtColor(small, cv2.COLOR_RGB2BGR).astype(np.float32) * 0.6 + 255 * 0.4).astype(np.uint8)
    reg = survey.registration
    sheet = survey.calibration.sheet
    thick = 2
    r_px = max(3, int(round(0.3 * reg.pitch_px * scale)))
    for p, (x, y) in reg.station_xy_px.items():
        colour = (40, 170, 40) if p in reg.found else (150, 150, 150)
        cv2.circle(out, (int(round(x * scale)), int(round(y * scale))), r_px, colour, thick, cv2.LINE_AA)
    placed = set(survey.boxes_placed)
    for b in sheet.score_boxes:
        corners = np.array([(b.x, b.y), (b.x + b.w, b.y), (b.x + b.w, b.y + b.h), (b.x, b.y + b.h)])
        px = sheet_to_image_px(reg, sheet, corners) * scale
        colour = (0, 140, 255) if b.name in placed else (220, 90, 0)
        cv2.polylines(out, [np.round(px).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
    placed_values = set(survey.calibration.appearance.get("placed_from_base", []))
    for c in sheet.tourist_track:
        ang = np.linspace(0, 2 * math.pi, 48, endpoint=False)
        ring = np.stack([c.center[0] + c.radius * np.cos(ang), c.center[1] + c.radius * np.sin(ang)], axis=1)
        px = sheet_to_image_px(reg, sheet, ring) * scale
        colour = (0, 140, 255) if f"track_{c.value}" in placed_values else (220, 90, 0)
        cv2.polylines(out, [np.round(px).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
    return out
