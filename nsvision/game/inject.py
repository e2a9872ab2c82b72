"""Break a legal network on purpose: one rule violation, for illegal sample sheets and tests.

Each code has a generator of small, realistic edits (drawn from a seeded random order): a
section added at an end of a line, a line closed into a loop, a section of one line drawn
again in another colour, and so on. Edits stay potential sections wherever the code allows.
The first edit whose ``check_network`` result is exactly one violation of that code wins; if no
edit is that clean, the edit with the fewest other rules broken (then fewest violations) is used.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from types import MappingProxyType

from nsvision.game.board import _DIRECTIONS, CENTRAL, LINE_COLOURS, Colour, GameMap, Point, Section, sections_cross
from nsvision.game.network import GameOptions, Network
from nsvision.game.rules import VIOLATION_CODES, check_network, reached_stations

_BUDGET = 400
"""Edits tried before settling for the best one found: enough for every code on simulated games."""
_GROW_ATTEMPTS = 12
"""Random growth attempts per line for the codes that need several new sections."""

_Move = tuple[Point, Point, Section]


def inject_violation(network: Network, code: str, game_map: GameMap, seed: int = 0) -> Network:
    """A modified copy of ``network`` that breaks the rule ``code`` (a key of ``VIOLATION_CODES``).

    Raises ``ValueError`` for an unknown code, or when no edit of this network breaks the rule.
    """
    if code not in VIOLATION_CODES:
        raise ValueError(f"unknown violation code {code!r}; expected one of {', '.join(VIOLATION_CODES)}")
    rng = random.Random(seed)
    best: Network | None = None
    best_cost = (0, 0)
    for tried, candidate in enumerate(_GENERATORS[code](network, game_map, rng)):
        found = [v.code for v in check_network(candidate, game_map)]
        if code in found:
            # Cost: other rules broken first, then how many times this one is (e.g. two crossings).
            cost = (len(set(found)) - 1, len(found))
            if cost == (0, 1):
                return candidate
            if best is None or cost < best_cost:
                best, best_cost = candidate, cost
        if tried >= _BUDGET:
            break
    if best is None:
        raise ValueError(f"cannot make this network break {code!r}")
    return best


def _with_line(network: Network, colour: Colour, sections: list[Section]) -> Network:
    lines = {c: list(network.sections(c)) for c in LINE_COLOURS}
    lines[colour] = sections
    return Network.build(lines, network.options)


def _added(network: Network, colour: Colour, *sections: Section) -> Network:
    return _with_line(network, colour, [*network.sections(colour), *sections])


def _shuffled_colours(rng: random.Random, network: Network) -> list[Colour]:
    """Colours in random order, shorter lines first: they leave room for an edit that breaks one rule only."""
    colours = list(LINE_COLOURS)
    rng.shuffle(colours)
    return sorted(colours, key=lambda c: len(network.sections(c)))


def _degrees(network: Network, colour: Colour) -> Counter[Point]:
    return Counter(p for s in set(network.sections(colour)) for p in (s.a, s.b))


def _ends(network: Network, colour: Colour, game_map: GameMap) -> list[Point]:
    """Where the line may grow: its ends, or its departure station while it is empty."""
    degree = _degrees(network, colour)
    if not degree:
        return [game_map.departure(colour)]
    return sorted(p for p, d in degree.items() if d <= 1)


def _blocked(network: Network, game_map: GameMap) -> set[Section]:
    """Potential sections that can no longer be drawn: drawn already, or crossing a drawn one."""
    out: set[Section] = set()
    for _, s in network.all_sections():
        out.add(s)
        out |= game_map.crossing_partners.get(s, frozenset())
    return out


def _neighbours(game_map: GameMap, p: Point) -> list[tuple[Point, Section]]:
    return [(s.other(p), s) for s in game_map.sections if p in (s.a, s.b)]


def _free_moves(network: Network, colour: Colour, starts: list[Point], game_map: GameMap) -> list[_Move]:
    """Legal-looking new sections from ``starts`` to stations not yet on the line."""
    on_line = network.stations(colour) | {game_map.departure(colour)}
    blocked = _blocked(network, game_map)
    return [(p, q, s) for p in starts for q, s in _neighbours(game_map, p) if q not in on_line and s not in blocked]


def _crosses_drawn(network: Network, s: Section) -> bool:
    return any(sections_cross(s, t) for _, t in network.all_sections())


def _missing_departure(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    colours = _shuffled_colours(rng, network)
    for colour in colours:
        dep = game_map.departure(colour)
        rest = [s for s in network.sections(colour) if dep not in (s.a, s.b)]
        # Without its departure sections the line falls into pieces; keep one piece, the largest first.
        pieces: list[list[Section]] = []
        left = set(rest)
        while left:
            start = min(left).a
            stations = {start, *reached_stations(start, left)}
            pieces.append([s for s in rest if s.a in stations])
            left -= set(pieces[-1])
        for piece in sorted(pieces, key=len, reverse=True):
            yield _with_line(network, colour, piece)
    blocked = _blocked(network, game_map)
    for colour in colours:
        if network.sections(colour):
            continue
        free = [s for s in game_map.sections if s not in blocked and game_map.departure(colour) not in (s.a, s.b)]
        rng.shuffle(free)
        yield from (_with_line(network, colour, [s]) for s in free)


def _not_connected(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    blocked = _blocked(network, game_map)
    colours = _shuffled_colours(rng, network)
    for colour in colours:
        on_line = network.stations(colour) | {game_map.departure(colour)}
        free = [s for s in game_map.sections if s not in blocked and s.a not in on_line and s.b not in on_line]
        rng.shuffle(free)
        for s in free:
            if network.sections(colour):
                yield _added(network, colour, s)
            else:
                # An empty line needs a first piece at its departure as well as the stray one.
                for _, _, first in _free_moves(network, colour, [game_map.departure(colour)], game_map):
                    if first not in game_map.crossing_partners[s]:
                        yield _added(network, colour, first, s)


def _cycle(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    blocked = _blocked(network, game_map)
    colours = _shuffled_colours(rng, network)
    for colour in colours:
        on_line = network.stations(colour)
        chords = [s for s in game_map.sections if s not in blocked and s.a in on_line and s.b in on_line]
        rng.shuffle(chords)
        for s in chords:
            yield _added(network, colour, s)
    # No chord free: close a loop through one new station, or draw a triangle from the departure.
    for colour in colours:
        line_stations = network.stations(colour)
        pivots = sorted(line_stations or {game_map.departure(colour)})
        rng.shuffle(pivots)
        for p in pivots:
            for r, s in _neighbours(game_map, p):
                if s in blocked or r in line_stations:
                    continue
                for q, t in _neighbours(game_map, r):
                    if q != p and t not in blocked:
                        closing = Section.of(p, q)
                        if q in line_stations:
                            yield _added(network, colour, s, t)
                        elif closing in game_map.section_set and closing not in blocked:
                            yield _added(network, colour, s, t, closing)


def _sections_cross(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    drawn = {s for _, s in network.all_sections()}
    for colour in _shuffled_colours(rng, network):
        on_line = network.stations(colour) | {game_map.departure(colour)}
        moves = [
            s
            for p in _ends(network, colour, game_map)
            for q, s in _neighbours(game_map, p)
            if q not in on_line and s not in drawn and game_map.crossing_partners[s] & drawn
        ]
        rng.shuffle(moves)
        for s in moves:
            yield _added(network, colour, s)
    # Nothing drawn to cross yet: draw a crossing pair from two departures if the map allows.
    pairs = sorted(tuple(sorted(pair)) for pair in game_map.crossing_pairs)
    rng.shuffle(pairs)
    for s, t in pairs:
        for c in LINE_COLOURS:
            for d in LINE_COLOURS:
                if c != d and game_map.departure(c) in (s.a, s.b) and game_map.departure(d) in (t.a, t.b):
                    yield _added(_added(network, c, s), d, t)


def _drawn_twice(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    colours = _shuffled_colours(rng, network)
    for colour in colours:
        on_line = network.stations(colour) | {game_map.departure(colour)}
        ends = set(_ends(network, colour, game_map))
        others = [
            s
            for c, s in network.all_sections()
            if c != colour and ((s.a in ends and s.b not in on_line) or (s.b in ends and s.a not in on_line))
        ]
        rng.shuffle(others)
        for s in others:
            yield _added(network, colour, s)
    for colour in colours:
        own = list(network.sections(colour))
        rng.shuffle(own)
        for s in own:
            yield _added(network, colour, s)
    for colour in colours:
        for _, _, s in _free_moves(network, colour, _ends(network, colour, game_map), game_map):
            yield _added(network, colour, s, s)


def _on_map(game_map: GameMap, p: Point) -> bool:
    return 0 <= p[0] < game_map.columns and 0 <= p[1] < game_map.rows


def _off_guide_sections(
    network: Network, game_map: GameMap, rng: random.Random, targets: Callable[[Point], Iterator[Point]]
) -> Iterator[Network]:
    """Add one section from an end of a line to a target point off the guide lines, crossing nothing."""
    for colour in _shuffled_colours(rng, network):
        on_line = network.stations(colour)
        ends = _ends(network, colour, game_map)
        rng.shuffle(ends)
        for p in ends:
            for q in targets(p):
                s = Section.of(p, q)
                if q not in on_line and not _crosses_drawn(network, s):
                    yield _added(network, colour, s)


def _not_a_station(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    def empty_neighbours(p: Point) -> Iterator[Point]:
        for dx, dy in _DIRECTIONS:
            q = (p[0] + dx, p[1] + dy)
            if _on_map(game_map, q) and q not in game_map.by_point:
                yield q

    return _off_guide_sections(network, game_map, rng, empty_neighbours)


def _not_straight(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    def knight_moves(p: Point) -> Iterator[Point]:
        for dx, dy in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
            q = (p[0] + dx, p[1] + dy)
            if q in game_map.by_point:
                yield q

    return _off_guide_sections(network, game_map, rng, knight_moves)


def _jumps_station(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    def second_stations(p: Point) -> Iterator[Point]:
        for dx, dy in _DIRECTIONS:
            ray = (p[0] + dx, p[1] + dy)
            passed: list[Point] = []
            while _on_map(game_map, ray) and len(passed) < 2:
                if ray in game_map.by_point:
                    passed.append(ray)
                ray = (ray[0] + dx, ray[1] + dy)
            if len(passed) == 2:
                yield passed[1]

    return _off_guide_sections(network, game_map, rng, second_stations)


def _grow(
    network: Network,
    colour: Colour,
    game_map: GameMap,
    rng: random.Random,
    done: Callable[[Network, Colour], bool],
    starts: Callable[[Network, Colour], list[Point]],
    value: Callable[[Network, Colour, _Move], float],
) -> Network | None:
    """Add sections to one line (best ``value`` first, random among equals) until ``done``."""
    for _ in range(game_map.max_sections_with_power + 2):
        if done(network, colour):
            return network
        moves = _free_moves(network, colour, starts(network, colour), game_map)
        if not moves:
            return None
        _, _, s = max(moves, key=lambda m: value(network, colour, m) + rng.random() * 0.5)
        network = _added(network, colour, s)
    return network if done(network, colour) else None


def _ends_of(game_map: GameMap) -> Callable[[Network, Colour], list[Point]]:
    return lambda net, colour: _ends(net, colour, game_map)


def _breaks(code: str, game_map: GameMap) -> Callable[[Network, Colour], bool]:
    """Whether a grown network breaks ``code`` yet (the input was legal, so only the grown line can)."""
    return lambda net, colour: any(v.code == code for v in check_network(net, game_map))


def _too_many_sections(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    done = _breaks("too_many_sections", game_map)

    def prefer_central(net: Network, colour: Colour, move: _Move) -> float:
        # One more station than there are cards fits the deck only through the central station.
        return 1.0 if game_map.station(move[1]).symbol == CENTRAL else 0.0

    for _ in range(_GROW_ATTEMPTS):
        for colour in _shuffled_colours(rng, network):
            grown = _grow(network, colour, game_map, rng, done, _ends_of(game_map), prefer_central)
            if grown is not None:
                yield grown


def _too_many_branches(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    done = _breaks("too_many_branches", game_map)

    def starts(net: Network, colour: Colour) -> list[Point]:
        inner = sorted(p for p, d in _degrees(net, colour).items() if d >= 2)
        return inner or _ends(net, colour, game_map)

    def no_preference(net: Network, colour: Colour, move: _Move) -> float:
        return 0.0

    for _ in range(_GROW_ATTEMPTS):
        for colour in _shuffled_colours(rng, network):
            grown = _grow(network, colour, game_map, rng, done, starts, no_preference)
            if grown is not None:
                yield grown


def _cards_exhausted(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    done = _breaks("cards_exhausted", game_map)

    def pile_on(net: Network, colour: Colour, move: _Move) -> float:
        # Prefer the symbol the line already reaches most: the overflow grows fastest on one symbol.
        symbol = game_map.station(move[1]).symbol
        if symbol == CENTRAL:
            return -1.0
        reached = reached_stations(game_map.departure(colour), net.sections(colour))
        return float(sum(1 for p in reached if p in game_map.by_point and game_map.station(p).symbol == symbol))

    for _ in range(_GROW_ATTEMPTS):
        for colour in _shuffled_colours(rng, network):
            for start in (network, _with_line(network, colour, [])):
                grown = _grow(start, colour, game_map, rng, done, _ends_of(game_map), pile_on)
                if grown is not None:
                    yield grown


def _doubled_off_line(network: Network, game_map: GameMap, rng: random.Random) -> Iterator[Network]:
    colours = _shuffled_colours(rng, network)
    colours.sort(key=lambda c: c in network.options.powers)
    for colour in colours:
        off = sorted(p for p in game_map.by_point if p not in network.stations(colour))
        rng.shuffle(off)
        for p in off[:5]:
            options = network.options
            powers = {**options.powers, colour: "double_station"}
            doubled = {**options.doubled_stations, colour: p}
            new_options = GameOptions(
                options.objectives, MappingProxyType(powers), MappingProxyType(doubled), options.solo
            )
            yield Network.build({c: network.sections(c) for c in LINE_COLOURS}, new_options)


_GENERATORS: dict[str, Callable[[Network, GameMap, random.Random], Iterator[Network]]] = {
    "not_a_station": _not_a_station,
    "not_straight": _not_straight,
    "jumps_station": _jumps_station,
    "missing_departure": _missing_departure,
    "not_connected": _not_connected,
    "cycle": _cycle,
    "too_many_sections": _too_many_sections,
    "too_many_branches": _too_many_branches,
    "cards_exhausted": _cards_exhausted,
    "doubled_off_line": _doubled_off_line,
    "drawn_twice": _drawn_twice,
    "sections_cross": _sections_cross,
}
