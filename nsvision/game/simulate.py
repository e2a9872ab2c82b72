"""Play random legal games, to make ground-truth networks for tests and rendered samples.

One game is four rounds, one per colour in a random order. Each round shuffles one deck
(``map.street_cards + map.underground_cards``) and reveals cards until the last Underground
card has been played. For each card the player draws one section, or passes:

* the section leaves an end of the line (the departure station for the first one), or any
  station of the line when the card follows a Railroad Switch revealed third or later (a
  Switch revealed first or second is ignored);
* it is a potential section, not drawn before, crossing no drawn section of any colour, and
  goes to a station not yet on the line that shows the card's symbol (a Joker matches every
  station, the central station matches every card).

The player is a simple policy: with probability ``skill`` the move with the best heuristic
value (new districts, Thames crossings, tourist sites, interchanges, plus a little noise),
else a uniformly random legal move. The game uses no advanced module.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from nsvision.game.board import CENTRAL, LINE_COLOURS, Colour, GameMap, Point, Section
from nsvision.game.network import Network

_W_NEW_DISTRICT = 3.0
_W_DENSER_DISTRICT = 1.5
_W_THAMES = 2.0
_W_TOURIST = 2.0
_W_INTERCHANGE = 2.0
_NOISE = 1.0
"""Heuristic weights: a new district outweighs one more station in the best district because it
multiplies the whole line; the noise keeps the skilled player from drawing the same game twice."""


@dataclass(frozen=True)
class SimulatedGame:
    """A legal finished game and how it came about."""

    network: Network
    round_order: tuple[Colour, ...]
    """The colours in the order their rounds were played."""
    cards: Mapping[Colour, tuple[str, ...]]
    """Cards revealed in each colour's round, in order (symbols, ``"joker"``, ``"switch"``)."""
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "round_order": list(self.round_order),
            "cards": {c: list(self.cards[c]) for c in self.round_order},
            "network": self.network.to_dict(),
        }


@dataclass(frozen=True)
class _Tables:
    """Per-map lookups, built once: the simulator's inner loop runs thousands of times a second."""

    neighbours: Mapping[Point, tuple[tuple[Point, Section], ...]]
    symbol: Mapping[Point, str]
    district: Mapping[Point, str]
    tourist: frozenset[Point]
    thames: frozenset[Section]
    partners: Mapping[Section, frozenset[Section]]
    deck: tuple[tuple[str, bool], ...]
    """Each card with ``True`` when it is an Underground card."""
    underground: int


_TABLES: dict[int, tuple[GameMap, _Tables]] = {}


def _tables(game_map: GameMap) -> _Tables:
    cached = _TABLES.get(id(game_map))
    if cached is not None and cached[0] is game_map:
        return cached[1]
    neighbours: dict[Point, list[tuple[Point, Section]]] = {p: [] for p in game_map.by_point}
    for s in game_map.sections:
        neighbours[s.a].append((s.b, s))
        neighbours[s.b].append((s.a, s))
    tables = _Tables(
        neighbours={p: tuple(v) for p, v in neighbours.items()},
        symbol={s.point: s.symbol for s in game_map.stations},
        district=dict(game_map.district_of),
        tourist=game_map.tourist_sites,
        thames=game_map.thames_sections,
        partners=game_map.crossing_partners,
        deck=tuple((c, False) for c in game_map.street_cards) + tuple((c, True) for c in game_map.underground_cards),
        underground=len(game_map.underground_cards),
    )
    _TABLES[id(game_map)] = (game_map, tables)
    return tables


def simulate_game(game_map: GameMap, seed: int, *, skill: float = 0.7, pass_probability: float = 0.05) -> SimulatedGame:
    """Play one legal game; the same ``seed`` always gives the same game."""
    if not 0.0 <= skill <= 1.0 or not 0.0 <= pass_probability <= 1.0:
        raise ValueError("skill and pass_probability are probabilities between 0 and 1")
    t = _tables(game_map)
    rng = random.Random(seed)
    order = list(LINE_COLOURS)
    rng.shuffle(order)
    blocked: set[Section] = set()
    served_by: dict[Point, int] = {}
    lines: dict[Colour, list[Section]] = {}
    cards: dict[Colour, tuple[str, ...]] = {}
    for colour in order:
        lines[colour], cards[colour] = _play_round(
            game_map.departure(colour), t, rng, blocked, served_by, skill, pass_probability
        )
        for p in {p for s in lines[colour] for p in (s.a, s.b)}:
            served_by[p] = served_by.get(p, 0) + 1
    return SimulatedGame(
        network=Network.build(lines),
        round_order=tuple(order),
        cards=MappingProxyType(cards),
        seed=seed,
    )


def _play_round(
    departure: Point,
    t: _Tables,
    rng: random.Random,
    blocked: set[Section],
    served_by: dict[Point, int],
    skill: float,
    pass_probability: float,
) -> tuple[list[Section], tuple[str, ...]]:
    """One round of one line; adds what it draws to ``blocked``."""
    deck = list(t.deck)
    rng.shuffle(deck)
    degree: dict[Point, int] = {departure: 0}
    per_district: dict[str, int] = {t.district[departure]: 1}
    drawn: list[Section] = []
    revealed: list[str] = []
    underground_seen = 0
    switched = False
    for card, is_underground in deck:
        revealed.append(card)
        underground_seen += is_underground
        if card == "switch":
            # A Switch revealed first or second has no effect.
            switched = len(revealed) > 2
            continue
        starts = list(degree) if switched else [p for p, d in degree.items() if d <= 1]
        switched = False
        moves = [
            (p, q, s)
            for p in starts
            for q, s in t.neighbours[p]
            if q not in degree and s not in blocked and (card == "joker" or t.symbol[q] in (card, CENTRAL))
        ]
        if moves and rng.random() >= pass_probability:
            if rng.random() < skill:
                best = max(moves, key=lambda m: _value(m[1], m[2], t, per_district, served_by) + _NOISE * rng.random())
            else:
                best = rng.choice(moves)
            p, q, s = best
            drawn.append(s)
            degree[p] += 1
            degree[q] = 1
            per_district[t.district[q]] = per_district.get(t.district[q], 0) + 1
            blocked.add(s)
            blocked.update(t.partners[s])
        if underground_seen == t.underground:
            break
    return drawn, tuple(revealed)


def _value(q: Point, s: Section, t: _Tables, per_district: dict[str, int], served_by: dict[Point, int]) -> float:
    d = t.district[q]
    here = per_district.get(d, 0)
    value = 0.0
    if here == 0:
        value += _W_NEW_DISTRICT
    elif here + 1 > max(per_district.values()):
        value += _W_DENSER_DISTRICT
    if s in t.thames:
        value += _W_THAMES
    if q in t.tourist:
        value += _W_TOURIST
    return value + _W_INTERCHANGE * served_by.get(q, 0)
