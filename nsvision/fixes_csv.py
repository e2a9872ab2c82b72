"""A batch's fixes CSV: what a person settled on each sheet after a review (``nsvision batch --fixes``).

One row per sheet (or per fix): ``file``, ``page`` (default 1) and ``fix``, which holds one or more
fixes as ``nsvision score --fix`` takes them, separated by spaces: ``x,y-x,y=COLOUR`` for a section,
``COLOUR=x,y`` for the station a line circled. The ``--fix`` part of the command a batch's HTML
report shows for a sheet in doubt can be pasted as it is. Files are named as in a claims CSV: a bare
name matches that name in any folder, a path the end of the sheet's path or the same file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from nsvision.claims import page_cell, read_csv_table
from nsvision.errors import InputError
from nsvision.game.board import GameMap
from nsvision.pipeline import Fix, parse_fix

FIXES_CSV_SYNTAX = (
    "a header row with the columns file, page (default 1) and fix; in fix, one or more of "
    "x,y-x,y=COLOUR and COLOUR=x,y separated by spaces, as `nsvision score --fix` takes them "
    "(a fix holds commas: quote the cell, or separate the columns with ;)"
)


@dataclass(frozen=True)
class FixesRow:
    """One fix of the CSV, for one page of one file."""

    file: str
    """The file as written in the CSV."""
    page: int
    fix: Fix
    """With its page cleared: it is for ``page`` of ``file``."""
    line: int
    """Line number in the CSV (1-based), for messages."""


def read_fixes_csv(path: str | Path, game_map: GameMap) -> list[FixesRow]:
    """Read a fixes CSV (see ``FIXES_CSV_SYNTAX``); every bad row is reported at once with its line number.

    Raises ``InputError`` when the file cannot be read or holds a malformed row.
    """
    source = str(path)
    rows, first = read_csv_table(path, "fixes CSV", FIXES_CSV_SYNTAX)
    columns = [h.strip().lower() for h in rows[first]]
    missing = [c for c in ("file", "fix") if c not in columns]
    unknown = [c for c in columns if c not in ("file", "page", "fix")]
    if missing or unknown or len(set(columns)) < len(columns):
        said = [f"no {c!r} column" for c in missing] + [f"unknown column {c!r}" for c in unknown]
        raise _fail(source, [f"line {first + 1} (header): {'; '.join(said) or 'a column appears twice'}"])
    out: list[FixesRow] = []
    problems: list[str] = []
    for index in range(first + 1, len(rows)):
        cells, number = rows[index], index + 1
        if not any(c.strip() for c in cells) or cells[0].lstrip().startswith("#"):
            continue
        if len(cells) > len(columns):
            problems.append(
                f"line {number}: {len(cells)} cells but the header has {len(columns)} columns "
                "(is a fix's commas unquoted?)"
            )
            continue
        cell = {col: (cells[i].strip() if i < len(cells) else "") for i, col in enumerate(columns)}
        out += _row(cell, number, game_map, problems)
    if problems:
        raise _fail(source, problems)
    return out


def _row(cell: dict[str, str], number: int, game_map: GameMap, problems: list[str]) -> list[FixesRow]:
    here: list[str] = []
    file = cell["file"]
    if not file:
        here.append("the 'file' cell is empty")
    page = page_cell(cell.get("page", ""), here)
    # ``--fix`` may come along when the report's command is pasted.
    tokens = [t for t in re.split(r"\s+", cell["fix"]) if t and t != "--fix"]
    if not tokens:
        here.append("the 'fix' cell is empty")
    out: list[FixesRow] = []
    for token in tokens:
        try:
            fix = parse_fix(token, game_map)
        except ValueError as exc:
            here.append(str(exc))
            continue
        if page is not None and fix.page is not None and fix.page != page:
            here.append(f"{token!r} is for page {fix.page}, but the row is for page {page}")
            continue
        out.append(FixesRow(file, page or fix.page or 1, replace(fix, page=None), number))
    problems += [f"line {number}: {p}" for p in here]
    return [] if here else out


def _fail(source: str, problems: Sequence[str]) -> InputError:
    listed = problems[0] if len(problems) == 1 else "\n  " + "\n  ".join(problems)
    return InputError(source, f"cannot read the fixes: {listed}", FIXES_CSV_SYNTAX)
