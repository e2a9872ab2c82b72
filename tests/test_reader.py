"""The whole reader on rendered sheets: committed samples, rotations, tilts, styles, doubt."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from nsvision.calibration import load_calibration
from nsvision.errors import NoMapFoundError
from nsvision.game.board import LINE_COLOURS
from nsvision.pipeline import SheetReport, analyze_file, analyze_sheet
from nsvision.render.sample import make_sample

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
CAL = load_calibration()


def _sample_dirs() -> list[Path]:
    return sorted(p.parent for p in SAMPLES.glob("*/expected.json"))


def _sheets(expected: dict) -> list[dict]:
    return expected.get("sheets", [expected])


def _read_sections(report: SheetReport) -> dict[str, set[tuple[str, str]]]:
    return {c: {tuple(s.to_list()) for s in report.network.sections(c)} for c in LINE_COLOURS}


def _true_sections(expected: dict) -> dict[str, set[tuple[str, str]]]:
    return {c: {tuple(s) for s in expected["network"]["lines"][c]} for c in LINE_COLOURS}


@pytest.mark.parametrize("folder", _sample_dirs(), ids=lambda p: p.name)
def test_committed_samples_score_exactly(folder: Path) -> None:
    expected = json.loads((folder / "expected.json").read_text())
    sheets = _sheets(expected)
    image = folder / sheets[0]["image"]
    results = analyze_file(image, CAL)
    assert len(results) == len(sheets)
    for result, truth in zip(results, sheets, strict=True):
        assert isinstance(result, SheetReport), result
        assert not result.needs_review, result.doubtful_sections
        assert _read_sections(result) == _true_sections(truth)
        assert result.total == truth["total"]
        assert sorted(v.code for v in result.violations) == sorted(v["code"] for v in truth["violations"])


def _station_error(report: SheetReport, expected: dict) -> float:
    truth = expected["map_position"]["stations_px"]
    assert report.registration is not None
    errs = [
        np.hypot(xy[0] - truth[f"{p[0]},{p[1]}"][0], xy[1] - truth[f"{p[0]},{p[1]}"][1])
        for p, xy in report.registration.station_xy_px.items()
    ]
    return float(np.median(errs)) / report.registration.pitch_px


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_tilted_rotated_photos_read_exactly(seed: int) -> None:
    sample = make_sample(CAL, seed, mode="photo", strength=0.8)
    page = sample.pages[0]
    report = analyze_sheet(page.image, CAL)
    assert _station_error(report, sample.expected) < 0.05
    assert report.needs_review or (
        _read_sections(report) == _true_sections(sample.expected) and report.total == sample.expected["total"]
    )


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_scan_turned_by_quarter_turns(turns: int) -> None:
    sample = make_sample(CAL, 21, mode="scan", strength=0.3)
    image = np.ascontiguousarray(np.rot90(sample.pages[0].image, k=turns))
    report = analyze_sheet(image, CAL)
    assert _read_sections(report) == _true_sections(sample.expected)
    assert report.total == sample.expected["total"]


def test_second_style_reads_exactly() -> None:
    sample = make_sample(CAL, 31, mode="photo", style="cream", strength=0.4)
    report = analyze_sheet(sample.pages[0].image, CAL)
    assert _read_sections(report) == _true_sections(sample.expected)
    assert report.total == sample.expected["total"]


def test_faded_section_is_flagged_not_guessed() -> None:
    sample = make_sample(CAL, 41, mode="scan", strength=0.2)
    image = sample.pages[0].image.copy()
    truth = sample.expected["map_position"]["stations_px"]
    colour = next(c for c in LINE_COLOURS if sample.expected["network"]["lines"][c])
    a, b = sample.expected["network"]["lines"][colour][0]
    pa, pb = np.array(truth[a]), np.array(truth[b])
    # Erase the middle half of the stroke: half a section of pencil is neither drawn nor empty.
    p0, p1 = pa + (pb - pa) * 0.3, pa + (pb - pa) * 0.7
    pitch = np.hypot(*(np.array(truth["1,0"]) - np.array(truth["0,0"])))
    paper = np.median(image.reshape(-1, 3), axis=0)
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.line(mask, tuple(p0.astype(int)), tuple(p1.astype(int)), 255, max(3, int(pitch * 0.18)))
    image[mask > 0] = paper
    report = analyze_sheet(image, CAL)
    name = f"{a}-{b}" if tuple(map(int, a.split(","))) < tuple(map(int, b.split(","))) else f"{b}-{a}"
    assert report.needs_review
    assert name in report.doubtful_sections


def test_picture_without_a_map_is_an_error() -> None:
    rng = np.random.default_rng(0)
    noise = cv2.GaussianBlur(rng.integers(0, 255, (1200, 1600, 3), dtype=np.uint8), (0, 0), 3)
    with pytest.raises(NoMapFoundError, match="no Map of London"):
        analyze_sheet(noise, CAL, source="table.jpg")


def test_blank_sheet_scores_zero_without_doubt() -> None:
    sample = make_sample(CAL, 51, mode="photo", strength=0.5, blank=True)
    report = analyze_sheet(sample.pages[0].image, CAL)
    assert report.total == 0
    assert not report.needs_review
    assert report.network.is_empty
