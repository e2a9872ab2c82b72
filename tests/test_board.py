"""The London map as derived from the calibration file, checked against RULES.md §1–4."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from nsvision.calibration import DEFAULT_PATH, Calibration, load_calibration, parse_calibration
from nsvision.errors import CalibrationError, ExitCode
from nsvision.game.board import CENTRAL, SYMBOLS, GameMap, Section, parse_station_name, sections_cross

THAMES_SECTIONS = """
(1,1)-(1,4); (0,2)-(2,4); (3,2)-(3,6); (0,3)-(1,4); (0,3)-(0,5); (2,3)-(1,4); (2,3)-(2,4);
(4,3)-(2,5); (5,3)-(7,5); (6,3)-(6,6); (6,3)-(9,6); (7,3)-(7,5); (7,3)-(4,6); (9,3)-(9,6);
(2,4)-(4,4); (4,4)-(6,6); (5,4)-(7,6); (5,4)-(5,7); (8,4)-(7,5); (8,4)-(8,7); (2,5)-(4,5);
(4,5)-(7,5); (4,5)-(3,6); (4,5)-(4,6)
"""
"""Copied from RULES.md §4."""


def _section(text: str) -> Section:
    a, b = text.strip().strip("()").split(")-(")
    return Section.of(parse_station_name(a), parse_station_name(b))


def test_stations_symbols_and_special_stations(game_map: GameMap) -> None:
    assert len(game_map.stations) == 53
    symbols = Counter(s.symbol for s in game_map.stations)
    assert symbols == {**{sym: 13 for sym in SYMBOLS}, CENTRAL: 1}
    assert game_map.tourist_sites == {(6, 1), (0, 3), (5, 3), (9, 6), (4, 9)}
    assert game_map.station((5, 3)).symbol == CENTRAL
    departures = {c: game_map.departure(c) for c in ("green", "pink", "purple", "blue")}
    assert departures == {"green": (3, 2), "pink": (7, 3), "purple": (2, 5), "blue": (5, 7)}


def test_potential_sections(game_map: GameMap) -> None:
    sections = game_map.sections
    assert len(sections) == 155
    kinds = Counter(
        "horizontal" if s.a[1] == s.b[1] else "vertical" if s.a[0] == s.b[0] else "diagonal" for s in sections
    )
    assert kinds == {"horizontal": 43, "vertical": 43, "diagonal": 69}
    longest = [s for s in sections if s.length == max(t.length for t in sections)]
    assert longest == [Section.of((1, 8), (6, 8))]
    assert longest[0].length == 5
    # A potential section never passes over a station.
    for s in sections:
        assert not any(p in game_map.by_point for p in game_map.section_path_points(s)), s.name


def test_thames_sections_are_exactly_the_rulebook_list(game_map: GameMap) -> None:
    expected = {_section(t) for t in THAMES_SECTIONS.split(";")}
    assert len(expected) == 24
    assert game_map.thames_sections == expected


def test_crossing_pairs(game_map: GameMap) -> None:
    assert len(game_map.crossing_pairs) == 116
    for pair in game_map.crossing_pairs:
        s, t = tuple(pair)
        assert sections_cross(s, t) and sections_cross(t, s)
        assert t in game_map.crossing_partners[s] and s in game_map.crossing_partners[t]
    # Sections meeting at a shared station do not cross.
    assert not sections_cross(Section.of((3, 2), (4, 3)), Section.of((4, 3), (5, 4)))
    assert sections_cross(Section.of((4, 3), (5, 4)), Section.of((5, 3), (4, 4)))


def test_districts(game_map: GameMap) -> None:
    counts = Counter(game_map.district_of.values())
    assert sorted(counts.values()) == sorted([1, 4, 6, 4, 1, 6, 9, 6, 1, 4, 6, 4, 1])
    assert len(counts) == 13
    assert all(game_map.district_of[p].endswith("CORNER") for p in ((0, 0), (9, 0), (0, 9), (9, 9)))
    central = {p for p, d in game_map.district_of.items() if d == game_map.district_of[(5, 3)]}
    assert central == {(4, 3), (5, 3), (6, 3), (4, 4), (5, 4), (4, 5), (3, 6), (4, 6), (6, 6)}


def test_sheet_geometry_round_trip(calibration: Calibration) -> None:
    sheet = calibration.sheet
    for x, y in ((0, 0), (9, 9), (3, 7)):
        assert sheet.sheet_to_lattice(*sheet.lattice_to_sheet(x, y)) == pytest.approx((x, y))
    assert len(sheet.tourist_track) == len(calibration.map.tourist_track)


def test_broken_calibration_lists_every_problem_with_its_path() -> None:
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    broken = copy.deepcopy(data)
    broken["version"] = 2
    broken["map"]["stations"][0]["x"] = "0"
    broken["map"]["stations"][1]["symbol"] = "hexagon"
    broken["map"]["stations"][2]["departure"] = "orange"
    broken["map"]["districts"][0] = 5
    del broken["sheet"]["lattice_pitch"]
    broken["sheet"]["score_boxes"][0] = "box"
    with pytest.raises(CalibrationError) as info:
        parse_calibration(broken, "broken.json")
    problems = info.value.problems
    for path in (
        "$.version",
        "$.map.stations[0].x",
        "$.map.stations[1].symbol",
        "$.map.stations[2].departure",
        "$.map.districts[0]",
        "$.sheet.lattice_pitch",
        "$.sheet.score_boxes[0]",
    ):
        assert any(p.startswith(path + ":") for p in problems), (path, problems)
    assert len(problems) == 7
    assert info.value.exit_code == ExitCode.BAD_CALIBRATION
    assert "broken.json" in info.value.message


def test_duplicate_station_and_missing_departure_are_reported() -> None:
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    stations = data["map"]["stations"]
    blue = next(s for s in stations if s["departure"] == "blue")
    blue["departure"] = None
    stations.append(dict(stations[0]))
    with pytest.raises(CalibrationError) as info:
        parse_calibration(data, "dup.json")
    text = "\n".join(info.value.problems)
    assert "listed twice" in text
    assert "departure station for blue, found 0" in text


def test_unreadable_calibration_files(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="cannot read"):
        load_calibration(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json", encoding="utf-8")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        load_calibration(bad)
