"""The construction rules: which drawn networks a finished sheet may show.

``check_network`` never raises on a ``Network``: any input, however broken, gives a tuple of
``Violation`` records in a fixed order (per line in ``LINE_COLOURS`` order: section geometry,
departure, connection, cycle, section count, branches, cards, doubled station; then the
sheet-wide checks: sections drawn twice, sections crossing).

The card check (``cards_exhausted``), exactly:

* One round deck is ``map.street_cards + map.underground_cards``: on London each of the four
  symbols twice, 2 Jokers and 1 Railroad Switch. A Switch yields no section itself.
* Root the line at its departure station. The line must be a tree containing the departure
  (otherwise ``missing_departure``/``cycle`` already say what is wrong, and the check is
  skipped); if the line is in several pieces only the piece holding the departure is checked.
  Each section "reaches" its end farther from the departure: that is the station the card
  revealed for that section had to match, because a line only ever grows by a new station.
* A reached station with the central symbol matches every card, so it needs no particular card.
* For each symbol, reached stations of that symbol beyond the number of that symbol's cards
  must each be covered by a Joker. Allowance = the deck's Jokers, +1 with the "joker" pencil
  power (there is always an unused card of some symbol to turn into a Joker while the line
  has at most ``map.max_sections`` sections), +1 with the "second_section" power (repeating a
  card adds one card of a symbol of the player's choice, which lowers the total overflow by one
  exactly as a Joker would).
* The line breaks the rule when the total overflow exceeds the allowance; the violation names
  every reached station of each overflowing symbol.
* The number of cards is not part of this check: ``too_many_sections`` covers it.

The check is a necessary condition for the drawing to come from one round: it does not model
that a card turned into a Switch by the "switch" pencil power yields no section.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from nsvision.game.board import (
    CENTRAL,
    LINE_COLOURS,
    Colour,
    GameMap,
    Point,
    Section,
    is_straight,
    sections_cross,
    station_name,
)
from nsvision.game.network import Network

VIOLATION_CODES: dict[str, str] = {
    "not_a_station": "a section ends at an empty lattice point, not at a station",
    "not_straight": "a section is not horizontal, vertical or 45° diagonal",
    "jumps_station": "a straight section passes over a station (it is not one of the potential sections)",
    "missing_departure": "a line with sections does not serve its departure station",
    "not_connected": "a line is in several pieces",
    "cycle": "a line returns to a station it already serves",
    "too_many_sections": "a line has more sections than one round's cards allow",
    "too_many_branches": "a line branches more often than the Railroad Switch allows",
    "cards_exhausted": "a line reaches more stations of a symbol than one round's cards and Jokers can match",
    "doubled_off_line": "the station circled with the double-station power is not on its line",
    "drawn_twice": "the same section is drawn twice (in the same or different colours)",
    "sections_cross": "two drawn sections cross away from a station",
}
"""Every violation code, with a one-line description (shown in the README and reports)."""

BRANCHES_ALLOWED = 1
"""Branch points a line may have: one Railroad Switch per round deck."""


@dataclass(frozen=True)
class Violation:
    """One broken construction rule."""

    code: str
    """A key of ``VIOLATION_CODES``."""
    colour: Colour | None
    """The line concerned; ``None`` when it is about two lines or the whole sheet."""
    stations: tuple[str, ...]
    """Station names ``"x,y"`` involved."""
    sections: tuple[str, ...]
    """Section names ``"x,y-x,y"`` involved."""
    message: str
    """Plain English, for people."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "colour": self.colour,
            "stations": list(self.stations),
            "sections": list(self.sections),
            "message": self.message,
        }


def check_network(network: Network, game_map: GameMap) -> tuple[Violation, ...]:
    """Every construction rule the network breaks, in a deterministic order (empty when legal)."""
    out: list[Violation] = []
    for colour in LINE_COLOURS:
        out.extend(_check_line(network, colour, game_map))
    out.extend(_check_drawn_twice(network))
    out.extend(_check_crossings(network))
    return tuple(out)


def _names(points: Iterable[Point]) -> tuple[str, ...]:
    return tuple(station_name(p) for p in sorted(set(points)))


def _section_names(sections: Iterable[Section]) -> tuple[str, ...]:
    return tuple(s.name for s in sorted(set(sections)))


def _unique(sections: Iterable[Section]) -> list[Section]:
    return list(dict.fromkeys(sections))


def _adjacency(sections: Iterable[Section]) -> dict[Point, list[Section]]:
    adj: dict[Point, list[Section]] = defaultdict(list)
    for s in sections:
        adj[s.a].append(s)
        adj[s.b].append(s)
    return adj


def _walk(start: Point, adj: dict[Point, list[Section]]) -> list[Point]:
    """Stations reachable from ``start`` (itself excluded), breadth-first."""
    reached: list[Point] = []
    seen = {start}
    todo = deque([start])
    while todo:
        p = todo.popleft()
        for s in adj.get(p, ()):
            q = s.other(p)
            if q not in seen:
                seen.add(q)
                reached.append(q)
                todo.append(q)
    return reached


def _components(adj: dict[Point, list[Section]]) -> list[set[Point]]:
    comps: list[set[Point]] = []
    placed: set[Point] = set()
    for p in sorted(adj):
        if p not in placed:
            comp = {p, *_walk(p, adj)}
            placed |= comp
            comps.append(comp)
    return comps


def _check_line(network: Network, colour: Colour, game_map: GameMap) -> list[Violation]:
    drawn = network.sections(colour)
    secs = _unique(drawn)
    out: list[Violation] = []
    for s in secs:
        out.extend(_check_geometry(s, colour, game_map))
    doubled = network.options.doubled_stations.get(colour)
    if not drawn:
        if doubled is not None:
            out.append(_doubled_off_line(colour, doubled))
        return out

    adj = _adjacency(secs)
    stations = set(adj)
    departure = game_map.departure(colour)
    label = f"{colour} line"

    if departure not in stations:
        out.append(
            Violation(
                "missing_departure",
                colour,
                (station_name(departure),),
                (),
                f"{label}: does not start at its departure station {station_name(departure)}",
            )
        )

    comps = _components(adj)
    main = next((c for c in comps if departure in c), None)
    if main is None:
        main = max(comps, key=len)
    if len(comps) > 1:
        stray = [s for s in secs if s.a not in main]
        out.append(
            Violation(
                "not_connected",
                colour,
                _names(p for s in stray for p in (s.a, s.b)),
                _section_names(stray),
                f"{label}: sections {', '.join(_section_names(stray))} are not connected to the rest of the line",
            )
        )

    on_cycle = [s for s in secs if _on_cycle(s, adj)]
    if on_cycle:
        out.append(
            Violation(
                "cycle",
                colour,
                _names(p for s in on_cycle for p in (s.a, s.b)),
                _section_names(on_cycle),
                f"{label}: sections {', '.join(_section_names(on_cycle))} form a loop "
                "(the line returns to a station it already serves)",
            )
        )

    power = network.options.powers.get(colour)
    limit = game_map.max_sections_with_power if power == "second_section" else game_map.max_sections
    if len(drawn) > limit:
        out.append(
            Violation(
                "too_many_sections",
                colour,
                (),
                (),
                f"{label}: {len(drawn)} sections, but one round allows at most {limit}",
            )
        )

    allowed = BRANCHES_ALLOWED + (1 if power == "switch" else 0)
    branch_points = {p: len(v) for p, v in adj.items() if len(v) > 2}
    branching = sum(d - 2 for d in branch_points.values())
    if branching > allowed:
        detail = ", ".join(f"{station_name(p)} ({d} sections)" for p, d in sorted(branch_points.items()))
        out.append(
            Violation(
                "too_many_branches",
                colour,
                _names(branch_points),
                (),
                f"{label}: branches {branching} times (at {detail}), but only {allowed} "
                f"{'branch is' if allowed == 1 else 'branches are'} allowed",
            )
        )

    if departure in stations and not on_cycle:
        card = _check_cards(colour, departure, adj, power, game_map)
        if card is not None:
            out.append(card)

    if doubled is not None and doubled not in stations:
        out.append(_doubled_off_line(colour, doubled))
    return out


def _doubled_off_line(colour: Colour, point: Point) -> Violation:
    return Violation(
        "doubled_off_line",
        colour,
        (station_name(point),),
        (),
        f"{colour} line: the circled (doubled) station {station_name(point)} is not on the line",
    )


def _check_geometry(s: Section, colour: Colour, game_map: GameMap) -> list[Violation]:
    out: list[Violation] = []
    empty = [p for p in (s.a, s.b) if p not in game_map.by_point]
    if empty:
        out.append(
            Violation(
                "not_a_station",
                colour,
                _names(empty),
                (s.name,),
                f"{colour} line: section {s.name} ends at {' and '.join(_names(empty))}, where there is no station",
            )
        )
    if not is_straight(s.a, s.b):
        out.append(
            Violation(
                "not_straight",
                colour,
                (),
                (s.name,),
                f"{colour} line: section {s.name} is not horizontal, vertical or diagonal",
            )
        )
    elif not empty and s not in game_map.section_set:
        passed = [p for p in game_map.section_path_points(s) if p in game_map.by_point]
        out.append(
            Violation(
                "jumps_station",
                colour,
                _names(passed),
                (s.name,),
                f"{colour} line: section {s.name} passes over station {', '.join(_names(passed))}",
            )
        )
    return out


def _on_cycle(s: Section, adj: dict[Point, list[Section]]) -> bool:
    """True when the ends of ``s`` stay connected without it (``s`` is not a bridge)."""
    seen = {s.a}
    todo = [s.a]
    while todo:
        p = todo.pop()
        for t in adj[p]:
            if t == s:
                continue
            q = t.other(p)
            if q == s.b:
                return True
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return False


def reached_stations(departure: Point, sections: Iterable[Section]) -> list[Point]:
    """The station each section of a tree line reaches (its end farther from the departure).

    Only the piece of the line that holds the departure is walked; the order is breadth-first.
    """
    return _walk(departure, _adjacency(_unique(sections)))


def _check_cards(
    colour: Colour, departure: Point, adj: dict[Point, list[Section]], power: str | None, game_map: GameMap
) -> Violation | None:
    deck = Counter((*game_map.street_cards, *game_map.underground_cards))
    allowance = deck["joker"] + (1 if power == "joker" else 0) + (1 if power == "second_section" else 0)
    by_symbol: dict[str, list[Point]] = defaultdict(list)
    for p in _walk(departure, adj):
        station = game_map.by_point.get(p)
        if station is not None and station.symbol != CENTRAL:
            by_symbol[station.symbol].append(p)
    overflow = {sym: len(pts) - deck[sym] for sym, pts in by_symbol.items() if len(pts) > deck[sym]}
    if sum(overflow.values()) <= allowance:
        return None
    points = [p for sym in sorted(overflow) for p in by_symbol[sym]]
    detail = "; ".join(
        f"{len(by_symbol[sym])} {sym} stations ({' '.join(_names(by_symbol[sym]))}) for {deck[sym]} {sym} cards"
        for sym in sorted(overflow)
    )
    return Violation(
        "cards_exhausted",
        colour,
        _names(points),
        (),
        f"{colour} line: reaches {detail}; the {sum(overflow.values())} extra stations exceed the "
        f"{allowance} Jokers of one round",
    )


def _colours_of(network: Network) -> dict[Section, list[Colour]]:
    """Each drawn section with the colour of every time it is drawn."""
    colours_of: dict[Section, list[Colour]] = defaultdict(list)
    for colour, s in network.all_sections():
        colours_of[s].append(colour)
    return colours_of


def _check_drawn_twice(network: Network) -> list[Violation]:
    colours_of = _colours_of(network)
    out: list[Violation] = []
    for s in sorted(colours_of):
        colours = colours_of[s]
        if len(colours) < 2:
            continue
        distinct = list(dict.fromkeys(colours))
        who = f"{distinct[0]} line" if len(distinct) == 1 else " and ".join(f"{c}" for c in distinct) + " lines"
        out.append(
            Violation(
                "drawn_twice",
                distinct[0] if len(distinct) == 1 else None,
                (station_name(s.a), station_name(s.b)),
                (s.name,),
                f"{who}: section {s.name} is drawn {len(colours)} times",
            )
        )
    return out


def _check_crossings(network: Network) -> list[Violation]:
    colours_of = {s: list(dict.fromkeys(cs)) for s, cs in _colours_of(network).items()}
    secs = sorted(colours_of)
    out: list[Violation] = []
    for i, s in enumerate(secs):
        for t in secs[i + 1 :]:
            if not sections_cross(s, t):
                continue
            cs, ct = colours_of[s], colours_of[t]
            if len(cs) == 1 and cs == ct:
                colour: Colour | None = cs[0]
                text = f"{cs[0]} line: sections {s.name} and {t.name} cross away from a station"
            else:
                colour = None
                text = f"{'/'.join(cs)} section {s.name} and {'/'.join(ct)} section {t.name} cross away from a station"
            out.append(Violation("sections_cross", colour, (), (s.name, t.name), text))
    return out
