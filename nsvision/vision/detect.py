"""Pencil evidence: for every potential section and every colour, how much of it carries that pencil.

The map is first straightened into a canonical image where lattice point ``(x, y)`` sits at
``((x + MARGIN) * PX_PER_PITCH, (y + MARGIN) * PX_PER_PITCH)``. Light and colour cast are then
divided out using the paper itself (a wide max-filter of the image is the paper's local white),
and the picture is turned into optical density (OD = -log reflectance), where pencil over
printed colour adds to it.

Each section is measured between the two station symbols, sample by sample: the density on the
section minus the density just beside it. What is printed under the section *and* beside it (the
Thames band, the paper tone) cancels; what is only on the section is pencil or the grey guide
line. The neutral (grey) part is removed, and what is left is compared with the four pencil
hues. Measurements are kept raw; deciding is the rebuild stage's job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from nsvision.game.board import LINE_COLOURS, Colour, GameMap, Section
from nsvision.vision.register import Registration

PX_PER_PITCH = 48
"""Canonical resolution: a pencil stroke (about 1/20 of a pitch) stays 2–3 px wide."""
MARGIN = 0.6
"""Lattice units of border kept around the 10 × 10 lattice in the canonical image."""

PENCIL_RGB: dict[Colour, tuple[int, int, int]] = {
    "purple": (112, 62, 142),
    "blue": (45, 110, 200),
    "pink": (222, 82, 142),
    "green": (62, 150, 82),
}
"""Typical coloured-pencil hues on white paper; refined per sheet from what is confidently drawn."""

STROKE_MIN = 0.07
"""Chroma density below which a sample is paper (OD noise of a phone JPEG is about 0.03)."""
HUE_MIN_COS = 0.80
"""Cosine similarity to the nearest pencil hue below which a sample is 'other ink'."""


def _chroma(od: np.ndarray) -> np.ndarray:
    """Remove the neutral (grey/black) part of an optical density vector: grey ink and guides vanish."""
    return od - od.min(axis=-1, keepdims=True)


def pencil_hues(rgb: Mapping[Colour, tuple[int, int, int]] = PENCIL_RGB) -> dict[Colour, np.ndarray]:
    """Unit chroma-density direction of each pencil colour."""
    out: dict[Colour, np.ndarray] = {}
    for c, v in rgb.items():
        od = -np.log(np.clip(np.array(v, dtype=np.float64) / 255.0, 0.02, 1.0))
        ch = _chroma(od)
        out[c] = ch / np.linalg.norm(ch)
    return out


@dataclass(frozen=True)
class Straightened:
    """The map, straightened to the canonical lattice frame."""

    image: np.ndarray
    """(H, W, 3) uint8 RGB, as photographed."""
    density: np.ndarray
    """(H, W, 3) float32 optical density of thin marks (see ``stroke_density``)."""
    px_per_pitch: int
    margin: float

    def lattice_to_px(self, x: float, y: float) -> tuple[float, float]:
        return ((x + self.margin) * self.px_per_pitch, (y + self.margin) * self.px_per_pitch)


def straighten(image: np.ndarray, registration: Registration, game_map: GameMap) -> Straightened:
    """Resample the map into the canonical frame through the registration (homography + residual field)."""
    ppp = PX_PER_PITCH
    size_x = int(round((game_map.columns - 1 + 2 * MARGIN) * ppp))
    size_y = int(round((game_map.rows - 1 + 2 * MARGIN) * ppp))
    # Evaluate the model on a coarse grid and interpolate: the field is smooth, the RBF is not free.
    step = ppp // 4
    gx = np.arange(0, size_x + step, step, dtype=np.float64)
    gy = np.arange(0, size_y + step, step, dtype=np.float64)
    mx, my = np.meshgrid(gx, gy)
    lattice = np.column_stack([mx.ravel() / ppp - MARGIN, my.ravel() / ppp - MARGIN])
    # Downscale first so each canonical pixel averages its source pixels instead of aliasing.
    scale = min(1.0, 1.3 * ppp / registration.pitch_px)
    src = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    coarse = registration.lattice_to_px(lattice).reshape(len(gy), len(gx), 2) * scale
    fine = _resample_grid(coarse, step, size_x, size_y)
    canon = cv2.remap(src, fine[..., 0], fine[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return Straightened(canon, stroke_density(canon, ppp), ppp, MARGIN)


def _resample_grid(coarse: np.ndarray, step: int, size_x: int, size_y: int) -> np.ndarray:
    ys = np.arange(size_y, dtype=np.float32) / step
    xs = np.arange(size_x, dtype=np.float32) / step
    mx, my = np.meshgrid(xs, ys)
    out = np.empty((size_y, size_x, 2), np.float32)
    for k in range(2):
        out[..., k] = cv2.remap(coarse[..., k].astype(np.float32), mx, my, cv2.INTER_LINEAR)
    return out


def stroke_density(image: np.ndarray, px_per_pitch: int) -> np.ndarray:
    """Optical density of thin marks only: ``-log(image / closing(image))``, per channel.

    A morphological closing wider than a pencil stroke erases the stroke but keeps every broad
    printed area (the Thames band, paper tone, shadows) with its edges in place, so the ratio
    cancels print, light gradient and colour cast alike and leaves thin ink.
    """
    k = max(5, int(round(px_per_pitch * 0.19)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    img = image.astype(np.float32) + 4.0
    background = cv2.morphologyEx(img, cv2.MORPH_CLOSE, kernel)
    return -np.log(np.clip(img / background, 0.02, 1.0)).astype(np.float32)


@dataclass(frozen=True)
class SegmentEvidence:
    """Raw pencil measurements on one potential section (all fractions are of the measured samples)."""

    section: Section
    samples: int
    """Number of positions measured along the section, between the two symbols."""
    coverage: Mapping[Colour, float]
    """Fraction of positions whose on-line ink matches each pencil hue."""
    strength: Mapping[Colour, float]
    """Median chroma density of the matching positions (0 when none match)."""
    run: Mapping[Colour, float]
    """Longest unbroken run of matching positions, as a fraction of the section."""
    other: float
    """Fraction of positions with coloured ink that matches no pencil hue."""

    def best(self) -> tuple[Colour, float]:
        colour = max(LINE_COLOURS, key=lambda c: self.coverage.get(c, 0.0))
        return colour, self.coverage.get(colour, 0.0)

    def to_dict(self) -> dict[str, object]:
        return {
            "section": self.section.name,
            "samples": self.samples,
            "coverage": {c: round(v, 3) for c, v in self.coverage.items()},
            "strength": {c: round(v, 3) for c, v in self.strength.items()},
            "run": {c: round(v, 3) for c, v in self.run.items()},
            "other": round(self.other, 3),
        }


@dataclass(frozen=True)
class _Profiles:
    """On-line chroma density per section, as (samples, 3) arrays."""

    delta: dict[Section, np.ndarray]


def _section_profiles(straight: Straightened, game_map: GameMap, end_gap: float) -> _Profiles:
    ppp = straight.px_per_pitch
    offsets_center = np.linspace(-0.1, 0.1, 5)
    coords_x: list[np.ndarray] = []
    coords_y: list[np.ndarray] = []
    owners: list[tuple[Section, int]] = []
    for s in game_map.sections:
        a = np.array(straight.lattice_to_px(*s.a))
        b = np.array(straight.lattice_to_px(*s.b))
        length = float(np.linalg.norm(b - a))
        d = (b - a) / length
        n = np.array([-d[1], d[0]])
        gap = end_gap * ppp
        t = np.arange(gap, length - gap, 1.0)
        if len(t) < 4:
            t = np.linspace(length * 0.4, length * 0.6, 4)
        base = a + t[:, None] * d
        offs = list(offsets_center)
        pts = np.stack([base + o * ppp * n for o in offs], axis=1)  # (T, O, 2)
        coords_x.append(pts[..., 0].ravel())
        coords_y.append(pts[..., 1].ravel())
        owners.append((s, len(t)))
    sampled = _sample(straight.density, np.concatenate(coords_x), np.concatenate(coords_y))
    n_off = len(offsets_center)
    out: dict[Section, np.ndarray] = {}
    pos = 0
    for s, n_t in owners:
        block = sampled[pos : pos + n_t * n_off].reshape(n_t, n_off, 3)
        pos += n_t * n_off
        # The densest offset inside the band: a wobbling stroke is not always on the centre line.
        chroma = _chroma(block)
        pick = np.argmax(chroma.sum(axis=2), axis=1)
        out[s] = chroma[np.arange(n_t), pick]
    return _Profiles(out)


def _sample(image: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``image`` at many points (cv2.remap wants a 2-D map under 32767 wide)."""
    n = len(xs)
    width = 1024
    rows = -(-n // width)
    mx = np.zeros(rows * width, np.float32)
    my = np.zeros(rows * width, np.float32)
    mx[:n], my[:n] = xs, ys
    out = cv2.remap(
        image, mx.reshape(rows, width), my.reshape(rows, width), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return out.reshape(rows * width, -1)[:n]


def _classify(delta: np.ndarray, hues: Mapping[Colour, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per sample: index of the best hue (-1 none, -2 other ink), its cosine, and chroma magnitude."""
    mag = np.linalg.norm(delta, axis=1)
    dirs = np.stack([hues[c] for c in LINE_COLOURS])
    cos = (delta @ dirs.T) / np.maximum(mag[:, None], 1e-6)
    best = np.argmax(cos, axis=1)
    best_cos = cos[np.arange(len(best)), best]
    label = np.where(mag < STROKE_MIN, -1, np.where(best_cos < HUE_MIN_COS, -2, best))
    return label, best_cos, mag


def _longest_run(mask: np.ndarray) -> int:
    best = cur = 0
    for v in mask:
        cur = cur + 1 if v else 0
        best = max(best, cur)
    return best


def _evidence_from(profiles: _Profiles, hues: Mapping[Colour, np.ndarray]) -> dict[Section, SegmentEvidence]:
    out: dict[Section, SegmentEvidence] = {}
    for s, delta in profiles.delta.items():
        label, _cos, mag = _classify(delta, hues)
        n = len(label)
        cov: dict[Colour, float] = {}
        strength: dict[Colour, float] = {}
        run: dict[Colour, float] = {}
        for i, c in enumerate(LINE_COLOURS):
            m = label == i
            cov[c] = float(m.mean())
            strength[c] = float(np.median(mag[m])) if m.any() else 0.0
            run[c] = _longest_run(m) / n
        out[s] = SegmentEvidence(s, n, cov, strength, run, float((label == -2).mean()))
    return out


def measure_sections(
    straight: Straightened, game_map: GameMap, station_radius_pitch: float = 0.28
) -> tuple[dict[Section, SegmentEvidence], dict[Colour, np.ndarray]]:
    """Evidence for every potential section, with pencil hues adapted to this sheet.

    Returns the evidence and the hue directions used (the sheet's own pencils where enough
    sections were confidently drawn, the typical hues otherwise).
    """
    profiles = _section_profiles(straight, game_map, end_gap=station_radius_pitch + 0.05)
    hues = pencil_hues()
    evidence = _evidence_from(profiles, hues)
    # Adapt each hue to this sheet's pencil and light: average what is confidently that colour.
    adapted = dict(hues)
    for i, c in enumerate(LINE_COLOURS):
        picked = []
        for s, ev in evidence.items():
            if ev.best() == (c, ev.coverage[c]) and ev.coverage[c] > 0.6:
                label, _cos, _mag = _classify(profiles.delta[s], hues)
                picked.append(profiles.delta[s][label == i])
        if picked:
            mean = np.concatenate(picked).mean(axis=0)
            norm = np.linalg.norm(mean)
            if norm > 0 and float(mean @ hues[c]) / norm > 0.9:
                adapted[c] = mean / norm
    if any(not np.allclose(adapted[c], hues[c]) for c in LINE_COLOURS):
        evidence = _evidence_from(profiles, adapted)
    return evidence, adapted
