"""The batch's ``index.html``: one self-contained page (inline CSS, thumbnails as data URIs, no script).

The leaderboard comes first, then a card per sheet — sheets a person must look at (not read,
needing review, rules broken, claims that differ) before the clean ones. Every text taken from
the input (file names, players, claims, messages that quote them) goes through ``html.escape``,
and a Content-Security-Policy forbids scripts and remote loads should anything slip through.
"""

from __future__ import annotations

import base64
import html
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nsvision.batch import THUMBS_DIR, BatchSummary, SheetRow, Standing
from nsvision.game.board import LINE_COLOURS

_STATUS_LABEL = {
    "ok": "legal",
    "rules_broken": "rules broken",
    "needs_review": "needs review",
    "failed": "failed",
    "no_map": "no map found",
}
_THUMBNAIL_NAME = re.compile(re.escape(THUMBS_DIR) + r"/[A-Za-z0-9_.-]+\.jpg")
_LINE_CSS = {"purple": "#7b2d8e", "blue": "#1f5fbf", "pink": "#d6338a", "green": "#2f8f3a"}

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5rem;color:#1d1d1f;background:#fafafa}
h1{font-size:1.5rem;margin:0 0 .3rem}h2{font-size:1.2rem;margin:1.6rem 0 .6rem}
table{border-collapse:collapse;background:#fff}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.summary span{margin-right:1rem}
.badge{display:inline-block;padding:.05rem .45rem;border-radius:.6rem;font-size:.85em;color:#fff;background:#777}
.status-ok .badge,.badge.status-ok{background:#2f8f3a}
.status-rules_broken .badge,.badge.status-rules_broken{background:#c62828}
.status-needs_review .badge,.badge.status-needs_review{background:#c77700}
.status-failed .badge,.badge.status-failed,.status-no_map .badge,.badge.status-no_map{background:#555}
.badge.claims{background:#8e24aa}
.cards{display:flex;flex-wrap:wrap;gap:1rem}
.sheet{background:#fff;border:1px solid #ccc;border-left:6px solid #2f8f3a;border-radius:4px;padding:.8rem;
width:min(100%,58rem);box-sizing:border-box;display:flex;gap:1rem;flex-wrap:wrap}
.sheet.status-rules_broken{border-left-color:#c62828}.sheet.status-needs_review{border-left-color:#c77700}
.sheet.status-failed,.sheet.status-no_map{border-left-color:#555}
.sheet h3{margin:0 0 .4rem;font-size:1rem;word-break:break-all}
.sheet img{width:400px;max-width:100%;height:auto;border:1px solid #ddd}
.sheet .body{flex:1;min-width:18rem}
.sheet ul{margin:.3rem 0;padding-left:1.2rem}
.line{display:inline-block;width:.7rem;height:.7rem;border-radius:50%;margin-right:.3rem}
.error{color:#b00020}.muted{color:#666}
"""


def e(value: Any) -> str:
    """Escape a value for HTML text or a quoted attribute."""
    return html.escape("" if value is None else str(value), quote=True)


def _badge(status: str) -> str:
    return f'<span class="badge status-{e(status)}">{e(_STATUS_LABEL.get(status, status))}</span>'


def _title(row: SheetRow, multi_page: bool = False) -> str:
    return row.source + (f" (page {row.page})" if row.page > 1 or multi_page else "")


def _anchor(index: int) -> str:
    return f"sheet-{index + 1}"


def _card_order(row: SheetRow) -> int:
    """Sheets a person must look at first: not read, needs review, rules broken or claims differ, legal."""
    if not row.read:
        return 0
    if row.status == "needs_review":
        return 1
    if row.status == "rules_broken" or row.claims_differ:
        return 2
    return 3


def _leaderboard(
    standings: Sequence[Standing], anchors: Mapping[tuple[str, int], str], titles: Mapping[tuple[str, int], str]
) -> str:
    rows = []
    for s in standings:
        r = s.row
        total, best = r.tie_break if r.tie_break else ("", "")
        claims = ' <span class="badge claims">claims differ</span>' if r.claims_differ else ""
        rows.append(
            f'<tr class="standing status-{e(r.status)}">'
            f'<td class="num rank">{e(s.rank if s.rank is not None else "–")}</td>'
            f'<td class="player">{e(r.player or "")}</td>'
            f'<td class="source"><a href="#{anchors[r.key]}">{e(titles[r.key])}</a></td>'
            f'<td class="num total">{e(total)}</td><td class="num best">{e(best)}</td>'
            f"<td>{_badge(r.status)}{claims}</td></tr>"
        )
    return (
        '<table id="leaderboard"><thead><tr><th class="num">rank</th><th>player</th><th>sheet</th>'
        '<th class="num">total</th><th class="num">best line</th><th>status</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _thumbnail(row: SheetRow, title: str, out_dir: Path) -> str:
    if row.thumbnail is None:
        return ""
    if not _THUMBNAIL_NAME.fullmatch(row.thumbnail):
        # Only the batch's own thumbnails are embedded, never a file a damaged results line points at.
        return '<p class="muted">(thumbnail missing)</p>'
    try:
        data = (out_dir / row.thumbnail).read_bytes()
    except OSError:
        return '<p class="muted">(thumbnail missing)</p>'
    b64 = base64.b64encode(data).decode("ascii")
    return f'<img alt="what was read on {e(title)}" src="data:image/jpeg;base64,{b64}">'


def _score_table(score: Mapping[str, Any]) -> str:
    body = []
    for colour in LINE_COLOURS:
        line = score["lines"][colour]
        body.append(
            f'<tr><td><span class="line" style="background:{_LINE_CSS[colour]}"></span>{e(colour)}</td>'
            f'<td class="muted">{e(line.get("formula", ""))}</td><td class="num">{e(line["score"])}</td></tr>'
        )
    body.append(
        f'<tr><td>tourist</td><td class="muted">{e(score["tourist_sites"])} sites → '
        f'{e(score["tourist_circles"])} circles</td><td class="num">{e(score["tourist_points"])}</td></tr>'
    )
    ic = score["interchanges"]
    body.append(
        f'<tr><td>interchanges</td><td class="muted">{e(ic["two"])} × 2 lines, {e(ic["three"])} × 3, '
        f'{e(ic["four"])} × 4</td><td class="num">{e(ic["points"])}</td></tr>'
    )
    for obj in score.get("objectives", ()):
        met = "met" if obj["met"] else "not met"
        body.append(
            f'<tr><td>objective</td><td class="muted">{e(obj["description"])}: {met}</td>'
            f'<td class="num">{e(obj["points"])}</td></tr>'
        )
    if score.get("solo_penalty"):
        body.append(f'<tr><td>solo</td><td></td><td class="num">{e(score["solo_penalty"])}</td></tr>')
    body.append(f'<tr><th>total</th><th></th><th class="num total">{e(score["total"])}</th></tr>')
    return f'<table class="score">{"".join(body)}</table>'


def _list(title: str, items: Iterable[str], css: str = "") -> str:
    entries = "".join(f"<li>{e(i)}</li>" for i in items)
    if not entries:
        return ""
    return f'<div class="{css}"><strong>{e(title)}</strong><ul>{entries}</ul></div>'


def _fix_command(sheet: Mapping[str, Any]) -> str:
    """The command that scores the sheet again with what is in doubt settled as read, to edit once
    a person has checked it (empty when nothing is in doubt): its sections in doubt and, when
    circles round stations are, the circled stations read. What each was read as comes from the
    network read (a batch keeps no per-section details)."""
    doubtful = sheet.get("doubtful_sections", ())
    circles = bool(sheet.get("circles_in_doubt"))
    if not (doubtful or circles) or "source" not in sheet:
        return ""
    from nsvision.pipeline import circle_fix_option, fix_option  # OpenCV: only when a sheet is in doubt

    network = sheet.get("network", {})
    page = sheet.get("page", 1)
    read: dict[str, list[str]] = {}
    for colour, pairs in network.get("lines", {}).items():
        for pair in pairs:
            read.setdefault("-".join(pair), []).append(colour)
    fixes = []
    for name in doubtful:
        colours = read.get(name, [])
        fixes.append(fix_option(name, colours[0] if colours else None, page, colours[1] if len(colours) > 1 else None))
    if circles:
        fixes += [circle_fix_option(c, station, page) for c, station in network.get("doubled_stations", {}).items()]
    command = " ".join(["nsvision score", shlex.quote(str(sheet["source"])), *fixes])
    also = "; for the stations named as circled, add --fix COLOUR=x,y (COLOUR=none: no circle)" if circles else ""
    return (
        f'<p class="muted">once checked, score it again (as read; change what differs{e(also)}): '
        f"<code>{e(command)}</code>, or give the batch those --fix options in its fixes CSV (--fixes)</p>"
    )


def _claims_table(verification: Mapping[str, Any]) -> str:
    rows = [
        f'<tr class="{"match" if c["matches"] else "differs"}"><td>{e(c["field"])}</td>'
        f'<td class="num">{e(c["claimed"])}</td><td class="num">{e(c["read"])}</td><td>{e(c["explanation"])}</td></tr>'
        for c in verification.get("checks", ())
        if c.get("claimed") is not None
    ]
    if not rows:
        return ""
    return (
        '<table class="claims"><thead><tr><th>claimed field</th><th class="num">claimed</th>'
        f'<th class="num">read</th><th></th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def _card(index: int, row: SheetRow, title: str, out_dir: Path) -> str:
    sheet = row.sheet
    parts = [f"<h3>{e(title)}</h3>", "<p>", _badge(row.status)]
    if row.claims_differ:
        parts.append(' <span class="badge claims">claims differ</span>')
    if row.player:
        parts.append(f' player: <span class="player">{e(row.player)}</span>')
    parts.append("</p>")
    if row.error:
        parts.append(f'<p class="error">{e(row.error)}</p>')
    score = sheet.get("score")
    if row.read and isinstance(score, Mapping):
        parts.append(_score_table(score))
    parts.append(_list("rules broken", (f"{v['code']}: {v['message']}" for v in sheet.get("violations", ()))))
    parts.append(_list("needs review", sheet.get("review_reasons", ())))
    depends = sheet.get("depends_on", {})
    if depends:
        fields = ", ".join(k.replace("_", " ") for k in depends)
        parts.append(f'<p class="muted">numbers that depend on the sections in doubt: {e(fields)}</p>')
    also = sheet.get("also_check", ())
    parts.append(_list("also worth a look", (f"{x['section']}: {x['reason']}" for x in also)))
    parts.append(_list("settled by hand (--fixes)", row.fixes))
    parts.append(_fix_command(sheet))
    parts.append(_list("claim differences", row.claim_differences, "claim-differences"))
    if row.verification is not None:
        parts.append(_claims_table(row.verification))
    return (
        f'<section class="sheet status-{e(row.status)}" id="{_anchor(index)}">'
        f'{_thumbnail(row, title, out_dir)}<div class="body">{"".join(parts)}</div></section>'
    )


def render_html(standings: Sequence[Standing], rows: Sequence[SheetRow], summary: BatchSummary, out_dir: Path) -> str:
    """The whole page; thumbnails are read from ``out_dir`` and embedded."""
    anchors = {r.key: _anchor(i) for i, r in enumerate(rows)}
    multi_page = {r.source for r in rows if r.page > 1}
    titles = {r.key: _title(r, r.source in multi_page) for r in rows}
    order = sorted(range(len(rows)), key=lambda i: (_card_order(rows[i]), i))
    cards = "".join(_card(i, rows[i], titles[rows[i].key], out_dir) for i in order)
    counts = (
        f"<span>{summary.sheets} sheets</span><span>{summary.ok} legal</span>"
        f"<span>{summary.rules_broken} rules broken</span><span>{summary.needs_review} need review</span>"
        f"<span>{summary.failed} not read</span>"
        + (f"<span>{summary.claims_differ} claims differ</span>" if summary.claims_differ else "")
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        "style-src 'unsafe-inline'\">"
        f"<title>nsvision batch — {summary.sheets} sheets</title><style>{_CSS}</style></head><body>"
        f'<h1>Next Station: London — results</h1><p class="summary">{counts}</p>'
        f"<h2>Leaderboard</h2>{_leaderboard(standings, anchors, titles)}"
        f'<h2>Sheets</h2><div class="cards">{cards}</div>'
        "</body></html>\n"
    )
