"""Registration: find the station lattice in a picture and map lattice coordinates to pixels.

What every print shares is the lattice of station symbols: a closed ring around a light disc,
53 of them on a 10 × 10 grid in a layout with no symmetry. Registration keys on that alone:

1. find ring-shaped symbols: holes of the dark-ink mask that are filled ellipses;
2. find the lattice they sit on: a local basis from a seed's neighbours, then grow the
   assignment of integer coordinates with a homography (which absorbs perspective);
3. fix orientation and offset by matching the occupied lattice points to the map's stations
   (4 rotations × all offsets; the asymmetric layout makes one clearly best);
4. refine: a homography over all matched stations, then a smooth residual field through each
   re-found station (a round mark of the stations' size near its predicted place), because paper
   curl and lens distortion bend the lattice a little; a station that the field through the others
   puts elsewhere is not taken as found.

When no map is found, the search is tried again at other ink levels, then with the seeds reaching
further and more sizes taken as one (motion blur closes the rings' holes); a lattice far larger
than the map, or whose layout lies at a pattern's edge, is not a map (``_SEARCHES``).

Pixel coordinates are ``(x, y)`` in the loaded image; lattice coordinates are the map's ``(x, y)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from nsvision.errors import NoMapFoundError
from nsvision.game.board import GameMap, Point, station_name
from nsvision.vision.spatial import PointSet, ThinPlateSpline

WORK_LONG_SIDE = 2000
"""Long side (px) of the copy searched for symbols: enough for a map that fills a third of a 12 MP frame."""
DARK_LEVELS = (0.62, 0.45)
"""Brightness (relative to the local paper) below which a pixel is ink, for the two ring searches."""
DARKER_LEVEL = 0.3
"""A third, darker level, tried when no map is found with the two: a blurred thin symbol inside a
thick ring fades out of the mask there, and the ring's hole is a whole disc again."""
LIGHTER_LEVEL = 0.75
"""A lighter level, tried last: in an overexposed photo a thin, blurred ring is lighter than
``DARK_LEVELS`` of the paper beside it all round, and only its hole's outline is left."""
ROUND_MAX_RECT_FILL = 0.88
"""Largest share of its minimal rectangle a station's round hole may fill (a circle fills 0.785)."""
SEEDS_PER_SIZE = 8
"""Seeds tried per size of round mark (the tourist track's circles can match the stations' size)."""
MAX_SEEDS = 30
"""Lattices grown from seeds at most."""
SEED_LOOKS = 200
"""Symbols looked at as seeds at most (most are rejected at once, having no lattice around them)."""
MIN_STATIONS = 24
"""Fewer matched stations than this is not a map we can trust (it is under half of London's 53)."""
PATTERN_FACTOR = 2
"""A lattice of round marks with more points than this many times the map's stations is a pattern
(a grid, a polka-dot cloth), not a map: it is not grown further nor matched."""
SAME_SIZE = (0.6, 1.65)
"""Radii, relative to a station's, of the round marks that may be a station too: perspective makes
the near stations larger than the far ones, but a small hole beside a symbol (the gap between a
departure disc's white symbol and a stroke across the disc) is not one."""
SEED_REACH = 7.5
"""Radius (in the seed's own radii) within which a seed's lattice neighbours are counted: a sharp
symbol's hole is a sixth to a seventh of the pitch across, so its neighbours lie 2 to 6 radii away."""
BLURRED_SEED_REACH = 15.0
"""``SEED_REACH`` of the searches for a blurred map, tried when the usual ones find nothing.
Motion blur of a tenth of a pitch closes the rings' holes to a tenth of the pitch or less, and their
neighbours lie beyond ``SEED_REACH``; the same blur makes holes of one size differ more
(``BLURRED_SAME_SIZE``)."""
BLURRED_SAME_SIZE = (0.4, 2.5)
"""``SAME_SIZE`` of the searches for a blurred map (see ``BLURRED_SEED_REACH``)."""
ROUND_SPREAD = 0.15
"""Largest spread of a hole's outline about its fitted ellipse (5th to 95th percentile of the
outline's radius, relative to the ellipse's) in the very last search, which takes only round holes.
Close up, a print with solid dark guides closes the cells between them into holes of a station's
size: polygons, nine in ten of them spreading 0.26 or more, where a sharp station's hole spreads
0.04 (median). There they outnumber the stations and the lattice search follows them. Blurred small
holes spread 0.15 to 0.2 from pixel steps alone, so the filter is not used before."""
NEAR_ANY_SIZE = 0.045
"""Distance (lattice units) from where the lattice model puts a station within which a round mark of
any size is taken for it: the white symbol in a departure disc. Symbols of a station's size are
looked for within ``NEAR_STATION`` (paper curl moves them that far); a smaller mark that far away is
a gap between a symbol and a stroke (taken for the station on 7 of the 120 photos of
``bench/registration.py`` before the size was asked for)."""
NEAR_STATION = 0.3
"""Distance (lattice units) from the lattice model's prediction within which a station's symbol is looked for."""
TPS_SMOOTHING = 2.0
"""Smoothing of the thin-plate field through the re-found stations: it keeps a curl-shaped
correction but does not chase one mislocated symbol all the way."""
OFF_FIELD = 0.1
"""Distance (lattice units) past which a re-found station inside the others (or on their hull's
edge) is dropped (placed by the model, not found) when the smooth field through the other found
stations puts it elsewhere: a hole of a station's size beside the symbol, such as the gap a blur
leaves between a ring and the triangle inside it (0.16 pitch off). Paper curl and lens distortion
bend the lattice smoothly: over the 240 photos of ``bench/registration.py`` (both seeds), every
station rightly found inside the hull of the others or on its edge lies within 0.036 pitch of that
field. Outside it, the field extrapolates, and a corner of a photo under strong lens distortion lies
0.09 pitch off: those are not judged."""
OFF_FIELD_MAX_DROPPED = 6
"""Re-found stations dropped at most, worst first: more than a few off the field is not one
mislocated symbol, and the search's own lattice is left to stand."""


@dataclass(frozen=True)
class _Search:
    """One lattice search's settings: ink levels, the seeds' reach and which marks count as one size."""

    levels: tuple[float, ...] = DARK_LEVELS
    reach: float = SEED_REACH
    same_size: tuple[float, float] = SAME_SIZE
    round_only: bool = False
    """Only holes whose outline spreads under ``ROUND_SPREAD`` about their ellipse."""


_SEARCHES = (
    _Search(),
    _Search(levels=(*DARK_LEVELS, DARKER_LEVEL)),
    _Search(levels=(LIGHTER_LEVEL, *DARK_LEVELS)),
    *(
        _Search(levels=levels, reach=BLURRED_SEED_REACH, same_size=BLURRED_SAME_SIZE)
        for levels in (DARK_LEVELS, (*DARK_LEVELS, DARKER_LEVEL), (LIGHTER_LEVEL, *DARK_LEVELS))
    ),
    _Search(round_only=True),
)
"""The searches ``register`` tries in turn, until one finds the map."""


@dataclass(frozen=True)
class SymbolCandidate:
    """A ring-shaped mark that may be a station symbol, in image pixels."""

    xy_px: tuple[float, float]
    radius_px: float
    """Radius of the light disc inside the ring."""
    spread: float = 0.0
    """How far the hole's outline strays from its fitted ellipse: the 5th to 95th percentile of the
    outline's radius relative to the ellipse's (a sharp station's hole about 0.04, a regular hexagon
    0.13)."""


@dataclass(frozen=True)
class Registration:
    """Where the map's lattice lies in the image.

    ``station_xy_px`` holds the refined centre of every station of the map (found or predicted);
    ``lattice_to_px`` evaluates the full model (homography plus residual field) at any lattice point.
    """

    homography: np.ndarray
    """3x3, lattice units -> image px (before the residual correction)."""
    station_xy_px: dict[Point, tuple[float, float]]
    found: frozenset[Point]
    """Stations whose symbol was detected (the rest are predicted)."""
    residual_px: dict[Point, float]
    """Distance between each found symbol and the homography's prediction, in px."""
    pitch_px: float
    """Median distance between neighbouring lattice points, in image px."""
    rotation_deg: float
    """Angle of the lattice x axis in the image (0 = upright sheet, counter-clockwise positive)."""
    image_size: tuple[int, int]
    """(width, height) of the image registered."""
    match_margin: float
    """Best orientation's station matches minus the runner-up's: a measure of how sure the orientation is."""
    _rbf: ThinPlateSpline | None = field(default=None, repr=False, compare=False)

    @property
    def stations_found(self) -> int:
        return len(self.found)

    @property
    def median_residual(self) -> float:
        """Median residual of the homography alone, in lattice units."""
        if not self.residual_px:
            return 0.0
        return float(np.median(list(self.residual_px.values()))) / self.pitch_px

    def lattice_to_px(self, xy_lattice: np.ndarray) -> np.ndarray:
        """Map an (N, 2) array of lattice coordinates to image px through the full model."""
        pts = np.asarray(xy_lattice, dtype=np.float64).reshape(-1, 2)
        out = cv2.perspectiveTransform(pts[None], self.homography)[0]
        if self._rbf is not None:
            out = out + self._rbf(pts)
        return out

    def to_dict(self) -> dict[str, object]:
        return {
            "stations_found": self.stations_found,
            "stations_total": len(self.station_xy_px),
            "pitch_px": round(self.pitch_px, 2),
            "rotation_deg": round(self.rotation_deg, 1),
            "median_residual_lattice": round(self.median_residual, 4),
            "max_residual_lattice": round(max(self.residual_px.values(), default=0.0) / self.pitch_px, 4),
            "orientation_margin": self.match_margin,
            "homography": [[round(float(v), 6) for v in row] for row in self.homography],
            "stations_px": {
                station_name(p): [round(xy[0], 1), round(xy[1], 1)] for p, xy in sorted(self.station_xy_px.items())
            },
            "missing_symbols": sorted(station_name(p) for p in self.station_xy_px if p not in self.found),
        }


def _value_channel(image: np.ndarray) -> np.ndarray:
    # The max of R, G, B keeps navy/black ink dark while coloured pencil and the teal river
    # stay light, so pencil crossing a ring does not break the ring's hole.
    if image.ndim == 2:
        return image
    r, g, b = cv2.split(image)
    return cv2.max(cv2.max(r, g), b)


def find_symbol_candidates(image: np.ndarray, levels: tuple[float, ...] = DARK_LEVELS) -> list[SymbolCandidate]:
    """Find ring-shaped marks (a closed dark ring around a light, round hole) anywhere in the image."""
    return _SymbolFinder(image).find(levels)


class _SymbolFinder:
    """``find_symbol_candidates`` for one picture at several sets of ink levels: the picture is
    shrunk and its paper level taken once, and each level's ring holes are found once."""

    def __init__(self, image: np.ndarray) -> None:
        h, w = image.shape[:2]
        self.scale = min(1.0, WORK_LONG_SIDE / max(h, w))
        small = (
            cv2.resize(image, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
            if self.scale < 1
            else image
        )
        small = cv2.GaussianBlur(_value_channel(small), (3, 3), 0)
        # Local paper level: a wide max-filter ignores thin dark ink, a blur smooths its blocks.
        k = max(15, int(round(max(small.shape) / 60)) | 1)
        self.paper = cv2.blur(cv2.dilate(small, np.ones((k, k), np.uint8)), (k, k)).astype(np.float32)
        self.value = small.astype(np.float32)
        self.holes: dict[float, list[SymbolCandidate]] = {}

    def find(self, levels: tuple[float, ...]) -> list[SymbolCandidate]:
        out: list[SymbolCandidate] = []
        # Several levels: the lightest survives blur and weak print, a darker one keeps rings that a
        # heavy pencil stroke runs into from merging with the stroke (see DARK_LEVELS, DARKER_LEVEL).
        for level in levels:
            if level not in self.holes:
                dark = (self.value < level * self.paper).astype(np.uint8)
                self.holes[level] = _ring_holes(dark, self.scale)
            out.extend(self.holes[level])
        return _keep_outermost(out)


def _ring_holes(dark: np.ndarray, scale: float) -> list[SymbolCandidate]:
    """Holes of a dark-ink mask that are filled ellipses: the light disc inside a ring."""
    contours, hierarchy = cv2.findContours(dark, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        return []
    area_max = dark.shape[0] * dark.shape[1] / 300.0
    out: list[SymbolCandidate] = []
    for cnt, (_nxt, _prv, _child, parent) in zip(contours, hierarchy[0], strict=True):
        if parent < 0 or len(cnt) < 8:
            continue
        area = cv2.contourArea(cnt)
        if not 12.0 <= area <= area_max:
            continue
        ellipse = cv2.fitEllipse(cnt)
        (cx, cy), (ax1, ax2), _ang = ellipse
        a, b = max(ax1, ax2) / 2, min(ax1, ax2) / 2
        if b <= 0 or b / a < 0.45:
            continue
        fill = area / (np.pi * a * b)
        hull = cv2.contourArea(cv2.convexHull(cnt))
        if not 0.8 <= fill <= 1.15 or hull <= 0 or area / hull < 0.9:
            continue
        # A round hole fills about pi/4 of its bounding rectangle; a box or a window fills all of it.
        (_rc, (rw, rh), _ra) = cv2.minAreaRect(cnt)
        if rw * rh <= 0 or area / (rw * rh) > ROUND_MAX_RECT_FILL:
            continue
        out.append(SymbolCandidate((cx / scale, cy / scale), float(np.sqrt(a * b)) / scale, _spread(cnt, ellipse)))
    return out


def _spread(contour: np.ndarray, ellipse: tuple[Sequence[float], Sequence[float], float]) -> float:
    """``SymbolCandidate.spread`` of a hole's outline about its fitted ``ellipse`` (OpenCV's form)."""
    (cx, cy), (ax1, ax2), angle = ellipse
    p = contour[:, 0, :].astype(np.float64) - (cx, cy)
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    u, v = p[:, 0] * c + p[:, 1] * s, p[:, 1] * c - p[:, 0] * s
    rho = np.hypot(u / (ax1 / 2), v / (ax2 / 2))
    low, high = np.quantile(rho, [0.05, 0.95])
    return float(high - low)


def _keep_outermost(cands: list[SymbolCandidate]) -> list[SymbolCandidate]:
    # A symbol drawn inside a station (a circle, a square) makes a second, smaller hole at the same
    # centre: keep the largest hole of each concentric group.
    cands = sorted(cands, key=lambda c: -c.radius_px)
    kept: list[SymbolCandidate] = []
    xs, ys, reach = np.empty(len(cands)), np.empty(len(cands)), np.empty(len(cands))
    for c in cands:
        n = len(kept)
        if np.all(np.hypot(c.xy_px[0] - xs[:n], c.xy_px[1] - ys[:n]) > reach[:n]):
            xs[n], ys[n], reach[n] = c.xy_px[0], c.xy_px[1], 0.8 * c.radius_px
            kept.append(c)
    return kept


@dataclass(frozen=True)
class _LatticeFit:
    coords: dict[tuple[int, int], int]
    """Integer lattice coordinate (in the fit's own frame) -> candidate index."""
    model: np.ndarray
    """3x3 homography from the fit's own integer frame to px."""


def _gauss_reduce(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    for _ in range(20):
        if np.dot(u, u) > np.dot(v, v):
            u, v = v, u
        m = round(float(np.dot(u, v) / np.dot(u, u)))
        if m == 0:
            break
        v = v - m * u
    return u, v


def _seed_basis(pts: np.ndarray, tree: PointSet, seed: int, nn: float) -> tuple[np.ndarray, np.ndarray, int] | None:
    p0 = pts[seed]
    near = [j for j in tree.within(p0, 2.6 * nn) if j != seed]
    near.sort(key=lambda j: float(np.hypot(*(pts[j] - p0))))
    near = near[:8]
    area = tree.within(p0, 3.6 * nn)
    best: tuple[int, float, np.ndarray, np.ndarray] | None = None
    for i, a in enumerate(near):
        for b in near[i + 1 :]:
            u, v = pts[a] - p0, pts[b] - p0
            cross = u[0] * v[1] - u[1] * v[0]
            if abs(cross) < 0.35 * np.linalg.norm(u) * np.linalg.norm(v):
                continue
            m = np.linalg.inv(np.column_stack([u, v]))
            c = (m @ (pts[area] - p0).T).T
            inl = int(np.sum(np.max(np.abs(c - np.round(c)), axis=1) < 0.18))
            if best is None or inl > best[0] or (inl == best[0] and abs(cross) < best[1]):
                best = (inl, abs(cross), u, v)
    if best is None:
        return None
    u, v = _gauss_reduce(best[2], best[3])
    if u[0] * v[1] - u[1] * v[0] < 0:
        u, v = v, u
    return u, v, best[0]


def _grow(pts: np.ndarray, tree: PointSet, seed: int, u: np.ndarray, v: np.ndarray, most: int) -> _LatticeFit:
    """The lattice through ``seed`` along ``u`` and ``v``, grown ring by ring; it stops past ``most`` points."""
    p0 = pts[seed]
    affine = np.array([[u[0], v[0], p0[0]], [u[1], v[1], p0[1]], [0, 0, 1]], dtype=np.float64)
    model = affine
    coords: dict[tuple[int, int], int] = {(0, 0): seed}
    radius = 2
    for _ in range(30):
        lo = np.min(np.array(list(coords)), axis=0) - radius
        hi = np.max(np.array(list(coords)), axis=0) + radius
        gx, gy = np.meshgrid(np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1))
        grid = np.column_stack([gx.ravel(), gy.ravel()]).astype(np.float64)
        pred = cv2.perspectiveTransform(grid[None], model)[0]
        # Local pitch at each prediction: distance to the prediction one step along x.
        step = cv2.perspectiveTransform((grid + [1.0, 0.0])[None], model)[0]
        local = np.hypot(*(step - pred).T)
        dist, idx = tree.nearest(pred)
        new: dict[tuple[int, int], int] = {}
        used: dict[int, tuple[float, tuple[int, int]]] = {}
        for g, d, j, lp in zip(grid.astype(int), dist, idx, local, strict=True):
            if d < 0.28 * lp:
                key = (int(g[0]), int(g[1]))
                if j not in used or d < used[j][0]:
                    used[j] = (float(d), key)
        for j, (_d, key) in used.items():
            new[key] = j
        if len(new) >= 6:
            src = np.array(list(new), dtype=np.float64)
            dst = pts[list(new.values())]
            h, _ = cv2.findHomography(src, dst, cv2.LMEDS)
            if h is not None:
                model = np.asarray(h, dtype=np.float64)
        grew = len(new) > len(coords)
        coords = new if len(new) >= len(coords) else coords
        if len(coords) > most:
            break
        if not grew:
            radius_done = radius >= 4
            radius += 1
            if radius_done:
                break
    return _LatticeFit(coords, model)


_ROTATIONS = (
    ((1, 0), (0, 1)),
    ((0, -1), (1, 0)),
    ((-1, 0), (0, -1)),
    ((0, 1), (-1, 0)),
)


def _match_orientation(
    occupied: list[tuple[int, int]], game_map: GameMap
) -> tuple[int, tuple[int, int], int, int, int]:
    """Best rotation index and offset mapping fit coordinates onto the map's stations.

    The score is stations hit minus occupied points that fall on an empty lattice point of the
    map or on the ring of lattice points just around it: a regular pattern that fills every point
    (windows in a picture, a grid, a polka-dot cloth) is not a map, and neither is its edge, where
    the map's empty points could fall off the pattern.
    Returns (rotation, offset, score, runner-up score, stations hit).
    """
    pad = 2 * max(game_map.columns, game_map.rows) + 4
    shape = (game_map.rows + 2 * pad, game_map.columns + 2 * pad)
    value = np.zeros(shape, dtype=np.int32)
    value[pad - 1 : pad + game_map.rows + 1, pad - 1 : pad + game_map.columns + 1] = -1
    for x, y in game_map.by_point:
        value[y + pad, x + pad] = 1
    occ = np.array(occupied)
    results: list[tuple[int, int, tuple[int, int], int]] = []
    for k, (r0, r1) in enumerate(_ROTATIONS):
        rot = np.column_stack([occ @ np.array(r0), occ @ np.array(r1)])
        lo, hi = rot.min(axis=0), rot.max(axis=0)
        txs = np.arange(-int(hi[0]) - 2, game_map.columns - int(lo[0]) + 2)
        tys = np.arange(-int(hi[1]) - 2, game_map.rows - int(lo[1]) + 2)
        ox, oy = np.meshgrid(txs, tys)
        offsets = np.column_stack([ox.ravel(), oy.ravel()])
        moved = rot[None, :, :] + offsets[:, None, :] + pad
        inside = (moved >= 0).all(axis=2) & (moved[..., 0] < shape[1]) & (moved[..., 1] < shape[0])
        moved = np.where(inside[..., None], moved, 0)
        v = value[moved[..., 1], moved[..., 0]] * inside
        scores = v.sum(axis=1)
        hits = (v > 0).sum(axis=1)
        for sc, h, (tx, ty) in zip(scores, hits, offsets, strict=True):
            results.append((int(sc), k, (int(tx), int(ty)), int(h)))
    results.sort(key=lambda r: -r[0])
    best = results[0]
    runner = next((r[0] for r in results if (r[1], r[2]) != (best[1], best[2])), 0)
    return best[1], best[2], best[0], runner, best[3]


def register(image: np.ndarray, game_map: GameMap, source: str = "<image>") -> Registration:
    """Find the map's lattice in ``image`` (RGB uint8); raise ``NoMapFoundError`` when it is not there."""
    first: NoMapFoundError | None = None
    finder = _SymbolFinder(image)
    for search in _SEARCHES:
        cands = finder.find(search.levels)
        if search.round_only:
            cands = [c for c in cands if c.spread < ROUND_SPREAD]
        try:
            return _register(image, game_map, source, cands, search)
        except NoMapFoundError as e:
            first = first or e
    assert first is not None
    raise first from None


def register_once(image: np.ndarray, game_map: GameMap, source: str = "<image>") -> Registration:
    """One lattice search at the usual ink levels (``register`` tries others before giving up)."""
    return _register(image, game_map, source, find_symbol_candidates(image), _Search())


def _register(
    image: np.ndarray, game_map: GameMap, source: str, cands: list[SymbolCandidate], search: _Search
) -> Registration:
    if len(cands) < MIN_STATIONS:
        raise NoMapFoundError(source, f"only {len(cands)} station-like symbols in the picture")
    pts = np.array([c.xy_px for c in cands], dtype=np.float64)
    rad = np.array([c.radius_px for c in cands], dtype=np.float64)
    tree = PointSet(pts)
    # Seeds: symbols with many neighbours of their own size at a plausible pitch (2–6 radii away);
    # other round marks in the picture (windows, text, the score zone) rarely form such a lattice.
    counts = np.zeros(len(pts), dtype=int)
    for i, (p, r) in enumerate(zip(pts, rad, strict=True)):
        near = [j for j in tree.within(p, search.reach * r) if j != i]
        counts[i] = sum(1 for j in near if 0.65 <= rad[j] / r <= 1.55 and np.hypot(*(pts[j] - p)) > 2.0 * r)
    best: tuple[int, int, _LatticeFit, np.ndarray, tuple[int, tuple[int, int], int, int, int]] | None = None
    tried: set[int] = set()
    # A few seeds per size of symbol, so that many small round marks (windows, text) cannot crowd
    # the stations out of the search. Only seeds that span a lattice count: a row of circles (the
    # tourist track) has many neighbours but no second direction, and must not use up the search.
    per_size: dict[int, int] = {}
    seeds = [int(i) for i in np.argsort(-counts) if counts[i] >= 3][:SEED_LOOKS]
    fits = 0
    for seed in seeds:
        size = int(round(2 * np.log2(rad[seed])))
        if seed in tried or per_size.get(size, 0) >= SEEDS_PER_SIZE:
            continue
        similar = _of_size(rad, float(rad[seed]), search.same_size)
        sub = pts[similar]
        sub_tree = PointSet(sub)
        local_seed = int(np.searchsorted(similar, seed))
        nn = sub_tree.second_nearest_distance(local_seed)
        basis = _seed_basis(sub, sub_tree, local_seed, nn)
        if basis is None:
            continue
        per_size[size] = per_size.get(size, 0) + 1
        fits += 1
        if fits > MAX_SEEDS:
            break
        fit = _grow(sub, sub_tree, local_seed, basis[0], basis[1], PATTERN_FACTOR * len(game_map.by_point))
        # Too few symbols is not a map; too many on one lattice is a pattern (a grid, a polka-dot cloth).
        if not MIN_STATIONS // 2 <= len(fit.coords) <= PATTERN_FACTOR * len(game_map.by_point):
            tried.update(int(similar[j]) for j in fit.coords.values())
            continue
        match = _match_orientation(list(fit.coords), game_map)
        # Symbols a good fit explains need not seed again; a bad fit (a seed off the lattice, such
        # as a circle drawn around a station, grows a wrong lattice through real stations) must
        # not keep those stations from seeding the right one.
        if match[4] >= MIN_STATIONS:
            tried.update(int(similar[j]) for j in fit.coords.values())
        if best is None or match[2] > best[1]:
            best = (seed, match[2], fit, similar, match)
        if match[4] >= 40 and match[2] - match[3] >= 10:
            break
    if best is None:
        raise NoMapFoundError(source, "no lattice of station symbols")
    _seed, _score, fit, similar, (k, (tx, ty), score, runner, hits) = best
    if hits < MIN_STATIONS or score < MIN_STATIONS or score - runner < 6:
        raise NoMapFoundError(source, f"the symbols do not match the London layout ({hits} stations matched)")
    r0, r1 = np.array(_ROTATIONS[k][0]), np.array(_ROTATIONS[k][1])
    matched: dict[Point, int] = {}
    for g, j in fit.coords.items():
        p = (int(np.dot(g, r0)) + tx, int(np.dot(g, r1)) + ty)
        if p in game_map.by_point:
            matched[p] = int(similar[j])
    return _refine(image, game_map, pts, rad, matched, score - runner, source, search.same_size)


def _refine(
    image: np.ndarray,
    game_map: GameMap,
    pts: np.ndarray,
    rad: np.ndarray,
    matched: dict[Point, int],
    margin: int,
    source: str,
    same_size: tuple[float, float],
) -> Registration:
    src = np.array(list(matched), dtype=np.float64)
    dst = pts[list(matched.values())]
    h, _ = cv2.findHomography(src, dst, cv2.RANSAC, 0.15 * _pitch_of(src, dst))
    if h is None:
        raise NoMapFoundError(source, "the station lattice is degenerate")
    sized = _of_size(rad, float(np.median(rad[list(matched.values())])), same_size)
    all_pts = np.array(sorted(game_map.by_point), dtype=np.float64)
    pred = cv2.perspectiveTransform(all_pts[None], h)[0]
    pitch = _pitch_of(all_pts, pred)
    station_xy: dict[Point, tuple[float, float]] = {}
    found: set[Point] = set()
    residual: dict[Point, float] = {}
    # Each station is re-found: any round mark right where the model puts it, else the nearest one
    # of the matched stations' size within reach of paper curl.
    near_d, near_j = PointSet(pts).nearest(pred)
    sized_d, sized_j = PointSet(pts[sized]).nearest(pred)
    for p_l, p_px, d, j, ds, js in zip(all_pts.astype(int), pred, near_d, near_j, sized_d, sized_j, strict=True):
        key = (int(p_l[0]), int(p_l[1]))
        if d >= NEAR_ANY_SIZE * pitch:
            d, j = ds, int(sized[js])
        if d < NEAR_STATION * pitch:
            station_xy[key] = (float(pts[j][0]), float(pts[j][1]))
            found.add(key)
            residual[key] = float(d)
        else:
            station_xy[key] = (float(p_px[0]), float(p_px[1]))
    if len(found) < MIN_STATIONS:
        raise NoMapFoundError(source, f"only {len(found)} stations confirmed by the lattice model")
    fl = np.array(sorted(found), dtype=np.float64)
    fp = np.array([station_xy[(int(a), int(b))] for a, b in fl])
    fpred = cv2.perspectiveTransform(fl[None], h)[0]
    off = _off_the_field(fl, fp - fpred, pitch)
    for i in off:
        key = (int(fl[i][0]), int(fl[i][1]))
        found.discard(key)
        del residual[key]
        station_xy[key] = (float(fpred[i][0]), float(fpred[i][1]))
    on = np.setdiff1d(np.arange(len(fl)), off)
    rbf = ThinPlateSpline(fl[on], fp[on] - fpred[on], smoothing=TPS_SMOOTHING)
    for key in station_xy:
        if key not in found:
            corr = rbf(np.array([key], dtype=np.float64))[0]
            x, y = station_xy[key]
            station_xy[key] = (x + float(corr[0]), y + float(corr[1]))
    axis = cv2.perspectiveTransform(np.array([[[4.5, 4.5], [5.5, 4.5]]]), h)[0]
    angle = float(np.degrees(np.arctan2(-(axis[1][1] - axis[0][1]), axis[1][0] - axis[0][0])))
    return Registration(
        homography=h,
        station_xy_px=station_xy,
        found=frozenset(found),
        residual_px=residual,
        pitch_px=pitch,
        rotation_deg=angle,
        image_size=(image.shape[1], image.shape[0]),
        match_margin=float(margin),
        _rbf=rbf,
    )


def _off_the_field(lattice: np.ndarray, offsets: np.ndarray, pitch: float) -> list[int]:
    """Found stations that the smooth field through the others misses by over ``OFF_FIELD``, worst first.

    ``offsets`` are the found stations' offsets (px) from the homography. Each station inside the
    others' hull or on its edge is checked against the field fitted through all the other found
    stations (left out, so that a wrong find cannot pull the field towards itself); the worst is
    dropped and the rest checked again. At least ``MIN_STATIONS`` are kept.
    """
    keep = list(range(len(lattice)))
    dropped: list[int] = []
    while len(dropped) < OFF_FIELD_MAX_DROPPED and len(keep) > MIN_STATIONS:
        miss = np.zeros(len(keep))
        for n, i in enumerate(keep):
            others = [j for j in keep if j != i]
            hull = cv2.convexHull(lattice[others].astype(np.float32))
            if cv2.pointPolygonTest(hull, (float(lattice[i][0]), float(lattice[i][1])), False) < 0:
                continue
            field = ThinPlateSpline(lattice[others], offsets[others], smoothing=TPS_SMOOTHING)
            miss[n] = np.hypot(*(offsets[i] - field(lattice[i : i + 1])[0]))
        worst = int(np.argmax(miss))
        if miss[worst] < OFF_FIELD * pitch:
            break
        dropped.append(keep.pop(worst))
    return dropped


def _of_size(rad: np.ndarray, radius: float, same_size: tuple[float, float]) -> np.ndarray:
    """Indices of the round marks whose radius may be a station's of ``radius`` (``same_size`` times it)."""
    return np.flatnonzero((rad >= same_size[0] * radius) & (rad <= same_size[1] * radius))


def _pitch_of(lattice: np.ndarray, px: np.ndarray) -> float:
    # Median over point pairs one step apart horizontally.
    index = {(int(a), int(b)): i for i, (a, b) in enumerate(lattice)}
    d = [float(np.hypot(*(px[index[(x + 1, y)]] - px[i]))) for (x, y), i in index.items() if (x + 1, y) in index]
    if not d:
        span = np.ptp(lattice, axis=0).max() or 1.0
        return float(np.ptp(px, axis=0).max() / span)
    return float(np.median(d))
