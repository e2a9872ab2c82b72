"""The other benchmarks' own workings: what the README's robustness, visibility and fresh-print
tables rest on.

``bench/visibility.py`` says how much of each stroke reaches a picture (the difference with the same
sheet rendered without its lines); ``bench/robustness.py`` changes a rendered photo (a section rubbed
out, part of the map cut off) or scan (shrunk to a lower resolution, grain, faded colours) and must
keep its truth right; ``bench/unseen.py`` plans sheets each in a print of its own. A mistake in any
of them would change a table without a line of the reader changing.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import accuracy  # noqa: E402  (bench/accuracy.py)
import robustness  # noqa: E402  (bench/robustness.py)
import unseen  # noqa: E402  (bench/unseen.py)
import visibility  # noqa: E402  (bench/visibility.py)

from nsvision.calibration import Calibration  # noqa: E402
from nsvision.game.board import LINE_COLOURS, GameMap, parse_section_name, parse_station_name, sections_cross  # noqa: E402
from nsvision.game.network import Network  # noqa: E402
from nsvision.render.pencil import PENCIL_RGB  # noqa: E402
from nsvision.render.sample import Sample, make_sample  # noqa: E402
from nsvision.render.style import OVERLAID_PREFIX, UNSEEN_PREFIX, get_style  # noqa: E402
from nsvision.vision import straighten  # noqa: E402
from nsvision.vision.channels import chroma_density  # noqa: E402

PITCH = 40
MARGIN = 0.5
PURPLE_OD = -np.log(np.array(PENCIL_RGB["purple"]) / 255.0)
"""A firm purple stroke's optical density."""


def _straightened(density: np.ndarray, ignore: np.ndarray | None = None) -> straighten.Straightened:
    h, w = density.shape[:2]
    return straighten.Straightened(
        image=np.full((h, w, 3), 255, np.uint8),
        density=density,
        ignore=np.zeros((h, w), bool) if ignore is None else ignore,
        river=np.zeros((h, w), bool),
        px_per_pitch=PITCH,
        margin=MARGIN,
    )


def _blank() -> np.ndarray:
    side = round((9 + 2 * MARGIN) * PITCH)
    return np.zeros((side, side, 3), np.float32)


def _stroke(density: np.ndarray, name: str, od: np.ndarray, across: float = 0.0) -> np.ndarray:
    """``density`` with a stroke 3 px wide of optical density ``od`` added along section ``name``,
    moved ``across`` lattice units to its side."""
    s = parse_section_name(name)
    frame = _straightened(density)
    a, b = np.array(frame.lattice_to_px(*s.a)), np.array(frame.lattice_to_px(*s.b))
    d = (b - a) / np.linalg.norm(b - a)
    shift = np.array([-d[1], d[0]]) * across * PITCH
    mask = np.zeros(density.shape[:2], np.float32)
    p, q = (a + shift).round().astype(int), (b + shift).round().astype(int)
    cv2.line(mask, (int(p[0]), int(p[1])), (int(q[0]), int(q[1])), 1.0, 3)
    # Densities add: pigment over print.
    return density + mask[..., None] * od.astype(np.float32)


def test_a_stroke_is_measured_by_the_chroma_it_adds_over_the_print() -> None:
    """What a stroke adds, its grey taken out, wherever it lies within the reader's search across the
    section; the print under it (in both pictures) counts for nothing."""
    guide = _stroke(_blank(), "2,3-4,3", np.array([0.05, 0.05, 0.08]), across=-0.05)  # a bluish grey guide
    section = parse_section_name("2,3-4,3")
    without = _straightened(guide)
    for across in (0.0, 0.06):
        with_lines = _straightened(_stroke(guide, "2,3-4,3", PURPLE_OD, across))
        measured = visibility.stroke_chroma(with_lines, without, section, radius=0.2)
        assert measured == pytest.approx(float(np.linalg.norm(chroma_density(PURPLE_OD))), rel=0.05)
    # Beside the section, outside the search, and on another section: nothing.
    off = _straightened(_stroke(guide, "2,3-4,3", PURPLE_OD, 0.3))
    assert visibility.stroke_chroma(off, without, section, radius=0.2) < 0.01
    other = _straightened(_stroke(guide, "4,0-4,3", PURPLE_OD))
    assert visibility.stroke_chroma(other, without, section, radius=0.2) < 0.01
    # A grey pencil (graphite) adds no chroma.
    grey = _straightened(_stroke(guide, "2,3-4,3", np.array([0.6, 0.6, 0.6])))
    assert visibility.stroke_chroma(grey, without, section, radius=0.2) < 0.01


def test_a_stroke_under_dark_print_or_too_short_is_not_measured() -> None:
    section = parse_section_name("2,3-4,3")
    with_lines = _stroke(_blank(), "2,3-4,3", PURPLE_OD)
    everywhere = np.ones(with_lines.shape[:2], bool)
    assert math.isnan(
        visibility.stroke_chroma(_straightened(with_lines, everywhere), _straightened(_blank()), section, 0.2)
    )
    # Symbols so large that nothing of the section lies clear of them.
    assert math.isnan(visibility.stroke_chroma(_straightened(with_lines), _straightened(_blank()), section, 1.0))


def test_the_chroma_bands_and_the_visibility_table() -> None:
    assert [visibility.band_of(c) for c in (0.0, 0.0199, 0.02, 0.0849, 0.085, 3.0)] == [0, 0, 1, 2, 3, 3]
    case = {"mode": "photo", "style": "print", "seed": 7}
    rows: list[dict[str, Any]] = [
        {
            "case": case,
            "sections": [
                {"section": "2,3-4,3", "colour": "purple", "read": "purple", "chroma": 0.3},
                {"section": "4,0-4,3", "colour": "purple", "read": None, "chroma": 0.03},
                {"section": "0,2-0,3", "colour": "green", "read": "blue", "chroma": 0.05},
                {"section": "0,3-2,3", "colour": "green", "read": "green", "chroma": float("nan")},
            ],
            "drawn_where_blank": ["9,6-9,7"],
        },
        {"case": {**case, "mode": "scan"}, "error": "not read", "sections": []},
    ]
    table = visibility.summarise(rows)
    assert "| photo | 0.085 and more | 1 | 1 | 0 | 0 |" in table
    assert "| photo | 0.020–0.040 | 1 | 0 | 1 | 0 |" in table
    assert "| photo | 0.040–0.085 | 1 | 0 | 0 | 1 |" in table
    assert "| scan | 0.085 and more | 0 | 0 | 0 | 0 |" in table
    # Faintest first; the section too short to measure is left out of every count.
    assert table.index("0.030  print/photo 7 4,0-4,3 purple read blank") < table.index("0.050  print/photo 7 0,2-0,3")
    assert "0,3-2,3" not in table
    assert "blank sections read as drawn: 1; sheets not read: 1" in table


def test_every_stroke_of_a_scan_reaches_the_picture() -> None:
    """The whole bench on one clean scan: the sheet read, each drawn section measured against the
    same sheet without its lines."""
    case = next(c for c in accuracy.plan(accuracy.COUNT, accuracy.SEED) if c.mode == "scan")
    row = visibility.run_case(case)
    assert "error" not in row
    drawn = sum(len(v) for v in case.sample().expected["network"]["lines"].values())
    assert len(row["sections"]) == drawn
    chroma = [s["chroma"] for s in visibility.measured(row)]
    assert len(chroma) >= drawn - 2
    # A firm stroke on a scan is well above a photo's stroke threshold.
    assert np.median(chroma) > 0.2
    assert sum(c >= visibility.BANDS[2] for c in chroma) >= 0.9 * len(chroma)


def test_the_section_rubbed_out_leaves_a_line_end_for_a_station_no_line_visits(
    game_map: GameMap, rulebook_game: Network
) -> None:
    lines = {c: [s.to_list() for s in rulebook_game.sections(c)] for c in LINE_COLOURS}
    found = robustness._erased_section(SimpleNamespace(expected={"network": {"lines": lines}}))
    assert found is not None
    colour, section = found
    # The longest line's end, when it has such a section (the green line has 10 sections here).
    assert colour == "green"
    stations = [parse_station_name(p) for pair in lines[colour] for p in pair]
    ends = {p for p in stations if stations.count(p) == 1}
    visited = {parse_station_name(p) for c in lines for pair in lines[c] for p in pair}
    assert len({section.a, section.b} & ends) == 1
    assert len({section.a, section.b} - visited) == 1
    drawn = [parse_section_name("-".join(pair)) for c in lines for pair in lines[c]]
    assert not any(sections_cross(section, t) for t in drawn)
    assert section in game_map.sections


@pytest.fixture(scope="module")
def photo() -> Sample:
    return robustness.photos(1, accuracy.SEED)[0].sample()


def test_a_rubbed_out_section_smears_only_its_own_stretch_and_keeps_the_truth(photo: Sample) -> None:
    colour, section = robustness._erased_section(photo) or pytest.fail("no section to rub out")
    smeared = robustness._erased(photo)
    assert smeared.expected == photo.expected
    before = photo.pages[0].image.astype(np.int16)
    after = smeared.pages[0].image.astype(np.int16)
    changed = np.abs(after - before).max(axis=2) > 2
    assert changed.any()
    # Within a fifth of a pitch of the section's centre line, and only darker.
    affine = robustness._lattice_to_px(photo)
    pitch = robustness._pitch(photo)
    a, b = (affine @ np.array([*p, 1.0]) for p in (section.a, section.b))
    ys, xs = np.nonzero(changed)
    pts = np.stack([xs, ys], axis=1).astype(float)
    t = np.clip(((pts - a) @ (b - a)) / float((b - a) @ (b - a)), 0.0, 1.0)
    distance = np.linalg.norm(pts - (a + t[:, None] * (b - a)), axis=1)
    assert distance.max() < 0.2 * pitch
    assert (after <= before).all()
    # The smear takes its pencil's hue: most is lost in the channel the pencil absorbs most.
    loss = (before - after)[changed].sum(axis=0)
    assert int(np.argmax(loss)) == int(np.argmin(PENCIL_RGB[colour]))


def test_the_cut_picture_loses_the_map_s_top(photo: Sample) -> None:
    cut = robustness._corner_cut(photo)
    xy = photo.expected["map_position"]["stations_px"]
    pitch = robustness._pitch(photo)
    top = min(y for _, y in xy.values())
    height = photo.pages[0].image.shape[0]
    assert cut.pages[0].image.shape[0] == height - int(top + 1.5 * pitch)
    assert cut.pages[0].image.shape[1] == photo.pages[0].image.shape[1]
    # The truth stays; stations above the cut are out of the picture, the rest are in.
    assert cut.expected == photo.expected
    out = [n for n, (_, y) in xy.items() if y < int(top + 1.5 * pitch)]
    assert 0 < len(out) < len(xy)


def test_the_lattice_fit_lands_on_the_stations(photo: Sample) -> None:
    affine = robustness._lattice_to_px(photo)
    xy = photo.expected["map_position"]["stations_px"]
    pitch = robustness._pitch(photo)
    worst = max(
        float(np.linalg.norm(affine @ np.array([*parse_station_name(n), 1.0]) - np.array(p))) for n, p in xy.items()
    )
    # An affine fit of a photo taken at a slant: within a quarter of a pitch everywhere.
    assert worst < 0.25 * pitch


def test_the_robustness_photos_span_the_accuracy_set() -> None:
    every = [c for c in accuracy.plan(accuracy.COUNT, accuracy.SEED) if c.mode == "photo"]
    chosen = robustness.photos(40, accuracy.SEED)
    assert len(chosen) == 40 and len(set(chosen)) == 40
    assert all(c in every for c in chosen)
    assert {c.style for c in chosen} == {"print", "cream"}
    assert any(c.violation for c in chosen) and any(c.violation is None for c in chosen)
    assert min(c.strength for c in chosen) < 0.25 and max(c.strength for c in chosen) > 0.75
    assert robustness.photos(10_000, accuracy.SEED) == every
    assert robustness.file_format_of(robustness.LOSSLESS) == "png"
    assert {robustness.file_format_of(v) for v in robustness.VARIANTS} == {"jpg"}


def test_every_fresh_print_is_a_style_of_its_own() -> None:
    cases = unseen.plan(90, 76000)
    assert len(cases) == 90
    assert [c.seed for c in cases] == list(range(76000, 76090))
    assert sum(c.mode == "scan" for c in cases) == 30 and sum(c.mode == "photo" for c in cases) == 60
    assert len({c.style for c in cases}) == 90 and all(c.style.startswith(UNSEEN_PREFIX) for c in cases)
    assert all(0.0 <= c.strength < 1.0 for c in cases) and all(c.violation is None for c in cases)
    # A fresh print is the same print every time it is asked for, and differs from the next one.
    assert get_style(cases[0].style) == get_style(cases[0].style)
    assert get_style(cases[0].style) != get_style(cases[1].style)
    assert {c.style for c in unseen.plan(6, 76000, "mono")} == {"mono"}
    # The same plan, each print with its Thames laid over the guides.
    over = unseen.plan(90, 76000, prefix=OVERLAID_PREFIX)
    assert [c.style for c in over] == [c.style.replace(UNSEEN_PREFIX, OVERLAID_PREFIX) for c in cases]
    assert [(c.seed, c.mode, c.strength) for c in over] == [(c.seed, c.mode, c.strength) for c in cases]


def test_the_robustness_scans_span_the_accuracy_sets_scans() -> None:
    every = [c for c in accuracy.plan(accuracy.COUNT, accuracy.SEED) if c.mode == "scan"]
    chosen = robustness.scans(20, accuracy.SEED)
    assert len(chosen) == 20 and len(set(chosen)) == 20
    assert all(c in every for c in chosen)
    assert {c.style for c in chosen} == {"print", "cream"}
    assert min(c.strength for c in chosen) < 0.25 and max(c.strength for c in chosen) > 0.75
    assert robustness.scans(10_000, accuracy.SEED) == every
    assert [robustness.file_format_of(v) for v in robustness.SCAN_READS] == [
        "png",
        "jpg",
        "pdf",
        "png",
        "png",
        "png",
        "png",
    ]


def test_each_change_to_a_scan_keeps_its_sheet_and_changes_its_pixels_as_named(calibration: Calibration) -> None:
    scan = make_sample(calibration, 7, mode="scan", dpi=150, strength=0.3)
    [page] = scan.pages
    changed = {name: change(scan) for name, (change, _fmt) in robustness.SCAN_VARIANTS.items()}
    assert all(s.expected == scan.expected for s in changed.values())
    # Saved at quality 85 when saved as JPEG; the pixels as they were.
    [jpeg] = changed["scan: saved as JPEG (quality 85)"].pages
    assert jpeg.jpeg_quality == 85 and np.array_equal(jpeg.image, page.image)
    # A scanner set to a lower resolution: the page shrunk in proportion, and the file says so.
    [low] = robustness._scan_dpi(100)(scan).pages
    assert low.dpi == 100 and low.image.shape[:2] == (
        round(page.image.shape[0] * 2 / 3),
        round(page.image.shape[1] * 2 / 3),
    )
    # Grain: noise of about 4 levels on every channel, the picture otherwise the same.
    [grainy] = changed["scan: grainy paper (noise of 4 levels)"].pages
    diff = grainy.image.astype(float) - page.image.astype(float)
    inside = (page.image > 20).all(axis=2) & (page.image < 235).all(axis=2)
    assert 3.5 < diff[inside].std() < 4.5 and abs(diff[inside].mean()) < 0.3
    # Faded: every vivid pixel's saturation (pencil and print) down to 0.7 of it, its hue kept.
    [faded] = changed["scan: faded colours (saturation x 0.7)"].pages
    hsv0 = cv2.cvtColor(page.image, cv2.COLOR_RGB2HSV).astype(float)
    hsv1 = cv2.cvtColor(faded.image, cv2.COLOR_RGB2HSV).astype(float)
    vivid = hsv0[..., 1] > 100
    assert vivid.any()
    ratio = hsv1[..., 1][vivid] / hsv0[..., 1][vivid]
    assert abs(np.median(ratio) - 0.7) < 0.01 and np.percentile(np.abs(ratio - 0.7), 99) < 0.05
    turned = np.abs(hsv1[..., 0][vivid] - hsv0[..., 0][vivid])
    assert np.minimum(turned, 180 - turned).mean() < 1.0  # OpenCV's hue runs 0 to 180, red at both ends
