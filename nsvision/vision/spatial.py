"""Two small pieces of geometry the registration needs, in NumPy: neighbours among a few hundred
points, and a smoothing thin-plate spline through the stations found.

SciPy has both (``cKDTree``, ``RBFInterpolator``), but importing its ``spatial`` and
``interpolate`` packages takes about 0.4 s, a sixth of a one-photo ``nsvision score``; for the
hundreds of symbol candidates of a picture and the 53 stations of the map, plain arrays are as
fast to search and solve, and give the same results.
"""

from __future__ import annotations

import numpy as np


def _pairwise(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances between every point of (N, 2) ``a`` and every point of (M, 2) ``b``: an (N, M) array."""
    return np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])


class PointSet:
    """Points in the plane, searched by brute force (a picture has hundreds of symbol candidates)."""

    def __init__(self, points: np.ndarray) -> None:
        self.points = np.asarray(points, dtype=np.float64).reshape(-1, 2)

    def _distances(self, p: np.ndarray) -> np.ndarray:
        return _pairwise(np.asarray(p, dtype=np.float64).reshape(1, 2), self.points)[0]

    def within(self, p: np.ndarray, radius: float) -> list[int]:
        """Indices of the points at most ``radius`` from ``p``, in index order."""
        return [int(i) for i in np.flatnonzero(self._distances(p) <= radius)]

    def nearest(self, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distance to, and index of, the nearest point for each of the (N, 2) ``queries``."""
        q = np.asarray(queries, dtype=np.float64).reshape(-1, 2)
        d = _pairwise(q, self.points)
        idx = np.argmin(d, axis=1)
        return d[np.arange(len(q)), idx], idx

    def second_nearest_distance(self, i: int) -> float:
        """Distance from point ``i`` to its nearest other point (inf when it is alone)."""
        d = self._distances(self.points[i])
        d[i] = np.inf
        return float(d.min(initial=np.inf))


def _kernel(r: np.ndarray) -> np.ndarray:
    """The thin-plate kernel r² log r (0 at r = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r > 0.0, r * r * np.log(np.where(r > 0.0, r, 1.0)), 0.0)


class ThinPlateSpline:
    """A smoothing thin-plate spline from the plane to vectors, with an affine part.

    The same system as SciPy's ``RBFInterpolator(kernel="thin_plate_spline", smoothing=...)``:
    kernel weights ``w`` and affine coefficients ``c`` solve ``(K + smoothing·I) w + P c = y`` and
    ``Pᵀ w = 0``, where ``P`` holds 1, x, y of the centres (shifted and scaled to ±1 for a
    well-conditioned solve). Smoothing lets the surface miss each centre a little instead of
    chasing one mislocated point.
    """

    def __init__(self, centres: np.ndarray, values: np.ndarray, smoothing: float = 0.0) -> None:
        y = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
        v = np.asarray(values, dtype=np.float64).reshape(len(y), -1)
        lo, hi = y.min(axis=0), y.max(axis=0)
        self._shift = (hi + lo) / 2
        scale = (hi - lo) / 2
        self._scale = np.where(scale == 0.0, 1.0, scale)
        self._centres = y
        n = len(y)
        k = _kernel(_pairwise(y, y))
        p = self._affine(y)
        lhs = np.zeros((n + 3, n + 3))
        lhs[:n, :n] = k + smoothing * np.eye(n)
        lhs[:n, n:] = p
        lhs[n:, :n] = p.T
        rhs = np.zeros((n + 3, v.shape[1]))
        rhs[:n] = v
        coeffs = np.linalg.solve(lhs, rhs)
        self._weights, self._affine_coeffs = coeffs[:n], coeffs[n:]

    def _affine(self, x: np.ndarray) -> np.ndarray:
        xhat = (x - self._shift) / self._scale
        return np.column_stack([np.ones(len(x)), xhat])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The spline at the (N, 2) points ``x``: an (N, D) array."""
        q = np.asarray(x, dtype=np.float64).reshape(-1, 2)
        k = _kernel(_pairwise(q, self._centres))
        out: np.ndarray = k @ self._weights + self._affine(q) @ self._affine_coeffs
        return out
