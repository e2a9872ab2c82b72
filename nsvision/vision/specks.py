"""Specks of pencil at the picture's own resolution: what a light stroke leaves on a clean picture.

A light pencil stroke leaves pigment on the peaks of the paper's tooth only: sparse specks, a pixel
or two each, that the straightened map (``straighten.PX_PER_PITCH`` pixels a pitch, each a mean of
several of the picture's) averages into the paper, so that the section reads as blank. On a clean
picture (a flatbed scan) the specks themselves stand out: each pixel of the picture, as decoded, is
compared with the paper around it (the lightest value of each channel within ``SURROUND`` of a
pitch), and a **speck** is a pixel whose chroma density over the paper reaches ``SPECK_CHROMA`` with
a pencil's hue (as similar to it as the reader asks of a mark, ``detect.HUE_MIN_COS``). Against the
paper, grey print stays grey; the edges of dark print near the symbols (``DARK_REACH``) and the
Thames band with the guides printed over it (``THAMES_REACH``) take pencils' hues and are left out.

Along each section, clear of its symbols as the reader measures it (``detect.END_GAP``, and
``detect.DISC_EXTRA`` more at a departure disc) and within ``ACROSS`` of its centre line, the share of
positions with a speck of each pencil's hue is kept (``SegmentEvidence.specks``). Where another
section drawn crosses it, and where a pencil circle round one of its stations does, is not counted:
a stroke there leaves specks of its own; nor, more narrowly, where an undrawn section crosses it or
it runs through a lattice point with no station, where the guides cross (``GUIDE_MARK_REACH``).

On a photo a camera's noise and processing make such specks, and a lossy file (a JPEG, which
phones save with colour at half resolution; the JPEG pages most scanners put in a PDF) smears them
into the paper and fringes strokes with colour: ``pipeline.measure_sheet`` asks for them only from
pixels stored losslessly (``LoadedPage.lossless``: PNG, BMP, most TIFF, a PDF page stored with
Flate; pixels in memory), and ``detect.measure_sections`` only when the picture's noise is at most
a grained paper's scan's (``detect.SPECK_NOISE_MAX``). What they mean is decided by the rebuild
(``_specks_beside_lines``), against the same sheet's blank sections: a print's tinted guides, and a
grained paper, make specks of their own hue.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import cv2
import numpy as np

from nsvision.game.board import LINE_COLOURS, GameMap, Point, Section
from nsvision.vision import detect, straighten
from nsvision.vision.channels import channel_max, chroma_density
from nsvision.vision.register import Registration

SPECK_CHROMA = 0.1
"""Chroma density over the paper from which a pixel is a speck (the reader's stroke threshold on a
photo is 0.085: a speck is at least as plain as a photo's light stroke)."""
SURROUND = 0.25
"""Width of the square whose lightest values are the paper a pixel is compared with, in pitches: wider
than a stroke."""
ACROSS = 0.08
"""Lattice units either side of a section's centre line where specks are looked for."""
DARK_REACH = 0.03
"""Lattice units around printed ink (``straighten.DARK_PRINT``) within a symbol's reach (navy rings, a
tourist site's spikes) where no speck is counted: the edges of dark print take a pencil's hue."""
GUIDE_MARK_REACH = 0.15
"""Lattice units either side of a lattice point with no station on a section that runs through it,
and of where an undrawn section crosses it, where no speck is counted: the guides cross there, and a
print may mark the crossing (the `print` style's grey asterisk is dense enough to take a bluish
grey's hue)."""
THAMES_REACH = straighten.THAMES_HALF_WIDTH + SURROUND / 2
"""Lattice units either side of the Thames centre line where no speck is counted: against the band,
the grey guides printed over it and its outline take pencils' hues (pink, blue)."""


def _paper(image: np.ndarray, pitch_px: float) -> np.ndarray:
    """The paper around every pixel: the lightest value of each channel within ``SURROUND`` of a pitch
    (uint8 RGB, as ``image``). Against it, grey print stays grey wherever it lies; against a median,
    a grey guide beside a yellow district border takes the hue of what the border lacks (blue)."""
    k = max(3, int(round(SURROUND * pitch_px)) | 1)
    return cv2.dilate(np.ascontiguousarray(image), cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))


def _from_polyline(points: np.ndarray, line: tuple[tuple[float, float], ...]) -> np.ndarray:
    """Each of (n, 2) ``points``' distance from a polyline (both in lattice units)."""
    out = np.full(len(points), np.inf)
    for p, q in itertools.pairwise(np.asarray(line, dtype=np.float64)):
        d = q - p
        t = np.clip(((points - p) @ d) / max(float(d @ d), 1e-12), 0.0, 1.0)
        out = np.minimum(out, np.linalg.norm(points - (p + t[:, None] * d), axis=1))
    return out


def _dark_print(image: np.ndarray, paper: np.ndarray, pitch_px: float) -> np.ndarray:
    """Where printed ink lies or reaches within ``DARK_REACH``: darker than ``straighten.DARK_PRINT`` of
    its surround in every channel (a coloured pencil always lets one channel through)."""
    dark = channel_max(image).astype(np.float32) < straighten.DARK_PRINT * channel_max(paper).astype(np.float32)
    r = max(1, round(DARK_REACH * pitch_px))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    return cv2.dilate(dark.astype(np.uint8), disc).astype(bool)


def _length(s: Section) -> float:
    return float(np.hypot(s.b[0] - s.a[0], s.b[1] - s.a[1]))


def _ink_reach(game_map: GameMap, p: Point) -> float:
    """Lattice units from a station's centre within which dark ink is its symbol's (rings, spikes)."""
    return (straighten.TOURIST_REACH if game_map.station(p).tourist_site else straighten.SYMBOL_REACH) + DARK_REACH


def _positions(reg: Registration, s: Section, game_map: GameMap, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """(along, points): lattice units from ``s.a`` of the positions measured, a picture's pixel
    apart, and their (len(along), len(across), 2) pixel points across the section.

    Only the centre line goes through the registration's model (its local warp costs per point);
    across it, within ``ACROSS``, the picture's scale and direction there are taken as constant."""
    (ax, ay), (bx, by) = s.a, s.b
    length = _length(s)
    step = 1.0 / reg.pitch_px

    def gap(p: Point) -> float:
        return radius + detect.END_GAP + (detect.DISC_EXTRA if game_map.station(p).departure else 0.0)

    along = np.arange(gap(s.a), length - gap(s.b), step)
    u = np.array([bx - ax, by - ay]) / length
    along = along[_from_polyline(np.array([ax, ay]) + along[:, None] * u, game_map.thames) >= THAMES_REACH]
    if len(along) < 2:
        return along, np.zeros((len(along), 0, 2))
    centre = reg.lattice_to_px(np.array([ax, ay]) + along[:, None] * u)
    # Pixels per lattice unit along the section, turned a quarter: the way across it in the picture.
    forward = np.gradient(centre, along, axis=0)
    normal = np.stack([-forward[:, 1], forward[:, 0]], axis=1)
    across = np.arange(-ACROSS, ACROSS + 1e-9, step)
    return along, centre[:, None, :] + across[None, :, None] * normal[:, None, :]


def speck_shares(
    image: np.ndarray,
    reg: Registration,
    game_map: GameMap,
    station_radius_pitch: float = 0.28,
    circles: Mapping[Point, float] | None = None,
    drawn_partners: Mapping[Section, Sequence[Section]] | None = None,
) -> dict[Section, tuple[float, ...]]:
    """Per section, the share of its measured positions with a speck of each pencil's hue, in the
    order of ``LINE_COLOURS`` (see the module doc). ``image`` is the picture ``reg`` registered (RGB
    uint8); ``circles`` as for ``detect.measure_sections``; ``drawn_partners``: per section, the
    sections crossing it that are drawn (``detect.CROSSING_SKIP`` either side of where they cross is
    not counted; where the others cross, ``GUIDE_MARK_REACH``). By default every crossing is taken as
    drawn. A section too short to measure is left out."""
    paper = _paper(image, reg.pitch_px)
    dirs = np.stack([detect.pencil_hues()[c] for c in LINE_COLOURS]).astype(np.float32)
    dark = _dark_print(image, paper, reg.pitch_px)
    h, w = image.shape[:2]
    out: dict[Section, tuple[float, ...]] = {}
    for s in game_map.sections:
        along, px = _positions(reg, s, game_map, station_radius_pitch)
        partners = list(game_map.crossing_partners[s])
        drawn = partners if drawn_partners is None else list(drawn_partners.get(s, ()))
        skip = detect._crossed(along, s, drawn, circles)
        for t in partners:
            if t not in drawn:
                mark = np.abs(along - detect._crossing_at(s, t)) < GUIDE_MARK_REACH
                skip = mark if skip is None else skip | mark
        # Printed ink is only taken for print around the symbols, as the reader does: heavy pencil
        # can be as dark.
        near = (along < _ink_reach(game_map, s.a)) | (_length(s) - along < _ink_reach(game_map, s.b))
        for point in s.lattice_points_along():
            mark = np.abs(along - point) < GUIDE_MARK_REACH
            skip = mark if skip is None else skip | mark
        keep = np.ones(len(along), dtype=bool) if skip is None else ~skip
        # A position beyond the picture's edge (a sheet scanned cut off) is not measured.
        keep &= ((px >= 0) & (px <= np.array([w - 1, h - 1]))).all(axis=(1, 2))
        if keep.sum() < 3:
            continue
        px, near = px[keep], near[keep]
        xs = np.clip(np.round(px[..., 0]).astype(np.intp), 0, w - 1)
        ys = np.clip(np.round(px[..., 1]).astype(np.intp), 0, h - 1)
        density = np.clip(straighten.stroke_density(image[ys, xs], paper[ys, xs]), 0.0, None)
        chroma = chroma_density(density)
        proj = chroma @ dirs.T
        mag = np.linalg.norm(chroma, axis=-1)
        pencil_like = channel_max(proj) >= detect.HUE_MIN_COS * mag
        speck = (mag >= SPECK_CHROMA) & pencil_like & ~(dark[ys, xs] & near[:, None])
        hue = np.where(speck, proj.argmax(axis=-1), -1)
        out[s] = tuple(float((hue == k).any(axis=1).mean()) for k in range(len(LINE_COLOURS)))
    return out
