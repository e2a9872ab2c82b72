"""The fast per-pixel channel extremes give what NumPy's reductions give, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from nsvision.vision.channels import channel_max, channel_min


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
@pytest.mark.parametrize("channels", [2, 3, 4])
def test_same_as_numpy_reductions(dtype: type, channels: int) -> None:
    rng = np.random.default_rng(channels)
    values = (rng.random((31, 17, channels)) * 250).astype(dtype)
    assert np.array_equal(channel_max(values), values.max(axis=-1))
    assert np.array_equal(channel_min(values), values.min(axis=-1))
    assert channel_max(values).dtype == values.dtype


def test_nan_propagates_as_numpy_does() -> None:
    values = np.array([[[0.2, np.nan, 0.1], [0.3, 0.5, 0.4]]])
    assert np.array_equal(channel_max(values), values.max(axis=-1), equal_nan=True)
    assert np.array_equal(channel_min(values), values.min(axis=-1), equal_nan=True)


def test_one_vector() -> None:
    od = np.array([0.3, 0.1, 0.5])
    assert channel_min(od) == 0.1
    assert channel_max(od) == 0.5


def test_of_booleans_the_largest_is_any() -> None:
    mask = np.random.default_rng(5).random((23, 19, 3)) < 0.2
    assert np.array_equal(channel_max(mask), mask.any(axis=-1))
    assert channel_max(mask).dtype == bool
