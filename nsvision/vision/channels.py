"""The largest and smallest of a picture's channels at every pixel.

``image.max(axis=2)`` gives the same, but NumPy reduces over a last axis of three elements one
pixel at a time: on a picture of 1000 × 1000 × 3 it took 23 times as long as comparing the three
channel planes whole (8 times in float32), and the reader takes such extremes of whole pictures
about a dozen times a sheet, and of small blocks hundreds of times. Maximum and minimum are exact,
so the results are the same bit for bit (NaN included: both ways propagate it).
"""

from __future__ import annotations

import numpy as np


def channel_max(values: np.ndarray) -> np.ndarray:
    """The largest value along the last axis, as ``values.max(axis=-1)``."""
    out = np.maximum(values[..., 0], values[..., 1])
    for k in range(2, values.shape[-1]):
        out = np.maximum(out, values[..., k])
    return out


def channel_min(values: np.ndarray) -> np.ndarray:
    """The smallest value along the last axis, as ``values.min(axis=-1)``."""
    out = np.minimum(values[..., 0], values[..., 1])
    for k in range(2, values.shape[-1]):
        out = np.minimum(out, values[..., k])
    return out


def chroma_density(od: np.ndarray) -> np.ndarray:
    """Remove the neutral (grey/black) part of an optical density vector: grey ink and guides vanish."""
    return od - channel_min(od)[..., None]
