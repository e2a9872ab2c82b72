"""Human and machine renderings of sheet results (text tables with rich, JSON)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from nsvision.pipeline import SheetFailure, SheetReport, SheetResult, fix_option

_STYLE = {"purple": "magenta", "blue": "blue", "pink": "bright_magenta", "green": "green"}
_STATUS = {
    "ok": "[green]legal[/]",
    "rules_broken": "[red]rules broken[/]",
    "needs_review": "[yellow]needs review[/]",
    "failed": "[red]failed[/]",
    "no_map": "[red]no map found[/]",
}


def results_json(results: Sequence[SheetResult], *, multi: bool) -> str:
    """One object for a single sheet; ``{"sheets": [...]}`` for an input holding several."""
    if multi:
        return json.dumps({"sheets": [r.to_dict() for r in results]}, indent=2)
    return json.dumps(results[0].to_dict(), indent=2)


def render_result(result: SheetResult, console: Console) -> None:
    """Print one sheet's score card, violations and doubts."""
    title = f"{result.source}" + (f" (page {result.page})" if result.page > 1 else "")
    if isinstance(result, SheetFailure):
        console.print(f"[bold]{title}[/]: {_STATUS[result.status]} — {result.error.message}")
        return
    _render_report(result, title, console)


def _render_report(report: SheetReport, title: str, console: Console) -> None:
    card = report.score
    table = Table(title=f"{title} — {_STATUS[report.status]}", title_justify="left", show_edge=False)
    for name, justify in (
        ("line", "left"),
        ("sections", "right"),
        ("districts", "right"),
        ("most", "right"),
        ("Thames", "right"),
        ("score", "right"),
        ("", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for line in card.lines:
        table.add_row(
            f"[{_STYLE[line.colour]}]{line.colour}[/]",
            str(line.sections),
            str(line.districts),
            str(line.max_in_district),
            str(line.thames),
            f"[bold]{line.score}[/]",
            line.formula(),
        )
    console.print(table)
    doubled = [f"{line.colour} at {line.doubled_station}" for line in card.lines if line.doubled_station]
    if doubled:
        console.print(f"double station (circled): {', '.join(doubled)}, counted twice in its district")
    ic = card.interchanges
    console.print(
        f"tourist sites: {card.tourist_sites} → {card.tourist_circles} circles crossed → {card.tourist_points} points"
    )
    console.print(f"interchanges: {ic.two} × 2 lines, {ic.three} × 3 lines, {ic.four} × 4 lines → {ic.points} points")
    for obj in card.objectives:
        console.print(f"objective {obj.key}: {'met' if obj.met else 'not met'} → {obj.points} points")
    if card.solo_rating is not None:
        console.print(f"solo: {card.solo_penalty} for advanced modules, rating {card.solo_rating}")
    console.print(f"[bold]total: {card.total}[/]")
    for v in report.violations:
        console.print(f"[red]rule broken[/] ({v.code}): {v.message}")
    for diff in report.mark_differences:
        console.print(f"[yellow]score zone[/]: {diff}")
    if report.reading is not None and report.reading.set_by_hand:
        told = ", ".join(f"{r.section.name} {r.as_read}" for r in report.reading.set_by_hand)
        console.print(f"set by hand: {told}")
    for reason in report.review_reasons:
        console.print(f"[yellow]needs review[/]: {reason}")
    if report.reading is not None and report.reading.doubtful:
        for r in report.reading.doubtful:
            drawn = f"read as {r.as_read}"
            console.print(f"  {r.section.name}: {drawn}, confidence {r.confidence:.0%} — {r.reason}")
        if report.depends_on:
            parts = [f"{field} ({', '.join(secs)})" for field, secs in report.depends_on.items()]
            console.print("  numbers that depend on them: " + "; ".join(parts))
    if report.reading is not None and report.also_check:
        console.print("  also worth a look:")
        for s, why in report.also_check:
            console.print(f"  {s.name}: read as {report.reading.sections[s].as_read} — {why}")
    if report.reading is not None and report.sections_to_check:
        doubtful = report.reading.doubtful
        as_read = " ".join(fix_option(r.section.name, r.colour, report.page, r.also) for r in doubtful)
        console.print(
            "  [dim]check them, and every line, on the sheet (--overlay out.png shows what was read, and each of "
            "them close); then score "
            "again with --fix x,y-x,y=COLOUR for each section checked (none: not drawn; COLOUR+COLOUR: drawn "
            "in both)" + (f", here as read: {as_read}" if doubtful else "") + "[/]",
            markup=True,
        )
    if report.circles_in_doubt:
        console.print(
            "  [dim]check the circles named above on the sheet; then score again saying which station each "
            "line circled: --fix COLOUR=x,y (--fix COLOUR=none: that line circled none)[/]",
            markup=True,
        )
    if report.registration is not None:
        reg = report.registration
        console.print(
            f"[dim]map found: {reg.stations_found}/{len(reg.station_xy_px)} station symbols, "
            f"residual {reg.median_residual:.3f} pitch, {report.seconds:.2f} s[/]"
        )
