"""The game board: stations on a lattice, the potential sections, districts and the Thames.

Everything here is in lattice units (``x`` column left to right, ``y`` row top to bottom).
Only the stations, districts and the Thames polyline are data; the potential sections,
the Thames crossings, the crossing pairs and each station's district are derived from it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

Point = tuple[int, int]
"""A lattice point ``(x, y)``."""

Colour = Literal["purple", "blue", "pink", "green"]
LINE_COLOURS: tuple[Colour, ...] = ("purple", "blue", "pink", "green")
SYMBOLS: tuple[str, ...] = ("square", "triangle", "pentagon", "circle")
CENTRAL = "central"
"""The symbol of the central station, which matches every card."""

_DIRECTIONS: tuple[Point, ...] = ((1, 0), (0, 1), (1, 1), (1, -1), (-1, 0), (0, -1), (-1, -1), (-1, 1))


def station_name(point: Point) -> str:
    """The public name of a lattice point: ``"x,y"``."""
    return f"{point[0]},{point[1]}"


def parse_station_name(name: str) -> Point:
    """Parse ``"x,y"`` into a lattice point; raises ``ValueError`` with the bad text."""
    parts = name.split(",")
    if len(parts) != 2:
        raise ValueError(f"station name {name!r} is not of the form 'x,y'")
    try:
        return int(parts[0].strip()), int(parts[1].strip())
    except ValueError:
        raise ValueError(f"station name {name!r} is not of the form 'x,y'") from None


def parse_section_name(name: str) -> Section:
    """Parse ``"x,y-x,y"`` into a section (its stations in either order); raises ``ValueError`` with the bad text."""
    parts = name.split("-")
    if len(parts) != 2:
        raise ValueError(f"section name {name!r} is not of the form 'x,y-x,y'")
    return Section.of(parse_station_name(parts[0]), parse_station_name(parts[1]))


@dataclass(frozen=True, order=True)
class Section:
    """A straight section between two stations, stored with ``a < b`` so that equal sections compare equal."""

    a: Point
    b: Point

    @staticmethod
    def of(p: Point, q: Point) -> Section:
        return Section(p, q) if p <= q else Section(q, p)

    @property
    def name(self) -> str:
        return f"{station_name(self.a)}-{station_name(self.b)}"

    @property
    def length(self) -> int:
        """Number of lattice steps (Chebyshev length)."""
        return max(abs(self.a[0] - self.b[0]), abs(self.a[1] - self.b[1]))

    def lattice_points_along(self) -> tuple[float, ...]:
        """How far from ``a`` (lattice units) each lattice point strictly between its stations lies;
        none holds a station (a section joins the nearest stations along its direction)."""
        full = math.hypot(self.b[0] - self.a[0], self.b[1] - self.a[1])
        return tuple(full * i / self.length for i in range(1, self.length))

    def other(self, p: Point) -> Point:
        return self.b if p == self.a else self.a

    def to_list(self) -> list[str]:
        return [station_name(self.a), station_name(self.b)]


@dataclass(frozen=True)
class Station:
    point: Point
    symbol: str
    """One of ``SYMBOLS`` or ``CENTRAL``."""
    tourist_site: bool = False
    departure: Colour | None = None
    """The line colour that starts here, if any."""

    @property
    def name(self) -> str:
        return station_name(self.point)


@dataclass(frozen=True)
class District:
    name: str
    box: tuple[int, int, int, int]
    """Inclusive lattice box ``(x_min, y_min, x_max, y_max)``."""

    def contains(self, p: Point) -> bool:
        x0, y0, x1, y1 = self.box
        return x0 <= p[0] <= x1 and y0 <= p[1] <= y1

    @property
    def area(self) -> int:
        x0, y0, x1, y1 = self.box
        return (x1 - x0 + 1) * (y1 - y0 + 1)


@dataclass(frozen=True)
class GameMap:
    """A map of the game: pure data plus facts derived from it (no image knowledge)."""

    name: str
    columns: int
    rows: int
    stations: tuple[Station, ...]
    districts: tuple[District, ...]
    """A station belongs to the smallest district box that contains it, so a corner box cut
    out of a main district wins over the main district."""
    thames: tuple[tuple[float, float], ...]
    """The river's centre line, a polyline in lattice units."""
    tourist_track: tuple[int, ...] = (0, 1, 2, 4, 6, 8, 11, 14, 17, 21, 25)
    interchange_points: dict[int, int] = field(default_factory=lambda: {2: 2, 3: 5, 4: 9})
    max_sections: int = 10
    max_sections_with_power: int = 11
    street_cards: tuple[str, ...] = ("square", "triangle", "pentagon", "circle", "joker", "switch")
    underground_cards: tuple[str, ...] = ("square", "triangle", "pentagon", "circle", "joker")

    @cached_property
    def by_point(self) -> dict[Point, Station]:
        return {s.point: s for s in self.stations}

    def station(self, p: Point) -> Station:
        return self.by_point[p]

    def departure(self, colour: Colour) -> Point:
        for s in self.stations:
            if s.departure == colour:
                return s.point
        raise KeyError(f"map {self.name!r} has no departure station for {colour}")

    @cached_property
    def tourist_sites(self) -> frozenset[Point]:
        return frozenset(s.point for s in self.stations if s.tourist_site)

    @cached_property
    def district_of(self) -> dict[Point, str]:
        out: dict[Point, str] = {}
        for s in self.stations:
            holders = [d for d in self.districts if d.contains(s.point)]
            if holders:
                out[s.point] = min(holders, key=lambda d: d.area).name
        return out

    @cached_property
    def district_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.districts)

    @cached_property
    def sections(self) -> tuple[Section, ...]:
        """Every potential section: from each station, the nearest station along each of 8 directions."""
        found: set[Section] = set()
        for s in self.stations:
            for dx, dy in _DIRECTIONS:
                x, y = s.point
                while True:
                    x, y = x + dx, y + dy
                    if not (0 <= x < self.columns and 0 <= y < self.rows):
                        break
                    if (x, y) in self.by_point:
                        found.add(Section.of(s.point, (x, y)))
                        break
        return tuple(sorted(found))

    @cached_property
    def section_set(self) -> frozenset[Section]:
        return frozenset(self.sections)

    @cached_property
    def thames_sections(self) -> frozenset[Section]:
        return frozenset(s for s in self.sections if _crosses_polyline(s, self.thames))

    @cached_property
    def crossing_pairs(self) -> frozenset[frozenset[Section]]:
        """Pairs of potential sections that cross each other away from a station."""
        out: set[frozenset[Section]] = set()
        secs = self.sections
        # Each section's bounding box: two whose boxes are apart share no point (and most are).
        boxes = [(min(s.a[0], s.b[0]), max(s.a[0], s.b[0]), min(s.a[1], s.b[1]), max(s.a[1], s.b[1])) for s in secs]
        for i, (s, (x0, x1, y0, y1)) in enumerate(zip(secs, boxes, strict=True)):
            for t, (u0, u1, v0, v1) in zip(secs[i + 1 :], boxes[i + 1 :], strict=True):
                if u0 <= x1 and x0 <= u1 and v0 <= y1 and y0 <= v1 and sections_cross(s, t):
                    out.add(frozenset((s, t)))
        return frozenset(out)

    @cached_property
    def crossing_partners(self) -> dict[Section, frozenset[Section]]:
        partners: dict[Section, set[Section]] = {s: set() for s in self.sections}
        for pair in self.crossing_pairs:
            s, t = tuple(pair)
            partners[s].add(t)
            partners[t].add(s)
        return {s: frozenset(v) for s, v in partners.items()}

    def stations_matching(self, symbol: str) -> frozenset[Point]:
        """Stations a card of ``symbol`` may reach (the central station matches every card)."""
        if symbol == "joker":
            return frozenset(self.by_point)
        return frozenset(s.point for s in self.stations if s.symbol in (symbol, CENTRAL))

    def section_path_points(self, section: Section) -> list[Point]:
        """Lattice points strictly between the two ends of a straight 8-direction section."""
        (x0, y0), (x1, y1) = section.a, section.b
        n = section.length
        dx, dy = (x1 - x0) // n, (y1 - y0) // n
        return [(x0 + dx * k, y0 + dy * k) for k in range(1, n)]


def is_straight(p: Point, q: Point) -> bool:
    """True when ``p``–``q`` lies along one of the 8 lattice directions."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    return (dx, dy) != (0, 0) and (dx == 0 or dy == 0 or abs(dx) == abs(dy))


def _orient(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> float:
    return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])


def _segments_properly_cross(
    p1: tuple[float, float], p2: tuple[float, float], q1: tuple[float, float], q2: tuple[float, float]
) -> bool:
    d1, d2 = _orient(q1, q2, p1), _orient(q1, q2, p2)
    d3, d4 = _orient(p1, p2, q1), _orient(p1, p2, q2)
    return d1 * d2 < 0 and d3 * d4 < 0


def sections_cross(s: Section, t: Section) -> bool:
    """True when two sections share a point that is not a common end (a crossing away from a station).

    Two collinear overlapping sections also count: they would be drawn over each other.
    """
    if s == t:
        return False
    if _segments_properly_cross(s.a, s.b, t.a, t.b):
        return True
    # Collinear overlap (cannot happen between potential sections, but can in hand-typed input).
    if _orient(s.a, s.b, t.a) == 0 and _orient(s.a, s.b, t.b) == 0:

        def proj(p: Point) -> int:
            return p[0] * (s.b[0] - s.a[0]) + p[1] * (s.b[1] - s.a[1])

        lo_s, hi_s = sorted((proj(s.a), proj(s.b)))
        lo_t, hi_t = sorted((proj(t.a), proj(t.b)))
        return min(hi_s, hi_t) > max(lo_s, lo_t)
    return False


def _crosses_polyline(s: Section, line: tuple[tuple[float, float], ...]) -> bool:
    """True when the section crosses the polyline an odd number of times.

    Each polyline piece is half-open (its end vertex belongs to the next piece), so a section
    through a vertex of the river is counted once, not twice or never.
    """
    (ax, ay), (bx, by) = s.a, s.b
    hits = 0
    for (px, py), (qx, qy) in itertools.pairwise(line):
        rx, ry = bx - ax, by - ay
        ux, uy = qx - px, qy - py
        denom = rx * uy - ry * ux
        if denom == 0:
            continue
        t = ((px - ax) * uy - (py - ay) * ux) / denom
        u = ((px - ax) * ry - (py - ay) * rx) / denom
        if 0 < t < 1 and 0 <= u < 1:
            hits += 1
    return hits % 2 == 1
