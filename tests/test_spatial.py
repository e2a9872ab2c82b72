"""The registration's own neighbour search and thin-plate spline (``nsvision.vision.spatial``)."""

import numpy as np
import pytest

from nsvision.vision.spatial import PointSet, ThinPlateSpline


def _lattice() -> np.ndarray:
    gx, gy = np.meshgrid(np.arange(10.0), np.arange(10.0))
    return np.column_stack([gx.ravel(), gy.ravel()])


def test_neighbours_within_a_radius_and_nearest():
    pts = np.array([[0.0, 0.0], [3.0, 4.0], [10.0, 0.0], [0.0, 1.0]])
    found = PointSet(pts)
    assert found.within(np.array([0.0, 0.0]), 5.0) == [0, 1, 3]
    assert found.within(np.array([0.0, 0.0]), 4.99) == [0, 3]
    d, i = found.nearest(np.array([[9.0, 1.0], [2.0, 3.0]]))
    assert i.tolist() == [2, 1]
    assert d == pytest.approx([np.sqrt(2.0), np.sqrt(2.0)])
    assert found.second_nearest_distance(0) == pytest.approx(1.0)
    assert PointSet(pts[:1]).second_nearest_distance(0) == np.inf


def test_an_affine_map_is_reproduced_exactly():
    # A homography's leftover that is affine has no bend: the spline's kernel part stays zero.
    centres = _lattice()
    values = centres @ np.array([[0.02, -0.01], [0.03, 0.04]]) + [1.5, -2.0]
    spline = ThinPlateSpline(centres, values, smoothing=2.0)
    queries = np.array([[4.5, 4.5], [0.2, 8.7], [12.0, -1.0]])
    expected = queries @ np.array([[0.02, -0.01], [0.03, 0.04]]) + [1.5, -2.0]
    assert np.allclose(spline(queries), expected, atol=1e-9)


def test_without_smoothing_it_passes_through_every_centre_and_bends_smoothly():
    centres = _lattice()
    rng = np.random.default_rng(3)
    values = np.column_stack([np.sin(centres[:, 0] / 3.0), 0.1 * (centres[:, 1] - 4.5) ** 2])
    values += rng.normal(0.0, 0.01, values.shape)
    spline = ThinPlateSpline(centres, values)
    assert np.allclose(spline(centres), values, atol=1e-8)
    midway = spline(np.array([[4.5, 4.5]]))[0]
    assert midway[0] == pytest.approx(np.sin(1.5), abs=0.05)


def test_smoothing_does_not_chase_one_mislocated_point():
    centres = _lattice()
    values = np.zeros((len(centres), 2))
    values[44] = [5.0, 0.0]  # one symbol found five pixels off
    exact = ThinPlateSpline(centres, values)(centres[44:45])[0]
    smooth = ThinPlateSpline(centres, values, smoothing=2.0)(centres[44:45])[0]
    assert exact[0] == pytest.approx(5.0)
    assert 0.0 < smooth[0] < 2.5


def test_the_same_spline_as_scipys_rbf_interpolator():
    interpolate = pytest.importorskip("scipy.interpolate")
    rng = np.random.default_rng(7)
    centres = rng.uniform(0.0, 9.0, (53, 2))
    values = rng.normal(0.0, 3.0, (53, 2))
    theirs = interpolate.RBFInterpolator(centres, values, kernel="thin_plate_spline", smoothing=2.0)
    ours = ThinPlateSpline(centres, values, smoothing=2.0)
    queries = rng.uniform(-1.0, 10.0, (100, 2))
    assert np.allclose(ours(queries), theirs(queries), atol=1e-8)
