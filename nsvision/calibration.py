"""Calibration files: the map data plus the printed sheet's geometry.

A calibration is a versioned JSON file (``calibration/london.json`` is the default). Loading
validates every field and reports all problems at once, each with its JSON path, so a person
editing a file by hand fixes everything in one pass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nsvision.errors import CalibrationError
from nsvision.game.board import CENTRAL, LINE_COLOURS, SYMBOLS, District, GameMap, Station

FORMAT = "nsvision-calibration"
VERSION = 1
DEFAULT_PATH = Path(__file__).resolve().parent.parent / "calibration" / "london.json"
_PACKAGED_PATH = Path(__file__).resolve().parent / "data" / "london.json"


@dataclass(frozen=True)
class Box:
    """A named rectangle on the sheet, in sheet units: ``x, y`` top-left corner, ``w, h`` size."""

    name: str
    x: float
    y: float
    w: float
    h: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)


@dataclass(frozen=True)
class TrackCircle:
    """One circle of the tourist-site track, in sheet units."""

    value: int
    center: tuple[float, float]
    radius: float


@dataclass(frozen=True)
class SheetLayout:
    """Where things sit on the printed sheet, in sheet units (portrait, origin top-left)."""

    width: float
    height: float
    map_box: tuple[float, float, float, float]
    """``(x, y, w, h)`` of the square map."""
    lattice_origin: tuple[float, float]
    """Sheet position of lattice point (0, 0)."""
    lattice_pitch: float
    """Sheet units between neighbouring lattice points."""
    station_radius: float
    """Outer radius of a printed station symbol."""
    score_zone_box: tuple[float, float, float, float]
    score_boxes: tuple[Box, ...]
    tourist_track: tuple[TrackCircle, ...]
    header_box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def lattice_to_sheet(self, x: float, y: float) -> tuple[float, float]:
        return (self.lattice_origin[0] + x * self.lattice_pitch, self.lattice_origin[1] + y * self.lattice_pitch)

    def sheet_to_lattice(self, u: float, v: float) -> tuple[float, float]:
        return ((u - self.lattice_origin[0]) / self.lattice_pitch, (v - self.lattice_origin[1]) / self.lattice_pitch)

    def box(self, name: str) -> Box:
        for b in self.score_boxes:
            if b.name == name:
                return b
        raise KeyError(name)


@dataclass(frozen=True)
class Calibration:
    """A map plus the print it comes on. ``appearance`` holds what ``nsvision calibrate`` learnt of a print."""

    map: GameMap
    sheet: SheetLayout
    name: str = "london-default"
    source: str = ""
    appearance: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    blank_image: Any = field(default=None, repr=False, compare=False)
    """The print's straightened blank map (RGB uint8 array) as ``nsvision calibrate`` measured it, held in
    memory until ``write_calibration`` saves it next to the JSON; a loaded file keeps it on disk
    (``appearance.blank_image``, read by ``nsvision.vision.calibrate.load_blank``)."""


class _Checker:
    """Collects every problem with its JSON path instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def fail(self, path: str, msg: str) -> None:
        problem = f"{path}: {msg}"
        if problem not in self.problems:
            self.problems.append(problem)

    def get(self, obj: Any, key: str, path: str, kind: type | tuple[type, ...], required: bool = True) -> Any:
        if not isinstance(obj, dict):
            # None means the parent is missing, which is reported already; anything else is a wrong type.
            if obj is not None:
                self.fail(path, f"expected an object, got {type(obj).__name__}")
            return None
        if key not in obj:
            if required:
                self.fail(f"{path}.{key}", "missing")
            return None
        value = obj[key]
        if kind is float:
            kind = (int, float)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind in ((int, float), int)):
            self.fail(f"{path}.{key}", f"expected {_kind_name(kind)}, got {type(value).__name__}")
            return None
        return value

    def numbers(self, obj: Any, key: str, path: str, n: int) -> tuple[float, ...] | None:
        value = self.get(obj, key, path, list)
        if value is None:
            return None
        if len(value) != n or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            self.fail(f"{path}.{key}", f"expected a list of {n} numbers")
            return None
        return tuple(float(v) for v in value)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    if isinstance(kind, tuple):
        return "number" if int in kind else " or ".join(k.__name__ for k in kind)
    return {"str": "string", "list": "list", "dict": "object", "bool": "true/false", "int": "integer"}.get(
        kind.__name__, kind.__name__
    )


def _parse_map(c: _Checker, m: Any) -> GameMap | None:
    p = "$.map"
    if not isinstance(m, dict):
        c.fail(p, "missing or not an object")
        return None
    name = c.get(m, "name", p, str)
    cols = c.get(m, "columns", p, int)
    rows = c.get(m, "rows", p, int)
    stations: list[Station] = []
    seen: set[tuple[int, int]] = set()
    for i, s in enumerate(c.get(m, "stations", p, list) or []):
        sp = f"{p}.stations[{i}]"
        if not isinstance(s, dict):
            c.fail(sp, "expected an object")
            continue
        x, y = c.get(s, "x", sp, int), c.get(s, "y", sp, int)
        sym = c.get(s, "symbol", sp, str)
        tourist = c.get(s, "tourist_site", sp, bool)
        dep = s.get("departure")
        if sym is not None and sym not in (*SYMBOLS, CENTRAL):
            c.fail(f"{sp}.symbol", f"{sym!r} is not one of {', '.join((*SYMBOLS, CENTRAL))}")
        if dep is not None and dep not in LINE_COLOURS:
            c.fail(f"{sp}.departure", f"{dep!r} is not one of {', '.join(LINE_COLOURS)} or null")
        if x is None or y is None or sym is None or tourist is None:
            continue
        if cols is not None and rows is not None and not (0 <= x < cols and 0 <= y < rows):
            c.fail(sp, f"station ({x},{y}) lies outside the {cols}x{rows} lattice")
        if (x, y) in seen:
            c.fail(sp, f"station ({x},{y}) is listed twice")
        seen.add((x, y))
        stations.append(Station((x, y), sym, tourist, dep if dep in LINE_COLOURS else None))
    for colour in LINE_COLOURS:
        n = sum(1 for s in stations if s.departure == colour)
        if n != 1:
            c.fail(f"{p}.stations", f"expected exactly one departure station for {colour}, found {n}")
    districts: list[District] = []
    for i, d in enumerate(c.get(m, "districts", p, list) or []):
        dp = f"{p}.districts[{i}]"
        dname = c.get(d, "name", dp, str)
        box = c.numbers(d, "box", dp, 4)
        if dname is not None and box is not None:
            districts.append(District(dname, tuple(int(v) for v in box)))  # type: ignore[arg-type]
    thames_raw = c.get(m, "thames", p, list) or []
    thames: list[tuple[float, float]] = []
    for i, pt in enumerate(thames_raw):
        if isinstance(pt, list) and len(pt) == 2 and all(isinstance(v, (int, float)) for v in pt):
            thames.append((float(pt[0]), float(pt[1])))
        else:
            c.fail(f"{p}.thames[{i}]", "expected [x, y] in lattice units")
    if len(thames_raw) < 2:
        c.fail(f"{p}.thames", "expected a polyline of at least 2 points")
    track = c.get(m, "tourist_track", p, list)
    if track is not None and not all(isinstance(v, int) for v in track):
        c.fail(f"{p}.tourist_track", "expected a list of integers")
        track = None
    points_raw = c.get(m, "interchange_points", p, dict)
    interchange: dict[int, int] = {}
    for k, v in (points_raw or {}).items():
        if not (k.isdigit() and isinstance(v, int)):
            c.fail(f"{p}.interchange_points.{k}", "expected a line count mapped to points")
        else:
            interchange[int(k)] = v
    limits = c.get(m, "max_sections", p, dict)
    normal = c.get(limits, "normal", f"{p}.max_sections", int)
    power = c.get(limits, "second_section_power", f"{p}.max_sections", int)
    deck = c.get(m, "deck", p, dict)
    street = c.get(deck, "street", f"{p}.deck", list)
    underground = c.get(deck, "underground", f"{p}.deck", list)
    if c.problems:
        return None
    game_map = GameMap(
        name=name,
        columns=cols,
        rows=rows,
        stations=tuple(stations),
        districts=tuple(districts),
        thames=tuple(thames),
        tourist_track=tuple(track),
        interchange_points=interchange,
        max_sections=normal,
        max_sections_with_power=power,
        street_cards=tuple(street),
        underground_cards=tuple(underground),
    )
    for s in stations:
        if s.point not in game_map.district_of:
            c.fail(f"{p}.districts", f"station {s.name} lies in no district")
    return game_map


def _parse_sheet(c: _Checker, sh: Any) -> SheetLayout | None:
    p = "$.sheet"
    if not isinstance(sh, dict):
        c.fail(p, "missing or not an object")
        return None
    width = c.get(sh, "width", p, float)
    height = c.get(sh, "height", p, float)
    map_box = c.numbers(sh, "map_box", p, 4)
    header = c.numbers(sh, "header_box", p, 4)
    origin = c.numbers(sh, "lattice_origin", p, 2)
    pitch = c.get(sh, "lattice_pitch", p, float)
    radius = c.get(sh, "station_radius", p, float)
    zone = c.numbers(sh, "score_zone_box", p, 4)
    boxes: list[Box] = []
    for i, b in enumerate(c.get(sh, "score_boxes", p, list) or []):
        bp = f"{p}.score_boxes[{i}]"
        bname = c.get(b, "name", bp, str)
        rect = c.numbers(b, "rect", bp, 4)
        if bname is not None and rect is not None:
            boxes.append(Box(bname, *rect))
    circles: list[TrackCircle] = []
    for i, t in enumerate(c.get(sh, "tourist_track", p, list) or []):
        tp = f"{p}.tourist_track[{i}]"
        value = c.get(t, "value", tp, int)
        center = c.numbers(t, "center", tp, 2)
        r = c.get(t, "radius", tp, float)
        if value is not None and center is not None and r is not None:
            circles.append(TrackCircle(value, (center[0], center[1]), float(r)))
    if pitch is not None and pitch <= 0:
        c.fail(f"{p}.lattice_pitch", "must be positive")
    if c.problems:
        return None
    return SheetLayout(
        width=float(width),
        height=float(height),
        map_box=map_box,  # type: ignore[arg-type]
        lattice_origin=origin,  # type: ignore[arg-type]
        lattice_pitch=float(pitch),
        station_radius=float(radius),
        score_zone_box=zone,  # type: ignore[arg-type]
        score_boxes=tuple(boxes),
        tourist_track=tuple(circles),
        header_box=header,  # type: ignore[arg-type]
    )


def parse_calibration(data: Any, source: str = "<calibration>") -> Calibration:
    """Validate a decoded calibration document; raise ``CalibrationError`` listing every problem."""
    c = _Checker()
    if not isinstance(data, dict):
        raise CalibrationError(source, ["$: expected a JSON object"])
    fmt = c.get(data, "format", "$", str)
    if fmt is not None and fmt != FORMAT:
        c.fail("$.format", f"expected {FORMAT!r}, got {fmt!r}")
    version = c.get(data, "version", "$", int)
    if version is not None and version != VERSION:
        c.fail("$.version", f"this nsvision reads version {VERSION}, the file is version {version}")
    name = c.get(data, "name", "$", str)
    game_map = _parse_map(c, data.get("map"))
    sheet = _parse_sheet(c, data.get("sheet"))
    appearance = c.get(data, "appearance", "$", dict, required=False) or {}
    if c.problems or game_map is None or sheet is None:
        raise CalibrationError(source, c.problems)
    if len(sheet.tourist_track) != len(game_map.tourist_track):
        raise CalibrationError(
            source,
            [
                f"$.sheet.tourist_track: {len(sheet.tourist_track)} circles, but $.map.tourist_track "
                f"has {len(game_map.tourist_track)} values"
            ],
        )
    return Calibration(game_map, sheet, name=name or "", source=source, appearance=appearance, raw=data)


def load_calibration(path: str | Path | None = None) -> Calibration:
    """Load and validate a calibration file (default: the London map shipped with nsvision)."""
    if path is None:
        path = DEFAULT_PATH if DEFAULT_PATH.exists() else _PACKAGED_PATH
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(str(path), [f"cannot read the file ({exc.strerror or exc})"]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(
            str(path), [f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"]
        ) from None
    return parse_calibration(data, str(path))


# ---- writing -------------------------------------------------------------------------------------


def _map_to_dict(game_map: GameMap, raw_map: Any) -> dict[str, Any]:
    """The ``map`` object of a calibration file; keys it does not model (notes, boundaries) are kept."""
    out: dict[str, Any] = dict(raw_map) if isinstance(raw_map, dict) else {}
    out.update(
        {
            "name": game_map.name,
            "columns": game_map.columns,
            "rows": game_map.rows,
            "stations": [
                {
                    "x": s.point[0],
                    "y": s.point[1],
                    "symbol": s.symbol,
                    "tourist_site": s.tourist_site,
                    "departure": s.departure,
                }
                for s in game_map.stations
            ],
            "districts": [{"name": d.name, "box": list(d.box)} for d in game_map.districts],
            "thames": [[x, y] for x, y in game_map.thames],
            "tourist_track": list(game_map.tourist_track),
            "interchange_points": {str(k): v for k, v in sorted(game_map.interchange_points.items())},
            "max_sections": {
                "normal": game_map.max_sections,
                "second_section_power": game_map.max_sections_with_power,
            },
            "deck": {"street": list(game_map.street_cards), "underground": list(game_map.underground_cards)},
        }
    )
    return out


def _sheet_to_dict(sheet: SheetLayout, raw_sheet: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"units": raw_sheet["units"]} if isinstance(raw_sheet, dict) and "units" in raw_sheet else {}
    out.update(
        {
            "width": sheet.width,
            "height": sheet.height,
            "header_box": list(sheet.header_box),
            "map_box": list(sheet.map_box),
            "lattice_origin": list(sheet.lattice_origin),
            "lattice_pitch": sheet.lattice_pitch,
            "station_radius": sheet.station_radius,
            "score_zone_box": list(sheet.score_zone_box),
            "score_boxes": [{"name": b.name, "rect": [b.x, b.y, b.w, b.h]} for b in sheet.score_boxes],
            "tourist_track": [
                {"value": t.value, "center": list(t.center), "radius": t.radius} for t in sheet.tourist_track
            ],
        }
    )
    return out


def calibration_to_dict(calibration: Calibration) -> dict[str, Any]:
    """The JSON document of a calibration, in this nsvision's ``format``/``version``.

    ``parse_calibration`` reads it back to an equal calibration (the in-memory ``blank_image`` is
    not part of it: ``nsvision.vision.calibrate.write_calibration`` saves that beside the file).
    """
    raw = calibration.raw
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "name": calibration.name}
    if isinstance(raw.get("description"), str):
        doc["description"] = raw["description"]
    doc["map"] = _map_to_dict(calibration.map, raw.get("map"))
    doc["sheet"] = _sheet_to_dict(calibration.sheet, raw.get("sheet"))
    if calibration.appearance:
        doc["appearance"] = calibration.appearance
    return doc
