"""The renderer: blank sheets, pencil, photos and scans, samples on disk, and `nsvision sample`."""

from __future__ import annotations

import dataclasses
import json
import math
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from nsvision.calibration import Calibration
from nsvision.game.board import LINE_COLOURS
from nsvision.game.network import Network, network_from_dict
from nsvision.game.rules import check_network
from nsvision.game.scoring import score_network
from nsvision.game.simulate import simulate_game
from nsvision.render import pencil
from nsvision.render.degrade import (
    Degraded,
    lens_distorted,
    lens_distortion,
    photo,
    photo_px_per_unit,
    scan,
    scan_px_per_unit,
)
from nsvision.render.pencil import HANDS, PENCIL_RGB, PENCIL_SETS, SheetMarks, draw_sheet
from nsvision.render.sample import FORMATS, make_sample, write_sample
from nsvision.render.sheet import RenderedSheet, render_blank
from nsvision.render.style import STYLES, get_style, random_style


def _value(image: np.ndarray) -> np.ndarray:
    return image.max(axis=2).astype(np.float32)


def _ring_contrast(v: np.ndarray, xy_px: tuple[float, float], radius_px: float) -> float:
    """Darkness of a station ring at ``xy_px`` in value image ``v``: ring level / paper level around it (low = ring)."""
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    xs = np.clip(np.round(xy_px[0] + 0.88 * radius_px * np.cos(ang)).astype(int), 0, v.shape[1] - 1)
    ys = np.clip(np.round(xy_px[1] + 0.88 * radius_px * np.sin(ang)).astype(int), 0, v.shape[0] - 1)
    ring = float(np.median(v[ys, xs]))
    r = int(3 * radius_px)
    x0, y0 = max(0, int(xy_px[0]) - r), max(0, int(xy_px[1]) - r)
    paper = float(np.percentile(v[y0 : int(xy_px[1]) + r, x0 : int(xy_px[0]) + r], 90))
    return ring / max(paper, 1.0)


def _ring_stations(cal: Calibration) -> list[str]:
    return [s.name for s in cal.map.stations if s.departure is None]


def _local_scale(h: np.ndarray, u: float, v: float) -> float:
    """Image px per sheet unit of homography ``h`` at sheet point (u, v)."""
    p = np.array([[u, v, 1.0], [u + 1, v, 1.0], [u, v + 1, 1.0]]) @ h.T
    p = p[:, :2] / p[:, 2:]
    a, b = p[1] - p[0], p[2] - p[0]
    return float(np.sqrt(abs(a[0] * b[1] - a[1] * b[0])))


def _assert_stations_where_said(page: Degraded, cal: Calibration, min_share: float = 0.95) -> None:
    """The true station positions hold dark rings; half a pitch away they do not."""
    hits = misses = 0
    names = _ring_stations(cal)
    value = _value(page.image)
    for name in names:
        x, y = page.stations_px[name]
        u, v = cal.sheet.lattice_to_sheet(*map(int, name.split(",")))
        r_px = cal.sheet.station_radius * _local_scale(page.sheet_to_image, u, v)
        hits += _ring_contrast(value, (x, y), r_px) < 0.6
        # Half a pitch diagonally towards the map centre: between stations, still on the paper.
        su, sv = np.sign(np.array(cal.sheet.lattice_to_sheet(4.5, 4.5)) - (u, v))
        half = cal.sheet.lattice_pitch / 2
        off = np.array([[u + su * half, v + sv * half, 1.0]]) @ page.sheet_to_image.T
        misses += _ring_contrast(value, tuple(off[0, :2] / off[0, 2]), r_px) < 0.6
    assert hits >= min_share * len(names), f"only {hits} of {len(names)} rings found at stations_px"
    assert misses <= 0.1 * len(names), f"{misses} rings found half a pitch off the stations"


# ---- blank sheet ------------------------------------------------------------------------------


def test_blank_sheet_has_the_print_at_the_calibrated_places(calibration: Calibration) -> None:
    sheet = render_blank(calibration, "print", 2.0)
    assert sheet.image.shape == (round(924 * 2.0), round(532 * 2.0), 3)
    assert sheet.image.dtype == np.uint8
    header = sheet.image[: int(113 * 2.0)]
    assert header.mean() < 235 and header.std() > 20, "the header band is a picture, not white paper"
    value = _value(sheet.image)
    for name in _ring_stations(calibration):
        u, v = calibration.sheet.lattice_to_sheet(*map(int, name.split(",")))
        assert _ring_contrast(value, sheet.sheet_to_px(u, v), calibration.sheet.station_radius * 2.0) < 0.5, name
    for s in calibration.map.stations:
        if s.departure is not None:
            x, y = sheet.sheet_to_px(*calibration.sheet.lattice_to_sheet(*s.point))
            # Between the symbol and the rim, on a diagonal.
            d = calibration.sheet.station_radius * 2.0 * 0.8 / math.sqrt(2)
            disc = sheet.image[round(y + d), round(x + d)].astype(int)
            want = np.array(STYLES["print"].departure_colour(s.departure))
            assert np.abs(disc - want).max() < 30, f"departure {s.name} is not filled with {s.departure}"


def test_styles_change_the_look_not_the_geometry(calibration: Calibration) -> None:
    printed = render_blank(calibration, "print", 1.5)
    cream = render_blank(calibration, "cream", 1.5)
    margin = STYLES["cream"].page_margin * 1.5
    assert cream.origin_px == (margin, margin)
    assert cream.image.shape[0] == printed.image.shape[0] + round(2 * margin)
    for sheet in (printed, cream):
        value = _value(sheet.image)
        for name in _ring_stations(calibration):
            u, v = calibration.sheet.lattice_to_sheet(*map(int, name.split(",")))
            assert _ring_contrast(value, sheet.sheet_to_px(u, v), calibration.sheet.station_radius * 1.5) < 0.5
    # Same sheet point, clearly different paper.
    p = printed.image[round(printed.sheet_to_px(40, 150)[1]), round(printed.sheet_to_px(40, 150)[0])].astype(int)
    c = cream.image[round(cream.sheet_to_px(40, 150)[1]), round(cream.sheet_to_px(40, 150)[0])].astype(int)
    assert np.abs(p - c).sum() > 20


def test_mono_is_the_print_in_grey(calibration: Calibration) -> None:
    printed = render_blank(calibration, "print", 1.5)
    mono = render_blank(calibration, "mono", 1.5).image.astype(int)
    # Nothing printed keeps a colour, the geometry is the print's, the departure discs stay darker
    # than the paper.
    assert (mono.max(axis=2) - mono.min(axis=2)).max() == 0
    assert mono.shape == printed.image.shape
    value = _value(mono.astype(np.uint8))
    for name in _ring_stations(calibration):
        u, v = calibration.sheet.lattice_to_sheet(*map(int, name.split(",")))
        assert _ring_contrast(value, printed.sheet_to_px(u, v), calibration.sheet.station_radius * 1.5) < 0.5
    for colour in LINE_COLOURS:
        u, v = calibration.sheet.lattice_to_sheet(*calibration.map.departure(colour))
        x, y = printed.sheet_to_px(u + calibration.sheet.station_radius * 0.7, v)
        assert mono[round(y), round(x), 0] < get_style("mono").paper_rgb[0] - 40


def test_overlaid_lays_the_thames_over_the_guides(calibration: Calibration) -> None:
    # The guide of 4,5-4,6 across the band: printed over it (`print`), its dashes are lighter than
    # the band in red; under it (`overlaid`, the band semi-transparent), darker in every channel.
    def across(style: str) -> tuple[np.ndarray, np.ndarray]:
        sheet = render_blank(calibration, style, 4.0)
        px = [sheet.sheet_to_px(*calibration.sheet.lattice_to_sheet(4, t)) for t in np.linspace(5.3, 5.6, 25)]
        guide = np.array([sheet.image[round(y), round(x)] for x, y in px], int)
        u, v = calibration.sheet.lattice_to_sheet(4.25, 5.45)
        x, y = sheet.sheet_to_px(u, v)
        return guide, sheet.image[round(y), round(x)].astype(int)

    guide, band = across("print")
    assert (guide[:, 0] > band[0] + 30).any()
    guide, under = across("overlaid")
    assert (under == band).all()
    assert (guide <= under).all() and (guide < under - 20).all(axis=1).any()


def test_blank_sheets_are_cached_and_read_only(calibration: Calibration) -> None:
    a = render_blank(calibration, "print", 1.0)
    assert render_blank(calibration, "print", 1.0) is a
    assert not a.image.flags.writeable
    with pytest.raises(KeyError, match="cream"):
        render_blank(calibration, "nope", 1.0)


# ---- pencil -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def drawn(calibration: Calibration) -> tuple[RenderedSheet, RenderedSheet, Network]:
    blank = render_blank(calibration, "print", 2.0)
    network = simulate_game(calibration.map, 5).network
    return blank, draw_sheet(blank, network, calibration, 5), network


def test_draw_sheet_is_deterministic_and_pure(calibration: Calibration, drawn) -> None:
    blank, sheet, network = drawn
    before = blank.image.copy()
    again = draw_sheet(blank, network, calibration, 5)
    assert np.array_equal(again.image, sheet.image)
    assert not np.array_equal(draw_sheet(blank, network, calibration, 6).image, sheet.image)
    assert np.array_equal(blank.image, before)


def test_a_sheet_without_its_lines_differs_from_it_only_by_the_strokes(calibration: Calibration) -> None:
    # bench/visibility.py measures a stroke as the difference between the two pictures: everything
    # else (the circled station, the score zone's writing, the camera's noise) must come out the same.
    seed = 3
    full = make_sample(calibration, seed, mode="photo", strength=0.5, megapixels=1.0, advanced=True)
    bare = make_sample(calibration, seed, mode="photo", strength=0.5, megapixels=1.0, advanced=True, lines=False)
    assert bare.expected == full.expected
    page = full.pages[0]
    diff = np.abs(page.image.astype(int) - bare.pages[0].image.astype(int)).max(axis=2)
    assert (diff > 0).mean() > 0.005
    # Beyond a drawn section's reach (in the picture, through the true map position) nothing changes
    # but a blurred stroke's last level.
    near = np.zeros(diff.shape, np.uint8)
    network = network_from_dict(full.expected["network"])
    h = page.sheet_to_image
    reach = max(3, round(float(np.hypot(h[0, 0], h[1, 0])) * 6))  # px of 6 sheet units: width, bow, curl
    for _, s in network.all_sections():
        a, b = (np.array(calibration.sheet.lattice_to_sheet(*p)) for p in (s.a, s.b))
        pts = np.array([[*a, 1.0], [*b, 1.0]]) @ h.T
        (x0, y0), (x1, y1) = pts[:, :2] / pts[:, 2:]
        cv2.line(near, (round(x0), round(y0)), (round(x1), round(y1)), 1, 2 * reach)
    assert diff[~near.astype(bool)].max() <= 1


def _darkening(blank: RenderedSheet, sheet: RenderedSheet, u: float, v: float, r_units: float = 2.0) -> np.ndarray:
    x, y = sheet.sheet_to_px(u, v)
    r = max(2, round(r_units * sheet.px_per_unit))
    win = (slice(round(y) - r, round(y) + r + 1), slice(round(x) - r, round(x) + r + 1))
    diff = blank.image[win].astype(np.float32) - sheet.image[win].astype(np.float32)
    # The strongest pencil in the window: the 80th percentile of the total darkening.
    total = diff.sum(axis=2).ravel()
    keep = total >= np.percentile(total, 80)
    return diff.reshape(-1, 3)[keep].mean(axis=0)


def _seg_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    t = float(np.clip(np.dot(p - a, b - a) / np.dot(b - a, b - a), 0, 1))
    return float(np.linalg.norm(p - (a + t * (b - a))))


def test_pencil_lies_on_the_drawn_sections_in_their_colour(calibration: Calibration, drawn) -> None:
    blank, sheet, network = drawn
    lat = calibration.sheet.lattice_to_sheet
    drawn_secs = {s: c for c, s in network.all_sections()}
    segs = [(np.array(lat(*s.a)), np.array(lat(*s.b))) for s in drawn_secs]
    absorb = {c: 255 - np.array(PENCIL_RGB[c], np.float32) for c in LINE_COLOURS}
    right_colour = 0
    for s, colour in drawn_secs.items():
        p = 0.62 * np.array(lat(*s.a)) + 0.38 * np.array(lat(*s.b))
        d = _darkening(blank, sheet, *p)
        assert d.sum() > 40, f"no pencil on drawn section {s.name}"
        cos = {c: float(d @ a / (np.linalg.norm(d) * np.linalg.norm(a) + 1e-6)) for c, a in absorb.items()}
        right_colour += max(cos, key=cos.get) == colour  # type: ignore[arg-type]
    assert right_colour >= 0.85 * len(drawn_secs)
    for s in calibration.map.sections:
        if s in drawn_secs:
            continue
        p = 0.62 * np.array(lat(*s.a)) + 0.38 * np.array(lat(*s.b))
        if min(_seg_distance(p, a, b) for a, b in segs) < 9:
            continue
        assert _darkening(blank, sheet, *p).sum() < 25, f"pencil on undrawn section {s.name}"


def _stroke_offset(blank: RenderedSheet, sheet: RenderedSheet, a: np.ndarray, b: np.ndarray) -> float:
    """How far (sheet units) the pencil at the middle of the section from ``a`` to ``b`` lies from
    the straight line between them: the darkest offset across it, within 10 units either side."""
    u = (b - a) / np.linalg.norm(b - a)
    n = np.array([-u[1], u[0]])
    offsets = np.arange(-10.0, 10.01, 0.5)
    darkness = []
    for o in offsets:
        x, y = sheet.sheet_to_px(*((a + b) / 2 + o * n))
        yy, xx = round(y), round(x)
        win = (slice(yy - 1, yy + 2), slice(xx - 1, xx + 2))
        darkness.append(float((blank.image[win].astype(np.float32) - sheet.image[win]).sum()))
    return abs(float(offsets[int(np.argmax(darkness))]))


def test_a_sloppy_hand_strays_further_from_the_guides(calibration: Calibration, drawn) -> None:
    # The same sheet drawn freehand (seed 8; seed 5's player uses a ruler, and three times a ruler's
    # bow is still straight), every random draw as before, with the bow and wander three times as large:
    # the pencil at the middle of the sections lies further off the guide, by a millimetre or more
    # (3.6 units) on the longest.
    blank, _, network = drawn
    sheet = draw_sheet(blank, network, calibration, 8)
    sloppy = draw_sheet(blank, network, calibration, 8, sloppiness=HANDS["sloppy"])
    lat = calibration.sheet.lattice_to_sheet
    ends = [(np.array(lat(*s.a)), np.array(lat(*s.b))) for _, s in network.all_sections()]
    usual = np.array([_stroke_offset(blank, sheet, a, b) for a, b in ends])
    strayed = np.array([_stroke_offset(blank, sloppy, a, b) for a, b in ends])
    assert strayed.mean() > 2 * usual.mean()
    longest = np.argsort([-np.linalg.norm(b - a) for a, b in ends])[:5]
    assert strayed[longest].max() >= 3.6
    assert np.array_equal(draw_sheet(blank, network, calibration, 8, sloppiness=HANDS["default"]).image, sheet.image)


def test_a_pencil_set_draws_in_its_own_colours(calibration: Calibration, drawn) -> None:
    # The same strokes with the pencils of the printed departure discs: cyan blue, brighter green.
    blank, _, network = drawn
    sheet = draw_sheet(blank, network, calibration, 5, pencils=PENCIL_SETS["discs"])
    lat = calibration.sheet.lattice_to_sheet

    def cos(a: np.ndarray, b: np.ndarray) -> float:
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-6))

    for colour in ("blue", "green"):
        own = 255 - np.array(PENCIL_SETS["discs"][colour], np.float32)
        usual = 255 - np.array(PENCIL_RGB[colour], np.float32)
        darkening = [
            _darkening(blank, sheet, *(0.62 * np.array(lat(*s.a)) + 0.38 * np.array(lat(*s.b))))
            for s in network.sections(colour)
        ]
        assert darkening
        assert sum(cos(d, own) > cos(d, usual) for d in darkening) >= 0.8 * len(darkening), colour
    with pytest.raises(ValueError, match="pencils"):
        make_sample(calibration, 1, pencils="crayons")


def test_marks_cross_circles_from_the_left_and_write_numbers(calibration: Calibration) -> None:
    blank = render_blank(calibration, "print", 2.0)
    marks = SheetMarks(tourist_circles_crossed=3, written={"total": 87, "blue_line_total": 20}, objectives_ticked=(2,))
    sheet = draw_sheet(blank, Network.build(), calibration, 1, marks)
    diff = np.abs(blank.image.astype(int) - sheet.image.astype(int)).sum(axis=2)

    def changed(cx: float, cy: float, half: float) -> int:
        x0, y0 = sheet.sheet_to_px(cx - half, cy - half)
        x1, y1 = sheet.sheet_to_px(cx + half, cy + half)
        return int((diff[round(y0) : round(y1), round(x0) : round(x1)] > 60).sum())

    track = calibration.sheet.tourist_track
    assert all(changed(*t.center, t.radius) > 20 for t in track[:3])
    assert all(changed(*t.center, t.radius) == 0 for t in track[3:])
    for name in ("total", "blue_line_total", "objective_2"):
        b = calibration.sheet.box(name)
        assert changed(*b.center, b.h / 2) > 20, name
    for name in ("purple_line_total", "objective_1"):
        b = calibration.sheet.box(name)
        assert changed(*b.center, b.h / 2) == 0, name


# ---- photos and scans -------------------------------------------------------------------------


def test_a_12_mp_photo_renders_in_seconds_with_true_station_positions(calibration: Calibration) -> None:
    start = time.perf_counter()
    sample = make_sample(calibration, 21, mode="photo", strength=0.6, frame=(4000, 3000))
    seconds = time.perf_counter() - start
    page = sample.pages[0]
    assert page.image.shape == (3000, 4000, 3)
    assert seconds < 20, f"a 12 MP photo took {seconds:.1f} s"
    _assert_stations_where_said(page, calibration)
    # The fitted homography is close to the true positions (curl moves them a little).
    names = list(page.stations_px)
    u = np.array([calibration.sheet.lattice_to_sheet(*map(int, n.split(","))) for n in names])
    fit = np.c_[u, np.ones(len(u))] @ page.sheet_to_image.T
    err = np.hypot(*(fit[:, :2] / fit[:, 2:] - np.array([page.stations_px[n] for n in names])).T)
    pitch_px = calibration.sheet.lattice_pitch * _local_scale(page.sheet_to_image, 266, 380)
    assert np.median(err) < 0.1 * pitch_px


@pytest.mark.parametrize("strength", [0.0, 1.0])
def test_photos_are_deterministic_and_vary_with_the_seed(calibration: Calibration, strength: float) -> None:
    blank = render_blank(calibration, "print", photo_px_per_unit(calibration, 4, strength, (1200, 900)))
    a = photo(blank, calibration, 4, strength, frame=(1200, 900))
    b = photo(blank, calibration, 4, strength, frame=(1200, 900))
    assert np.array_equal(a.image, b.image) and np.array_equal(a.sheet_to_image, b.sheet_to_image)
    c = photo(blank, calibration, 5, strength, frame=(1200, 900))
    assert not np.array_equal(a.image, c.image)
    assert a.image.shape == (900, 1200, 3)


def test_photo_geometry_follows_strength(calibration: Calibration) -> None:
    blank = render_blank(calibration, "print", 1.0)
    easy = [photo(blank, calibration, s, 0.0, frame=(400, 300)).details["tilt_deg"] for s in range(12)]
    hard = [photo(blank, calibration, s, 1.0, frame=(400, 300)).details["tilt_deg"] for s in range(12)]
    assert max(easy) <= 5.01 and max(hard) <= 35.01
    assert np.mean(hard) > 2 * np.mean(easy)


@pytest.mark.parametrize("k", [0.1, -0.06], ids=["barrel", "pincushion"])
def test_a_lens_moves_each_point_where_it_says_and_bends_straight_lines(k: float) -> None:
    # Dots along a straight row near the picture's edge: each moves where ``lens_distorted`` puts
    # it, the centre stays, and the row bows (out from the centre for barrel, in for pincushion).
    picture = np.full((600, 800, 3), 255, np.uint8)
    dots = np.array([[x, 540.0] for x in range(80, 721, 160)])
    for x, y in dots:
        cv2.circle(picture, (int(x), int(y)), 5, (0, 0, 0), -1)
    cv2.circle(picture, (400, 300), 5, (0, 0, 0), -1)  # the picture's centre (399.5, 299.5), nearly
    bent = lens_distortion(picture, k)
    n, _labels, _stats, centres = cv2.connectedComponentsWithStats((bent[..., 0] < 128).astype(np.uint8))
    assert n == len(dots) + 2
    found = centres[1:][np.argsort(centres[1:, 0] + 1e3 * (centres[1:, 1] > 400))]
    said = lens_distorted(np.vstack([[400.0, 300.0], dots]), k, (800, 600))
    assert np.abs(said[0] - (400, 300)).max() < 0.01
    row = found[found[:, 1] > 400]
    assert np.abs(row - said[1:]).max() < 0.3
    sag = row[2, 1] - (row[0, 1] + row[-1, 1]) / 2  # the middle dot against the line through the end ones
    assert sag > 5 if k > 0 else sag < -3


def test_scan_is_skewed_at_most_5_degrees_at_its_dpi(calibration: Calibration) -> None:
    sheet = render_blank(calibration, "cream", scan_px_per_unit(150))
    for seed in range(3):
        page = scan(sheet, calibration, seed, strength=1.0, dpi=150)
        h = page.sheet_to_image
        angle = math.degrees(math.atan2(h[1, 0], h[0, 0]))
        skew = (angle + 90) % 180 - 90
        assert abs(skew) <= 5.0 + 1e-6
        assert page.image.shape[0] <= round(297 / 25.4 * 150) + 1
        assert page.kind == "scan" and page.dpi == 150
    _assert_stations_where_said(page, calibration)


def test_exif_orientation_is_what_a_viewer_undoes(calibration: Calibration, tmp_path: Path) -> None:
    blank = render_blank(calibration, "print", 1.0)
    for seed in range(60):
        page = photo(blank, calibration, seed, 0.3, frame=(300, 400))
        if page.exif_orientation != 1:
            break
    assert page.exif_orientation in (6, 8)
    assert page.stored.shape == (300, 400, 3)
    sample = make_sample(calibration, seed, mode="photo", strength=0.3, frame=(300, 400), blank=True)
    path = next(p for p in write_sample(sample, tmp_path, "jpg") if p.suffix == ".jpg")
    with Image.open(path) as im:
        shown = np.asarray(ImageOps.exif_transpose(im).convert("RGB")).astype(int)
    assert shown.shape == (400, 300, 3)
    assert np.abs(shown - sample.pages[0].image.astype(int)).mean() < 6
    expected = json.loads((tmp_path / "expected.json").read_text())
    assert expected["map_position"]["exif_orientation"] == page.exif_orientation


# ---- samples ----------------------------------------------------------------------------------


def test_sample_ground_truth_round_trips_through_the_game_core(calibration: Calibration) -> None:
    legal = make_sample(calibration, 8, mode="clean", px_per_unit=1.0)
    bad = make_sample(calibration, 8, mode="clean", px_per_unit=1.0, violation="sections_cross")
    empty = make_sample(calibration, 8, mode="clean", px_per_unit=1.0, blank=True)
    for s in (legal, bad, empty):
        e = s.expected
        net = network_from_dict(e["network"])
        assert score_network(net, calibration.map).to_dict() == e["score"]
        assert [v.to_dict() for v in check_network(net, calibration.map)] == e["violations"]
        assert e["total"] == e["score"]["total"]
        assert set(e["map_position"]["stations_px"]) == {s.name for s in calibration.map.stations}
    assert legal.expected["violations"] == []
    assert legal.expected["network"] == simulate_game(calibration.map, 8).network.to_dict()
    assert "sections_cross" in {v["code"] for v in bad.expected["violations"]}
    assert empty.expected["total"] == 0 and empty.expected["marks"]["written"] == {}


def test_advanced_samples_circle_stations_and_play_objectives(calibration: Calibration) -> None:
    plain = make_sample(calibration, 9, mode="clean", px_per_unit=2.0)
    sample = make_sample(calibration, 9, mode="clean", px_per_unit=2.0, advanced=True)
    e = sample.expected
    net = network_from_dict(e["network"])
    assert len(net.options.objectives) == 2 and net.options.doubled_stations
    assert check_network(net, calibration.map) == ()
    assert score_network(net, calibration.map).to_dict() == e["score"]
    assert e["marks"]["circled_stations"] == e["network"]["doubled_stations"]
    met = [i + 1 for i, o in enumerate(e["score"]["objectives"]) if o["met"]]
    assert e["marks"]["objectives_ticked"] == met
    # A pencil ring around each circled station, outside its printed symbol.
    sheet, before = sample.pages[0], plain.pages[0]
    diff = np.abs(sheet.image.astype(int) - before.image.astype(int)).sum(axis=2)
    for point in net.options.doubled_stations.values():
        cx, cy = sheet.stations_px[f"{point[0]},{point[1]}"]
        r = calibration.sheet.station_radius * 2.0
        ang = np.linspace(0, 2 * np.pi, 72, endpoint=False)
        radii = np.linspace(1.25, 1.9, 14)
        ring = np.array(
            [max(diff[round(cy + k * r * np.sin(a)), round(cx + k * r * np.cos(a))] for k in radii) for a in ang]
        )
        assert np.mean(ring > 30) > 0.6, f"no pencil circle around {point}"


def test_samples_are_deterministic_per_seed(calibration: Calibration) -> None:
    a = make_sample(calibration, 13, mode="scan", dpi=150, strength=0.7)
    b = make_sample(calibration, 13, mode="scan", dpi=150, strength=0.7)
    assert a.expected == b.expected
    assert np.array_equal(a.pages[0].image, b.pages[0].image)


def test_a_sample_renders_the_same_whatever_was_rendered_before(
    calibration: Calibration, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 150 and 155 dpi share a cached pencil-grain texture; the benches render many sheets per process.
    monkeypatch.setattr(pencil, "_GRAIN", {})
    alone = make_sample(calibration, 13, mode="scan", dpi=150, strength=0.7)
    monkeypatch.setattr(pencil, "_GRAIN", {})
    make_sample(calibration, 14, mode="scan", dpi=155, strength=0.7)
    after = make_sample(calibration, 13, mode="scan", dpi=150, strength=0.7)
    assert np.array_equal(alone.pages[0].image, after.pages[0].image)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_writes_a_readable_file(calibration: Calibration, tmp_path: Path, fmt: str) -> None:
    sample = make_sample(calibration, 2, mode="clean", px_per_unit=0.75, pages=2)
    paths = write_sample(sample, tmp_path, fmt)
    expected = json.loads((tmp_path / "expected.json").read_text())
    assert [s["page"] for s in expected["sheets"]] == ([1, 2] if fmt == "pdf" else [1, 1])
    images = [p for p in paths if p.suffix != ".json"]
    if fmt == "pdf":
        data = images[0].read_bytes()
        assert data.startswith(b"%PDF") and data.count(b"/Type /Page\n") + data.count(b"/Type /Page\r") >= 2
        return
    if fmt == "heic":
        from pillow_heif import register_heif_opener

        register_heif_opener()
    for path, page in zip(images, sample.pages, strict=True):
        with Image.open(path) as im:
            assert im.size == page.image.shape[1::-1]
    assert [s["image"] for s in expected["sheets"]] == [p.name for p in images]


def test_unseen_styles_are_random_prints_on_the_same_geometry(calibration: Calibration) -> None:
    # Each "unseen-<n>" is its own print, the same on every call, drawn on the same sheet geometry.
    assert get_style("unseen-12") == random_style(12) != random_style(13)
    looks = {(s.ink_rgb, s.river_rgb, s.guide_rgb, round(s.ring_width, 3)) for s in map(random_style, range(12))}
    assert len(looks) == 12
    sheet = render_blank(calibration, "unseen-12", 1.5)
    value = _value(sheet.image)
    for name in _ring_stations(calibration):
        u, v = calibration.sheet.lattice_to_sheet(*map(int, name.split(",")))
        assert _ring_contrast(value, sheet.sheet_to_px(u, v), calibration.sheet.station_radius * 1.5) < 0.5
    sample = make_sample(calibration, 5, mode="clean", style="unseen-12", px_per_unit=0.75)
    assert sample.expected["style"] == "unseen-12"
    # "overlaid-<n>" is the same print with its river laid over the guides.
    over = get_style("overlaid-12")
    assert over.river_over_guides and not random_style(12).river_over_guides
    assert dataclasses.replace(over, name="unseen-12", river_over_guides=False) == random_style(12)
    assert not np.array_equal(render_blank(calibration, over, 1.5).image, sheet.image)


def test_bad_arguments_name_themselves(calibration: Calibration, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unseen-<n>"):
        make_sample(calibration, 1, style="glossy")
    with pytest.raises(ValueError, match="mode"):
        make_sample(calibration, 1, mode="fax")
    with pytest.raises(ValueError, match="violation"):
        make_sample(calibration, 1, violation="too_pretty")
    with pytest.raises(ValueError, match="format"):
        write_sample(make_sample(calibration, 1, mode="clean", px_per_unit=0.5), tmp_path, "bmp")


def test_cli_sample_writes_images_and_expected(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from nsvision.cli import app

    runner = CliRunner()
    result = runner.invoke(
        app,
        ["sample", "--seed", "3", "--mode", "blank", "--px-per-unit", "0.75", "--count", "2", "--out", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    for seed in (3, 4):
        exp = json.loads((tmp_path / f"seed-{seed}" / "expected.json").read_text())
        assert exp["total"] == 0 and exp["seed"] == seed
        assert str(tmp_path / f"seed-{seed}" / exp["image"]) in result.output
    bad = runner.invoke(app, ["sample", "--mode", "fax", "--out", str(tmp_path)])
    assert bad.exit_code == 4 and "--mode" in bad.output
    bad = runner.invoke(app, ["sample", "--style", "glossy", "--out", str(tmp_path)])
    assert bad.exit_code == 4 and "--style" in bad.output and "unseen-N" in bad.output and "overlaid-N" in bad.output
    bad = runner.invoke(app, ["sample", "--pencils", "crayons", "--out", str(tmp_path)])
    assert bad.exit_code == 4 and "--pencils" in bad.output and "discs" in bad.output
    bad = runner.invoke(app, ["sample", "--hand", "shaky", "--out", str(tmp_path)])
    assert bad.exit_code == 4 and "--hand" in bad.output and "sloppy" in bad.output
