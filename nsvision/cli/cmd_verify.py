"""``nsvision verify SHEET``: compare the totals a player claims with what the sheet shows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from nsvision.calibration import load_calibration
from nsvision.claims import (
    Claims,
    ClaimsRow,
    Verification,
    find_claims,
    parse_claims,
    read_claims_csv,
    verify_claims,
)
from nsvision.cli.app import app, err_console, guarded, out_console
from nsvision.cli.cmd_score import CalibrationOpt, FixOpt, ObjectiveOpt, is_network_file, read_any
from nsvision.errors import ClaimError, ExitCode
from nsvision.game.board import GameMap
from nsvision.pipeline import SheetFailure, SheetReport, SheetResult
from nsvision.report import render_result
from nsvision.vision.load import page_count

_SEVERITY = (ExitCode.INTERNAL, ExitCode.BAD_INPUT, ExitCode.NO_MAP, ExitCode.NEEDS_REVIEW, ExitCode.RULES_BROKEN)
"""Most serious first, as in ``pipeline.overall_exit_code``."""


@dataclass(frozen=True)
class VerifiedSheet:
    """One sheet of the input with the claim that applies to it and the comparison."""

    result: SheetResult
    claims: Claims | None
    verification: Verification | None
    """``None`` when the sheet could not be read or no claim names it."""
    problem: str | None = None
    """Why there is no comparison for a sheet that was read (no CSV row for it)."""

    @property
    def exit_code(self) -> ExitCode:
        if isinstance(self.result, SheetFailure):
            return self.result.exit_code
        if self.problem is not None or self.verification is None:
            return ExitCode.BAD_INPUT
        if self.result.needs_review:
            return ExitCode.NEEDS_REVIEW
        if self.result.violations or not self.verification.all_match:
            return ExitCode.RULES_BROKEN
        return ExitCode.OK

    def to_dict(self) -> dict[str, Any]:
        out = self.result.to_dict()
        out["claims"] = self.claims.to_dict() if self.claims is not None else None
        out["verification"] = self.verification.to_dict() if self.verification is not None else None
        if self.problem is not None:
            out["claims_error"] = self.problem
        out["exit_code"] = int(self.exit_code)
        return out


def _most_serious(codes: list[ExitCode]) -> ExitCode:
    return next((c for c in _SEVERITY if c in codes), ExitCode.OK)


def _verify_sheet(
    result: SheetResult,
    claimed: Claims | None,
    rows: list[ClaimsRow] | None,
    csv_path: Path | None,
    game_map: GameMap,
) -> VerifiedSheet:
    if isinstance(result, SheetFailure):
        return VerifiedSheet(result, claimed, None)
    claims = claimed
    if rows is not None:
        claims = find_claims(rows, result.source, result.page, csv_dir=csv_path.parent if csv_path else None)
        if claims is None:
            page = f" page {result.page}" if result.page > 1 else ""
            problem = (
                f"no row in {csv_path} for {result.source}{page} — add a row with file={Path(result.source).name}"
                f" and page={result.page}"
            )
            return VerifiedSheet(result, None, None, problem)
    assert claims is not None  # one of --claimed / --claims-csv was given
    verification = verify_claims(claims, result.score, game_map, depends_on=result.depends_on)
    return VerifiedSheet(result, claims, verification)


_MARK = {True: "[green]✓ matches[/]", False: "[red]✗ differs[/]", None: "[dim]not claimed[/]"}


def render_verification(sheet: VerifiedSheet, console: Console) -> None:
    """The claimed-vs-read table of one sheet, then every difference explained in full sentences."""
    if sheet.problem is not None:
        console.print(f"[red]claims:[/] {sheet.problem}")
        return
    v = sheet.verification
    if v is None or sheet.claims is None:
        return
    who = f" by {sheet.claims.player}" if sheet.claims.player else ""
    table = Table(title=f"claimed{who} vs. read", title_justify="left", show_edge=False)
    for name, justify in (("field", "left"), ("claimed", "right"), ("read", "right"), ("", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    doubtful = any(c.depends_on for c in v.checks)
    if doubtful:
        table.add_column("read with doubt", justify="left")
    for c in v.checks:
        cells = [
            c.label,
            "—" if c.claimed is None else str(c.claimed),
            str(c.read),
            _MARK[None if c.claimed is None else c.matches],
        ]
        if doubtful:
            cells.append(f"[yellow]{', '.join(c.depends_on)}[/]")
        table.add_row(*cells)
    console.print(table)
    for c in v.mismatches:
        doubt = f" [yellow](depends on doubtful {', '.join(c.depends_on)})[/]" if c.depends_on else ""
        console.print(f"[red]✗[/] {c.explanation}{doubt}")
    if v.arithmetic is not None and not v.arithmetic.matches:
        console.print(f"[red]✗[/] {v.arithmetic.explanation}")
    if v.all_match:
        console.print("[green]every claimed number matches the sheet[/]")
    else:
        n = len(v.mismatches)
        console.print(
            f"[red]{n} claimed number{'s' if n != 1 else ''} do{'es' if n == 1 else ''} not match the sheet[/]"
        )
    report = sheet.result
    if isinstance(report, SheetReport) and report.needs_review and v.depends_on_doubt:
        verdict = "agree" if v.all_match else "disagree"
        console.print(
            f"[yellow]the numbers {verdict}, but the comparison depends on sections read with doubt (listed above): "
            "look at them on the sheet before trusting it[/]"
        )


def _load_claims(claimed: str | None, claims_csv: Path | None) -> tuple[Claims | None, list[ClaimsRow] | None]:
    if claimed is not None and claims_csv is not None:
        raise ClaimError("--claimed", "give either --claimed or --claims-csv, not both")
    if claimed is None and claims_csv is None:
        raise ClaimError(
            "verify",
            "no claim given",
            'say what the player claims with --claimed "lines=20,16,29,22 tourist=14 interchanges=9,0,0 '
            'total=119" or --claims-csv FILE (one row per sheet)',
        )
    if claimed is not None:
        return parse_claims(claimed), None
    assert claims_csv is not None
    return None, read_claims_csv(claims_csv)


@app.command()
def verify(
    file: Annotated[Path, typer.Argument(help="Photo, scan, PDF or network JSON of the sheet.")],
    claimed: Annotated[
        str | None,
        typer.Option(
            "--claimed",
            help='What the player claims, e.g. "lines=20,16,29,22 tourist=14 interchanges=9,0,0 objectives=10,0 '
            'total=119" (interchanges are counts of 2-, 3-, 4-line stations; - or ? for a value not claimed).',
        ),
    ] = None,
    claims_csv: Annotated[
        Path | None,
        typer.Option(
            "--claims-csv",
            help="CSV with one row per sheet: file, page, player, purple, blue, pink, green, tourist, "
            "interchanges_2, interchanges_3, interchanges_4, objective_1, objective_2, total.",
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print a machine-readable JSON report.")] = False,
    calibration: CalibrationOpt = None,
    objective: ObjectiveOpt = None,
    solo: Annotated[bool, typer.Option("--solo", help="Solo game: −10 per advanced module, rating band.")] = False,
    fix: FixOpt = None,
) -> None:
    """Check the totals a player claims against what the sheet shows, and explain every difference.

    Exit code: 0 all match, 1 a claim differs or a rule is broken, 3 needs review, 4 bad claims or input, 5 no map.
    """
    single, rows = guarded(lambda: _load_claims(claimed, claims_csv))
    if single is not None and file.exists() and not is_network_file(file):
        # Refuse before the slow reading of every page.
        pages = guarded(lambda: page_count(file))
        if pages > 1:
            guarded(lambda: _refuse_one_claim_for_many(file, pages))
    results = guarded(lambda: read_any(file, calibration, objective, solo, fix))
    if single is not None and len(results) > 1:
        guarded(lambda: _refuse_one_claim_for_many(file, len(results)))
    game_map = guarded(lambda: load_calibration(calibration)).map
    sheets = [_verify_sheet(r, single, rows, claims_csv, game_map) for r in results]
    if json_out:
        body: Any = sheets[0].to_dict() if len(sheets) == 1 else {"sheets": [s.to_dict() for s in sheets]}
        typer.echo(json.dumps(body, indent=2))
    else:
        for sheet in sheets:
            render_result(sheet.result, out_console)
            render_verification(sheet, out_console)
    for sheet in sheets:
        if sheet.problem is not None and json_out:
            err_console.print(f"[bold red]error:[/] {sheet.problem}")
    code = _most_serious([s.exit_code for s in sheets])
    if code != ExitCode.OK:
        raise typer.Exit(int(code))


def _refuse_one_claim_for_many(file: Path, count: int) -> None:
    raise ClaimError(
        str(file),
        f"holds {count} sheets, but --claimed gives one claim",
        "use --claims-csv with one row per page (columns file, page, then the claimed fields)",
    )
