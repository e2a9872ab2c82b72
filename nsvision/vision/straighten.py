"""The map straightened to the canonical lattice frame, and what its print puts where.

The map is straightened into a canonical image where lattice point ``(x, y)`` sits at
``((x + MARGIN) * PX_PER_PITCH, (y + MARGIN) * PX_PER_PITCH)``. Thin marks are then measured as
optical density relative to a median a little wider than a pencil stroke (``stroke_density``): the
paper tone, light gradients, colour casts and every broad printed area (the Thames band, the discs)
cancel, and what is left is pencil plus the print's own thin marks. Where the camera clipped the
paper in a channel (red, on cream paper or under warm light), a mark's colour is measured with the
density it lost there given back (``clipped_loss``).

Those print marks are masked where the map data says they are, whatever the print looks like:
each station's radially symmetric ring and halo, the district borders, the Thames' banks (found as
the lines that run alongside the river), dark ink near the symbols; and where nothing of the map
can show (something lying over it, beyond the picture). ``vision.detect`` measures each section's
pencil on the ``Straightened`` sheet.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

from nsvision.game.board import GameMap
from nsvision.vision.channels import channel_max, channel_min, chroma_density
from nsvision.vision.register import Registration

PX_PER_PITCH = 80
"""Canonical resolution: a pencil stroke (about 1/20 of a pitch) is 3–5 px wide, a printed guide 1–2 px."""
MARGIN = 0.6
"""Lattice units of border kept around the 10 × 10 lattice in the canonical image."""


@dataclass(frozen=True)
class Straightened:
    """The map, straightened to the canonical lattice frame."""

    image: np.ndarray
    """(H, W, 3) uint8 RGB, as photographed."""
    density: np.ndarray
    """(H, W, 3) float32 optical density of thin marks (see ``stroke_density``)."""
    ignore: np.ndarray
    """(H, W) bool: dark printed ink, where pencil cannot be measured."""
    river: np.ndarray
    """(H, W) bool: on the Thames band (inside its zone, where the print under a stroke is the band)."""
    px_per_pitch: int
    margin: float
    print_density: np.ndarray | None = None
    """(H, W, 3) thin-mark density of this print's blank sheet, when a calibration provides one."""
    band_density: tuple[float, float, float] | None = None
    """Optical density (R, G, B) of the Thames band over the paper, when a band was found."""
    clip_extra: np.ndarray | None = None
    """(H, W, 3) density a mark lost in channels where the camera clipped the paper (see
    ``clipped_loss``), or ``None`` when nothing is clipped. Only a mark's colour uses it."""
    too_dark: np.ndarray | None = None
    """(H, W) bool: the surround cannot be paper: far darker than any lit paper (see ``HIDDEN_DARK``),
    or of a strong colour over half a pitch (see ``COLOURED``). Something lies over the map there,
    whatever the marks on it measure (in dark areas the picture's noise alone gives a density as
    large as a guide's; on a coloured object its shading reads as pencil)."""
    outside: np.ndarray | None = None
    """(H, W) bool: beyond the picture's edge (and as far inside as the surround's median reaches):
    the map is not seen there, and the edge's pixels repeated outwards are streaks, not pencil."""
    guide_unsure: np.ndarray | None = None
    """(H, W) bool: where a blank guide need not show, so whether the map is seen at all is not
    judged there (see ``HIDDEN_FRACTION``): the Thames zone (a print may lay its band over the
    guides), unless it is washed out white there (no band is white: glare)."""
    clipped: np.ndarray | None = None
    """(H, W) bool: paper the camera clipped in some channel but not in all, where a grey guide loses
    the clipped channels and looks coloured (see ``_zone_levels``)."""
    paper_side: np.ndarray | None = None
    """(H, W, 3) float32: ``density`` with the guides' strips beside the Thames band painted from
    the paper around them alone (``paper_side_density``), read at the band's edge only; ``None``
    when there is no such strip to paint."""
    bank_fringe: np.ndarray | None = None
    """(H, W) bool: beside the Thames' printed banks (``river_banks``), where the surround still takes
    some of their colour (``BANK_FRINGE_HALF_WIDTH``); ``None`` on a print without banks."""
    paper_alone: np.ndarray | None = None
    """(H, W, 3) float32: ``density`` on the paper within a median's reach of the Thames band and its
    banks, against that paper alone (``paper_alone_density``), NaN elsewhere; ``None`` when there is
    no such paper."""

    def lattice_to_px(self, x: float, y: float) -> tuple[float, float]:
        return ((x + self.margin) * self.px_per_pitch, (y + self.margin) * self.px_per_pitch)


def canonical_size(game_map: GameMap, px_per_pitch: int = PX_PER_PITCH) -> tuple[int, int]:
    """(width, height) in px of the straightened map."""
    return (
        round((game_map.columns - 1 + 2 * MARGIN) * px_per_pitch),
        round((game_map.rows - 1 + 2 * MARGIN) * px_per_pitch),
    )


GREY_SPREAD = 4
"""Levels (of 255) by which a pixel's three channels may differ and the pixel still be grey (JPEG
rounding, a scanner's grey mode saved as RGB)."""
COLOURED_MIN = 0.0002
"""Share of the straightened map's pixels that must be coloured for a picture to be in colour: about
one short pencil stroke's worth (155 pixels). A black-and-white picture has none at all; a colour
picture of a sheet has far more: its departure discs, its Thames, its pencil, and on a grey print
with next to nothing drawn, a camera's colour noise."""


def in_colour(image: np.ndarray) -> bool:
    """Whether a straightened map (``Straightened.image``) carries any colour. A black-and-white scan
    or photo has none, and then no pencil's colour can be read: every line would vanish as grey print."""
    spread = channel_max(image).astype(np.int16) - channel_min(image)
    return float(np.mean(spread > GREY_SPREAD)) >= COLOURED_MIN


def blank_density(blank: np.ndarray, game_map: GameMap, margin: float) -> np.ndarray:
    """Thin-mark density of a straightened blank sheet (any resolution, any margin) in the canonical frame.

    What a calibrated print shows with no pencil on it is the best estimate of what lies under
    every section of a filled sheet of that print.
    """
    w = blank.shape[1]
    src_ppp = w / (game_map.columns - 1 + 2 * margin)
    size = canonical_size(game_map)
    # Map canonical pixel -> blank pixel (the two frames differ only in scale and margin).
    xs = ((np.arange(size[0], dtype=np.float32) / PX_PER_PITCH) - MARGIN + margin) * src_ppp
    ys = ((np.arange(size[1], dtype=np.float32) / PX_PER_PITCH) - MARGIN + margin) * src_ppp
    mx, my = np.meshgrid(xs, ys)
    canon = cv2.remap(np.ascontiguousarray(blank), mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    density = stroke_density(canon, broad_background(canon, PX_PER_PITCH))
    density = remove_symbol_halos(density, game_map, PX_PER_PITCH)
    # A registration error of a pixel or two must not leave a guide's edge behind: widen the print.
    return cv2.dilate(np.clip(density, 0.0, None), np.ones((3, 3), np.uint8))


def straighten(
    image: np.ndarray,
    registration: Registration,
    game_map: GameMap,
    print_density: np.ndarray | None = None,
) -> Straightened:
    """Resample the map into the canonical frame through the registration (homography + residual field).

    ``print_density`` is ``blank_density`` of this print's calibrated blank sheet, if any.
    """
    ppp = PX_PER_PITCH
    size_x = int(round((game_map.columns - 1 + 2 * MARGIN) * ppp))
    size_y = int(round((game_map.rows - 1 + 2 * MARGIN) * ppp))
    # Evaluate the model on a coarse grid and interpolate: the field is smooth, the spline is not free.
    step = ppp // 4
    gx = np.arange(0, size_x + step, step, dtype=np.float64)
    gy = np.arange(0, size_y + step, step, dtype=np.float64)
    mx, my = np.meshgrid(gx, gy)
    lattice = np.column_stack([mx.ravel() / ppp - MARGIN, my.ravel() / ppp - MARGIN])
    # Downscale first so each canonical pixel averages its source pixels instead of aliasing.
    scale = min(1.0, 1.3 * ppp / registration.pitch_px)
    src = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    coarse = registration.lattice_to_px(lattice).reshape(len(gy), len(gx), 2) * scale
    fine = resample_grid(coarse, step, size_x, size_y)
    canon = cv2.remap(src, fine[..., 0], fine[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # Beyond the picture's edge the remap repeats the edge: the map is not seen there (a corner cut off).
    fx, fy = fine[..., 0], fine[..., 1]
    beyond = (fx < 0) | (fy < 0) | (fx > src.shape[1] - 1) | (fy > src.shape[0] - 1)
    reach = median_size(ppp)
    outside = cv2.dilate(beyond.astype(np.uint8), np.ones((reach, reach), np.uint8)).astype(bool)
    dark, river = print_masks(canon, game_map, ppp)
    borders = district_borders(game_map, ppp, canon.shape)
    # Where two district borders meet, their colour can outnumber the paper inside the median's
    # window and tint the surround a mark is compared with (pink then reads purple, green blue):
    # the surround is taken with the borders painted over from the paper beside them.
    wide = cv2.dilate(borders.astype(np.uint8), np.ones((3, 3), np.uint8))
    # Across the Thames band the guides (and any pencil on them) are lines thinner than the band but
    # not by much: left in, they lighten the median near the band's edges and the band itself reads
    # as blue pencil there. Painted over, the surround is the band and the paper with clean edges.
    # Plain paper in those strips is left as it is: painted over, the paper beside the band takes the
    # band's colour from across its edge, and a guide there, measured against that, reads as pencil
    # (a grey guide beside a pale green band reads as light purple). Paper within ``BAND_EDGE_REACH``
    # of anything in the strip that is neither paper nor the guide's own centre (the band, its
    # blurred edge) is still painted over: left in, the edge's blend would lighten the band's surround.
    near_river = cv2.dilate(river.astype(np.uint8), np.ones((15, 15), np.uint8))
    strips = guide_lines(game_map, ppp, canon.shape).astype(bool) & near_river.astype(bool)
    centre = guide_lines(game_map, ppp, canon.shape, half_width=GUIDE_CENTRE_HALF_WIDTH).astype(bool)
    plain = plain_paper(canon, ppp)
    edge_px = 2 * BAND_EDGE_REACH + 1
    band_edge = cv2.dilate((strips & ~plain & ~centre).astype(np.uint8), np.ones((edge_px, edge_px), np.uint8))
    wide = np.maximum(wide, (strips & ~(plain & ~band_edge.astype(bool))).astype(np.uint8))
    painted = cv2.inpaint(canon, wide, 3, cv2.INPAINT_TELEA)
    background = broad_background(painted, ppp)
    raw = stroke_density(canon, background)
    density = remove_symbol_halos(raw, game_map, ppp)
    banks, bank_fringe = river_banks(density, game_map, ppp, river)
    ignore = dark | banks | borders | outside
    band, band_density = thames_band(background, river, ppp)
    paper_side = paper_side_density(
        canon, painted, raw, density, wide.astype(bool) & strips, band | dark | wide.astype(bool), band, ppp
    )
    # The band's mask is widened to take in its blurred edge, and so takes in some paper beyond it:
    # a guide there, measured as over the band, keeps the grey the band's level does not explain (a
    # clean scan flagged faint pencil where a crossing leaves the band). Plain paper, with the marks
    # narrower than ``PAPER_GAPS`` on it (a guide's dashes), is not band.
    gaps = np.ones((PAPER_GAPS, PAPER_GAPS), np.uint8)
    band = band & ~cv2.morphologyEx(plain.astype(np.uint8), cv2.MORPH_CLOSE, gaps).astype(bool)
    paper_alone = paper_alone_density(canon, raw, density, band | banks, dark | bank_fringe | ~plain, ppp)
    extra = clipped_loss(canon, background, ~(dark | river))
    # Paper clipped white is judged like any paper: where light (glare, a lamp's reflection) washes
    # the printed guides out, it washes light pencil out as well.
    not_white = channel_min(background) < CLIPPED
    unsure = river & not_white
    return Straightened(
        canon,
        density,
        ignore,
        band,
        ppp,
        MARGIN,
        print_density,
        band_density,
        extra,
        dark_surround(background) | coloured_surround(canon, river, ppp),
        outside,
        unsure,
        (channel_max(background) >= CLIPPED) & not_white,
        paper_side,
        bank_fringe if bank_fringe.any() else None,
        paper_alone,
    )


HIDDEN_DARK = 0.2
"""Share of the paper's brightness (its 90th percentile, brightest channel) under which a surround
cannot be lit paper: the deepest shadow of a hand or a phone in a vignetted corner of the
benchmark's photos leaves 27 % of it, a dark pen about 15 %."""


PAPER_SIDE_SHARE = 0.15
"""Least share of the window (``2 * median_size + 1`` square) that must be paper (neither the band nor
masked print) for a guide's strip beside the band to be painted from it."""


def paper_side_density(
    canon: np.ndarray,
    painted: np.ndarray,
    raw: np.ndarray,
    density: np.ndarray,
    strips: np.ndarray,
    masked: np.ndarray,
    band: np.ndarray,
    ppp: int,
) -> np.ndarray | None:
    """``density`` where the guides' strips on the paper within a median's width of the Thames band
    (``strips``, painted over before the surround's median, ``straighten``) are painted from the
    paper around them alone (the mean of what ``masked`` leaves, beyond the band), and the median
    taken again there (``raw``: the thin marks before ``remove_symbol_halos``, whose halos stay
    taken away). Painted from the strip's ends, they take the band's colour and a ring's where the
    band passes close to a station: the surround under a grey guide there was 20 to 33 levels darker
    in red than the paper, and the guide read as faint pencil of no print's hue. ``None`` when there
    is nothing to paint."""
    k = median_size(ppp)
    near = cv2.dilate(band.astype(np.uint8), np.ones((k, k), np.uint8)).astype(bool)
    side = strips & near & ~band
    if not side.any():
        return None
    h, w = canon.shape[:2]
    ys, xs = np.nonzero(side)
    # Only around what may be painted: the paper it is painted from, and the median's reach after.
    y0, y1, x0, x1 = (
        max(0, ys.min() - 2 * k),
        min(h, ys.max() + 2 * k + 1),
        max(0, xs.min() - 2 * k),
        min(w, xs.max() + 2 * k + 1),
    )
    box = (slice(y0, y1), slice(x0, x1))
    size = (2 * k + 1, 2 * k + 1)
    paper = (~masked[box]).astype(np.float32)
    weight = cv2.boxFilter(paper, -1, size, normalize=False)
    use = side[box] & (weight >= PAPER_SIDE_SHARE * size[0] * size[1])
    if not use.any():
        return None
    total = cv2.boxFilter(painted[box].astype(np.float32) * paper[..., None], -1, size, normalize=False)
    repainted = painted[box].copy()
    repainted[use] = np.clip(total[use] / weight[use][:, None] + 0.5, 0, 255).astype(np.uint8)
    again = stroke_density(canon[box], broad_background(repainted, ppp))
    out = density.copy()
    out[box] += again - raw[box]
    return out


def paper_alone_density(
    canon: np.ndarray, raw: np.ndarray, density: np.ndarray, zone: np.ndarray, masked: np.ndarray, ppp: int
) -> np.ndarray | None:
    """``density`` on the paper within a median's reach of the Thames band and its banks (``zone``),
    measured against the paper alone: the mean of what ``zone`` and ``masked`` (print, and whatever
    is not plain paper) leave in a window ``2 * median_size + 1`` square, where that is at least
    ``PAPER_SIDE_SHARE`` of it (``raw``: ``density`` before ``remove_symbol_halos``, whose halos stay
    taken away). The median a mark is measured against there takes in the band and the banks: a
    grey guide 4 px past a dark bank measured lighter than on open paper and of a hue of its own.
    NaN elsewhere; ``None`` where there is no such paper."""
    k = median_size(ppp)
    beside = cv2.dilate(zone.astype(np.uint8), np.ones((k, k), np.uint8)).astype(bool) & ~zone
    if not beside.any():
        return None
    h, w = canon.shape[:2]
    ys, xs = np.nonzero(beside)
    box = (slice(max(0, ys.min() - k), min(h, ys.max() + k + 1)), slice(max(0, xs.min() - k), min(w, xs.max() + k + 1)))
    size = (2 * k + 1, 2 * k + 1)
    paper = (~(zone | masked)[box]).astype(np.float32)
    weight = cv2.boxFilter(paper, -1, size, normalize=False)
    total = cv2.boxFilter(canon[box].astype(np.float32) * paper[..., None], -1, size, normalize=False)
    ok = beside[box] & (weight >= PAPER_SIDE_SHARE * size[0] * size[1])
    out = np.full_like(density, np.nan)
    alone = stroke_density(canon[box][ok], total[ok] / weight[ok][:, None])
    out[box][ok] = density[box][ok] + alone - raw[box][ok]
    return out


def dark_surround(background: np.ndarray) -> np.ndarray:
    """Where the surround is darker than ``HIDDEN_DARK`` of the paper: not the map seen in shadow."""
    value = channel_max(background)
    paper = float(np.percentile(value[::4, ::4], 90))
    return value < HIDDEN_DARK * paper


COLOURED = 0.5
"""Chroma density (OD) over the sheet's typical paper above which a surround half a pitch wide is
no paper: an object lying on the map (a coloured pencil, a pen's cap). Pencil strokes are a tenth
of that width and never fill it, even where several lines meet; a light's tint or a tinted district
stays far below."""
COLOURED_WINDOW = 0.5
"""Lattice units of the median that tells a coloured object from the strokes on the paper."""


def coloured_surround(image: np.ndarray, river: np.ndarray, px_per_pitch: int) -> np.ndarray:
    """Where a surround ``COLOURED_WINDOW`` wide has a strong colour unlike the paper's (not on the
    Thames band, which has one): something coloured lies over the map there."""
    shrink = 4
    # Every fourth pixel, not their average: averaged, dense strokes would tint the whole window.
    small = np.ascontiguousarray(image[::shrink, ::shrink])
    window = max(3, round(COLOURED_WINDOW * px_per_pitch / shrink) | 1)
    surround = cv2.medianBlur(small, window).astype(np.float32) + 4.0
    paper = np.median(surround.reshape(-1, 3), axis=0)
    strong = np.linalg.norm(chroma_density(-np.log(surround / paper)), axis=2) > COLOURED
    h, w = image.shape[:2]
    full = cv2.resize(strong.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST).astype(bool)
    return full & ~river


def resample_grid(coarse: np.ndarray, step: int, size_x: int, size_y: int) -> np.ndarray:
    """A model evaluated every ``step`` px (``coarse``: (rows, cols, 2), at px 0, step, 2 step, ...)
    interpolated to every px of a ``size_x`` x ``size_y`` frame (float32, (size_y, size_x, 2))."""
    ys = np.arange(size_y, dtype=np.float32) / step
    xs = np.arange(size_x, dtype=np.float32) / step
    mx, my = np.meshgrid(xs, ys)
    out = np.empty((size_y, size_x, 2), np.float32)
    for k in range(2):
        out[..., k] = cv2.remap(coarse[..., k].astype(np.float32), mx, my, cv2.INTER_LINEAR)
    return out


DARK_PRINT = 0.5
"""Max-channel brightness (relative to the paper) below which a pixel is printed ink, not pencil:
a coloured pencil always lets one channel through, navy or black print does not."""
SYMBOL_REACH = 0.38
"""Lattice units around a station centre where dark ink is taken for the printed ring."""
TOURIST_REACH = 0.5
"""The same around a tourist site, whose spiky or doubled ring reaches further out."""
THAMES_HALF_WIDTH = 0.3
"""Lattice units either side of the Thames centre line where only the section's centre line is read:
the river's thin banks look like pencil, and a wobbly-stroke search beside the line would find them."""


def print_masks(image: np.ndarray, game_map: GameMap, px_per_pitch: int) -> tuple[np.ndarray, np.ndarray]:
    """Dark printed ink (rings, symbols, spikes), and the zone around the Thames.

    The Thames runs where the map data says on every print, so its zone comes from geometry;
    dark ink is found by brightness, whatever its hue.
    """
    value = channel_max(image).astype(np.float32)
    k = int(px_per_pitch * 0.7) | 1
    paper = cv2.GaussianBlur(cv2.dilate(value, np.ones((k, k), np.uint8)), (0, 0), px_per_pitch * 0.3)
    dark: np.ndarray = (value < DARK_PRINT * paper).astype(np.uint8)
    dark = cv2.dilate(dark, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    # Heavy pencil can be as dark as print, so only the symbols' surroundings (rings, spikes) are masked.
    near = np.zeros_like(dark)
    for st in game_map.stations:
        x, y = st.point
        c = (round((x + MARGIN) * px_per_pitch), round((y + MARGIN) * px_per_pitch))
        reach = TOURIST_REACH if st.tourist_site else SYMBOL_REACH
        cv2.circle(near, c, round(reach * px_per_pitch), 1, -1)
    dark = np.logical_and(dark, near).astype(np.uint8)
    river = np.zeros_like(dark)
    line = np.array([((x + MARGIN) * px_per_pitch, (y + MARGIN) * px_per_pitch) for x, y in game_map.thames])
    cv2.polylines(river, [np.round(line).astype(np.int32)], False, 1, int(round(2 * THAMES_HALF_WIDTH * px_per_pitch)))
    return dark.astype(bool), river.astype(bool)


BAND_CHROMA = 0.1
"""Chroma density of the broad background over the paper's from which a place is on the Thames band:
the band is a coloured area on every print (teal, blue, pale green), the paper and its shadows are not."""
BAND_EDGE = 0.05
"""Lattice units beyond the band's found edge still counted as on it (blurred edges)."""


def thames_band(
    background: np.ndarray, zone: np.ndarray, px_per_pitch: int
) -> tuple[np.ndarray, tuple[float, float, float] | None]:
    """Where inside the Thames zone the print is the band itself, not the paper beside it, and
    the band's optical density over the paper (R, G, B; ``None`` when no band is found).

    The zone comes from the map data and is wider than the band (prints differ in its width): a
    stroke on the paper within the zone keeps its own colour and is read as on paper. The band is
    found in the broad background (``broad_background``: thin marks filtered away) as a place
    more coloured than the paper around the zone, filled in over the zone from its edges.
    """
    h, w = background.shape[:2]
    small = cv2.resize(background, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    hole = cv2.resize(zone.astype(np.uint8), (w // 4, h // 4), interpolation=cv2.INTER_NEAREST)
    hole = cv2.dilate(hole, np.ones((5, 5), np.uint8))
    paper = cv2.resize(cv2.inpaint(small, hole, 5, cv2.INPAINT_TELEA), (w, h), interpolation=cv2.INTER_LINEAR)
    od = -np.log((background.astype(np.float32) + 4.0) / (paper.astype(np.float32) + 4.0))
    band = (channel_max(od) - channel_min(od) > BAND_CHROMA).astype(np.uint8)
    edge = 2 * round(BAND_EDGE * px_per_pitch) + 1
    core = cv2.erode(band, np.ones((edge, edge), np.uint8)).astype(bool) & zone
    density = None
    if core.any():
        r, g, b = np.median(od[core], axis=0)
        density = (float(r), float(g), float(b))
    return cv2.dilate(band, np.ones((edge, edge), np.uint8)).astype(bool) & zone, density


PAPER_REACH = 0.5
"""Lattice units: the side of the square around a pixel whose lightest place is taken for its paper."""
PAPER_LIKE = 0.06
"""Optical density within which, in every channel, a pixel is as light as its paper."""
PAPER_GAPS = 7
"""Pixels (canonical frame): marks on plain paper narrower than this (a guide's dashes) count as paper
where the Thames band's mask is trimmed to the band."""


def plain_paper(image: np.ndarray, px_per_pitch: int) -> np.ndarray:
    """(H, W) bool: where ``image`` shows plain paper, as light in every channel (``PAPER_LIKE``) as
    the lightest place in the square of side ``PAPER_REACH`` around it (pencil and print only absorb
    light; taken at a quarter of the size, each pixel a mean of 16, so that noise does not make the
    lightest place lighter)."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    reach = 2 * round(PAPER_REACH * px_per_pitch / 8) + 1
    lightest = cv2.dilate(small, np.ones((reach, reach), np.uint8))
    paper = cv2.resize(lightest, (w, h), interpolation=cv2.INTER_LINEAR)
    od = np.log((paper.astype(np.float32) + 4.0) / (image.astype(np.float32) + 4.0))
    return channel_max(od) < PAPER_LIKE


HALO_REACH = 0.5
"""Lattice units around a station whose radially symmetric print (ring, its blurred halo) is removed."""


def remove_symbol_halos(density: np.ndarray, game_map: GameMap, px_per_pitch: int) -> np.ndarray:
    """Subtract each station's own radial print profile from the thin-mark density around it.

    A ring, blurred by the lens and the JPEG, leaves a blue-grey halo beyond its printed radius
    that looks like a little pencil on every section's ends. Around each station, the median
    over angles at each radius is what the print looks like (a pencil stroke covers only a few
    angles), so subtracting it leaves the strokes.
    """
    out = density.copy()
    reach = int(HALO_REACH * px_per_pitch)
    radii = np.arange(0, reach + 1, dtype=np.float32)
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False, dtype=np.float32)
    yy, xx = np.mgrid[-reach : reach + 1, -reach : reach + 1].astype(np.float32)
    rr = np.sqrt(xx * xx + yy * yy)
    inside = rr <= reach
    h, w = density.shape[:2]
    for x, y in game_map.by_point:
        cx, cy = (x + MARGIN) * px_per_pitch, (y + MARGIN) * px_per_pitch
        px = cx + radii[:, None] * np.cos(angles)[None, :]
        py = cy + radii[:, None] * np.sin(angles)[None, :]
        ring = sample_at(density, px.ravel(), py.ravel()).reshape(len(radii), len(angles), -1)
        profile = np.median(ring, axis=1)  # (R, 3)
        x0, y0 = round(cx) - reach, round(cy) - reach
        if x0 < 0 or y0 < 0 or x0 + 2 * reach + 1 > w or y0 + 2 * reach + 1 > h:
            continue
        idx = np.clip(np.round(rr).astype(int), 0, reach)
        patch = out[y0 : y0 + 2 * reach + 1, x0 : x0 + 2 * reach + 1]
        patch[inside] -= profile[idx[inside]]
    return out


GUIDE_HALF_WIDTH = 0.06
"""Lattice units either side of a potential section's centre line painted over in the Thames surround."""
GUIDE_CENTRE_HALF_WIDTH = 0.02
"""Lattice units either side of a section's centre line where its guide's darkest ink lies."""
BAND_EDGE_REACH = 2
"""Pixels (canonical frame) around the band and its blurred edge where the paper is painted over too."""


def guide_lines(
    game_map: GameMap, px_per_pitch: int, shape: tuple[int, ...], half_width: float = GUIDE_HALF_WIDTH
) -> np.ndarray:
    """Every potential section's centre line (where guides and pencil lie), as a uint8 mask."""
    mask = np.zeros(shape[:2], np.uint8)
    width = 2 * round(half_width * px_per_pitch) + 1
    for s in game_map.sections:
        a = (round((s.a[0] + MARGIN) * px_per_pitch), round((s.a[1] + MARGIN) * px_per_pitch))
        b = (round((s.b[0] + MARGIN) * px_per_pitch), round((s.b[1] + MARGIN) * px_per_pitch))
        cv2.line(mask, a, b, 1, width)
    return mask


BORDER_HALF_WIDTH = 0.04
"""Lattice units either side of a district border not measured: pencil over the printed border mixes colours."""


def district_borders(game_map: GameMap, px_per_pitch: int, shape: tuple[int, ...]) -> np.ndarray:
    """The district borders (map data: half-way between lattice rows and columns) in the canonical frame."""
    mask = np.zeros(shape[:2], np.uint8)
    for d in game_map.districts:
        x0, y0, x1, y1 = d.box
        p0 = (round((x0 - 0.5 + MARGIN) * px_per_pitch), round((y0 - 0.5 + MARGIN) * px_per_pitch))
        p1 = (round((x1 + 0.5 + MARGIN) * px_per_pitch), round((y1 + 0.5 + MARGIN) * px_per_pitch))
        cv2.rectangle(mask, p0, p1, 1, 2 * round(BORDER_HALF_WIDTH * px_per_pitch) + 1)
    return mask.astype(bool)


BANK_MIN = 0.05
"""Mean density across the river from which a thin line alongside it is a bank (lower than a photo's
stroke threshold: averaged along the whole river, noise is gone; a missed bank reads as pencil)."""
BANK_HALF_WIDTH = 0.03
"""Lattice units either side of a found bank line that are masked."""
BANK_FRINGE_HALF_WIDTH = 0.07
"""Lattice units either side of a found bank line within which the surround a mark is measured
against still takes some of the bank's and the band's colour (``river_banks``' fringe): on `unseen`
scan 76005 a blank guide's dash 4 px (0.05) past its bank, where the mask ends at 2.4 px, measured
(0.15, 0.31, 0.30) in density, a dash on open paper (0.39, 0.49, 0.41)."""
BANK_EDGE_SHARE = 0.5
"""Share of a section's marked and faint shares at most left once its positions in a bank's fringe at
the band's edge are not measured, for those positions to be left out (``measure_sections``): its marks
lay mostly there. A stroke drawn across shows along the section: without those positions, drawn
pink and green 1,4-2,3 on the accuracy bench's seed 230000 (scan 340022, photo 250007) kept 0.43 of
0.56 and 0.38 of 0.53 marked, blank crossings on fresh prints' photos 0.07 to 0.12 of 0.26 to 0.29."""


def river_banks(
    density: np.ndarray, game_map: GameMap, px_per_pitch: int, river: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Thin lines that run alongside the Thames at a fixed distance: its printed banks, if the print has
    any, and their fringe (``BANK_FRINGE_HALF_WIDTH``, less the banks themselves).

    The mean cross-profile of thin-mark density along the whole river is flat except at the banks
    (pencil strokes cross it at random places and average out); masking only those two thin
    curves keeps every pencil stroke that crosses the river.
    """
    mag = np.linalg.norm(np.clip(density, 0.0, None), axis=2).astype(np.float32)
    pts = np.array([((x + MARGIN) * px_per_pitch, (y + MARGIN) * px_per_pitch) for x, y in game_map.thames])
    offsets = np.arange(-THAMES_HALF_WIDTH * px_per_pitch, THAMES_HALF_WIDTH * px_per_pitch + 0.01, 0.5)
    profiles = []
    for p0, p1 in itertools.pairwise(pts):
        d = p1 - p0
        length = float(np.linalg.norm(d))
        d /= length
        n = np.array([-d[1], d[0]])
        along = np.arange(6.0, length - 6.0, 2.0)
        if len(along) == 0:
            continue
        base = p0 + along[:, None] * d
        xy = base[:, None, :] + offsets[None, :, None] * n[None, None, :]
        vals = sample_at(mag[..., None], xy[..., 0].ravel(), xy[..., 1].ravel())[:, 0].reshape(len(along), len(offsets))
        profiles.append(vals)
    banks = np.zeros(density.shape[:2], np.uint8)
    fringe = np.zeros(density.shape[:2], np.uint8)
    if not profiles:
        return banks.astype(bool), fringe.astype(bool)
    profile = np.median(np.concatenate(profiles), axis=0)
    floor = float(np.median(profile))
    peaks = [
        float(offsets[i])
        for i in range(1, len(profile) - 1)
        if profile[i] >= profile[i - 1] and profile[i] >= profile[i + 1] and profile[i] > max(BANK_MIN, 3 * floor)
    ]
    for off in peaks:
        for p0, p1 in itertools.pairwise(pts):
            d = (p1 - p0) / float(np.linalg.norm(p1 - p0))
            n = np.array([-d[1], d[0]])
            a, b = p0 + off * n, p1 + off * n
            ends = (round(a[0]), round(a[1])), (round(b[0]), round(b[1]))
            cv2.line(banks, *ends, 1, round(2 * BANK_HALF_WIDTH * px_per_pitch) + 1)
            cv2.line(fringe, *ends, 1, round(2 * BANK_FRINGE_HALF_WIDTH * px_per_pitch) + 1)
    on_bank = banks.astype(bool) & river
    return on_bank, fringe.astype(bool) & river & ~on_bank


BRIGHTER = -0.1
"""A sample brighter than its surroundings in some channel by more than this (in OD) is not pencil:
pencil only absorbs light. Grey guides printed over the teal river are such marks."""


MEDIAN_WIDTH = 0.2
"""Lattice units of the median that estimates what surrounds a mark: over twice a pencil stroke's
width, well under the Thames band's, so the band keeps its edges."""


def median_size(px_per_pitch: int) -> int:
    """The (odd) window of ``broad_background``'s median, in pixels."""
    return max(5, round(px_per_pitch * MEDIAN_WIDTH) | 1)


def broad_background(image: np.ndarray, px_per_pitch: int) -> np.ndarray:
    """What surrounds every thin mark: a median wider than twice a pencil stroke (uint8 RGB).

    It erases strokes, guides and borders but keeps every broad printed area (the Thames band,
    paper tone, shadows) with straight edges in place.
    """
    return cv2.medianBlur(image, median_size(px_per_pitch))


CLIPPED = 250
"""Background level (0–255) from which a channel of the paper is taken as clipped by the camera."""
CLIP_RAMP = 10.0
"""Levels below the clip over which a mark's lost density ramps up to the paper's estimated excess."""
CLIP_STEP = 4
"""Pixels between the places where the clipped paper's level is worked out (it changes slowly)."""
CLIP_MIN_SHARE = 0.02
"""Least share of the paper unclipped in every channel to learn the paper's own colour from it."""
CLIP_RATIO_PERCENTILE = 25
"""Percentile of the paper's ratio between two channels (where unclipped) taken for a clipped one."""
CLIP_MAX_GAIN = 1.1
"""At most this much brighter than 255 is a clipped channel's paper taken to be."""


def clipped_loss(image: np.ndarray, background: np.ndarray, paper: np.ndarray) -> np.ndarray | None:
    """Density a mark loses in the channels where the camera clipped the paper.

    An exposed sheet often reaches 255 in one channel (red on cream paper or under warm light):
    a mark there is measured against 255, not against the brighter paper, and a light stroke
    loses that channel (a light purple looks pink). The paper has one colour: where no channel is
    clipped, its ratio between channels is measured, and in a clipped channel its level follows
    from the unclipped ones. The estimate errs low (a lower quartile of the ratio, at most
    ``CLIP_MAX_GAIN``). ``None`` when nothing is clipped or the paper is clipped everywhere.
    """
    # The paper's level is smooth: worked out on every fourth pixel, then brought back to full size.
    bg = background[::CLIP_STEP, ::CLIP_STEP].astype(np.float32)
    paper = paper[::CLIP_STEP, ::CLIP_STEP]
    clipped = bg >= CLIPPED
    if not clipped[paper].any():
        return None
    free = paper & ~channel_max(clipped) & (channel_min(bg) > 40)  # of booleans, the largest: any
    if free.sum() < CLIP_MIN_SHARE * paper.sum():
        return None
    logs = np.log(bg + 4.0)
    gain = np.zeros_like(bg)
    for c in range(3):
        if not clipped[..., c].any():
            continue
        est_sum = np.zeros(bg.shape[:2], np.float32)
        est_n = np.zeros(bg.shape[:2], np.float32)
        for d in range(3):
            if d == c:
                continue
            ratio = float(np.percentile(logs[..., c][free] - logs[..., d][free], CLIP_RATIO_PERCENTILE))
            ok = ~clipped[..., d]
            est_sum += np.where(ok, logs[..., d] + ratio, 0.0)
            est_n += ok
        est = np.minimum(est_sum / np.maximum(est_n, 1.0), np.log(259.0 * CLIP_MAX_GAIN))
        gain[..., c] = np.where(clipped[..., c] & (est_n > 0), np.maximum(est - logs[..., c], 0.0), 0.0)
    h, w = image.shape[:2]
    full = cv2.resize(gain, (w, h), interpolation=cv2.INTER_NEAREST)
    ramp = np.clip((CLIPPED - image.astype(np.float32)) / CLIP_RAMP, 0.0, 1.0)
    return (full * ramp).astype(np.float32)


def stroke_density(image: np.ndarray, background: np.ndarray) -> np.ndarray:
    """Optical density of thin marks relative to their surroundings: ``-log(image / background)``.

    With ``background`` from ``broad_background`` the ratio cancels print, light gradient and
    colour cast alike and leaves thin marks. Values may be negative where a thin mark is lighter
    than what surrounds it in some channel.
    """
    ratio = (image.astype(np.float32) + 4.0) / (background.astype(np.float32) + 4.0)
    return -np.log(np.clip(ratio, 0.02, 8.0)).astype(np.float32)


def sample_at(image: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
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


def sample_mask(mask: np.ndarray | None, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """A bool image at many points (nearest half); all False when there is no such image."""
    if mask is None:
        return np.zeros(len(xs), bool)
    return sample_at(mask.astype(np.float32), xs, ys)[:, 0] > 0.5
