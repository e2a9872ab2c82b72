"""The drawn network: four lines, each a list of sections, plus the game options that change scoring.

JSON format (hand-writable; see the README)::

    {
      "format": "nsvision-network", "version": 1,
      "lines": {
        "purple": [["2,5", "3,6"], ["3,6", "4,6"]],
        "blue": ["5,7-5,4"],
        "pink": [], "green": []
      },
      "objectives": ["interchanges_8", "thames_6"],
      "powers": {"pink": "double_station"},
      "doubled_stations": {"pink": "4,4"},
      "solo": false
    }

Only ``lines`` is required; a missing colour is an empty line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from nsvision.errors import InputError, NetworkFormatError
from nsvision.game.board import LINE_COLOURS, Colour, Point, Section, parse_station_name, station_name

FORMAT = "nsvision-network"
VERSION = 1

OBJECTIVES: dict[str, str] = {
    "interchanges_8": "at least 8 interchange stations",
    "all_districts": "a station in all 13 districts",
    "all_tourist_sites": "all 5 tourist sites served",
    "central_district": "all 9 central-district stations served",
    "thames_6": "at least 6 Thames crossings",
}
"""The shared objectives (advanced module), each worth +10 when met."""

POWERS: dict[str, str] = {
    "second_section": "repeat the symbol: draw a second section",
    "joker": "treat the card as a Joker",
    "switch": "treat the card as a Railroad Switch",
    "double_station": "circle a station: it counts twice in its district",
}
"""The pencil powers (advanced module); at most one per line (once per round)."""


def _frozen(d: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class GameOptions:
    """Advanced-module settings that change what is legal or how it scores."""

    objectives: tuple[str, ...] = ()
    """Shared objectives in play (keys of ``OBJECTIVES``)."""
    powers: Mapping[Colour, str] = field(default_factory=lambda: _frozen({}))
    """The pencil power used on each line, if any (values are keys of ``POWERS``)."""
    doubled_stations: Mapping[Colour, Point] = field(default_factory=lambda: _frozen({}))
    """The station circled with the double-station power, per line."""
    solo: bool = False

    @property
    def modules_used(self) -> int:
        """Advanced modules in play (shared objectives, pencil powers), for the solo penalty."""
        return int(bool(self.objectives)) + int(bool(self.powers) or bool(self.doubled_stations))

    def to_dict(self) -> dict[str, Any]:
        return {
            "objectives": list(self.objectives),
            "powers": dict(self.powers),
            "doubled_stations": {c: station_name(p) for c, p in self.doubled_stations.items()},
            "solo": self.solo,
        }


@dataclass(frozen=True)
class Network:
    """What was drawn: for each colour, the sections of its line (in drawing order if known)."""

    lines: Mapping[Colour, tuple[Section, ...]]
    options: GameOptions = field(default_factory=GameOptions)

    @staticmethod
    def build(
        lines: Mapping[Colour, list[Section] | tuple[Section, ...]] | None = None,
        options: GameOptions | None = None,
    ) -> Network:
        full = {c: tuple((lines or {}).get(c, ())) for c in LINE_COLOURS}
        return Network(_frozen(full), options or GameOptions())

    def sections(self, colour: Colour) -> tuple[Section, ...]:
        return self.lines.get(colour, ())

    def stations(self, colour: Colour) -> frozenset[Point]:
        return frozenset(p for s in self.sections(colour) for p in (s.a, s.b))

    def all_sections(self) -> list[tuple[Colour, Section]]:
        return [(c, s) for c in LINE_COLOURS for s in self.sections(c)]

    @property
    def is_empty(self) -> bool:
        return not any(self.lines.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "lines": {c: [s.to_list() for s in self.sections(c)] for c in LINE_COLOURS},
            **self.options.to_dict(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def _parse_point(text: Any, path: str, problems: list[str]) -> Point | None:
    if not isinstance(text, str):
        problems.append(f"{path}: expected a station name 'x,y', got {json.dumps(text)}")
        return None
    try:
        p = parse_station_name(text)
    except ValueError as exc:
        problems.append(f"{path}: {exc}")
        return None
    if not (0 <= p[0] <= 9 and 0 <= p[1] <= 9):
        problems.append(f"{path}: station {text!r} lies outside the 10 x 10 map (x and y run 0-9)")
        return None
    return p


def _parse_section(raw: Any, path: str, problems: list[str]) -> Section | None:
    item = raw.split("-") if isinstance(raw, str) and "-" in raw else raw
    if not (isinstance(item, list) and len(item) == 2):
        problems.append(f'{path}: expected a section as ["x,y", "x,y"] or "x,y-x,y", got {json.dumps(raw)}')
        return None
    p = _parse_point(item[0], f"{path}[0]", problems)
    q = _parse_point(item[1], f"{path}[1]", problems)
    if p is None or q is None:
        return None
    if p == q:
        problems.append(f"{path}: a section needs two different stations, got {item[0]!r} twice")
        return None
    return Section.of(p, q)


def network_from_dict(data: Any, source: str = "<network>") -> Network:
    """Build a ``Network`` from decoded JSON; raise ``NetworkFormatError`` listing every problem."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise NetworkFormatError(source, ['$: expected a JSON object with a "lines" key'])
    if "format" in data and data["format"] != FORMAT:
        problems.append(f"$.format: expected {FORMAT!r}, got {data['format']!r}")
    if "version" in data and data["version"] != VERSION:
        problems.append(f"$.version: this nsvision reads version {VERSION}, got {data['version']!r}")
    raw_lines = data.get("lines")
    lines: dict[Colour, list[Section]] = {}
    if not isinstance(raw_lines, dict):
        problems.append("$.lines: missing, or not an object mapping colour to sections")
        raw_lines = {}
    for colour, items in raw_lines.items():
        if colour not in LINE_COLOURS:
            problems.append(f"$.lines.{colour}: unknown colour (use {', '.join(LINE_COLOURS)})")
            continue
        if not isinstance(items, list):
            problems.append(f"$.lines.{colour}: expected a list of sections")
            continue
        secs = [_parse_section(it, f"$.lines.{colour}[{i}]", problems) for i, it in enumerate(items)]
        lines[colour] = [s for s in secs if s is not None]
    objectives = data.get("objectives", [])
    if not isinstance(objectives, list) or not all(o in OBJECTIVES for o in objectives):
        problems.append(f"$.objectives: expected a list drawn from {', '.join(OBJECTIVES)}")
        objectives = []
    powers: dict[Colour, str] = {}
    raw_powers = data.get("powers") or {}
    if not isinstance(raw_powers, dict):
        problems.append('$.powers: expected an object mapping colour to power, e.g. {"pink": "joker"}')
        raw_powers = {}
    for colour, power in raw_powers.items():
        if colour not in LINE_COLOURS or power not in POWERS:
            problems.append(f"$.powers.{colour}: expected a colour mapped to one of {', '.join(POWERS)}")
        else:
            powers[colour] = power
    doubled: dict[Colour, Point] = {}
    raw_doubled = data.get("doubled_stations") or {}
    if not isinstance(raw_doubled, dict):
        problems.append('$.doubled_stations: expected an object mapping colour to station, e.g. {"pink": "4,4"}')
        raw_doubled = {}
    for colour, name in raw_doubled.items():
        if colour not in LINE_COLOURS:
            problems.append(f"$.doubled_stations.{colour}: unknown colour")
            continue
        p = _parse_point(name, f"$.doubled_stations.{colour}", problems)
        if p is not None:
            doubled[colour] = p
            powers.setdefault(colour, "double_station")
    solo = data.get("solo", False)
    if not isinstance(solo, bool):
        problems.append("$.solo: expected true or false")
        solo = False
    if problems:
        raise NetworkFormatError(source, problems)
    return Network.build(lines, GameOptions(tuple(objectives), _frozen(powers), _frozen(doubled), solo))


def load_network(path: str | Path) -> Network:
    """Read a network JSON file; raise ``InputError`` naming the file on any problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(str(path), "no such file", "check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"cannot read the file ({exc})", "pass a network JSON file") from None
    if not text.strip():
        raise InputError(str(path), "the file is empty", "pass a network JSON file (see the README)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            str(path), f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})", "fix the JSON syntax"
        ) from None
    return network_from_dict(data, str(path))
