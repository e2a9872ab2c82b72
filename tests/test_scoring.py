"""Scoring: the rulebook's worked examples on real legal networks, then each scoring rule."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from nsvision.game.board import GameMap
from nsvision.game.network import OBJECTIVES, Network, network_from_dict
from nsvision.game.rules import check_network
from nsvision.game.scoring import ScoreCard, rank_cards, score_network, solo_rating, tie_break_key

# 5 districts × 4 stations in the central district + 2 × 2 Thames crossings (3,2-3,6 and 5,4-5,7).
LINE_24 = ["4,6-5,7", "5,4-5,7", "5,3-5,4", "3,6-4,6", "3,2-3,6", "2,3-3,2", "2,0-2,3"]
# Six Thames crossings: green zigzags 3,2-3,6-4,5-4,6, pink 7,3-7,5-8,4-8,7.
THAMES_6 = {"green": ["3,2-3,6", "3,6-4,5", "4,5-4,6"], "pink": ["7,3-7,5", "7,5-8,4", "8,4-8,7"]}
# All nine central-district stations on one pink line.
CENTRAL_9 = {
    "pink": ["7,3-6,3", "6,3-5,3", "5,3-4,3", "4,3-4,4", "4,4-5,4", "5,4-4,5", "4,5-3,6", "3,6-4,6", "4,6-6,6"]
}
# A station in each of the 13 districts, corners included.
ALL_DISTRICTS = {
    "purple": ["0,7-2,5", "0,7-1,8", "0,9-1,8"],
    "blue": ["5,7-8,7", "8,7-9,7", "9,7-9,9"],
    "pink": ["7,3-9,1", "9,0-9,1"],
    "green": ["3,2-3,6", "1,0-3,2", "0,0-1,0"],
}


def _net(lines: dict[str, list[str]], **options: Any) -> Network:
    return network_from_dict({"lines": lines, **options})


def _legal_card(network: Network, game_map: GameMap) -> ScoreCard:
    assert check_network(network, game_map) == ()
    return score_network(network, game_map)


def test_rulebook_line_6x3_plus_2(rulebook_game: Network, game_map: GameMap) -> None:
    purple = [s.name for s in rulebook_game.sections("purple")]
    line = _legal_card(_net({"purple": purple}), game_map).line("purple")
    assert (line.districts, line.max_in_district, line.thames, line.score) == (6, 3, 1, 20)
    assert line.formula() == "6 × 3 + 2 × 1 = 20"
    assert line.max_district == "W"


def test_rulebook_line_5x4_plus_2x2(game_map: GameMap) -> None:
    line = _legal_card(_net({"blue": LINE_24}), game_map).line("blue")
    assert line.formula() == "5 × 4 + 2 × 2 = 24"
    assert line.max_district == "CENTRAL"


def test_rulebook_doubled_station(rulebook_game: Network, game_map: GameMap) -> None:
    purple = [s.name for s in rulebook_game.sections("purple")]
    doubled = _legal_card(_net({"purple": purple}, doubled_stations={"purple": "2,5"}), game_map).line("purple")
    assert doubled.formula() == "6 × 4 + 2 × 1 = 26"
    assert doubled.doubled_station == "2,5"
    # Circling a station outside the best district does not raise the maximum.
    elsewhere = score_network(_net({"purple": purple}, doubled_stations={"purple": "5,7"}), game_map).line("purple")
    assert elsewhere.score == 20 and elsewhere.doubled_station == "5,7"
    # A circle off the line counts for nothing (and the rules report it).
    off = score_network(_net({"purple": purple}, doubled_stations={"purple": "9,9"}), game_map).line("purple")
    assert off.score == 20 and off.doubled_station is None


def test_rulebook_game_119(rulebook_game: Network, game_map: GameMap) -> None:
    card = _legal_card(rulebook_game, game_map)
    assert [ls.score for ls in card.lines] == [20, 16, 29, 22]
    assert [ls.colour for ls in card.lines] == ["purple", "blue", "pink", "green"]
    assert (card.tourist_sites, card.tourist_circles, card.tourist_points) == (7, 7, 14)
    ic = card.interchanges
    assert (ic.two, ic.three, ic.four, ic.points) == (9, 0, 0, 18)
    assert len(ic.stations) == 9
    assert ("4,3", ("pink", "green")) in ic.stations
    assert card.objectives == () and card.solo_penalty == 0 and card.solo_rating is None
    assert card.total == 119
    assert card.line("pink").formula() == "5 × 5 + 2 × 2 = 29"


def test_score_card_json_is_stable_and_json_safe(rulebook_game: Network, game_map: GameMap) -> None:
    data = json.loads(json.dumps(score_network(rulebook_game, game_map).to_dict()))
    assert list(data) == [
        "lines",
        "lines_total",
        "tourist_sites",
        "tourist_circles",
        "tourist_points",
        "interchanges",
        "objectives",
        "solo_penalty",
        "total",
        "solo_rating",
    ]
    assert list(data["lines"]) == ["purple", "blue", "pink", "green"]
    assert data["lines"]["purple"]["formula"] == "6 × 3 + 2 × 1 = 20"
    assert data["lines_total"] == 87
    assert data["interchanges"]["stations"][0] == {"station": "0,3", "colours": ["purple", "green"]}
    assert data["total"] == 119


def test_empty_network_scores_zero(game_map: GameMap) -> None:
    card = score_network(Network.build(), game_map)
    assert card.total == 0
    assert all(ls.score == 0 and ls.max_district is None for ls in card.lines)
    assert card.line("blue").formula() == "0 × 0 = 0"


def test_tourist_track_is_capped(game_map: GameMap) -> None:
    # Each line serves three tourist sites: 12 in all, but only 10 circles can be crossed out.
    sites = ["0,3-0,5", "5,3-4,3", "9,6-9,7"]
    card = score_network(_net({c: sites for c in ("purple", "blue", "pink", "green")}), game_map)
    assert (card.tourist_sites, card.tourist_circles, card.tourist_points) == (12, 10, 25)
    # Stations on all four lines score as 4-line interchanges.
    assert card.interchanges.four == 6 and card.interchanges.points == 6 * 9


def test_three_line_interchange(game_map: GameMap) -> None:
    net = _net({"green": ["3,2-4,3"], "pink": ["7,3-6,3", "6,3-5,3", "5,3-4,3"], "purple": ["2,5-4,3"]})
    card = _legal_card(net, game_map)
    assert dict(card.interchanges.stations) == {"4,3": ("purple", "pink", "green")}
    assert (card.interchanges.three, card.interchanges.points) == (1, 5)


@pytest.mark.parametrize(
    ("lines", "met"),
    [
        (THAMES_6, {"thames_6"}),
        (CENTRAL_9, {"central_district"}),
        (ALL_DISTRICTS, {"all_districts"}),
        (None, {"all_tourist_sites", "interchanges_8"}),
    ],
)
def test_objectives(
    lines: dict[str, list[str]] | None, met: set[str], rulebook_game: Network, game_map: GameMap
) -> None:
    base = rulebook_game if lines is None else _net(lines)
    without = _legal_card(base, game_map)
    net = dataclasses.replace(base, options=dataclasses.replace(base.options, objectives=tuple(OBJECTIVES)))
    card = _legal_card(net, game_map)
    assert [o.key for o in card.objectives] == list(OBJECTIVES)
    assert {o.key for o in card.objectives if o.met} == met
    assert all(o.points == (10 if o.met else 0) for o in card.objectives)
    assert card.total == without.total + 10 * len(met)


def test_only_objectives_in_play_count(rulebook_game: Network, game_map: GameMap) -> None:
    net = dataclasses.replace(
        rulebook_game, options=dataclasses.replace(rulebook_game.options, objectives=("thames_6", "interchanges_8"))
    )
    card = score_network(net, game_map)
    assert [(o.key, o.met) for o in card.objectives] == [("thames_6", False), ("interchanges_8", True)]
    assert card.total == 129


def test_solo_penalty_and_rating(rulebook_game: Network, game_map: GameMap) -> None:
    plain = dataclasses.replace(rulebook_game, options=dataclasses.replace(rulebook_game.options, solo=True))
    card = score_network(plain, game_map)
    assert (card.solo_penalty, card.total, card.solo_rating) == (0, 119, "106–120")
    two_modules = dataclasses.replace(
        rulebook_game,
        options=network_from_dict(
            {"lines": {}, "objectives": ["interchanges_8"], "powers": {"blue": "joker"}, "solo": True}
        ).options,
    )
    card = score_network(two_modules, game_map)
    assert card.solo_penalty == -20
    assert card.total == 119 + 10 - 20
    assert card.solo_rating == "106–120"


@pytest.mark.parametrize(
    ("total", "band"),
    [(0, "≤ 90"), (90, "≤ 90"), (91, "91–105"), (105, "91–105"), (106, "106–120"), (135, "121–135")]
    + [(136, "136–150"), (150, "136–150"), (151, "> 150")],
)
def test_solo_bands(total: int, band: str) -> None:
    assert solo_rating(total) == band


def test_tie_break_and_shared_ranks(rulebook_game: Network, game_map: GameMap) -> None:
    card = score_network(rulebook_game, game_map)
    assert tie_break_key(card) == (119, 29)
    flat = dataclasses.replace(card, lines=tuple(dataclasses.replace(ls, score=25) for ls in card.lines))
    better = dataclasses.replace(card, total=120)
    assert tie_break_key(flat) == (119, 25)
    # Same total: the best single line decides; a lasting tie is shared.
    assert rank_cards([flat, card, better, card]) == [4, 2, 1, 2]
    assert rank_cards([card, card]) == [1, 1]
    assert rank_cards([]) == []
