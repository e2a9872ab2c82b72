"""The committed samples/ folders: ground truth that agrees with the game core, files that open."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageOps

from nsvision.calibration import Calibration
from nsvision.game.network import network_from_dict
from nsvision.game.rules import check_network
from nsvision.game.scoring import score_network

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FOLDERS = ("scan-clean", "photo-ordinary", "photo-hard", "pdf-two-sheets", "blank", "rules-broken", "style-cream")


def _sheets(folder: str) -> list[dict[str, Any]]:
    doc = json.loads((SAMPLES / folder / "expected.json").read_text(encoding="utf-8"))
    assert doc["format"] == "nsvision-expected" and doc["version"] == 1
    sheets: list[dict[str, Any]] = doc.get("sheets", [doc])
    return sheets


def test_every_sample_folder_is_there_and_the_set_is_small() -> None:
    present = {p.name for p in SAMPLES.iterdir() if p.is_dir()}
    assert set(FOLDERS) <= present
    total = sum(p.stat().st_size for p in SAMPLES.rglob("*") if p.is_file())
    assert total < 15e6
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for folder in FOLDERS:
        assert f"`{folder}/`" in readme


@pytest.mark.parametrize("folder", FOLDERS)
def test_expected_matches_the_game_core(calibration: Calibration, folder: str) -> None:
    for sheet in _sheets(folder):
        network = network_from_dict(sheet["network"], f"samples/{folder}/expected.json")
        card = score_network(network, calibration.map)
        assert card.to_dict() == sheet["score"]
        assert card.total == sheet["total"]
        assert [v.to_dict() for v in check_network(network, calibration.map)] == sheet["violations"]
        assert set(sheet["map_position"]["stations_px"]) == {s.name for s in calibration.map.stations}


@pytest.mark.parametrize("folder", [f for f in FOLDERS if f != "pdf-two-sheets"])
def test_images_open_with_the_stations_inside(folder: str) -> None:
    for sheet in _sheets(folder):
        with Image.open(SAMPLES / folder / sheet["image"]) as im:
            shown = ImageOps.exif_transpose(im)
            width, height = shown.size
        orientation = sheet["map_position"]["exif_orientation"]
        assert (orientation == 1) == (im.getexif().get(0x0112, 1) == 1)
        for x, y in sheet["map_position"]["stations_px"].values():
            assert 0 <= x < width and 0 <= y < height


def test_what_each_sample_is_for(calibration: Calibration) -> None:
    assert _sheets("blank")[0]["total"] == 0 and _sheets("blank")[0]["network"]["lines"] == {
        c: [] for c in ("purple", "blue", "pink", "green")
    }
    assert "sections_cross" in {v["code"] for v in _sheets("rules-broken")[0]["violations"]}
    for folder in ("scan-clean", "photo-ordinary", "photo-hard", "style-cream"):
        assert _sheets(folder)[0]["violations"] == [] and _sheets(folder)[0]["total"] > 0
    assert _sheets("style-cream")[0]["style"] == "cream"
    hard = _sheets("photo-hard")[0]["picture"]
    assert hard["tilt_deg"] >= 25 and hard["shadow_depth"] > 0.3 and hard["warmth"] > 0.25
    pdf = _sheets("pdf-two-sheets")
    assert [s["page"] for s in pdf] == [1, 2] and len({s["image"] for s in pdf}) == 1
    data = (SAMPLES / "pdf-two-sheets" / pdf[0]["image"]).read_bytes()
    assert data.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", data)) == 2
    assert pdf[0]["network"] != pdf[1]["network"]
