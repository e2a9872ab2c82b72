"""The construction rules: each violation code on a tiny hand-drawn network, and legal networks pass."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nsvision.game.board import LINE_COLOURS, GameMap, Section
from nsvision.game.network import GameOptions, Network, network_from_dict
from nsvision.game.rules import VIOLATION_CODES, Violation, check_network, reached_stations

# Green reaches squares 6,2 3,1 2,0 8,1 and pentagons 6,1 1,1 0,0: 2 + 1 over the cards, 2 Jokers.
FIVE_OVER = ["3,2-6,2", "3,1-3,2", "2,0-3,1", "6,1-6,2", "6,1-8,1", "1,1-2,0", "0,0-1,1"]
# Eleven sections through the central station 5,3, so the cards would allow them.
ELEVEN = ["3,2-6,2", "5,3-6,2", "3,2-4,3", "4,4-5,3", "1,1-4,4", "0,2-1,1"]
ELEVEN += ["0,2-0,3", "0,3-2,3", "1,4-2,3", "1,4-1,8", "1,8-6,8"]
STAR = ["3,2-6,2", "3,2-5,0", "3,2-4,3", "3,1-3,2"]

CASES: list[tuple[str, dict[str, Any]]] = [
    ("not_a_station", {"lines": {"green": ["3,2-4,2"]}}),
    ("not_straight", {"lines": {"green": ["3,2-4,4"]}}),
    ("jumps_station", {"lines": {"green": ["3,2-3,7"]}}),
    ("missing_departure", {"lines": {"green": ["4,3-5,3"]}}),
    ("not_connected", {"lines": {"green": ["3,2-4,3", "5,4-6,3"]}}),
    ("cycle", {"lines": {"green": ["3,2-4,3", "4,3-2,3", "2,3-3,2"]}}),
    ("too_many_sections", {"lines": {"green": ELEVEN}}),
    ("too_many_branches", {"lines": {"green": STAR}}),
    ("cards_exhausted", {"lines": {"green": FIVE_OVER}}),
    ("doubled_off_line", {"lines": {"green": ["3,2-4,3"]}, "doubled_stations": {"green": "5,3"}}),
    ("drawn_twice", {"lines": {"green": ["3,2-4,3"], "pink": ["7,3-6,3", "6,3-5,3", "5,3-4,3", "4,3-3,2"]}}),
    ("drawn_twice", {"lines": {"green": ["3,2-4,3", "4,3-3,2"]}}),
    ("sections_cross", {"lines": {"green": ["3,2-4,3", "4,3-5,4", "4,3-5,3", "5,3-4,4"]}}),
    ("sections_cross", {"lines": {"green": ["3,2-4,3", "4,3-5,4"], "pink": ["7,3-6,3", "6,3-5,3", "5,3-4,4"]}}),
]

LEGAL: list[dict[str, Any]] = [
    {"lines": {}},
    # The same drawings made legal by a pencil power, or with the offending piece taken away.
    {"lines": {"green": ELEVEN}, "powers": {"green": "second_section"}},
    {"lines": {"green": STAR}, "powers": {"green": "switch"}},
    {"lines": {"green": FIVE_OVER}, "powers": {"green": "joker"}},
    {"lines": {"green": FIVE_OVER[:-1]}},
    {"lines": {"green": ["3,2-4,3"]}, "doubled_stations": {"green": "4,3"}},
    {"lines": {"green": ["3,2-4,3", "4,3-5,4", "4,3-5,3"]}},
]


def _codes(doc: dict[str, Any], game_map: GameMap) -> list[str]:
    return [v.code for v in check_network(network_from_dict(doc), game_map)]


def test_every_code_has_a_case() -> None:
    assert {code for code, _ in CASES} == set(VIOLATION_CODES)


@pytest.mark.parametrize(("code", "doc"), CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
def test_each_rule_is_reported_alone(code: str, doc: dict[str, Any], game_map: GameMap) -> None:
    assert _codes(doc, game_map) == [code]


def test_rulebook_game_is_legal(rulebook_game: Network, game_map: GameMap) -> None:
    assert check_network(rulebook_game, game_map) == ()


@pytest.mark.parametrize("doc", LEGAL)
def test_legal_networks_pass(doc: dict[str, Any], game_map: GameMap) -> None:
    assert _codes(doc, game_map) == []


def test_violation_details(game_map: GameMap) -> None:
    (crossing,) = check_network(network_from_dict(CASES[-2][1]), game_map)
    assert crossing == Violation(
        "sections_cross",
        "green",
        (),
        ("4,3-5,4", "4,4-5,3"),
        "green line: sections 4,3-5,4 and 4,4-5,3 cross away from a station",
    )
    (two_lines,) = check_network(network_from_dict(CASES[-1][1]), game_map)
    assert two_lines.colour is None
    assert "green" in two_lines.message and "pink" in two_lines.message
    (cards,) = check_network(network_from_dict({"lines": {"green": FIVE_OVER}}), game_map)
    assert cards.stations == ("0,0", "1,1", "2,0", "3,1", "6,1", "6,2", "8,1")
    (twice,) = check_network(network_from_dict(CASES[10][1]), game_map)
    assert twice.colour is None and twice.sections == ("3,2-4,3",)
    (jump,) = check_network(network_from_dict({"lines": {"green": ["3,2-3,7"]}}), game_map)
    assert jump.stations == ("3,6",)
    assert jump.to_dict() == {
        "code": "jumps_station",
        "colour": "green",
        "stations": ["3,6"],
        "sections": ["3,2-3,7"],
        "message": jump.message,
    }


def test_central_station_needs_no_particular_card(game_map: GameMap) -> None:
    # Pink reaches circle 6,3, the central 5,3, triangle 4,3, then pentagon 4,4 and square 5,4: legal.
    doc = {"lines": {"pink": ["7,3-6,3", "6,3-5,3", "5,3-4,3", "4,3-4,4", "4,4-5,4"]}}
    assert _codes(doc, game_map) == []
    net = network_from_dict(doc)
    assert reached_stations((7, 3), net.sections("pink")) == [(6, 3), (5, 3), (4, 3), (4, 4), (5, 4)]


def test_several_problems_in_a_fixed_order(game_map: GameMap) -> None:
    doc = {
        "lines": {
            "purple": ["0,0-2,0"],
            "blue": ["5,7-5,4", "5,4-4,6", "4,6-3,6"],
            "pink": ["3,2-4,3"],
            "green": ["3,2-4,3", "1,0-5,5"],
        }
    }
    found = [(v.code, v.colour) for v in check_network(network_from_dict(doc), game_map)]
    assert found == [
        ("jumps_station", "purple"),
        ("missing_departure", "purple"),
        ("not_straight", "blue"),
        ("missing_departure", "pink"),
        ("not_a_station", "green"),
        ("not_straight", "green"),
        ("not_connected", "green"),
        ("drawn_twice", None),
        ("sections_cross", None),
    ]


_POINTS = st.tuples(st.integers(-2, 11), st.integers(-2, 11))
_SECTIONS = st.lists(
    st.tuples(_POINTS, _POINTS).filter(lambda pq: pq[0] != pq[1]).map(lambda pq: Section.of(*pq)), max_size=14
)


@settings(max_examples=60, deadline=None)
@given(lines=st.fixed_dictionaries({c: _SECTIONS for c in LINE_COLOURS}), power=st.sampled_from([None, "switch"]))
def test_never_crashes_on_any_network(lines: dict[str, list[Section]], power: str | None, game_map: GameMap) -> None:
    options = GameOptions(powers={"green": power} if power else {}, doubled_stations={"pink": (0, 0)})
    net = Network.build(lines, options)  # type: ignore[arg-type]
    found = check_network(net, game_map)
    assert found == check_network(net, game_map)
    assert all(v.code in VIOLATION_CODES and v.message for v in found)
