"""The score zone: where its boxes and tourist-track circles are, and what the player marked there.

The score zone lies below the map, outside the station lattice that registration fits, so the
lattice model is extrapolated to reach it and each printed shape is then re-found locally in a
straightened copy of the zone (a "zone image" in sheet units). Printed shapes are outlines of
dark ink around a light inside (white boxes, rings); what the player adds is pencil:

* a crossed-out circle carries strokes across the light inside of its ring, above and below the
  printed number (a band the number never reaches, measured on the blank by ``nsvision calibrate``);
* a ticked "+10" box carries strokes in its empty inside.

Measurements are kept raw (the share of the measured area that carries pencil) and decided with
a threshold; circles are crossed from the left, so the count is the prefix that agrees best with
the evidence, and circles that disagree with it are named as doubtful.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import cv2
import numpy as np

from nsvision.calibration import Box, Calibration, SheetLayout
from nsvision.vision.channels import channel_max
from nsvision.vision.register import Registration


class _Shape(Protocol):
    @property
    def center(self) -> tuple[float, float]: ...


_S = TypeVar("_S", bound=_Shape)

ZONE_PX_PER_UNIT = 3.0
"""Resolution of the straightened score zone: a 1.4-unit box outline stays 4 px wide."""
DARK_INK = 0.62
"""Max-channel brightness (relative to the local paper) below which a pixel is printed ink: the
yellow zone, the white boxes and coloured pencil all keep one bright channel, navy or black ink does not."""


# ---- geometry: sheet units <-> image px ------------------------------------------------------------


def sheet_to_image_px(registration: Registration, sheet: SheetLayout, pts_units: np.ndarray) -> np.ndarray:
    """Image px of sheet points (N, 2), through the lattice model extrapolated beyond the map.

    The homography carries perspective out to the score zone; the smooth residual field (paper
    curl) is taken at the nearest point of the lattice, because a thin-plate field grows without
    bound away from the points it was fitted to.
    """
    pts = np.asarray(pts_units, dtype=np.float64).reshape(-1, 2)
    lattice = (pts - np.array(sheet.lattice_origin)) / sheet.lattice_pitch
    hi = np.array([max(p[0] for p in registration.station_xy_px), max(p[1] for p in registration.station_xy_px)])
    inside = np.clip(lattice, 0.0, hi.astype(np.float64))
    flat = cv2.perspectiveTransform(lattice[None], registration.homography)[0]
    at_edge = cv2.perspectiveTransform(inside[None], registration.homography)[0]
    return flat + (registration.lattice_to_px(inside) - at_edge)


@dataclass(frozen=True)
class ZoneImage:
    """A straightened region of the sheet: pixel ``(x, y)`` shows sheet point ``origin + (x, y) / px_per_unit``."""

    image: np.ndarray
    """(H, W, 3) uint8 RGB."""
    origin: tuple[float, float]
    """Sheet units ``(u, v)`` of pixel (0, 0)."""
    px_per_unit: float
    visible: np.ndarray
    """(H, W) bool: the pixel maps inside the picture (a close-up photo may cut the score zone)."""

    def to_px(self, pts_units: np.ndarray) -> np.ndarray:
        return (np.asarray(pts_units, dtype=np.float64) - np.array(self.origin)) * self.px_per_unit

    def to_units(self, pts_px: np.ndarray) -> np.ndarray:
        return np.asarray(pts_px, dtype=np.float64) / self.px_per_unit + np.array(self.origin)


def straighten_region(
    image: np.ndarray,
    registration: Registration,
    sheet: SheetLayout,
    region: tuple[float, float, float, float],
    px_per_unit: float = ZONE_PX_PER_UNIT,
) -> ZoneImage:
    """Resample ``region`` (sheet units ``x, y, w, h``) of the picture into a ZoneImage."""
    x, y, w, h = region
    size_x, size_y = int(round(w * px_per_unit)), int(round(h * px_per_unit))
    step = 8.0
    gx = np.arange(0, size_x + step, step)
    gy = np.arange(0, size_y + step, step)
    mx, my = np.meshgrid(gx, gy)
    units = np.column_stack([mx.ravel() / px_per_unit + x, my.ravel() / px_per_unit + y])
    img_ppu = registration.pitch_px / sheet.lattice_pitch
    # Shrink a sharp picture first so each zone pixel averages its source pixels instead of aliasing.
    scale = min(1.0, 1.3 * px_per_unit / img_ppu)
    src = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    coarse = (sheet_to_image_px(registration, sheet, units) * scale).reshape(len(gy), len(gx), 2).astype(np.float32)
    fy = (np.arange(size_y, dtype=np.float32) / step)[:, None].repeat(size_x, 1)
    fx = (np.arange(size_x, dtype=np.float32) / step)[None, :].repeat(size_y, 0)
    map_x = cv2.remap(coarse[..., 0], fx, fy, cv2.INTER_LINEAR)
    map_y = cv2.remap(coarse[..., 1], fx, fy, cv2.INTER_LINEAR)
    out = cv2.remap(src, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    hs, ws = src.shape[:2]
    visible = (map_x >= 0) & (map_y >= 0) & (map_x <= ws - 1) & (map_y <= hs - 1)
    return ZoneImage(out, (x, y), px_per_unit, visible)


# ---- printed shapes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FoundBox:
    """An outlined rectangle found in a zone image, in sheet units (outline centre line)."""

    x: float
    y: float
    w: float
    h: float
    line_width: float
    """Width of the printed outline."""

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)


@dataclass(frozen=True)
class FoundRing:
    """A printed ring found in a zone image, in sheet units (radius to the ring's centre line)."""

    center: tuple[float, float]
    radius: float
    line_width: float


def ink_mask(zone: ZoneImage) -> np.ndarray:
    """Printed ink (uint8 0/1): dark in every channel relative to the local paper."""
    value = channel_max(zone.image)
    k = int(round(8 * zone.px_per_unit)) | 1
    paper = cv2.blur(cv2.dilate(value, np.ones((k, k), np.uint8)), (k, k)).astype(np.float32)
    return ((value.astype(np.float32) < DARK_INK * paper) & zone.visible).astype(np.uint8)


def find_shapes(zone: ZoneImage, min_size: float = 6.0) -> tuple[list[FoundBox], list[FoundRing]]:
    """Every outlined box and ring in the zone: light holes in the ink, rectangular or round.

    ``min_size`` (sheet units) is the smallest inside a shape may have: less is lettering.
    Boxes are returned axis-aligned in the zone's frame (their size from the best-fitting
    rotated rectangle, so a slightly turned zone does not inflate them).
    """
    ink = ink_mask(zone)
    s = zone.px_per_unit
    # Bridge the pixel gaps a blurred, noisy outline has; a gap leaks the hole into the paper outside.
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, hierarchy = cv2.findContours(closed, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    boxes: list[FoundBox] = []
    rings: list[FoundRing] = []
    if hierarchy is None:
        return boxes, rings
    for cnt, (_n, _p, _c, parent) in zip(contours, hierarchy[0], strict=True):
        if parent < 0 or len(cnt) < 12:
            continue
        area = cv2.contourArea(cnt)
        if area < (min_size * s) ** 2:
            continue
        (rx, ry), (rw, rh), angle = cv2.minAreaRect(cnt)
        if area >= 0.9 * rw * rh:
            if abs(((angle + 45) % 90) - 45) > 10:
                continue
            # A rotated-rect angle near ±90 swaps its sides.
            if abs(angle) > 45:
                rw, rh = rh, rw
            run = _box_outline_px(closed, (rx, ry), (rw, rh))
            if run is None:
                continue
            cx, cy = zone.to_units(np.array([rx, ry]))
            # The contour runs on the outline's inner pixels; the box is the outline's centre line.
            w, h = (rw - 1 + run) / s, (rh - 1 + run) / s
            boxes.append(FoundBox(float(cx - w / 2), float(cy - h / 2), float(w), float(h), run / s))
            continue
        ring = _ring_from_hole(cnt, area)
        if ring is None:
            continue
        (cx, cy), r_px = ring
        run = _ring_outline_px(closed, (cx, cy), r_px)
        if run is None:
            continue
        center = zone.to_units(np.array([cx, cy]))
        rings.append(FoundRing((float(center[0]), float(center[1])), float((r_px - 0.5 + run / 2) / s), run / s))
    return boxes, rings


def _ring_from_hole(cnt: np.ndarray, area: float) -> tuple[tuple[float, float], float] | None:
    """Centre and inner radius (px) of a round hole, or ``None`` when the hole is not round.

    The printed number inside a ring may touch it in a blurred picture and bite into the hole,
    so roundness is judged on the hole's convex hull, and the bite may take at most a third.
    """
    hull = cv2.convexHull(cnt)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0 or area / hull_area < 0.65 or len(hull) < 5:
        return None
    (cx, cy), (a1, a2), _ang = cv2.fitEllipse(hull)
    a, b = max(a1, a2) / 2, min(a1, a2) / 2
    if b <= 0 or b / a < 0.8 or not 0.9 <= hull_area / (np.pi * a * b) <= 1.1:
        return None
    return (float(cx), float(cy)), float(np.sqrt(a * b))


def _ink_run(ink: np.ndarray, starts: np.ndarray, dirs: np.ndarray, max_px: int) -> np.ndarray:
    """Length (px) of unbroken ink from each start point outward along its direction."""
    t = np.arange(max_px, dtype=np.float64)
    pts = starts[:, None, :] + t[None, :, None] * dirs[:, None, :]
    xs = np.clip(np.round(pts[..., 0]).astype(int), 0, ink.shape[1] - 1)
    ys = np.clip(np.round(pts[..., 1]).astype(int), 0, ink.shape[0] - 1)
    on = ink[ys, xs] > 0
    # Index of the first paper pixel (max_px when the ink never ends).
    return np.where(on.all(axis=1), max_px, np.argmin(on, axis=1)).astype(np.float64)


def _box_outline_px(ink: np.ndarray, center: tuple[float, float], size: tuple[float, float]) -> float | None:
    """Median outline width (px) of an axis-aligned box, from its inner edge outward on all four sides.

    Thresholding a blurred outline shrinks the hole and widens the ink by the same amount, so the
    centre line (inner edge + half the width) stays where it is printed.
    """
    cx, cy = center
    hw, hh = size[0] / 2, size[1] / 2
    k = np.linspace(-0.3, 0.3, 9)
    starts, dirs = [], []
    for sx in (-1.0, 1.0):
        starts += [(cx + sx * hw, cy + f * 2 * hh) for f in k]
        dirs += [(sx, 0.0)] * len(k)
    for sy in (-1.0, 1.0):
        starts += [(cx + f * 2 * hw, cy + sy * hh) for f in k]
        dirs += [(0.0, sy)] * len(k)
    max_px = max(4, int(0.25 * min(size)))
    runs = _ink_run(ink, np.array(starts), np.array(dirs), max_px)
    runs = runs[(runs > 0) & (runs < max_px)]
    return float(np.median(runs)) if len(runs) >= 12 else None


def _ring_outline_px(ink: np.ndarray, center: tuple[float, float], r_px: float) -> float | None:
    """Median ring width (px) outward from the hole's edge, away from the lines joining the track's rings."""
    ang = np.radians(np.concatenate([np.arange(30, 151, 15), np.arange(210, 331, 15)]))
    dirs = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    starts = np.array(center) + dirs * r_px
    max_px = max(4, int(0.5 * r_px))
    runs = _ink_run(ink, starts, dirs, max_px)
    runs = runs[(runs > 0) & (runs < max_px)]
    return float(np.median(runs)) if len(runs) >= len(ang) // 2 else None


# ---- locating the score zone of a filled sheet ----------------------------------------------------

MATCH_TOLERANCE = 0.35
"""A shape is re-found when a candidate lies within this share of the distance to its nearest neighbour."""
FIT_RESIDUAL = 2.5
"""Sheet units: a re-found shape further than this from the fitted correction is a wrong match."""
MIN_AFFINE = 6
"""Fewer re-found shapes than this only fix a shift: an affine from a few would follow their errors."""


@dataclass(frozen=True)
class ZoneFit:
    """The score zone straightened, with the calibration's shapes where they actually are in it."""

    zone: ZoneImage
    correction: np.ndarray
    """2x3 affine: calibrated sheet units -> sheet units of ``zone`` (identity when nothing was re-found)."""
    matched: int
    """Printed shapes re-found near their calibrated place and consistent with the correction."""
    circles: tuple[FoundRing, ...]
    """Every tourist-track circle, in zone sheet units (re-found, or placed by the correction)."""
    boxes: dict[str, FoundBox]
    """Every score box by name, likewise."""

    def apply(self, pts_units: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts_units, dtype=np.float64).reshape(-1, 2)
        return pts @ self.correction[:, :2].T + self.correction[:, 2]


def zone_region(sheet: SheetLayout, pad: float = 30.0) -> tuple[float, float, float, float]:
    """Sheet units ``x, y, w, h`` around every score box and track circle, with ``pad`` to spare."""
    corners = [(b.x, b.y) for b in sheet.score_boxes] + [(b.x + b.w, b.y + b.h) for b in sheet.score_boxes]
    for c in sheet.tourist_track:
        corners += [(c.center[0] - c.radius, c.center[1] - c.radius), (c.center[0] + c.radius, c.center[1] + c.radius)]
    if not corners:
        x, y, w, h = sheet.score_zone_box
        return (x - pad, y - pad, w + 2 * pad, h + 2 * pad)
    pts = np.array(corners, dtype=np.float64)
    lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
    return (float(lo[0]), float(lo[1]), float(hi[0] - lo[0]), float(hi[1] - lo[1]))


def locate_zone(image: np.ndarray, registration: Registration, sheet: SheetLayout) -> ZoneFit:
    """Straighten the score zone and re-find the calibration's boxes and circles in it."""
    zone = straighten_region(image, registration, sheet, zone_region(sheet))
    found_boxes, found_rings = find_shapes(zone)
    track, boxes = sheet.tourist_track, sheet.score_boxes
    centers = np.array([c.center for c in track] + [b.center for b in boxes], dtype=np.float64).reshape(-1, 2)
    tolerance = MATCH_TOLERANCE * _nearest_spacing(centers)
    ring_pick: list[FoundRing | None] = [
        _nearest(c.center, [r for r in found_rings if 0.75 <= r.radius / c.radius <= 1.33], tolerance[i])
        for i, c in enumerate(track)
    ]
    box_pick = [
        _nearest(b.center, [f for f in found_boxes if _similar_size(f, b)], tolerance[len(track) + j])
        for j, b in enumerate(boxes)
    ]
    picks: list[FoundRing | FoundBox | None] = [*ring_pick, *box_pick]
    used = [i for i, f in enumerate(picks) if f is not None]
    src = centers[used]
    dst = np.array([_center(picks[i]) for i in used], dtype=np.float64).reshape(-1, 2)
    correction, inliers = _fit_correction(src, dst)
    trusted = {used[k] for k, ok in enumerate(inliers) if ok}
    scale = float(np.sqrt(abs(np.linalg.det(correction[:, :2]))))
    fit = ZoneFit(zone, correction, len(trusted), (), {})
    # Each circle is placed by the correction (fitted to every shape re-found, so one ring whose hole
    # a blurred number bites into cannot pull it) and then centred on its own printed ring.
    ink_value = _ink_darkness(zone)
    circles: list[FoundRing] = []
    for c in track:
        p = fit.apply(np.array(c.center))[0]
        circles.append(_centre_ring(zone, ink_value, (float(p[0]), float(p[1])), c.radius * scale))
    placed: dict[str, FoundBox] = {}
    for j, b in enumerate(boxes):
        box = box_pick[j]
        if len(track) + j in trusted and box is not None:
            placed[b.name] = box
        else:
            p = fit.apply(np.array(b.center))[0]
            w, h = b.w * scale, b.h * scale
            placed[b.name] = FoundBox(float(p[0] - w / 2), float(p[1] - h / 2), w, h, 0.0)
    return ZoneFit(zone, correction, len(trusted), tuple(circles), placed)


def _center(shape: FoundRing | FoundBox | None) -> tuple[float, float]:
    assert shape is not None
    return shape.center


def _similar_size(found: FoundBox, box: Box) -> bool:
    return 0.75 <= found.w / box.w <= 1.33 and 0.75 <= found.h / box.h <= 1.33


def _nearest_spacing(pts: np.ndarray) -> np.ndarray:
    """Distance from each point to its nearest neighbour."""
    if len(pts) < 2:
        return np.full(len(pts), 50.0)
    d = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    return d.min(axis=1)


def _nearest(p: tuple[float, float], cands: Sequence[_S], tol: float) -> _S | None:
    best: _S | None = None
    best_d = tol
    for c in cands:
        d = float(np.hypot(c.center[0] - p[0], c.center[1] - p[1]))
        if d < best_d:
            best, best_d = c, d
    return best


def _fit_correction(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A 2x3 affine from calibrated to re-found positions, and which matches it explains."""
    identity = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    if len(src) == 0:
        return identity, np.zeros(0, bool)
    # Start from the median shift, which a few wrong matches cannot drag, then refine.
    shift = np.median(dst - src, axis=0)
    m = identity.copy()
    m[:, 2] = shift
    keep = np.hypot(*(src + shift - dst).T) < 2 * FIT_RESIDUAL
    for _ in range(4):
        if keep.sum() >= MIN_AFFINE:
            sol, *_ = np.linalg.lstsq(np.c_[src[keep], np.ones(int(keep.sum()))], dst[keep], rcond=None)
            m = sol.T
        elif keep.any():
            m = identity.copy()
            m[:, 2] = np.median(dst[keep] - src[keep], axis=0)
        pred = src @ m[:, :2].T + m[:, 2]
        new_keep = np.hypot(*(pred - dst).T) < FIT_RESIDUAL
        if np.array_equal(new_keep, keep):
            break
        keep = new_keep
    return m, keep


RING_SEARCH = 2.5
"""Sheet units around its corrected place where a track circle's ring is looked for."""


def _ink_darkness(zone: ZoneImage) -> np.ndarray:
    """0–1 darkness of printed ink (max channel under the local paper): coloured pencil barely counts."""
    value = channel_max(zone.image).astype(np.float32)
    k = int(round(8 * zone.px_per_unit)) | 1
    paper = cv2.blur(cv2.dilate(value, np.ones((k, k), np.uint8)), (k, k)) + 1.0
    return np.clip(1.0 - value / paper, 0.0, 1.0) * zone.visible


def _centre_ring(zone: ZoneImage, darkness: np.ndarray, center: tuple[float, float], radius: float) -> FoundRing:
    """The centre within ``RING_SEARCH`` of ``center`` where a circle of ``radius`` lies darkest on the ink."""
    s = zone.px_per_unit
    # Away from the lines that join the track's circles at 3 and 9 o'clock.
    deg = np.r_[np.arange(25, 156, 5), np.arange(205, 336, 5)]
    ang = np.radians(deg)
    ring = np.stack([np.cos(ang), np.sin(ang)], axis=1) * radius * s
    steps = np.arange(-RING_SEARCH, RING_SEARCH + 1e-9, 0.25) * s
    ox, oy = np.meshgrid(steps, steps)
    offsets = np.stack([ox.ravel(), oy.ravel()], axis=1)
    c_px = zone.to_px(np.array(center))
    pts = c_px[None, None, :] + offsets[:, None, :] + ring[None, :, :]
    xs = np.clip(np.round(pts[..., 0]).astype(int), 0, darkness.shape[1] - 1)
    ys = np.clip(np.round(pts[..., 1]).astype(int), 0, darkness.shape[0] - 1)
    score = darkness[ys, xs].mean(axis=1)
    if score.max() <= 0:
        return FoundRing(center, radius, 0.0)
    # A printed ring is wider than the sampling circle's wobble, so the best score is a plateau:
    # its centre is the ring's centre.
    best = offsets[score >= score.max() - 0.02].mean(axis=0)
    u, v = zone.to_units(c_px + best)
    return FoundRing((float(u), float(v)), radius, 0.0)


# ---- pencil in circles and boxes -------------------------------------------------------------------

DIGIT_BAND = 0.375
"""Half-height of a track circle's printed number, as a share of the radius, when the calibration has
not measured it (the default print's numbers are three quarters of the radius tall)."""
DIGIT_MARGIN = 0.075
"""Share of the radius added to that half-height for the number's blur in a soft picture."""
NUMBER_CLEARANCE = 1.5
"""Sheet units kept clear around the printed number's ink (its blur and anti-aliasing)."""
INSIDE = 0.78
"""Share of a ring's radius measured inside it: the ring's own ink, blurred, stays outside."""
LINE_ANGLES = (25, 71, 5)
"""Angles (degrees from the x axis: start, stop, step, and their mirror images) of the lines tried
through a circle: people cross circles out diagonally; a horizontal stroke would hide in the number."""
LINE_OFFSET = 0.35
"""The lines tried pass within this share of the radius of the circle's centre."""
NOISE_LINES = 3.0
"""Chance deviations of a line's mean density (from the paper's noise) taken off a circle's score."""
PENCIL_OD = 0.12
"""Optical density (in the channel a mark darkens most) above which a pixel carries a mark."""
NOISE_SIGMAS = 5.0
"""A mark must stand this many robust deviations of the paper's density above it."""
CROSSED = 0.075
"""Circle score (OD) above which a circle is crossed out."""
TICKED = 0.012
"""Share of a "+10" box's inside carrying a mark above which the box is ticked (empty boxes score 0,
ticks over 0.03)."""
SCORE_FLOOR = 0.01
"""Circle scores below this are all just clean paper when the track is split into crossed and clean."""
SPLIT_CONTRAST = 2.5
"""The crossed prefix must score this many times the clean rest (geometric means) ..."""
SPLIT_MIN = 0.04
"""... and at least this much (geometric mean), or the track is judged as a whole."""
BOX_INSET = 0.25
"""Share of a box's smaller side left out along its edges: a blurred outline must not count as a mark
(a tick fills the middle of the box)."""
CLEAR = 4.0
"""A score this many times past its threshold (either way) is read with full confidence."""
OWN_CLEAR = 2.5
"""The same against a track's own threshold between its crosses and its clean circles (``_track_split``):
that threshold is the player's own, so a score nearer it is as plain (a light player's cross at 0.1
beside crosses of 0.2 and clean circles of 0.005 is sure, where it is faint against ``CROSSED``)."""
SEEN = 0.98
"""Share of a circle or box that must lie inside the picture for it to be judged."""


def mark_density(patch: np.ndarray, region: np.ndarray) -> np.ndarray:
    """Per-pixel optical density over the patch's own paper, in the channel a mark darkens most.

    The paper is the bright end (90th percentile, per channel) of ``region``: most of a circle's
    or box's inside stays empty even when it is crossed out or ticked. A light blur first: a
    pencil stroke is several pixels wide here, sensor noise is not.
    """
    smooth = cv2.GaussianBlur(patch.astype(np.float32), (0, 0), 1.0)
    if not region.any():
        return np.zeros(patch.shape[:2], np.float32)
    paper = np.percentile(smooth[region], 90, axis=0) + 2.0
    return channel_max(np.log(paper[None, None, :] / (smooth + 2.0)))


def marked_pixels(patch: np.ndarray, region: np.ndarray) -> np.ndarray:
    """Pixels of ``patch`` that carry a mark: denser than ``PENCIL_OD`` and than the paper's own noise."""
    if not region.any():
        return np.zeros(patch.shape[:2], bool)
    od = mark_density(patch, region)
    values = od[region]
    centre = float(np.median(values))
    spread = 1.4826 * float(np.median(np.abs(values - centre)))
    return od > max(PENCIL_OD, centre + NOISE_SIGMAS * spread)


def circle_score(zone: ZoneImage, ring: FoundRing, digit_band: float = DIGIT_BAND) -> float:
    """How much a track circle looks crossed out (optical density): NaN when it is not wholly in the picture.

    A cross or slash is a straight stroke through the circle. The mean density is taken along
    many lines through the circle (diagonals, near the centre), off the printed number (dark ink
    within ``digit_band``, a share of the radius, of the centre line); the score is
    the densest line's excess over the median line, less what the paper's own noise would give
    a line by chance. Untouched circles score about 0, crossed ones well above ``CROSSED``.
    """
    s = zone.px_per_unit
    cx, cy = zone.to_px(np.array(ring.center))
    r = ring.radius * s
    x0, y0 = int(np.floor(cx - r)) - 2, int(np.floor(cy - r)) - 2
    x1, y1 = int(np.ceil(cx + r)) + 3, int(np.ceil(cy + r)) + 3
    h, w = zone.image.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or zone.visible[y0:y1, x0:x1].mean() < SEEN:
        return float("nan")
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    inside = np.hypot(xx - cx, yy - cy) < INSIDE * r
    patch = zone.image[y0:y1, x0:x1]
    od = mark_density(patch, inside)
    # The printed number: dark in every channel, within its band. Coloured pencil keeps a bright
    # channel; graphite across the number is lost there but not above and below it.
    value = channel_max(patch).astype(np.float32)
    number = (value < DARK_INK * np.percentile(value[inside], 90)) & (np.abs(yy - cy) < (digit_band + DIGIT_MARGIN) * r)
    k = 2 * int(round(NUMBER_CLEARANCE * s)) + 1
    number = cv2.dilate(number.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    free = inside & ~number
    ang = np.radians(np.r_[np.arange(*LINE_ANGLES), 180 - np.arange(*LINE_ANGLES)])
    offs = np.arange(-LINE_OFFSET * r, LINE_OFFSET * r + 1e-6, 1.5)
    t = np.arange(-INSIDE * r, INSIDE * r, 0.75)
    a, o, tt = np.meshgrid(ang, offs, t, indexing="ij")
    # Angles count anticlockwise from the x axis; image y grows downwards.
    dx = tt * np.cos(a) - o * np.sin(a)
    dy = -tt * np.sin(a) - o * np.cos(a)
    px = np.clip(np.round(cx + dx - x0).astype(int), 0, od.shape[1] - 1)
    py = np.clip(np.round(cy + dy - y0).astype(int), 0, od.shape[0] - 1)
    use = free[py, px]
    n = use.sum(axis=2)
    means = np.where(use, od[py, px], 0.0).sum(axis=2)[n >= 10] / n[n >= 10]
    if len(means) < 10:
        return float("nan")
    values = od[free]
    noise_px = 1.4826 * float(np.median(np.abs(values - np.median(values))))
    # Neighbouring samples along a line are correlated (the light blur): about one in three is new.
    noise_line = noise_px / np.sqrt(float(np.median(n[n >= 10])) / 3)
    return float(means.max() - np.median(means) - NOISE_LINES * noise_line)


def box_score(zone: ZoneImage, box: FoundBox) -> float:
    """Share of a box's inside (clear of its outline) carrying a mark: NaN when it is not in the picture."""
    inset = max(box.line_width, BOX_INSET * min(box.w, box.h))
    p0 = zone.to_px(np.array([box.x + inset, box.y + inset]))
    p1 = zone.to_px(np.array([box.x + box.w - inset, box.y + box.h - inset]))
    x0, y0 = int(np.ceil(p0[0])), int(np.ceil(p0[1]))
    x1, y1 = int(np.floor(p1[0])) + 1, int(np.floor(p1[1])) + 1
    h, w = zone.image.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h or x1 - x0 < 4 or y1 - y0 < 4:
        return float("nan")
    if zone.visible[y0:y1, x0:x1].mean() < SEEN:
        return float("nan")
    region = np.ones((y1 - y0, x1 - x0), bool)
    return float(marked_pixels(zone.image[y0:y1, x0:x1], region).mean())


def _certainty(score: float, threshold: float, clear: float = CLEAR) -> float:
    """0 at the threshold, 1 at ``clear`` times past it either way (log scale)."""
    if not np.isfinite(score):
        return 0.0
    ratio = max(score, threshold / 64) / threshold
    return float(min(1.0, abs(np.log(ratio)) / np.log(clear)))


# ---- the reading ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CircleMark:
    """One tourist-track circle as read."""

    value: int
    """Points printed in the circle."""
    center_px: tuple[float, float]
    """Centre in the image read."""
    score: float
    """Share of the circle's corners above and below its number carrying pencil, less its centre
    column's share (0–1; above ``CROSSED`` = crossed out); NaN when it is not in the picture."""
    crossed: bool
    """What this circle alone shows (the count also uses the crossing order: see ``MarksReading``)."""

    @property
    def seen(self) -> bool:
        return bool(np.isfinite(self.score))

    def to_dict(self) -> dict[str, object]:
        return {
            "value": self.value,
            "center_px": [round(self.center_px[0], 1), round(self.center_px[1], 1)],
            "score": round(self.score, 4) if self.seen else None,
            "crossed": self.crossed,
        }


@dataclass(frozen=True)
class BoxMark:
    """One "+10" objective box as read."""

    name: str
    """``objective_1``, ``objective_2``."""
    center_px: tuple[float, float]
    score: float
    """Share of the box's inside carrying pencil (0–1; above ``TICKED`` = ticked); NaN when not in the picture."""
    ticked: bool

    @property
    def seen(self) -> bool:
        return bool(np.isfinite(self.score))

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "center_px": [round(self.center_px[0], 1), round(self.center_px[1], 1)],
            "score": round(self.score, 4) if self.seen else None,
            "ticked": self.ticked,
        }


@dataclass(frozen=True)
class MarksReading:
    """What the player marked in the score zone: crossed-out tourist circles and ticked "+10" boxes."""

    circles: tuple[CircleMark, ...]
    """The tourist track, left to right."""
    objectives: tuple[BoxMark, ...]
    """The "+10" boxes, ``objective_1`` first."""
    tourist_circles_crossed: int
    """Circles crossed out from the left, read from all the circles together (``crossed_count``):
    a faint cross among clear ones still counts."""
    confidence: float
    """0–1: how clear the least clear mark is (0 when a mark could not be seen or contradicts the order)."""
    doubtful: tuple[str, ...]
    """The marks a person should check, in plain English."""
    shapes_found: int
    """Score boxes and circles re-found in the picture (0: the zone was placed by extrapolation alone)."""

    @property
    def crossed(self) -> tuple[bool, ...]:
        return tuple(c.crossed for c in self.circles)

    @property
    def scores(self) -> tuple[float, ...]:
        return tuple(c.score for c in self.circles)

    @property
    def objectives_ticked(self) -> tuple[bool, ...]:
        return tuple(b.ticked for b in self.objectives)

    @property
    def seen(self) -> bool:
        """Whether any circle of the track was in the picture."""
        return any(c.seen for c in self.circles)

    @property
    def tourist_points(self) -> int:
        """Points of the leftmost circle not crossed out."""
        if not self.circles:
            return 0
        return self.circles[min(self.tourist_circles_crossed, len(self.circles) - 1)].value

    def to_dict(self) -> dict[str, object]:
        return {
            "tourist_circles_crossed": self.tourist_circles_crossed,
            "tourist_points": self.tourist_points,
            "objectives_ticked": list(self.objectives_ticked),
            "confidence": round(self.confidence, 3),
            "doubtful": list(self.doubtful),
            "shapes_found": self.shapes_found,
            "circles": [c.to_dict() for c in self.circles],
            "objectives": [b.to_dict() for b in self.objectives],
        }


def read_marks(image: np.ndarray, registration: Registration, calibration: Calibration) -> MarksReading:
    """Read the crossed-out tourist circles and the ticked "+10" boxes of a sheet (RGB image)."""
    sheet = calibration.sheet
    fit = locate_zone(image, registration, sheet)
    band = calibration.appearance.get("track_digit_half_height", DIGIT_BAND)
    band = float(band) if isinstance(band, (int, float)) and 0 < band < 0.7 else DIGIT_BAND
    scores = [circle_score(fit.zone, ring, band) for ring in fit.circles]
    ring_units = np.array([r.center for r in fit.circles], dtype=np.float64).reshape(-1, 2)
    ring_px = sheet_to_image_px(registration, sheet, ring_units) if len(ring_units) else ring_units
    circles = tuple(
        CircleMark(c.value, (float(p[0]), float(p[1])), sc, bool(np.isfinite(sc) and sc > CROSSED))
        for c, p, sc in zip(sheet.tourist_track, ring_px, scores, strict=True)
    )
    objective_boxes = sorted((b for b in sheet.score_boxes if b.name.startswith("objective_")), key=lambda b: b.name)
    objectives: list[BoxMark] = []
    for b in objective_boxes:
        found = fit.boxes[b.name]
        sc = box_score(fit.zone, found)
        p = sheet_to_image_px(registration, sheet, np.array(found.center))[0]
        objectives.append(BoxMark(b.name, (float(p[0]), float(p[1])), sc, bool(np.isfinite(sc) and sc > TICKED)))
    return judge_marks(circles, tuple(objectives), fit.matched)


def judge_marks(circles: tuple[CircleMark, ...], objectives: tuple[BoxMark, ...], shapes_found: int) -> MarksReading:
    """The reading of a score zone from each circle's and box's score (``decide_marks``) and how many
    of its printed shapes were found: what ``read_marks`` returns, and what a reading kept from an
    older reader is judged again by (``bench/reread.py``)."""
    count, doubts, certainty = decide_marks(circles, objectives)
    if shapes_found == 0:
        doubts.insert(0, "the score zone's printed boxes and circles were not found where the map puts them")
        certainty = 0.0
    return MarksReading(circles, objectives, count, certainty, tuple(doubts), shapes_found)


def crossed_count(scores: tuple[float, ...]) -> int:
    """How many circles are crossed out from the left, from every circle's score (NaN: not seen).

    Players cross circles in order, and one player's crosses look alike, so the track splits into
    a denser prefix and a cleaner rest: the split that makes both groups most uniform (in log
    score) is taken when the prefix is clearly denser (``SPLIT_CONTRAST``) and clearly marked
    (``SPLIT_MIN``). This reads a sheet's faint crosses against its own clean circles, where one
    threshold for every picture would not. Without such a split the track is all crossed or all
    clean, by its median score against ``CROSSED``.
    """
    return _track_split(scores)[0]


def _track_split(scores: tuple[float, ...]) -> tuple[int, float | None]:
    """``crossed_count``, and the score between the sheet's own crosses and its clean circles (the
    geometric mean of the two groups' levels) where the track splits into them, else None."""
    seen = [i for i, v in enumerate(scores) if np.isfinite(v)]
    if not seen:
        return 0, None
    logs = np.log(np.maximum(np.array([scores[i] for i in seen]), SCORE_FLOOR))
    best: tuple[float, int, float, float] | None = None
    for k in range(1, len(logs)):
        head, tail = logs[:k], logs[k:]
        cost = float(((head - head.mean()) ** 2).sum() + ((tail - tail.mean()) ** 2).sum())
        if best is None or cost < best[0]:
            best = (cost, k, float(head.mean()), float(tail.mean()))
    if best is not None:
        _cost, k, head_mean, tail_mean = best
        if head_mean - tail_mean > np.log(SPLIT_CONTRAST) and np.exp(head_mean) > SPLIT_MIN:
            # The rest is the player's clean paper only where it is clean to every print's eye.
            own = float(np.exp((head_mean + tail_mean) / 2)) if np.exp(tail_mean) < CROSSED else None
            return seen[k - 1] + 1, own
    return (seen[-1] + 1 if float(np.median(np.exp(logs))) > CROSSED else 0), None


def _unseen_follow(circles: tuple[CircleMark, ...], count: int) -> bool:
    """Every circle out of the picture lies where the circles in it say what it must be: after a
    clean circle (crosses go from the left, so it is clean too) or before a crossed one."""
    seen = [i for i, c in enumerate(circles) if c.seen]
    first_clean = min((i for i in seen if i >= count), default=None)
    unseen = [i for i, c in enumerate(circles) if not c.seen]
    after_clean = first_clean is not None and all(i > first_clean for i in unseen)
    before_crossed = count > 0 and all(i < count - 1 for i in unseen) and (count - 1) in seen
    return after_clean or before_crossed


def decide_marks(circles: tuple[CircleMark, ...], objectives: tuple[BoxMark, ...]) -> tuple[int, list[str], float]:
    """The crossed count that best fits the scores, the marks in doubt, and the overall confidence."""
    doubts: list[str] = []
    certainty = [1.0]
    count, own = _track_split(tuple(c.score for c in circles))
    unseen = [i + 1 for i, c in enumerate(circles) if not c.seen]
    if unseen and len(unseen) == len(circles):
        doubts.append("the tourist track is not (wholly) in the picture: its crossed-out circles were not read")
        certainty.append(0.0)
    elif unseen and not _unseen_follow(circles, count):
        doubts.append(f"tourist circle(s) {', '.join(map(str, unseen))} not (wholly) in the picture")
        certainty.append(0.0)
    last_crossed = max((i for i, c in enumerate(circles) if c.seen and i < count), default=-1)
    for i, c in enumerate(circles):
        label = f"tourist circle {i + 1} ({c.value} points)"
        if not c.seen:
            continue
        in_prefix = i < count
        # Judged against every print's threshold and, where the track splits, against the sheet's
        # own crosses and clean circles: a light player's faint cross among clearly clean circles
        # is as sure as a firm one.
        sides = [(c.crossed, CROSSED, CLEAR)] + ([(c.score > own, own, OWN_CLEAR)] if own is not None else [])
        agreeing = [(threshold, clear) for crossed, threshold, clear in sides if crossed == in_prefix]
        if not agreeing:
            how = "looks crossed out" if c.crossed else "does not look crossed out"
            side = "after" if c.crossed else "before"
            doubts.append(f"{label} {how}, but it lies {side} the {count} circle(s) read as crossed from the left")
            certainty.append(0.0)
            continue
        if i < last_crossed:
            # Crosses go from the left: a circle before one that is crossed out is crossed out too,
            # however faint its own cross (the last one's doubt, if any, stands for the count).
            continue
        sure = max(_certainty(c.score, threshold, clear) for threshold, clear in agreeing)
        certainty.append(sure)
        if sure < 0.5:
            doubts.append(f"{label} carries a faint mark (score {c.score:.3f})")
    for b in objectives:
        label = f"the +10 box of objective {b.name.rsplit('_', 1)[-1]}"
        if not b.seen:
            doubts.append(f"{label} is not (wholly) in the picture")
            certainty.append(0.0)
            continue
        sure = _certainty(b.score, TICKED)
        certainty.append(sure)
        if sure < 0.5:
            doubts.append(f"{label} carries a faint mark (score {b.score:.3f})")
    return count, doubts, float(min(certainty))


def _track_difference(marks: MarksReading, tourist_circles: int) -> str | None:
    """The tourist track's disagreement with the circles the lines earn, in plain English, or None."""
    if not marks.seen or marks.tourist_circles_crossed == tourist_circles:
        return None
    values = [c.value for c in marks.circles]

    def points(n: int) -> int:
        return values[min(n, len(values) - 1)]

    n = marks.tourist_circles_crossed
    return (
        f"the tourist track has {n} circle{'s' if n != 1 else ''} crossed out, the lines earn "
        f"{tourist_circles} ({points(n)} points → {points(tourist_circles)})"
    )


def _box_differences(marks: MarksReading, objectives_met: tuple[bool, ...]) -> list[tuple[str, bool]]:
    """Each "+10" box that disagrees with the lines, in plain English, and whether it is a box of an
    objective in play that is ticked."""
    out: list[tuple[str, bool]] = []
    for i, box in enumerate(marks.objectives):
        if not box.seen:
            continue
        number = i + 1
        if i >= len(objectives_met):
            if box.ticked:
                why = f"the +10 box of objective {number} is ticked, but no objective {number} is in play"
                out.append((why, False))
            continue
        met = objectives_met[i]
        if box.ticked and not met:
            out.append(
                (f"the +10 box of objective {number} is ticked, but the lines do not meet objective {number}", True)
            )
        elif met and not box.ticked:
            out.append((f"the lines meet objective {number} (+10), but its box is not ticked", False))
    return out


def compare_marks(marks: MarksReading, tourist_circles: int, objectives_met: tuple[bool, ...]) -> tuple[str, ...]:
    """Plain-English differences between the marks and what the lines earn (empty when they agree).

    ``tourist_circles``: circles the lines earn (``ScoreCard.tourist_circles``); ``objectives_met``:
    per objective in play, in box order, whether the lines meet it. Marks not in the picture are
    not compared (``marks.doubtful`` says so).
    """
    track = _track_difference(marks, tourist_circles)
    return (*([track] if track else []), *(why for why, _claim in _box_differences(marks, objectives_met)))


def _clear_track_difference(marks: MarksReading, tourist_circles: int) -> str | None:
    """``_track_difference`` where the track is clearly marked (some circle crossed out, no mark in
    doubt), or None."""
    if marks.doubtful or marks.tourist_circles_crossed == 0:
        return None
    return _track_difference(marks, tourist_circles)


def track_contradicts(marks: MarksReading, tourist_circles: int) -> bool:
    """The tourist track, clearly marked (some circle crossed out, no mark in doubt), counts other
    than the ``tourist_circles`` the lines earn (see ``marks_contradict``)."""
    return _clear_track_difference(marks, tourist_circles) is not None


def marks_contradict(marks: MarksReading, tourist_circles: int, objectives_met: tuple[bool, ...]) -> tuple[str, ...]:
    """The differences of ``compare_marks`` that a clear mark of the player's makes: a tourist track
    with circles crossed out whose count is not what the lines earn, and the "+10" box of an
    objective in play ticked where the lines do not meet it; none where any mark is in doubt
    (``marks.doubtful``). An empty track or an unticked box may only be unfilled: a player who has
    not marked the score zone contradicts nothing; a box ticked for an objective not in play says
    more of the options given than of the lines. Either the lines are misread (a light stroke to a
    tourist site, say) or the player slipped: a person should look.
    """
    if marks.doubtful:
        return ()
    track = _clear_track_difference(marks, tourist_circles)
    boxes = (why for why, ticked_in_play in _box_differences(marks, objectives_met) if ticked_in_play)
    return (*([track] if track else []), *boxes)
