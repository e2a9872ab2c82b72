"""Shared fixtures: the London calibration and its map, loaded once per test session."""

from __future__ import annotations

import pytest

from nsvision.calibration import Calibration, load_calibration
from nsvision.game.board import GameMap


@pytest.fixture(scope="session")
def calibration() -> Calibration:
    return load_calibration()


@pytest.fixture(scope="session")
def game_map(calibration: Calibration) -> GameMap:
    return calibration.map
