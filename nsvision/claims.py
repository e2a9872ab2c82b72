"""What a player claims a sheet scores, compared field by field with what the sheet shows.

Players add up their sheets by hand, in the score zone or in a score app; nsvision checks those
numbers. A claim holds the fields of the printed score zone — four line scores (purple, blue,
pink, green), tourist points, the *counts* of 2-, 3- and 4-line interchange stations, the two
"+10" objective boxes and the total — each optional. ``verify_claims`` compares a claim with a
``ScoreCard`` and explains every difference with the line or station behind it.

Game level only: no images here. The claim syntax (``parse_claims``)::

    lines=20,16,29,22 tourist=14 interchanges=9,0,0 objectives=10,0 total=119
    purple=20; blue=16; pink=29; green=22; total=119; player="Ann Lee"

Pairs are separated by spaces or semicolons; ``-`` or ``?`` (or nothing) marks a value not
claimed (``lines=20,-,29,22``). The CSV format (``read_claims_csv``) has one row per sheet with
the columns ``file`` (required), ``page``, ``player`` and any of ``CLAIM_FIELDS``.
"""

from __future__ import annotations

import csv
import difflib
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import Any

from nsvision.errors import ClaimError, InputError
from nsvision.game.board import LINE_COLOURS, Colour, GameMap
from nsvision.game.scoring import (
    OBJECTIVE_MIN_INTERCHANGES,
    OBJECTIVE_MIN_THAMES,
    OBJECTIVE_POINTS,
    LineScore,
    ScoreCard,
)

INTERCHANGE_KINDS: tuple[int, ...] = (2, 3, 4)
"""Lines through an interchange station, in the order of the sheet's interchange boxes."""
OBJECTIVE_BOXES = 2
"""The score zone has two "+10" boxes (two shared objectives per game)."""

CLAIM_FIELDS: tuple[str, ...] = (
    *LINE_COLOURS,
    "tourist",
    *(f"interchanges_{n}" for n in INTERCHANGE_KINDS),
    *(f"objective_{i + 1}" for i in range(OBJECTIVE_BOXES)),
    "total",
)
"""Every claimable field, in score-zone order (also the CSV column names)."""

FIELD_LABELS: dict[str, str] = {
    **{c: f"{c} line" for c in LINE_COLOURS},
    "tourist": "tourist points",
    **{f"interchanges_{n}": f"{n}-line interchanges" for n in INTERCHANGE_KINDS},
    **{f"objective_{i + 1}": f"objective {i + 1} (+{OBJECTIVE_POINTS})" for i in range(OBJECTIVE_BOXES)},
    "total": "total",
}
"""How each field is named to a person."""

CLAIM_SYNTAX = f"""\
the syntax is key=value pairs separated by spaces or semicolons, for example
    lines=20,16,29,22 tourist=14 interchanges=9,0,0 objectives=10,0 total=119
  lines         the four line scores in the sheet's column order: purple,blue,pink,green
                (or one at a time: purple=20 blue=16 pink=29 green=22)
  tourist       tourist points (the value of the first circle left on the track)
  interchanges  how many stations are on 2, 3 and 4 lines: three counts, e.g. 9,0,0
                (or interchanges_2=9 interchanges_3=0 interchanges_4=0)
  objectives    the "+{OBJECTIVE_POINTS}" boxes as written, 0 or {OBJECTIVE_POINTS} each, one or two
                (or objective_1=10 objective_2=0)
  total         the final total
  player        a name, in double quotes if it has spaces: player="Ann Lee"
  write - or ? for a value you do not claim: lines=20,-,29,22"""

CSV_SYNTAX = (
    "a header row with the columns file (required), page (default 1), player and any of "
    f"{', '.join(CLAIM_FIELDS)}; one row per sheet, a blank cell for a value not claimed"
)

_LIST_KEYS: dict[str, tuple[str, ...]] = {
    "lines": LINE_COLOURS,
    "interchanges": tuple(f"interchanges_{n}" for n in INTERCHANGE_KINDS),
    "objectives": tuple(f"objective_{i + 1}" for i in range(OBJECTIVE_BOXES)),
}
"""Keys that take a comma-separated list, and the fields the items fill in order."""
_ALIASES: dict[str, str] = {
    "line": "lines",
    "interchange": "interchanges",
    "objective": "objectives",
    "tourists": "tourist",
    "tourist_points": "tourist",
    **{f"interchange_{n}": f"interchanges_{n}" for n in INTERCHANGE_KINDS},
    **{f"objectives_{i + 1}": f"objective_{i + 1}" for i in range(OBJECTIVE_BOXES)},
    "name": "player",
}
"""Other spellings people type, mapped to the canonical key."""
_KEYS: tuple[str, ...] = (*CLAIM_FIELDS, *_LIST_KEYS, "player")
_NOT_CLAIMED = frozenset({"", "-", "?", "–", "—"})
_NUMBER = re.compile(r"[+-]?\d+")
_COUNT_WORD = {2: "two", 3: "three", 4: "four"}


@dataclass(frozen=True)
class Claims:
    """The score-zone fields a player claims; ``None`` everywhere means "not claimed"."""

    lines: Mapping[Colour, int | None] = field(default_factory=lambda: MappingProxyType({}))
    """Line scores (points), keyed by colour; a missing colour is not claimed."""
    tourist: int | None = None
    """Tourist points (not the number of sites)."""
    interchanges: tuple[int | None, int | None, int | None] = (None, None, None)
    """COUNTS of stations on exactly 2, 3 and 4 lines (not points)."""
    objectives: tuple[int | None, ...] = ()
    """The "+10" boxes as written (0 or 10 each), up to two, in sheet order."""
    total: int | None = None
    """The final total (points)."""
    player: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", MappingProxyType({c: self.lines.get(c) for c in LINE_COLOURS}))

    def value(self, field_name: str) -> int | None:
        """The claimed value of one of ``CLAIM_FIELDS``."""
        if field_name in LINE_COLOURS:
            return self.lines[field_name]  # type: ignore[index]
        if field_name == "tourist":
            return self.tourist
        if field_name.startswith("interchanges_"):
            return self.interchanges[INTERCHANGE_KINDS.index(int(field_name.rsplit("_", 1)[1]))]
        if field_name.startswith("objective_"):
            box = int(field_name.rsplit("_", 1)[1]) - 1
            return self.objectives[box] if box < len(self.objectives) else None
        if field_name == "total":
            return self.total
        raise KeyError(field_name)

    @property
    def is_empty(self) -> bool:
        return all(self.value(f) is None for f in CLAIM_FIELDS)

    def to_text(self) -> str:
        """The claim in ``parse_claims`` syntax (parses back to an equal claim)."""

        def fmt(v: int | None) -> str:
            return "-" if v is None else str(v)

        parts = [
            "lines=" + ",".join(fmt(self.lines[c]) for c in LINE_COLOURS),
            f"tourist={fmt(self.tourist)}",
            "interchanges=" + ",".join(fmt(v) for v in self.interchanges),
        ]
        if self.objectives:
            parts.append("objectives=" + ",".join(fmt(v) for v in self.objectives))
        parts.append(f"total={fmt(self.total)}")
        if self.player is not None:
            name = self.player.replace('"', "'")
            parts.append(f'player="{name}"' if re.search(r"[\s;]", name) else f"player={name}")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, **{f: self.value(f) for f in CLAIM_FIELDS}}


@dataclass(frozen=True)
class ClaimsRow:
    """One row of a claims CSV."""

    file: str
    """The sheet's file as written in the CSV (a bare name or a path)."""
    page: int
    """1-based page of a PDF (1 for single pictures)."""
    player: str | None
    claims: Claims
    line: int
    """1-based line of the CSV file, for messages."""


def _fail(source: str, problems: Sequence[str], hint: str, what: str = "the claim") -> ClaimError:
    listed = problems[0] if len(problems) == 1 else "\n  " + "\n  ".join(problems)
    return ClaimError(source, f"cannot read {what}: {listed}", hint)


def _parse_number(raw: str, key: str, token: str, problems: list[str]) -> int | None:
    text = raw.strip()
    if text in _NOT_CLAIMED:
        return None
    if not _NUMBER.fullmatch(text):
        problems.append(f"{text!r} is not a whole number (in {token!r})")
        return None
    value = int(text)
    # Only the total can go below zero (a solo game loses 10 per advanced module).
    if value < 0 and key != "total":
        problems.append(f"{text!r} cannot be negative (in {token!r})")
        return None
    if key.startswith("objective_") and value not in (0, OBJECTIVE_POINTS):
        problems.append(f"an objective box holds 0 or {OBJECTIVE_POINTS}, not {value} (in {token!r})")
        return None
    return value


def _canonical_key(raw: str) -> str | None:
    key = re.sub(r"[\s-]+", "_", raw.strip().lower())
    key = _ALIASES.get(key, key)
    return key if key in _KEYS else None


def _did_you_mean(raw: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(raw.strip().lower(), known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _unknown_key(raw: str, token: str) -> str:
    return f"unknown key {raw.strip()!r} in {token!r}{_did_you_mean(raw, _KEYS)}"


def _assemble(pairs: Iterable[tuple[str, str, str]], problems: list[str]) -> Claims:
    """Build a claim from ``(canonical key, raw value, token as written)``; problems are appended."""
    values: dict[str, int | None] = {}
    origin: dict[str, str] = {}
    player: str | None = None

    def put(name: str, value: int | None, token: str) -> None:
        if name in values and values[name] is not None and value is not None and values[name] != value:
            problems.append(
                f"{FIELD_LABELS[name]} claimed twice: {values[name]} (in {origin[name]!r}) and {value} (in {token!r})"
            )
            return
        if value is not None or name not in values:
            values[name], origin[name] = value, token

    for key, raw, token in pairs:
        if key == "player":
            # Single quotes survive a shell's double-quoted argument: player='Ann Lee' means Ann Lee.
            name = raw.strip()
            if len(name) >= 2 and name[0] == name[-1] == "'":
                name = name[1:-1].strip()
            player = name or None
        elif key in _LIST_KEYS:
            targets = _LIST_KEYS[key]
            items = raw.split(",")
            if key == "objectives" and not 1 <= len(items) <= len(targets):
                problems.append(
                    f"objectives takes one or two boxes (0 or {OBJECTIVE_POINTS}), got {len(items)} in {token!r}"
                )
                continue
            if key != "objectives" and len(items) != len(targets):
                problems.append(
                    f"{key} takes {len(targets)} values ({','.join(t.replace('interchanges_', '') for t in targets)}"
                    f"{'-line counts' if key == 'interchanges' else ''}), got {len(items)} in {token!r}"
                )
                continue
            for name, item in zip(targets, items, strict=False):
                put(name, _parse_number(item, name, token, problems), token)
        else:
            put(key, _parse_number(raw, key, token, problems), token)

    boxes = [values.get(f"objective_{i + 1}") for i in range(OBJECTIVE_BOXES)]
    written = max((i + 1 for i in range(OBJECTIVE_BOXES) if f"objective_{i + 1}" in values), default=0)
    return Claims(
        lines={c: values.get(c) for c in LINE_COLOURS},
        tourist=values.get("tourist"),
        interchanges=(
            values.get("interchanges_2"),
            values.get("interchanges_3"),
            values.get("interchanges_4"),
        ),
        objectives=tuple(boxes[:written]),
        total=values.get("total"),
        player=player,
    )


def _tokens(text: str, source: str) -> list[str]:
    # Spaces around "=", ":" and "," are forgiven so "lines = 20, 16, 29, 22" reads as one pair.
    pieces = text.strip().split('"')
    text = '"'.join(re.sub(r"\s*([=:,])\s*", r"\1", p) if i % 2 == 0 else p for i, p in enumerate(pieces))
    lexer = shlex.shlex(text, posix=True, punctuation_chars=False)
    lexer.whitespace = " \t\r\n;"
    lexer.whitespace_split = True
    lexer.quotes = '"'  # not "'": apostrophes occur in names (O'Brien)
    lexer.escape = ""
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError as exc:
        raise _fail(source, [f"{exc} (a quote is not closed)"], CLAIM_SYNTAX) from None


def parse_claims(text: str, source: str = "--claimed") -> Claims:
    """Parse a claim written as ``key=value`` pairs (see ``CLAIM_SYNTAX``).

    Raises ``ClaimError`` listing every bad token at once, with the valid syntax.
    """
    problems: list[str] = []
    pairs: list[tuple[str, str, str]] = []
    for token in _tokens(text, source):
        sep = re.search(r"[=:]", token)
        if sep is None:
            problems.append(f"{token!r} is not key=value")
            continue
        raw_key, raw_value = token[: sep.start()], token[sep.end() :]
        key = _canonical_key(raw_key)
        if key is None:
            problems.append(_unknown_key(raw_key, token))
            continue
        pairs.append((key, raw_value, token))
    claims = _assemble(pairs, problems)
    if not problems and claims.is_empty:
        problems.append("nothing is claimed" if not text.strip() else f"nothing is claimed in {text.strip()!r}")
    if problems:
        raise _fail(source, problems, CLAIM_SYNTAX)
    return claims


def claims_from_score_boxes(
    written: Mapping[str, int], game_map: GameMap | None = None, *, player: str | None = None
) -> Claims:
    """The claim made by numbers written in the sheet's score boxes, keyed by the calibration's box
    names (``purple_line_total``, ``tourist_points``, ``interchanges_<points>``, ``objective_1``,
    ``total``; the per-line detail boxes are not part of a claim). A box left out is not claimed.

    Raises ``ClaimError`` for a box name the score zone does not have.
    """
    if game_map is None:
        from nsvision.calibration import load_calibration  # the game layer does not load files by default

        game_map = load_calibration().map
    # The interchange boxes are named by their points (x2, x5, x9), the claim counts them by lines.
    kind_of_points = {points: lines for lines, points in game_map.interchange_points.items()}
    pairs: list[tuple[str, str, str]] = []
    problems: list[str] = []
    for box, value in written.items():
        token = f"{box}={value}"
        colour, _, part = box.partition("_")
        if colour in LINE_COLOURS and part in ("districts", "max_stations", "thames"):
            continue
        if colour in LINE_COLOURS and part == "line_total":
            pairs.append((colour, str(value), token))
        elif box == "tourist_points":
            pairs.append(("tourist", str(value), token))
        elif colour == "interchanges" and part.isdigit() and int(part) in kind_of_points:
            pairs.append((f"interchanges_{kind_of_points[int(part)]}", str(value), token))
        elif box in ("total", *(f"objective_{i + 1}" for i in range(OBJECTIVE_BOXES))):
            pairs.append((box, str(value), token))
        else:
            problems.append(f"no score box is called {box!r}")
    claims = _assemble(pairs, problems)
    if problems:
        raise _fail("score boxes", problems, "use the box names of the calibration's score_boxes")
    return replace(claims, player=player)


def _sniff_delimiter(header: str) -> str:
    # Spreadsheets in many locales save "CSV" with semicolons or tabs.
    counts = {d: header.count(d) for d in (",", ";", "\t")}
    return max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","


def read_csv_table(
    path: str | Path, kind: str, syntax: str, error: type[InputError] = InputError
) -> tuple[list[list[str]], int]:
    """The rows of a CSV file whose delimiter is a comma, a semicolon or a tab (the commonest in its
    header row), and the index of that header row: the first that is not blank.

    Raises ``InputError`` when the file cannot be read (``kind`` names it: "claims CSV"), and
    ``error`` when it is not UTF-8 text or is empty (``syntax`` says what is expected).
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(source, "no such file", f"check the path of the {kind}") from None
    except UnicodeDecodeError:
        raise error(source, "not a UTF-8 text file", f"save it as CSV (UTF-8): {syntax}") from None
    except OSError as exc:
        raise InputError(source, f"cannot read the file ({exc.strerror})", "check the path and permissions") from None
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        raise error(source, "the file is empty", syntax)
    return list(csv.reader(lines, delimiter=_sniff_delimiter(lines[first]))), first


def page_cell(text: str, problems: list[str]) -> int | None:
    """A CSV row's page cell: the page (from 1); None when it is blank, or is not a page number
    (which is added to ``problems``)."""
    if not text:
        return None
    if text.isdigit() and int(text) >= 1:
        return int(text)
    problems.append(f"page {text!r} is not a page number (1, 2, ...)")
    return None


def read_claims_csv(path: str | Path) -> list[ClaimsRow]:
    """Read a claims CSV (see ``CSV_SYNTAX``); every bad row is reported at once with its line number.

    Raises ``InputError`` when the file cannot be read and ``ClaimError`` when its content is wrong.
    """
    source = str(path)
    rows, first = read_csv_table(path, "claims CSV", CSV_SYNTAX, ClaimError)
    header = [re.sub(r"[\s-]+", "_", h.strip().lower()) for h in rows[first]]
    columns = [_ALIASES.get(h, h) for h in header]
    known = ("file", "page", *_KEYS)
    header_problems = [
        f"unknown column {raw.strip()!r}{_did_you_mean(raw, known)}"
        for raw, col in zip(rows[first], columns, strict=True)
        if col not in known
    ]
    header_problems += [f"column {c!r} appears twice" for c in sorted({c for c in columns if columns.count(c) > 1})]
    if "file" not in columns:
        header_problems.append("no 'file' column")
    if header_problems:
        raise _fail(source, [f"line {first + 1} (header): {p}" for p in header_problems], CSV_SYNTAX, "the claims")

    out: list[ClaimsRow] = []
    problems: list[str] = []
    seen: dict[tuple[str, int], int] = {}
    for index in range(first + 1, len(rows)):
        cells, number = rows[index], index + 1
        if not any(c.strip() for c in cells) or cells[0].lstrip().startswith("#"):
            continue
        row_problems: list[str] = []
        if len(cells) > len(columns):
            row_problems.append(f"{len(cells)} cells but the header has {len(columns)} columns")
        cell = {col: (cells[i].strip() if i < len(cells) else "") for i, col in enumerate(columns)}
        file = cell["file"]
        if not file:
            row_problems.append("the 'file' cell is empty")
        page = page_cell(cell.get("page", ""), row_problems) or 1
        pairs = [(col, value, f"{col}={value}") for col, value in cell.items() if col not in ("file", "page") and value]
        claims = _assemble(pairs, row_problems)
        if not row_problems and claims.is_empty:
            row_problems.append(f"nothing is claimed for {file}")
        if file and (file, page) in seen:
            row_problems.append(f"{file} page {page} already has a row (line {seen[(file, page)]})")
        if row_problems:
            problems += [f"line {number}: {p}" for p in row_problems]
            continue
        seen[(file, page)] = number
        out.append(ClaimsRow(file=file, page=page, player=claims.player, claims=claims, line=number))
    if problems:
        raise _fail(source, problems, CSV_SYNTAX, "the claims")
    if not out:
        raise ClaimError(source, "no claims: the file has a header but no rows", CSV_SYNTAX)
    return out


def _path_parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in PurePath(path.replace("\\", "/")).parts if p not in (".", ""))


def file_match(written: str, source: str, csv_dir: Path | None) -> int:
    """How many trailing path parts of ``written`` match ``source`` (0: not the same file)."""
    want, have = _path_parts(written), _path_parts(source)
    if want and len(want) <= len(have) and have[-len(want) :] == want:
        return len(want)
    # A relative path in the CSV may be written from the CSV's folder or from where nsvision runs.
    bases = [Path.cwd()] + ([csv_dir] if csv_dir is not None else [])
    try:
        target = Path(source).resolve()
        return len(want) if any((base / written).resolve() == target for base in bases) else 0
    except OSError:
        return 0


def find_claims(
    rows: Sequence[ClaimsRow], source: str, page: int, *, csv_dir: str | Path | None = None
) -> Claims | None:
    """The claim for page ``page`` of ``source``, or ``None`` when no row names it.

    A bare file name matches that name in any folder; a path matches the end of ``source`` or,
    resolved from the current folder or ``csv_dir`` (the CSV's folder), the same file. When
    several rows match, the most specific path wins.
    """
    base = Path(csv_dir) if csv_dir is not None else None
    best: tuple[int, ClaimsRow] | None = None
    for row in rows:
        if row.page != page:
            continue
        score = file_match(row.file, source, base)
        if score and (best is None or score > best[0]):
            best = (score, row)
    return best[1].claims if best else None


@dataclass(frozen=True)
class FieldCheck:
    """One score-zone field: what the player wrote and what the sheet shows."""

    field: str
    """One of ``CLAIM_FIELDS``."""
    claimed: int | None
    """``None`` when not claimed."""
    read: int
    """What the sheet shows (points; a count for the interchange fields)."""
    matches: bool
    """True when equal, or when nothing was claimed."""
    explanation: str
    """Plain English: "matches", "not claimed", or what explains the difference."""
    depends_on: tuple[str, ...] = ()
    """Doubtful sections ("x,y-x,y") that would change ``read`` if read the other way."""

    @property
    def label(self) -> str:
        return FIELD_LABELS[self.field]

    def to_dict(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "claimed": self.claimed,
            "read": self.read,
            "matches": self.matches,
            "explanation": self.explanation,
            "depends_on": list(self.depends_on),
        }


@dataclass(frozen=True)
class ArithmeticCheck:
    """The claim's own sum: do the claimed fields add up to the claimed total?"""

    claimed_total: int
    fields_sum: int
    """Claimed line scores + tourist points + interchange points of the claimed counts +
    objective boxes (+ the sheet's solo penalty), in points."""
    matches: bool
    explanation: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "claimed_total": self.claimed_total,
            "fields_sum": self.fields_sum,
            "matches": self.matches,
            "explanation": self.explanation,
        }


@dataclass(frozen=True)
class Verification:
    """A claim compared with a sheet, field by field."""

    checks: tuple[FieldCheck, ...]
    """Every field of ``CLAIM_FIELDS`` (objective boxes only as far as claimed or in play)."""
    all_match: bool
    """No claimed field differs from the sheet and the claim adds up."""
    arithmetic: ArithmeticCheck | None = None
    """``None`` unless every field that adds to the total and the total itself are claimed."""

    def check(self, field_name: str) -> FieldCheck:
        for c in self.checks:
            if c.field == field_name:
                return c
        raise KeyError(field_name)

    @property
    def mismatches(self) -> tuple[FieldCheck, ...]:
        return tuple(c for c in self.checks if not c.matches)

    @property
    def depends_on_doubt(self) -> bool:
        """Some claimed field is compared with a number that a doubtful section could change."""
        return any(c.depends_on for c in self.checks if c.claimed is not None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "all_match": self.all_match,
            "mismatches": [c.field for c in self.mismatches],
            "depends_on_doubtful_sections": self.depends_on_doubt,
            "checks": [c.to_dict() for c in self.checks],
            "arithmetic": self.arithmetic.to_dict() if self.arithmetic else None,
        }


def _depends_key(field_name: str) -> str:
    """The key of ``SheetReport.depends_on`` that covers a claim field."""
    if field_name in LINE_COLOURS:
        return f"{field_name}_line"
    if field_name == "tourist":
        return "tourist_points"
    if field_name.startswith("interchanges_"):
        return "interchange_points"
    if field_name.startswith("objective_"):
        return "objectives"
    return field_name


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _line_sum(ls: LineScore) -> str:
    where = f", in {ls.max_district}" if ls.max_district else ""
    doubled = f", {ls.doubled_station} circled counts twice" if ls.doubled_station else ""
    most = f"the most stations in one district{where}{doubled}"
    text = f"{_plural(ls.districts, 'district')} × {ls.max_in_district} ({most})"
    if ls.thames:
        text += f" + 2 × {_plural(ls.thames, 'Thames crossing')}"
    return f"{text}: {ls.formula()}"


def _line_hint(claimed: int, ls: LineScore) -> str:
    """A likely slip that gives exactly the claimed number, if there is one."""
    d, m, t = ls.districts, ls.max_in_district, ls.thames
    if t and claimed == d * m:
        return "; you may have left out the Thames crossings"
    for dd in (-1, 1):
        if d + dd >= 0 and claimed == (d + dd) * m + 2 * t:
            return f"; you may have counted {_plural(d + dd, 'district')}"
    for dm in (-1, 1):
        if m + dm >= 0 and claimed == d * (m + dm) + 2 * t:
            return f"; you may have counted {m + dm} stations in {ls.max_district or 'one district'}"
    for dt in (-1, 1):
        if t + dt >= 0 and claimed == d * m + 2 * (t + dt):
            return f"; you may have counted {_plural(t + dt, 'Thames crossing')}"
    return ""


def _explain_line(claimed: int, ls: LineScore) -> str:
    empty = f" (nothing is drawn in {ls.colour})" if ls.stations == 0 else ""
    return f"{ls.colour} line: you wrote {claimed}, the sheet shows {_line_sum(ls)}{empty}{_line_hint(claimed, ls)}"


def _sites_by_line(card: ScoreCard) -> str:
    parts = [f"{ls.colour} at {' and '.join(ls.tourist_sites)}" for ls in card.lines if ls.tourist_sites]
    return "; ".join(parts) if parts else "no line serves a tourist site"


def _explain_tourist(claimed: int, card: ScoreCard, track: Sequence[int]) -> str:
    wrote = f"you wrote {claimed}"
    if claimed in track:
        wrote += f" ({_plural(track.index(claimed), 'circle')} crossed)"
    else:
        wrote += ", which is not a value on the tourist track"
    capped = f", and the track stops at {card.tourist_circles}" if card.tourist_sites > card.tourist_circles else ""
    return (
        f"tourist: {wrote}; the lines serve {_plural(card.tourist_sites, 'tourist site')}{capped} → "
        f"{_plural(card.tourist_circles, 'circle')} → {card.tourist_points} points ({_sites_by_line(card)})"
    )


def _stations_on(card: ScoreCard, n: int) -> str:
    return ", ".join(f"{name} ({', '.join(cs)})" for name, cs in card.interchanges.stations if len(cs) == n)


def _explain_interchanges(claimed: int, read: int, n: int, card: ScoreCard) -> str:
    word = _COUNT_WORD[n]
    has = f"the sheet has {read}: {_stations_on(card, n)}" if read else "the sheet has 0"
    others = [
        f"on {k} lines: {_stations_on(card, k)}"
        for k in INTERCHANGE_KINDS
        if k > n and any(len(cs) == k for _, cs in card.interchanges.stations)
    ]
    also = f" (also {'; '.join(others)})" if others else ""
    return f"you counted {_plural(claimed, f'{word}-line interchange')}, {has}{also}"


def _objective_detail(key: str, card: ScoreCard, game_map: GameMap) -> str:
    if key == "interchanges_8":
        n = len(card.interchanges.stations)
        return f": {_plural(n, 'interchange station')} (needs {OBJECTIVE_MIN_INTERCHANGES})"
    if key == "thames_6":
        n = sum(ls.thames for ls in card.lines)
        return f": {_plural(n, 'Thames crossing')} (needs {OBJECTIVE_MIN_THAMES})"
    if key == "all_tourist_sites":
        served = {s for ls in card.lines for s in ls.tourist_sites}
        return f": {len(served)} of {len(game_map.tourist_sites)} tourist sites served"
    return ""


def _explain_objective(claimed: int, box: int, card: ScoreCard, game_map: GameMap) -> str:
    if box >= len(card.objectives):
        return (
            f"objective {box + 1}: you wrote {claimed}, but no objective {box + 1} is in play for this sheet "
            "(name the objectives in play with --objective)"
        )
    obj = card.objectives[box]
    verdict = "meets it" if obj.met else "does not meet it"
    return (
        f"objective {box + 1} ({obj.description}): you wrote {claimed}, the sheet {verdict}"
        f"{_objective_detail(obj.key, card, game_map)} → {obj.points}"
    )


def _breakdown(lines: int, tourist: int, interchanges: int, objectives: int, solo: int) -> str:
    text = f"lines {lines} + tourist {tourist} + interchanges {interchanges}"
    if objectives:
        text += f" + objectives {objectives}"
    if solo:
        text += f" − solo penalty {-solo}"
    return text


def _explain_total(claimed: int, card: ScoreCard) -> str:
    parts = _breakdown(
        card.lines_total,
        card.tourist_points,
        card.interchanges.points,
        sum(o.points for o in card.objectives),
        card.solo_penalty,
    )
    return f"total: you wrote {claimed}, the sheet adds up to {card.total} ({parts})"


def _arithmetic(claims: Claims, card: ScoreCard, game_map: GameMap) -> ArithmeticCheck | None:
    lines = [claims.lines[c] for c in LINE_COLOURS]
    counts = claims.interchanges
    if claims.total is None or claims.tourist is None or any(v is None for v in (*lines, *counts, *claims.objectives)):
        return None
    line_sum = sum(v for v in lines if v is not None)
    ic = sum(game_map.interchange_points.get(n, 0) * (k or 0) for n, k in zip(INTERCHANGE_KINDS, counts, strict=True))
    # Objective boxes left off the claim are blank on the sheet: they add nothing.
    objectives = sum(v for v in claims.objectives if v is not None)
    total = line_sum + claims.tourist + ic + objectives + card.solo_penalty
    if total == claims.total:
        return ArithmeticCheck(claims.total, total, True, "your fields add up to your total")
    parts = _breakdown(line_sum, claims.tourist, ic, objectives, card.solo_penalty)
    return ArithmeticCheck(
        claims.total, total, False, f"your fields add up to {total}, not the {claims.total} you wrote ({parts})"
    )


def verify_claims(
    claims: Claims,
    card: ScoreCard,
    game_map: GameMap | None = None,
    *,
    depends_on: Mapping[str, Sequence[str]] | None = None,
) -> Verification:
    """Compare every claimed field with the score card and explain each difference.

    ``game_map`` (default: the bundled London map) gives the tourist track and interchange
    points used to explain and to check the claim's own sum; ``depends_on`` is
    ``SheetReport.depends_on`` (score field -> doubtful sections), copied onto the checks it affects.
    """
    if game_map is None:
        from nsvision.calibration import load_calibration  # the game layer does not load files by default

        game_map = load_calibration().map
    doubt = depends_on or {}
    track = game_map.tourist_track
    checks: list[FieldCheck] = []

    def add(name: str, read: int, explain: Callable[[int], str]) -> None:
        claimed = claims.value(name)
        if claimed is None:
            text, ok = "not claimed", True
        elif claimed == read:
            text, ok = "matches", True
        else:
            text, ok = explain(claimed), False
        checks.append(FieldCheck(name, claimed, read, ok, text, tuple(doubt.get(_depends_key(name), ()))))

    for ls in card.lines:
        add(ls.colour, ls.score, partial(_explain_line, ls=ls))
    add("tourist", card.tourist_points, partial(_explain_tourist, card=card, track=track))
    ic = card.interchanges
    for n, read in zip(INTERCHANGE_KINDS, (ic.two, ic.three, ic.four), strict=True):
        add(f"interchanges_{n}", read, partial(_explain_interchanges, read=read, n=n, card=card))
    for box in range(min(OBJECTIVE_BOXES, max(len(claims.objectives), len(card.objectives)))):
        read = card.objectives[box].points if box < len(card.objectives) else 0
        add(f"objective_{box + 1}", read, partial(_explain_objective, box=box, card=card, game_map=game_map))
    add("total", card.total, partial(_explain_total, card=card))
    arithmetic = _arithmetic(claims, card, game_map)
    all_match = all(c.matches for c in checks) and (arithmetic is None or arithmetic.matches)
    return Verification(checks=tuple(checks), all_match=all_match, arithmetic=arithmetic)
