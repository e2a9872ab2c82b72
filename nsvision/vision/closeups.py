"""Close-ups of sections, taken from the picture itself, for a person to judge what the reader doubted.

The reader measures on the map straightened to ``straighten.PX_PER_PITCH`` px a pitch; a phone photo
has three times that or more. A person judging a light stroke sees more at the picture's own
resolution: the grain a pencil leaves on the paper's tooth. Each close-up is the square of the
lattice round a section (half a pitch beyond its stations, the same square the overlay crops from
the straightened map), resampled from the picture through the registration's full model.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from nsvision.game.board import Section
from nsvision.vision.register import Registration
from nsvision.vision.straighten import resample_grid

CLOSEUP_PX = 256
"""Side of each close-up in px: for a section one pitch long, 128 px a pitch."""
CLOSEUP_MAX = 12
"""At most this many sections get close-ups (the report's sections to check, in its order)."""
MAX_OVERSAMPLE = 4
"""The picture is sampled at up to this many times the close-up's resolution, then averaged down:
a close-up of a long section, or of a large picture, is not aliased."""
_GRID = 16
"""The registration's model is evaluated every this many px of a sampled close-up, and interpolated."""


def closeup_square(section: Section) -> tuple[tuple[float, float], float]:
    """The close-up's square in lattice units: its centre and side (the section's larger extent, and
    half a pitch beyond each end)."""
    (ax, ay), (bx, by) = section.a, section.b
    return ((ax + bx) / 2, (ay + by) / 2), max(abs(bx - ax), abs(by - ay)) + 1.0


def section_closeups(
    image: np.ndarray, registration: Registration, sections: Iterable[Section], size: int = CLOSEUP_PX
) -> dict[Section, np.ndarray]:
    """Per section, an RGB ``size`` x ``size`` close-up of ``image`` (the picture ``registration``
    was found in) over ``closeup_square(section)``, north up as on the straightened map."""
    out: dict[Section, np.ndarray] = {}
    for section in sections:
        (cx, cy), side = closeup_square(section)
        oversample = int(np.clip(np.ceil(registration.pitch_px * side / size), 1, MAX_OVERSAMPLE))
        n = size * oversample
        # Lattice coordinates of every _GRID-th sampled px (and one beyond), mapped to the picture.
        ticks = np.arange(0, n + _GRID, _GRID, dtype=np.float64)
        gx, gy = np.meshgrid(cx - side / 2 + (ticks + 0.5) * side / n, cy - side / 2 + (ticks + 0.5) * side / n)
        coarse = registration.lattice_to_px(np.column_stack([gx.ravel(), gy.ravel()]))
        fine = resample_grid(coarse.reshape(len(ticks), len(ticks), 2), _GRID, n, n)
        sampled = cv2.remap(
            image, fine[..., 0], fine[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(255,) * 3
        )
        out[section] = cv2.resize(sampled, (size, size), interpolation=cv2.INTER_AREA) if oversample > 1 else sampled
    return out
