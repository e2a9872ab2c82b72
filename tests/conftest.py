"""Shared fixtures: the London calibration and its map, loaded once per test session."""

from __future__ import annotations

import pytest

from nsvision.calibration import Calibration, load_calibration
from nsvision.game.board import GameMap
from nsvision.game.network import Network, network_from_dict


@pytest.fixture(scope="session")
def calibration() -> Calibration:
    return load_calibration()


@pytest.fixture(scope="session")
def game_map(calibration: Calibration) -> GameMap:
    return calibration.map


RULEBOOK_GAME: dict[str, list[str]] = {
    "purple": ["2,5-2,7", "2,7-3,6", "3,6-4,6", "1,4-2,5", "0,3-1,4", "4,6-5,7", "5,7-8,7", "0,7-2,7", "7,6-8,7"],
    "blue": ["5,7-5,9", "5,7-6,6", "6,6-7,6", "5,9-7,9", "6,8-7,9", "7,6-9,6", "9,6-9,7", "4,9-5,9"],
    "pink": ["6,2-7,3", "5,3-6,2", "4,3-5,3", "4,6-7,3", "2,3-4,3", "4,6-4,9", "2,3-4,5", "3,6-4,5"],
    "green": [
        *("0,2-3,2", "3,2-4,3", "0,2-0,3", "4,0-4,3", "0,3-2,3"),
        *("4,0-5,0", "5,0-6,1", "6,1-7,0", "2,3-2,4", "1,4-2,4"),
    ],
}
"""A legal game on the London map with the rulebook's example scores: lines 20 + 16 + 29 + 22,
7 tourist sites (14 points), nine 2-line interchanges (18 points), total 119. Found by a search
over simulated games; the purple line is the rulebook's 6 × 3 + 2 × 1 = 20 line."""


@pytest.fixture
def rulebook_game() -> Network:
    return network_from_dict({"lines": RULEBOOK_GAME})
