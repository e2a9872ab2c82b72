"""From a drawn sheet to what a user actually hands us: a phone photo, a flatbed scan, or the clean image.

Each degradation is a pure function of the sheet image, the calibration, a seed and a
``strength`` (0 = easy, 1 = hardest) and returns the picture plus the ground truth of where the
sheet ended up in it: a best-fit homography (sheet units -> displayed image px) and the true
position of every station (which includes the paper curl the homography cannot express).

A photo is made with a pinhole camera looking at the sheet lying on a table: the sheet is a
(slightly curled) plane rotated in its own plane and tilted away from the camera, so the
perspective is that of a real lens, not an arbitrary homography. The geometry comes first from
the seed; ``photo_px_per_unit`` tells a caller the resolution the sheet should be rendered at
so that the one warp neither blurs nor aliases it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import cv2
import numpy as np

from nsvision.calibration import Calibration
from nsvision.game.board import station_name
from nsvision.render.sheet import RenderedSheet

UNIT_MM = 0.28
"""Millimetres per sheet unit: the real pad sheet is about 15 × 26 cm (532 × 924 units)."""
PHOTO_FRAMES: tuple[tuple[int, int], ...] = ((4000, 3000), (4032, 3024), (3264, 2448), (4000, 2250), (3840, 2160))
"""Phone camera frames (landscape width, height): 8–12 MP."""
SCAN_BED_MM = (216.0, 297.0)
"""A flatbed's glass (width, height) in mm: room for A4 and US letter."""
_GRID_STEP = 8
"""Output pixels between the points where the exact (curled) mapping is evaluated; the rest is interpolated."""


@dataclass(frozen=True, eq=False)
class Degraded:
    """A picture of a sheet and where the sheet is in it."""

    image: np.ndarray
    """(H, W, 3) uint8 RGB as a viewer shows it (EXIF orientation already applied)."""
    stored: np.ndarray
    """The pixels as stored in the file; differs from ``image`` only when ``exif_orientation != 1``."""
    exif_orientation: int
    """EXIF orientation tag to write with ``stored`` (1 = none)."""
    sheet_to_image: np.ndarray
    """3x3 homography, sheet units -> displayed image px (best fit over the map when the paper is curled)."""
    stations_px: Mapping[str, tuple[float, float]]
    """True displayed-image position ``(x, y)`` of each station ``"x,y"`` (curl included)."""
    kind: str
    """``"photo"``, ``"scan"`` or ``"clean"``."""
    jpeg_quality: int = 92
    """Quality to use when this picture is written as JPEG (always with 4:2:0 chroma subsampling)."""
    dpi: int | None = None
    """Scan resolution, for file metadata and PDF page size; ``None`` for photos."""
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """What was done, for people reading ``expected.json`` (angles in degrees, sizes in px)."""

    def map_position(self) -> dict[str, Any]:
        """The ``map_position`` block of ``expected.json``."""
        return {
            "sheet_to_image": [[float(v) for v in row] for row in self.sheet_to_image],
            "stations_px": {k: [round(float(x), 2), round(float(y), 2)] for k, (x, y) in self.stations_px.items()},
            "exif_orientation": self.exif_orientation,
        }


def _station_units(calibration: Calibration) -> tuple[list[str], np.ndarray]:
    names = [station_name(s.point) for s in calibration.map.stations]
    pts = np.array([calibration.sheet.lattice_to_sheet(*s.point) for s in calibration.map.stations], np.float64)
    return names, pts


def _apply_h(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ h.T
    return p[:, :2] / p[:, 2:3]


def clean(sheet: RenderedSheet, calibration: Calibration) -> Degraded:
    """The rendered sheet as it is: a perfect scan."""
    h = sheet.sheet_to_px_matrix
    names, pts = _station_units(calibration)
    px = _apply_h(h, pts)
    return Degraded(
        image=sheet.image,
        stored=sheet.image,
        exif_orientation=1,
        sheet_to_image=h,
        stations_px=MappingProxyType({n: (float(x), float(y)) for n, (x, y) in zip(names, px, strict=True)}),
        kind="clean",
        jpeg_quality=95,
    )


# ---- photo geometry ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Camera:
    """A pinhole camera over a curled sheet: sheet units -> displayed image px."""

    frame: tuple[int, int]
    """Displayed image (width, height) in px."""
    rotation: np.ndarray
    """3x3 world rotation of the sheet (in-plane rotation, then tilt)."""
    distance_mm: float
    focal_px: float
    zoom: float
    """Extra scale applied in the image plane (same as a focal length change), around the frame centre."""
    shift_px: tuple[float, float]
    centre_units: tuple[float, float]
    curl_bow_mm: float
    curl_axis: int
    """0: the sheet bows along its width (side edges lifted), 1: along its height."""
    curl_corner_mm: float
    curl_corner: int
    """Which corner lifts (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left)."""
    sheet_size: tuple[float, float]

    def lift_mm(self, pts: np.ndarray) -> np.ndarray:
        """Height of the paper above the table at sheet points (units), in mm."""
        w, h = self.sheet_size
        un = np.clip(pts[:, 0] / w, -0.2, 1.2)
        vn = np.clip(pts[:, 1] / h, -0.2, 1.2)
        along = un if self.curl_axis == 0 else vn
        z = self.curl_bow_mm * (2 * along - 1) ** 2
        cu, cv_ = ((0, 0), (1, 0), (1, 1), (0, 1))[self.curl_corner]
        d = np.hypot((un - cu) * w / h, vn - cv_)
        z += self.curl_corner_mm * np.clip(1 - d / 0.45, 0, 1) ** 2
        return z

    def world(self, pts: np.ndarray, curled: bool = True) -> np.ndarray:
        """Sheet units (N, 2) -> camera coordinates in mm (N, 3); the third is the distance along the lens axis."""
        x = (pts[:, 0] - self.centre_units[0]) * UNIT_MM
        y = (pts[:, 1] - self.centre_units[1]) * UNIT_MM
        z = -self.lift_mm(pts) if curled else np.zeros(len(pts))
        world = np.stack([x, y, z], axis=1) @ self.rotation.T
        world[:, 2] += self.distance_mm
        return world

    def project(self, pts: np.ndarray, curled: bool = True) -> np.ndarray:
        """Sheet units (N, 2) -> displayed image px (N, 2)."""
        world = self.world(pts, curled)
        w, h = self.frame
        px = self.focal_px * world[:, 0] / world[:, 2]
        py = self.focal_px * world[:, 1] / world[:, 2]
        return np.stack([w / 2 + self.zoom * px + self.shift_px[0], h / 2 + self.zoom * py + self.shift_px[1]], axis=1)


def _rot(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def _outline(calibration: Calibration, box: tuple[float, float, float, float], n: int = 12) -> np.ndarray:
    x, y, w, h = box
    t = np.linspace(0, 1, n)
    return np.concatenate(
        [
            np.stack([x + w * t, np.full(n, y)], 1),
            np.stack([np.full(n, x + w), y + h * t], 1),
            np.stack([x + w * t, np.full(n, y + h)], 1),
            np.stack([np.full(n, x), y + h * t], 1),
        ]
    )


def _photo_camera(
    calibration: Calibration, seed: int, strength: float, frame: tuple[int, int] | None, megapixels: float | None
) -> _Camera:
    rng = np.random.default_rng([seed, 0xCA3E])
    sh = calibration.sheet
    spin, (fw, fh) = _choose_spin_and_frame(rng, strength, frame, megapixels)
    tilt_max = math.radians(5 + 30 * strength)
    tilt = tilt_max * math.sqrt(rng.uniform(0.05, 1.0))
    tilt_dir = rng.uniform(0, 2 * math.pi)
    rotation = _rot(np.array([math.cos(tilt_dir), math.sin(tilt_dir), 0.0]), tilt) @ _rot(
        np.array([0.0, 0.0, 1.0]), spin
    )
    focal = 0.78 * max(fw, fh) * rng.uniform(0.9, 1.15)
    long_mm = max(sh.width, sh.height) * UNIT_MM
    distance = focal * long_mm / (0.8 * max(fw, fh))
    curl_scale = 0.3 + strength
    cam = _Camera(
        frame=(fw, fh),
        rotation=rotation,
        distance_mm=distance,
        focal_px=focal,
        zoom=1.0,
        shift_px=(0.0, 0.0),
        centre_units=(sh.width / 2, sh.height / 2),
        curl_bow_mm=float(rng.uniform(0, 4) * curl_scale),
        curl_axis=int(rng.integers(0, 2)),
        curl_corner_mm=float(rng.uniform(0, 6) * curl_scale) if rng.random() < 0.5 else 0.0,
        curl_corner=int(rng.integers(0, 4)),
        sheet_size=(sh.width, sh.height),
    )
    sheet_pts = cam.project(_outline(calibration, (0, 0, sh.width, sh.height)))
    map_pts = cam.project(_outline(calibration, sh.map_box))
    bw, bh = np.ptp(sheet_pts, axis=0)
    fit = min(fw / bw, fh / bh)
    # Sometimes a close-up: the paper's edges may leave the frame, the map may not.
    close_up = rng.random() < 0.1 + 0.3 * strength
    zoom = fit * (rng.uniform(0.95, 1.2) if close_up else rng.uniform(0.62, 0.95))
    margin = 0.02 * min(fw, fh)
    mw, mh = np.ptp(map_pts, axis=0)
    zoom = min(zoom, (fw - 2 * margin) / mw, (fh - 2 * margin) / mh)
    centre = np.array([fw / 2, fh / 2])

    def allowed(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = centre + zoom * (pts - centre)
        lo = np.array([margin, margin]) - p.min(axis=0)
        hi = np.array([fw - margin, fh - margin]) - p.max(axis=0)
        return lo, hi

    lo, hi = allowed(sheet_pts)
    if np.any(lo > hi):
        lo, hi = allowed(map_pts)
    shift = rng.uniform(np.minimum(lo, hi), np.maximum(lo, hi))
    return replace(cam, zoom=float(zoom), shift_px=(float(shift[0]), float(shift[1])))


def photo_px_per_unit(
    calibration: Calibration,
    seed: int,
    strength: float = 0.5,
    frame: tuple[int, int] | None = None,
    megapixels: float | None = None,
) -> float:
    """The sheet resolution a ``photo`` with these arguments needs: its largest image scale, rounded up."""
    cam = _photo_camera(calibration, seed, strength, frame, megapixels)
    sh = calibration.sheet
    pts = _outline(calibration, (0, 0, sh.width, sh.height), 6)
    a = cam.project(pts)
    b = cam.project(pts + (1.0, 0.0))
    c = cam.project(pts + (0.0, 1.0))
    scale = max(np.hypot(*(b - a).T).max(), np.hypot(*(c - a).T).max())
    return float(math.ceil(scale * 4) / 4)


# ---- photo ---------------------------------------------------------------------------------------


def _sheet_lookup(
    cam: _Camera, sheet: RenderedSheet, calibration: Calibration
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every output pixel, the sheet-image pixel that lands there (maps for ``cv2.remap``); and on
    the coarse grid (``_GRID_STEP`` px per cell) the paper's lift and its distance from the lens, in mm."""
    fw, fh = cam.frame
    nx, ny = fw // _GRID_STEP, fh // _GRID_STEP
    # Sample where cv2.resize(INTER_LINEAR) puts its source pixels, so the upsampled map is exact there.
    xs = (np.arange(nx) + 0.5) * fw / nx - 0.5
    ys = (np.arange(ny) + 0.5) * fh / ny - 0.5
    q = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    sh = calibration.sheet
    corners = np.array([[0, 0], [sh.width, 0], [sh.width, sh.height], [0, sh.height]], np.float64)
    flat = cv2.getPerspectiveTransform(
        corners.astype(np.float32), cam.project(corners, curled=False).astype(np.float32)
    )
    inv = np.linalg.inv(flat)
    target = _apply_h(inv, q)
    p = target.copy()
    # Undo the curl by fixed-point iteration: it moves points by a few units and varies slowly.
    for _ in range(4):
        p -= _apply_h(inv, cam.project(p)) - target
    lift = cam.lift_mm(p)
    sx = sheet.origin_px[0] + p[:, 0] * sheet.px_per_unit
    sy = sheet.origin_px[1] + p[:, 1] * sheet.px_per_unit

    def up(a: np.ndarray) -> np.ndarray:
        return cv2.resize(a.reshape(ny, nx).astype(np.float32), (fw, fh), interpolation=cv2.INTER_LINEAR)

    depth = cam.world(p)[:, 2]
    return up(sx), up(sy), lift.reshape(ny, nx).astype(np.float32), depth.reshape(ny, nx).astype(np.float32)


def _fit_homography(cam: _Camera, calibration: Calibration) -> np.ndarray:
    mx, my, mw, mh = calibration.sheet.map_box
    g = np.stack(np.meshgrid(np.linspace(mx, mx + mw, 15), np.linspace(my, my + mh, 15)), -1).reshape(-1, 2)
    h, _ = cv2.findHomography(g, cam.project(g), 0)
    return h / h[2, 2]


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], scale: float | tuple[float, float]) -> np.ndarray:
    """Zero-mean, unit-ish noise with features of about ``scale`` px ((across x, across y) if a pair)."""
    h, w = shape
    sx, sy = (scale, scale) if isinstance(scale, (int, float)) else scale
    small = rng.standard_normal((max(2, int(h / sy) + 2), max(2, int(w / sx) + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


_WOODS = ((150, 100, 60), (190, 145, 95), (110, 70, 45), (205, 170, 125), (90, 60, 40), (170, 120, 80))
_CLOTHS = ((200, 60, 60), (60, 90, 150), (230, 225, 210), (80, 120, 80), (120, 120, 125), (235, 235, 235))
_LAMINATES = ((235, 235, 230), (60, 60, 65), (180, 175, 165), (120, 110, 100), (250, 250, 250))


def _table(rng: np.random.Generator, shape: tuple[int, int]) -> tuple[np.ndarray, str]:
    """A procedural table top (float32 RGB 0–255) at the given (small) size: wood, cloth or laminate."""
    h, w = shape
    kind = str(rng.choice(["wood", "cloth", "laminate"], p=[0.5, 0.25, 0.25]))
    if kind == "wood":
        # Drawn with planks along x on a larger square, then turned to any angle.
        n = int(math.hypot(h, w)) + 2
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        base = np.array(_WOODS[int(rng.integers(0, len(_WOODS)))], np.float32) * rng.uniform(0.85, 1.1)
        plank_w = rng.uniform(0.12, 0.3) * n
        plank = np.floor(yy / plank_w)
        period = rng.uniform(5, 16)
        # Growth rings: a slow drift across the board, stretched far along the grain; their
        # spacing changes across the board, and each plank is cut from another part of the log.
        drift = _smooth_noise(rng, (n, n), (n / 3, period * 4)) * period * 1.2
        spacing = 1 + 0.3 * _smooth_noise(rng, (n, n), (n, n / 4))
        ring = 0.5 + 0.5 * np.sin(2 * np.pi * (yy * spacing + drift + plank * 37.0) / period)
        fibre = _smooth_noise(rng, (n, n), (30, 0.8))
        blotch = _smooth_noise(rng, (n, n), (n / 4, n / 12))
        tone = rng.uniform(-0.08, 0.08, int(n / plank_w) + 2).astype(np.float32)[plank.astype(np.int32)]
        seam = np.clip(1 - np.abs((yy % plank_w) - 0.5) / 1.2, 0, 1)
        shade = 1 - 0.13 * ring**4 - 0.035 * fibre + 0.05 * blotch + tone - 0.3 * seam
        tex = base[None, None, :] * shade[..., None]
        m = cv2.getRotationMatrix2D((n / 2, n / 2), float(rng.uniform(0, 180)), 1.0)
        m[:, 2] += np.array([w / 2 - n / 2, h / 2 - n / 2])
        tex = cv2.warpAffine(tex, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    elif kind == "cloth":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        base = np.array(_CLOTHS[int(rng.integers(0, len(_CLOTHS)))], np.float32)
        period = rng.uniform(2.5, 5)
        weave = np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)
        folds = _smooth_noise(rng, (h, w), 60)
        tex = base[None, None, :] * (1 + 0.07 * weave + 0.06 * folds)[..., None]
        if rng.random() < 0.5:
            cell = rng.uniform(25, 60)
            check = (0.5 * (np.floor(xx / cell) % 2) + 0.5 * (np.floor(yy / cell) % 2))[..., None]
            tex = tex * (1 - 0.4 * check) + 240 * 0.4 * check
    else:
        base = np.array(_LAMINATES[int(rng.integers(0, len(_LAMINATES)))], np.float32)
        speck = rng.standard_normal((h, w)).astype(np.float32)
        tex = base[None, None, :] * (1 + 0.05 * speck + 0.04 * _smooth_noise(rng, (h, w), 50))[..., None]
    return np.clip(tex, 0, 255).astype(np.float32), kind


def _shadow_mask(rng: np.random.Generator, shape: tuple[int, int], target: np.ndarray) -> np.ndarray:
    """A soft shadow of a hand or phone (0–1, at the given small size) reaching in from the frame edge to ``target``."""
    h, w = shape
    mask = np.zeros((h, w), np.uint8)
    c = target[int(rng.integers(0, len(target)))]
    edge = int(rng.integers(0, 4))
    anchor = np.array([(c[0], -h * 0.3), (w * 1.3, c[1]), (c[0], h * 1.3), (-w * 0.3, c[1])][edge])
    anchor += rng.normal(0, 0.15 * min(h, w), 2)
    width = rng.uniform(0.08, 0.2) * min(h, w)
    direction = c - anchor
    normal = np.array([-direction[1], direction[0]]) / (np.linalg.norm(direction) + 1e-9)
    poly = np.array(
        [anchor + normal * width * 1.3, c + normal * width, c - normal * width, anchor - normal * width * 1.3]
    )
    cv2.fillPoly(mask, [poly.astype(np.int32)], 255)
    cv2.circle(mask, (int(c[0]), int(c[1])), int(width), 255, -1)
    return cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), rng.uniform(0.015, 0.05) * max(h, w))


def _choose_spin_and_frame(
    rng: np.random.Generator, strength: float, frame: tuple[int, int] | None, megapixels: float | None
) -> tuple[float, tuple[int, int]]:
    """In-plane rotation and the displayed frame: people mostly line the phone up with the sheet."""
    if rng.random() < 0.25 + 0.4 * strength:
        spin = rng.uniform(0, 2 * math.pi)
    else:
        spin = int(rng.integers(0, 4)) * math.pi / 2 + rng.normal(0, math.radians(4 + 8 * strength))
    fw, fh = PHOTO_FRAMES[int(rng.integers(0, len(PHOTO_FRAMES)))]
    sheet_upright = abs(math.cos(spin)) > abs(math.sin(spin))
    portrait = sheet_upright if rng.random() < 0.85 else not sheet_upright
    if frame is not None:
        return spin, frame
    if megapixels is not None:
        k = math.sqrt(megapixels * 1e6 / (fw * fh))
        fw, fh = round(fw * k), round(fh * k)
    return spin, ((fh, fw) if portrait else (fw, fh))


def photo(
    sheet: RenderedSheet,
    calibration: Calibration,
    seed: int,
    strength: float = 0.5,
    frame: tuple[int, int] | None = None,
    megapixels: float | None = None,
) -> Degraded:
    """A phone photo of the sheet on a table: 8–12 MP, or ``frame`` (displayed width, height) exactly,
    or a phone frame scaled to ``megapixels`` (the picture is otherwise the same as at full size).

    Geometry: any in-plane rotation (most often near a quarter turn, as people line up the
    phone), a tilt of up to 5° + 30° × strength, slight paper curl, the sheet filling 62–95 %
    of the frame (sometimes a close-up with the paper edges cut, never the map). Light: a
    gradient and vignette, often a soft hand/phone shadow, a white-balance error (warm tungsten
    likelier with strength). Optics and sensor: defocus or motion blur (more away from the focused
    point when the depth of field is shallow), sharpening, noise.
    JPEG quality 60–95 falls with strength.
    """
    if not 0.0 <= strength <= 1.0:
        raise ValueError(f"strength must lie between 0 and 1, got {strength}")
    cam = _photo_camera(calibration, seed, strength, frame, megapixels)
    rng = np.random.default_rng([seed, 0xF070])
    need = photo_px_per_unit(calibration, seed, strength, frame, megapixels)
    if sheet.px_per_unit > need * 1.3:
        # Downsample first so that the one warp does not alias the thin print and pencil.
        f = need / sheet.px_per_unit
        small = cv2.resize(sheet.image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        sheet = RenderedSheet(small, need, (sheet.origin_px[0] * f, sheet.origin_px[1] * f), sheet.style)
    fw, fh = cam.frame
    scale = max(fw, fh) / 4000
    q = 4  # work size divisor for everything that is smooth (table, light, shadows)
    qw, qh = fw // q, fh // q
    map_x, map_y, lift, depth = _sheet_lookup(cam, sheet, calibration)
    paper = cv2.remap(sheet.image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    ones = np.full(sheet.image.shape[:2], 255, np.uint8)
    alpha_u8 = cv2.remap(ones, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    del map_x, map_y
    table, table_kind = _table(np.random.default_rng([seed, 0x7AB1]), (qh, qw))
    # The sheet's own soft shadow on the table, a little away from the light.
    a_small = cv2.resize(alpha_u8, (qw, qh), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    off = rng.normal(0, 0.004 * max(qw, qh), 2)
    drop = cv2.GaussianBlur(np.roll(a_small, (int(off[1]), int(off[0])), axis=(0, 1)), (0, 0), 0.006 * max(qw, qh))
    table *= (1 - 0.3 * drop)[..., None]
    table_u8 = cv2.resize(np.clip(table, 0, 255).astype(np.uint8), (fw, fh), interpolation=cv2.INTER_LINEAR)
    a = alpha_u8.astype(np.float32) / 255
    img = cv2.blendLinear(table_u8, paper, 1 - a, a)
    del table_u8, paper, a, alpha_u8
    # Light: a gradient across the frame, vignetting, shading where the paper curls, a hand's shadow.
    yy, xx = np.mgrid[0:qh, 0:qw].astype(np.float32) * q
    d = rng.normal(0, 1, 2)
    d /= np.linalg.norm(d)
    grad_amp = rng.uniform(0.04, 0.12 + 0.3 * strength)
    rel = ((xx - fw / 2) * d[0] + (yy - fh / 2) * d[1]) / max(fw, fh)
    vig = ((xx - fw / 2) ** 2 + (yy - fh / 2) ** 2) / (0.25 * (fw**2 + fh**2))
    light = (1 + grad_amp * 2 * rel) * (1 - rng.uniform(0.05, 0.25) * vig)
    lift_small = cv2.resize(lift, (qw, qh), interpolation=cv2.INTER_LINEAR)
    gy, gx = np.gradient(lift_small)
    light *= 1 + np.clip((gx * d[0] + gy * d[1]) * 40 / q, -0.12, 0.12)
    shadow = np.zeros_like(light)
    shadow_depth = 0.0
    if rng.random() < 0.3 + 0.6 * strength:
        target = cam.project(_outline(calibration, calibration.sheet.map_box, 4)) / q
        shadow_depth = float(rng.uniform(0.15, 0.25 + 0.35 * strength))
        shadow = shadow_depth * _shadow_mask(rng, (qh, qw), target)
    light *= rng.uniform(0.82, 1.08)
    # White balance: warm tungsten light grows likelier and stronger with strength.
    if rng.random() < 0.2 + 0.6 * strength:
        warmth = float(rng.uniform(0.1, 0.2 + 0.5 * strength))
    else:
        warmth = float(rng.uniform(-0.12, 0.08))
    tint = rng.normal(0, 0.03)
    gains = np.array([1 + 0.35 * warmth, 1 + tint, 1 - 0.5 * warmth], np.float32)
    gains = gains / gains.max() * rng.uniform(1.0, 1.08)
    # Shadows are lit by the bluer sky light, so they darken red most.
    shadow_tint = (1.1, 1.0, 0.85)
    # Chroma noise is coarse blotches: it rides on the smooth gain map, at a fraction of the cost.
    sigma_c = float(rng.uniform(0.5, 1.0 + 3.0 * strength))
    noise_rng = np.random.default_rng([seed, 0xF071])
    blotch = noise_rng.standard_normal((3, qh, qw), dtype=np.float32) * sigma_c / 200
    gain3 = cv2.merge(
        [light * g * (1 - shadow * t) * (1 + b) for g, t, b in zip(gains, shadow_tint, blotch, strict=True)]
    )
    gain3 = cv2.resize(gain3, (fw, fh), interpolation=cv2.INTER_LINEAR)
    img = cv2.multiply(img, gain3, dtype=cv2.CV_8U)
    del gain3
    # Optics: defocus or hand shake, the same over the frame.
    blur_kind = "defocus" if rng.random() < 0.6 else "motion"
    if blur_kind == "defocus":
        blur_px = float(rng.uniform(0.3, 0.6 + 2.0 * strength) * scale)
        img = cv2.GaussianBlur(img, (0, 0), blur_px)
    else:
        blur_px = float(rng.uniform(1.5, 2.0 + 9.0 * strength) * scale)
        img = cv2.filter2D(img, -1, _motion_kernel(blur_px, float(rng.uniform(0, np.pi))))
    # A close, tilted sheet is not all in focus: blur grows with the distance from the focused plane.
    focus_px = 0.0
    if rng.random() < 0.6 * strength:
        mx, my, mw, mh = calibration.sheet.map_box
        focus_at = np.array([[mx + mw * rng.uniform(0.2, 0.8), my + mh * rng.uniform(0.2, 0.8)]])
        inv_focus = 1 / cam.world(focus_at)[0, 2]
        far = cam.world(_outline(calibration, calibration.sheet.map_box, 4))[:, 2]
        coc = np.abs(1 / depth - inv_focus) / max(float(np.abs(1 / far - inv_focus).max()), 1e-9)
        focus_px = float(rng.uniform(1.0, 1.0 + 3.0 * strength) * scale)
        w = cv2.resize(np.clip(coc, 0, 1).astype(np.float32), (fw, fh), interpolation=cv2.INTER_LINEAR)
        img = cv2.blendLinear(cv2.GaussianBlur(img, (0, 0), focus_px), img, w, 1 - w)
    # The phone's own processing: sharpening that rings a little on edges, then a tone curve.
    amount = float(rng.uniform(0.2, 0.7))
    img = cv2.addWeighted(img, 1 + amount, cv2.GaussianBlur(img, (0, 0), 1.5 * scale), -amount, 0)
    gamma = rng.uniform(0.9, 1.1)
    img = cv2.LUT(img, np.clip(255 * (np.arange(256) / 255) ** gamma + 0.5, 0, 255).astype(np.uint8))
    # Sensor noise: luminance at full resolution (more in the darks' shot noise), chroma blotches coarser.
    sigma_l = float(rng.uniform(0.8, 1.5 + 4.0 * strength))
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    shot = cv2.LUT(grey, np.clip(0.5 + 0.5 * np.sqrt(np.arange(256) / 255), 0, 1).astype(np.float32).reshape(1, 256))
    lum = noise_rng.standard_normal((fh, fw), dtype=np.float32) * sigma_l * shot.astype(np.float32)
    out = cv2.merge([cv2.add(ch, lum, dtype=cv2.CV_8U) for ch in cv2.split(img)])
    del lum, img
    names, pts = _station_units(calibration)
    stations = cam.project(pts)
    quality = int(np.clip(round(95 - 30 * strength + rng.normal(0, 4)), 60, 95))
    orientation = 1
    stored = out
    if rng.random() < 0.35:
        if fh > fw:
            orientation = int(rng.choice([6, 8]))
        elif rng.random() < 0.4:
            orientation = 3
        stored = _to_stored(out, orientation)
    details = {
        "frame": [fw, fh],
        "table": table_kind,
        "tilt_deg": round(math.degrees(math.acos(float(np.clip(cam.rotation[2, 2], -1, 1)))), 2),
        "in_plane_deg": round(math.degrees(math.atan2(cam.rotation[1, 0], cam.rotation[0, 0])) % 360, 2),
        "curl_mm": [round(cam.curl_bow_mm, 2), round(cam.curl_corner_mm, 2)],
        "shadow_depth": round(shadow_depth, 3),
        "warmth": round(warmth, 3),
        "blur": blur_kind,
        "blur_px": round(blur_px, 2),
        "depth_of_field_px": round(focus_px, 2),
        "noise_sigma": round(sigma_l, 2),
    }
    return Degraded(
        image=out,
        stored=stored,
        exif_orientation=orientation,
        sheet_to_image=_fit_homography(cam, calibration),
        stations_px=MappingProxyType({n: (float(x), float(y)) for n, (x, y) in zip(names, stations, strict=True)}),
        kind="photo",
        jpeg_quality=quality,
        details=MappingProxyType(details),
    )


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    k = max(3, int(math.ceil(length)) | 1)
    kern = np.zeros((k, k), np.float32)
    c = (k - 1) / 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(
        kern,
        (round((c - dx) * 16), round((c - dy) * 16)),
        (round((c + dx) * 16), round((c + dy) * 16)),
        1.0,
        1,
        cv2.LINE_AA,
        4,
    )
    return kern / kern.sum()


def _to_stored(displayed: np.ndarray, orientation: int) -> np.ndarray:
    """The pixels a camera stores so that a viewer applying EXIF ``orientation`` shows ``displayed``."""
    if orientation == 3:
        return np.ascontiguousarray(displayed[::-1, ::-1])
    if orientation == 6:  # the viewer turns the stored image 90° clockwise
        return np.ascontiguousarray(np.rot90(displayed, 1))
    if orientation == 8:  # ... 90° counter-clockwise
        return np.ascontiguousarray(np.rot90(displayed, -1))
    return displayed


def lens_distortion(image: np.ndarray, k: float) -> np.ndarray:
    """The picture as a lens with radial distortion ``k`` would have taken it, the camera's own
    correction missing or incomplete (an ultra-wide lens, an app that saves the raw frame): each
    pixel shows what lay ``1 + k r²`` times as far from the picture's centre, ``r`` its distance
    from the centre over the half-diagonal. ``k > 0`` is barrel distortion (straight lines bow out,
    the corners show what lay ``k`` further out), ``k < 0`` pincushion. The pinhole camera of
    ``photo`` has none; see ``lens_distorted`` for where a point moves."""
    h, w = image.shape[:2]
    cx, cy = (w - 1) / 2, (h - 1) / 2
    half = math.hypot(cx, cy)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = (xs - cx) / half, (ys - cy) / half
    f = 1 + k * (dx * dx + dy * dy)
    map_x = (cx + dx * half * f).astype(np.float32)
    map_y = (cy + dy * half * f).astype(np.float32)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def lens_distorted(points: np.ndarray, k: float, size: tuple[int, int]) -> np.ndarray:
    """Where the points ``(N, 2)`` (x, y px) of a picture of ``size`` (width, height) lie in
    ``lens_distortion(picture, k)``: the radius ``r`` with ``r (1 + k r²)`` the point's own, by Newton's
    method."""
    centre = np.array([(size[0] - 1) / 2, (size[1] - 1) / 2])
    half = float(np.hypot(*centre))
    u = (np.asarray(points, dtype=np.float64) - centre) / half
    ru = np.hypot(u[:, 0], u[:, 1])
    r = ru.copy()
    for _ in range(20):
        r -= (r + k * r**3 - ru) / (1 + 3 * k * r**2)
    scale = np.divide(r, ru, out=np.ones_like(ru), where=ru > 0)
    return centre + u * scale[:, None] * half


# ---- scan ----------------------------------------------------------------------------------------


def scan_px_per_unit(dpi: int) -> float:
    """Sheet pixels per unit in a scan at ``dpi``."""
    return dpi / 25.4 * UNIT_MM


def scan(sheet: RenderedSheet, calibration: Calibration, seed: int, strength: float = 0.5, dpi: int = 300) -> Degraded:
    """A flatbed scan at ``dpi`` (150–600): the sheet laid on the glass with a skew of up to 5°
    (× strength, at least 0.75°), sometimes upside down, the lid around it, a thin edge shadow,
    slightly uneven illumination, a little optical blur and scanner noise. The scan covers the
    whole glass or, as scanner software often does, a crop around the sheet."""
    if not 150 <= dpi <= 600:
        raise ValueError(f"dpi must lie between 150 and 600, got {dpi}")
    if not 0.0 <= strength <= 1.0:
        raise ValueError(f"strength must lie between 0 and 1, got {strength}")
    rng = np.random.default_rng([seed, 0x5CA2])
    noise_rng = np.random.default_rng([seed, 0x5CA3])
    ppu = scan_px_per_unit(dpi)
    if abs(sheet.px_per_unit / ppu - 1) > 0.02:
        f = ppu / sheet.px_per_unit
        interp = cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR
        img = cv2.resize(sheet.image, None, fx=f, fy=f, interpolation=interp)
        sheet = RenderedSheet(img, ppu, (sheet.origin_px[0] * f, sheet.origin_px[1] * f), sheet.style)
    px_mm = dpi / 25.4
    bed_w, bed_h = round(SCAN_BED_MM[0] * px_mm), round(SCAN_BED_MM[1] * px_mm)
    skew = math.radians(rng.uniform(-1, 1) * max(0.75, 5.0 * strength))
    flip = rng.random() < 0.1 + 0.2 * strength
    sh_img_h, sh_img_w = sheet.image.shape[:2]
    angle = skew + (math.pi if flip else 0.0)
    ca, sa = math.cos(angle), math.sin(angle)
    # Rotate the sheet image about its centre, then place it near the glass's top-left corner.
    cx, cy = (sh_img_w - 1) / 2, (sh_img_h - 1) / 2
    rot_w = abs(ca) * sh_img_w + abs(sa) * sh_img_h
    rot_h = abs(sa) * sh_img_w + abs(ca) * sh_img_h
    room_x, room_y = max(0.0, bed_w - rot_w), max(0.0, bed_h - rot_h)
    tx = rng.uniform(0.01, 0.3) * room_x + rot_w / 2
    ty = rng.uniform(0.01, 0.3) * room_y + rot_h / 2
    m = np.array([[ca, -sa, tx - (ca * cx - sa * cy)], [sa, ca, ty - (sa * cx + ca * cy)]])
    crop = rng.random() < 0.5
    if crop:
        pad = rng.uniform(3, 12) * px_mm
        x0 = max(0, int(tx - rot_w / 2 - pad))
        y0 = max(0, int(ty - rot_h / 2 - pad))
        x1 = min(bed_w, int(tx + rot_w / 2 + pad))
        y1 = min(bed_h, int(ty + rot_h / 2 + pad))
        m[:, 2] -= (x0, y0)
        out_w, out_h = x1 - x0, y1 - y0
    else:
        out_w, out_h = bed_w, bed_h
    paper = cv2.warpAffine(sheet.image, m, (out_w, out_h), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    ones = np.full((sh_img_h, sh_img_w), 255, np.uint8)
    a = cv2.warpAffine(ones, m, (out_w, out_h), flags=cv2.INTER_LINEAR, borderValue=0).astype(np.float32) / 255
    lid = rng.uniform(236, 252)
    bg = (lid + 2 * _smooth_noise(noise_rng, (out_h, out_w), 200)).astype(np.float32)
    # The lamp casts a thin shadow along the paper's edge on the side away from it.
    edge_shift = max(1, round(0.4 * px_mm))
    shade = cv2.GaussianBlur(np.roll(a, (edge_shift, edge_shift // 2), axis=(0, 1)), (0, 0), max(0.7, 0.25 * px_mm))
    bg *= 1 - rng.uniform(0.2, 0.5) * np.clip(shade - a, 0, 1)
    bg_u8 = cv2.cvtColor(np.clip(bg, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2RGB)
    img = cv2.blendLinear(bg_u8, paper, 1 - a, a)
    del bg, bg_u8, paper, shade
    # Illumination falls off a little along the carriage, and each sensor column has its own gain.
    ramp = 1 + rng.uniform(-1, 1) * (0.01 + 0.03 * strength) * np.linspace(-1, 1, out_h, dtype=np.float32)
    columns = 1 + noise_rng.normal(0, 0.002 + 0.004 * strength, out_w).astype(np.float32)
    gain = np.outer(ramp, columns).astype(np.float32)
    img = cv2.multiply(img, cv2.merge([gain, gain, gain]), dtype=cv2.CV_8U)
    gamma = rng.uniform(0.92, 1.08)
    img = cv2.LUT(img, np.clip(255 * (np.arange(256) / 255) ** gamma + 0.5, 0, 255).astype(np.uint8))
    sat = rng.uniform(0.85, 1.05)
    grey = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
    img = cv2.addWeighted(img, sat, grey, 1 - sat, 0)
    sigma = rng.uniform(0.3, 0.5 + 0.6 * strength) * dpi / 300
    img = cv2.GaussianBlur(img, (0, 0), sigma)
    noise_sigma = rng.uniform(0.5, 1.0 + 2.5 * strength)
    n = noise_rng.standard_normal((out_h, out_w), dtype=np.float32) * noise_sigma
    out = cv2.add(img, cv2.merge([n, n, n]), dtype=cv2.CV_8U)
    del img, n
    h3 = np.vstack([m, [0, 0, 1]]) @ sheet.sheet_to_px_matrix
    names, pts = _station_units(calibration)
    stations = _apply_h(h3, pts)
    details = {
        "dpi": dpi,
        "skew_deg": round(math.degrees(skew), 3),
        "upside_down": flip,
        "cropped": crop,
        "blur_px": round(float(sigma), 2),
        "noise_sigma": round(float(noise_sigma), 2),
    }
    return Degraded(
        image=out,
        stored=out,
        exif_orientation=1,
        sheet_to_image=h3,
        stations_px=MappingProxyType({n: (float(x), float(y)) for n, (x, y) in zip(names, stations, strict=True)}),
        kind="scan",
        jpeg_quality=int(rng.integers(85, 96)),
        dpi=dpi,
        details=MappingProxyType(details),
    )
