"""Scoring a drawn network (RULES.md §7), best effort on illegal networks too.

Every number of the map (tourist track, interchange points, districts, tourist sites, the
central district) comes from the ``GameMap``; only the rules of the game itself (objective
thresholds, +10 per objective, the solo penalty and rating bands) are constants here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nsvision.game.board import CENTRAL, LINE_COLOURS, Colour, GameMap, Point, station_name
from nsvision.game.network import OBJECTIVES, Network

OBJECTIVE_POINTS = 10
"""Points for each shared objective met."""
OBJECTIVE_MIN_INTERCHANGES = 8
"""The ``interchanges_8`` objective: stations served by at least two lines."""
OBJECTIVE_MIN_THAMES = 6
"""The ``thames_6`` objective: Thames crossings summed over all lines."""
SOLO_PENALTY_PER_MODULE = 10
"""Points lost in a solo game for each advanced module used."""
SOLO_BANDS: tuple[tuple[int, str], ...] = (
    (90, "≤ 90"),
    (105, "91–105"),
    (120, "106–120"),
    (135, "121–135"),
    (150, "136–150"),
)
"""Solo rating bands: (highest total of the band, its label); above the last is "> 150"."""
SOLO_TOP_BAND = "> 150"


@dataclass(frozen=True)
class LineScore:
    """The score of one line: districts × most stations in one district + 2 × Thames crossings."""

    colour: Colour
    stations: int
    """Distinct stations on the line."""
    sections: int
    """Distinct sections drawn."""
    districts: int
    """Districts holding at least one of its stations."""
    max_in_district: int
    """Most of its stations in one district (the doubled station counts twice)."""
    max_district: str | None
    """The district holding ``max_in_district`` stations (first in map order on a tie)."""
    thames: int
    """Sections crossing the Thames."""
    score: int
    tourist_sites: tuple[str, ...]
    """Tourist-site stations the line serves."""
    doubled_station: str | None
    """The circled station that counted twice, if the line has one on it."""

    def formula(self) -> str:
        """The sum as a person would write it, e.g. ``"6 × 3 + 2 × 1 = 20"``."""
        text = f"{self.districts} × {self.max_in_district}"
        if self.thames:
            text += f" + 2 × {self.thames}"
        return f"{text} = {self.score}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "colour": self.colour,
            "stations": self.stations,
            "sections": self.sections,
            "districts": self.districts,
            "max_in_district": self.max_in_district,
            "max_district": self.max_district,
            "thames": self.thames,
            "score": self.score,
            "formula": self.formula(),
            "tourist_sites": list(self.tourist_sites),
            "doubled_station": self.doubled_station,
        }


@dataclass(frozen=True)
class InterchangeScore:
    """Stations served by several lines."""

    two: int
    """Stations on exactly 2 lines."""
    three: int
    four: int
    points: int
    stations: tuple[tuple[str, tuple[Colour, ...]], ...]
    """Every station on at least 2 lines with its colours, in lattice-point order."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "two": self.two,
            "three": self.three,
            "four": self.four,
            "points": self.points,
            "stations": [{"station": name, "colours": list(colours)} for name, colours in self.stations],
        }


@dataclass(frozen=True)
class ObjectiveResult:
    key: str
    """A key of ``network.OBJECTIVES``."""
    description: str
    met: bool
    points: int

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "description": self.description, "met": self.met, "points": self.points}


@dataclass(frozen=True)
class ScoreCard:
    """The whole score of a sheet."""

    lines: tuple[LineScore, ...]
    """Always four, in ``LINE_COLOURS`` order."""
    tourist_sites: int
    """Tourist sites summed over the lines (a site on two lines counts twice), before the cap."""
    tourist_circles: int
    """Circles crossed out on the tourist track (capped at the track's last circle)."""
    tourist_points: int
    interchanges: InterchangeScore
    objectives: tuple[ObjectiveResult, ...]
    """Only the objectives in play, in the order given."""
    solo_penalty: int
    """Zero or negative."""
    total: int
    solo_rating: str | None
    """The solo rating band of ``total``, in solo games only."""

    def line(self, colour: Colour) -> LineScore:
        for ls in self.lines:
            if ls.colour == colour:
                return ls
        raise KeyError(colour)

    @property
    def lines_total(self) -> int:
        return sum(ls.score for ls in self.lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "lines": {ls.colour: ls.to_dict() for ls in self.lines},
            "lines_total": self.lines_total,
            "tourist_sites": self.tourist_sites,
            "tourist_circles": self.tourist_circles,
            "tourist_points": self.tourist_points,
            "interchanges": self.interchanges.to_dict(),
            "objectives": [o.to_dict() for o in self.objectives],
            "solo_penalty": self.solo_penalty,
            "total": self.total,
            "solo_rating": self.solo_rating,
        }


def score_line(network: Network, colour: Colour, game_map: GameMap) -> LineScore:
    """Score one line as drawn; points that are not stations are ignored, and only potential
    sections can count as Thames crossings (best effort on illegal lines)."""
    sections = set(network.sections(colour))
    points = sorted(p for p in network.stations(colour) if p in game_map.by_point)
    per_district = Counter(game_map.district_of[p] for p in points if p in game_map.district_of)
    doubled = network.options.doubled_stations.get(colour)
    doubled_name: str | None = None
    if doubled is not None and doubled in points and doubled in game_map.district_of:
        per_district[game_map.district_of[doubled]] += 1
        doubled_name = station_name(doubled)
    max_in, max_district = 0, None
    for name in game_map.district_names:
        if per_district[name] > max_in:
            max_in, max_district = per_district[name], name
    thames = len(sections & game_map.thames_sections)
    districts = sum(1 for n in per_district.values() if n > 0)
    return LineScore(
        colour=colour,
        stations=len(points),
        sections=len(sections),
        districts=districts,
        max_in_district=max_in,
        max_district=max_district,
        thames=thames,
        score=districts * max_in + 2 * thames,
        tourist_sites=tuple(station_name(p) for p in points if p in game_map.tourist_sites),
        doubled_station=doubled_name,
    )


def score_interchanges(network: Network, game_map: GameMap) -> InterchangeScore:
    colours_at: dict[Point, list[Colour]] = {}
    for colour in LINE_COLOURS:
        for p in network.stations(colour):
            if p in game_map.by_point:
                colours_at.setdefault(p, []).append(colour)
    shared = sorted((p, tuple(cs)) for p, cs in colours_at.items() if len(cs) >= 2)
    counts = Counter(len(cs) for _, cs in shared)
    return InterchangeScore(
        two=counts[2],
        three=counts[3],
        four=counts[4],
        points=sum(game_map.interchange_points.get(n, 0) * k for n, k in counts.items()),
        stations=tuple((station_name(p), cs) for p, cs in shared),
    )


def _central_district(game_map: GameMap) -> frozenset[Point]:
    centrals = [s.point for s in game_map.stations if s.symbol == CENTRAL]
    names = {game_map.district_of[p] for p in centrals if p in game_map.district_of}
    return frozenset(p for p, d in game_map.district_of.items() if d in names)


def _objective_met(
    key: str, network: Network, lines: Sequence[LineScore], interchanges: InterchangeScore, game_map: GameMap
) -> bool:
    served = {p for c in LINE_COLOURS for p in network.stations(c) if p in game_map.by_point}
    if key == "interchanges_8":
        return len(interchanges.stations) >= OBJECTIVE_MIN_INTERCHANGES
    if key == "all_districts":
        return set(game_map.district_of.values()) <= {game_map.district_of[p] for p in served}
    if key == "all_tourist_sites":
        return game_map.tourist_sites <= served
    if key == "central_district":
        central = _central_district(game_map)
        return bool(central) and central <= served
    if key == "thames_6":
        return sum(ls.thames for ls in lines) >= OBJECTIVE_MIN_THAMES
    raise KeyError(f"unknown objective {key!r}")


def solo_rating(total: int) -> str:
    """The solo rating band of a final total."""
    for top, label in SOLO_BANDS:
        if total <= top:
            return label
    return SOLO_TOP_BAND


def score_network(network: Network, game_map: GameMap) -> ScoreCard:
    """Score every line, the tourist track, interchanges, objectives and the solo penalty."""
    lines = tuple(score_line(network, c, game_map) for c in LINE_COLOURS)
    sites = sum(len(ls.tourist_sites) for ls in lines)
    circles = min(sites, len(game_map.tourist_track) - 1)
    interchanges = score_interchanges(network, game_map)
    objectives = []
    for key in network.options.objectives:
        met = _objective_met(key, network, lines, interchanges, game_map)
        objectives.append(ObjectiveResult(key, OBJECTIVES[key], met, OBJECTIVE_POINTS if met else 0))
    options = network.options
    penalty = -SOLO_PENALTY_PER_MODULE * options.modules_used if options.solo else 0
    total = (
        sum(ls.score for ls in lines)
        + game_map.tourist_track[circles]
        + interchanges.points
        + sum(o.points for o in objectives)
        + penalty
    )
    return ScoreCard(
        lines=lines,
        tourist_sites=sites,
        tourist_circles=circles,
        tourist_points=game_map.tourist_track[circles],
        interchanges=interchanges,
        objectives=tuple(objectives),
        solo_penalty=penalty,
        total=total,
        solo_rating=solo_rating(total) if options.solo else None,
    )


def tie_break_key(card: ScoreCard) -> tuple[int, int]:
    """Higher is better: the total, then the best single line."""
    return (card.total, max((ls.score for ls in card.lines), default=0))


def rank_cards(cards: Sequence[ScoreCard]) -> list[int]:
    """The rank of each card (1 = best); cards with equal tie-break keys share a rank (1, 1, 3, ...)."""
    keys = [tie_break_key(c) for c in cards]
    return [1 + sum(1 for other in keys if other > k) for k in keys]
