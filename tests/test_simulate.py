"""Simulated games: always legal, varied enough to exercise every scoring rule, and breakable on purpose."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nsvision.game.board import LINE_COLOURS, GameMap, station_name
from nsvision.game.inject import inject_violation
from nsvision.game.network import Network, network_from_dict
from nsvision.game.rules import VIOLATION_CODES, check_network
from nsvision.game.scoring import score_network
from nsvision.game.simulate import simulate_game

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=50, deadline=None)
@given(seed=SEEDS, skill=st.sampled_from([0.0, 0.7, 1.0]))
def test_simulated_games_are_legal(seed: int, skill: float, game_map: GameMap) -> None:
    game = simulate_game(game_map, seed, skill=skill)
    assert check_network(game.network, game_map) == ()
    assert sorted(game.round_order) == sorted(LINE_COLOURS)


@settings(max_examples=50, deadline=None)
@given(seed=SEEDS)
def test_rounds_follow_the_deck(seed: int, game_map: GameMap) -> None:
    deck = Counter((*game_map.street_cards, *game_map.underground_cards))
    underground = len(game_map.underground_cards)
    game = simulate_game(game_map, seed)
    for colour in LINE_COLOURS:
        cards = game.cards[colour]
        assert not Counter(cards) - deck
        # Each card yields at most one section; a Switch yields none.
        assert len(game.network.sections(colour)) <= sum(1 for c in cards if c != "switch")
        # The round ends on its last Underground card, so it never ends on a Street-only card.
        assert len(cards) >= underground
        assert cards[-1] in game_map.underground_cards


def test_same_seed_same_game(game_map: GameMap) -> None:
    a, b = simulate_game(game_map, 1234), simulate_game(game_map, 1234)
    assert a == b
    assert a.to_dict() == b.to_dict()
    assert simulate_game(game_map, 1235).network != a.network


@settings(max_examples=50, deadline=None)
@given(seed=SEEDS)
def test_json_round_trip_keeps_the_score(seed: int, game_map: GameMap) -> None:
    network = simulate_game(game_map, seed).network
    again = network_from_dict(network.to_dict())
    assert again == network
    assert score_network(again, game_map) == score_network(network, game_map)


@settings(max_examples=50, deadline=None)
@given(seed=SEEDS)
def test_line_score_is_districts_times_max_plus_thames(seed: int, game_map: GameMap) -> None:
    network = simulate_game(game_map, seed).network
    card = score_network(network, game_map)
    for line in card.lines:
        stations = network.stations(line.colour)
        per_district = Counter(game_map.district_of[p] for p in stations)
        thames = sum(1 for s in network.sections(line.colour) if s in game_map.thames_sections)
        assert line.districts == len(per_district)
        assert line.max_in_district == max(per_district.values(), default=0)
        assert line.thames == thames
        assert line.score == line.districts * line.max_in_district + 2 * line.thames
        assert set(line.tourist_sites) == {station_name(p) for p in stations if p in game_map.tourist_sites}
    assert card.total == sum(ls.score for ls in card.lines) + card.tourist_points + card.interchanges.points


@settings(max_examples=50, deadline=None)
@given(seed=SEEDS, code=st.sampled_from(sorted(VIOLATION_CODES)))
def test_injected_violation_is_found(seed: int, code: str, game_map: GameMap) -> None:
    network = simulate_game(game_map, seed).network
    broken = inject_violation(network, code, game_map, seed=seed)
    assert code in {v.code for v in check_network(broken, game_map)}
    assert check_network(network, game_map) == ()  # the input is left as it was


def test_injection_is_mostly_clean_and_deterministic(game_map: GameMap) -> None:
    exact: Counter[str] = Counter()
    for seed in range(10):
        network = simulate_game(game_map, seed).network
        for code in VIOLATION_CODES:
            broken = inject_violation(network, code, game_map, seed=seed)
            exact[code] += [v.code for v in check_network(broken, game_map)] == [code]
    assert inject_violation(network, "cycle", game_map, seed=3) == inject_violation(network, "cycle", game_map, seed=3)
    assert all(n >= 8 for n in exact.values()), exact


def test_injection_on_an_empty_sheet(game_map: GameMap) -> None:
    for code in VIOLATION_CODES:
        broken = inject_violation(Network.build(), code, game_map)
        assert code in {v.code for v in check_network(broken, game_map)}, code


def test_injection_of_specific_realistic_edits(game_map: GameMap) -> None:
    network = simulate_game(game_map, 7).network
    drawn = {s for _, s in network.all_sections()}
    twice = inject_violation(network, "drawn_twice", game_map)
    # The section drawn again is another line's section, so the sheet stays within potential sections.
    assert {s for _, s in twice.all_sections()} == drawn
    crossing = inject_violation(network, "sections_cross", game_map)
    (added,) = {s for _, s in crossing.all_sections()} - drawn
    assert added in game_map.section_set
    assert game_map.crossing_partners[added] & drawn


def test_unknown_code_is_refused(game_map: GameMap) -> None:
    with pytest.raises(ValueError, match="unknown violation code"):
        inject_violation(Network.build(), "too_pretty", game_map)


def test_games_cover_every_scoring_situation(game_map: GameMap) -> None:
    seen: Counter[str] = Counter()
    sites: Counter[str] = Counter()
    for seed in range(300):
        network = simulate_game(game_map, seed).network
        card = score_network(network, game_map)
        seen["3-line interchange"] += card.interchanges.three > 0
        seen["4-line interchange"] += card.interchanges.four > 0
        seen["thames"] += any(ls.thames for ls in card.lines)
        seen["branch"] += any(
            d > 2 for c in LINE_COLOURS for d in Counter(p for s in network.sections(c) for p in (s.a, s.b)).values()
        )
        sites.update(site for ls in card.lines for site in ls.tourist_sites)
    assert seen["3-line interchange"] >= 30
    assert seen["4-line interchange"] >= 3
    assert seen["thames"] >= 250
    assert seen["branch"] >= 30
    assert set(sites) == {station_name(p) for p in game_map.tourist_sites}


def test_simulation_speed(game_map: GameMap) -> None:
    simulate_game(game_map, 0)  # builds the per-map tables
    start = time.process_time()
    for seed in range(200):
        simulate_game(game_map, seed)
    assert time.process_time() - start < 1.0, "fewer than 200 games per second"
