"""Another sheet in the same picture.

A picture holds one sheet as far as the reader is concerned; when players lay several sheets side
by side and photograph them together, the lattice search finds one of them and the others would be
left out without a word. After the read sheet is found, it is painted over with its own paper and
the lattice is looked for once more, only where the rest of the picture has room for another sheet
of the same size, so a picture of one sheet costs almost nothing.
"""

from __future__ import annotations

import cv2
import numpy as np

from nsvision.calibration import SheetLayout
from nsvision.errors import NoMapFoundError
from nsvision.game.board import GameMap
from nsvision.vision.marks import sheet_to_image_px
from nsvision.vision.register import Registration, register_once

ROOM = 0.8
"""Share of the map's side that a strip of the picture beside the read sheet must offer before
another sheet is looked for there: most of a second map must be in the picture to be read at all."""

PAINT_GROW = 1.08
"""The read sheet's outline, from the calibrated layout, is grown by this factor about its centre
before it is painted over: a print's margins may be wider than the calibrated sheet's."""


def sheet_outline(registration: Registration, sheet: SheetLayout) -> np.ndarray:
    """The sheet's four corners in picture pixels (4, 2), through the lattice model."""
    corners = np.array([[0.0, 0.0], [sheet.width, 0.0], [sheet.width, sheet.height], [0.0, sheet.height]])
    return sheet_to_image_px(registration, sheet, corners)


def _has_room(outline: np.ndarray, sheet: SheetLayout, shape: tuple[int, ...]) -> bool:
    """Whether a strip of the picture beside the sheet (left, right, above or below its outline's
    bounding box) is wide enough to hold most of another map of the same size."""
    h, w = shape[:2]
    area = abs(float(cv2.contourArea(outline.astype(np.float32))))
    _, _, map_w, map_h = sheet.map_box
    side = float(np.sqrt(area * map_w * map_h / (sheet.width * sheet.height)))
    (x0, y0), (x1, y1) = outline.min(axis=0), outline.max(axis=0)
    return max(x0, w - x1, y0, h - y1) >= ROOM * side


def find_other_map(
    image: np.ndarray, registration: Registration, game_map: GameMap, sheet: SheetLayout, source: str = "<image>"
) -> Registration | None:
    """A second Map of London in ``image`` besides the one ``registration`` found, or None."""
    outline = sheet_outline(registration, sheet)
    h, w = image.shape[:2]
    if not _has_room(outline, sheet, image.shape):
        return None
    centre = outline.mean(axis=0)
    grown = np.round(centre + (outline - centre) * PAINT_GROW).astype(np.int32)
    # The paper's colour from every eighth pixel of the sheet (a 12 MP picture has plenty), then the
    # sheet filled with it in place: full-size masks and copies cost more than the search itself.
    step = 8
    mask = np.zeros(((h + step - 1) // step, (w + step - 1) // step), np.uint8)
    cv2.fillConvexPoly(mask, np.round(grown / step).astype(np.int32), 1)
    paper = np.median(image[::step, ::step][mask.astype(bool)], axis=0)
    painted = image.copy()
    cv2.fillConvexPoly(painted, grown, tuple(float(v) for v in np.atleast_1d(paper)))
    try:
        return register_once(painted, game_map, source)
    except (NoMapFoundError, np.linalg.LinAlgError, cv2.error, ValueError):
        # Only a check: whatever stops the second search must not cost the sheet already read.
        return None


def direction(registration: Registration, other: Registration) -> str:
    """Where ``other``'s map lies in the picture as seen from ``registration``'s: left, right, above, below."""
    here = np.mean(list(registration.station_xy_px.values()), axis=0)
    there = np.mean(list(other.station_xy_px.values()), axis=0)
    dx, dy = there - here
    if abs(dx) >= abs(dy):
        return "right" if dx > 0 else "left"
    return "below" if dy > 0 else "above"
