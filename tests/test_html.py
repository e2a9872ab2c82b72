"""The batch's index.html: input text is escaped, and a real browser loads it cleanly with the expected rows."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nsvision.batch import INDEX_HTML, BatchSettings, SheetRow, leaderboard, run_batch, write_reports
from nsvision.errors import ExitCode
from nsvision.game.board import GameMap
from nsvision.game.inject import inject_violation
from nsvision.game.simulate import simulate_game
from nsvision.html_report import _fix_command

HOSTILE_FILE = "<img src=x onerror=alert(1)>"
HOSTILE_PLAYER = "<script>alert(1)</script>"


def _network(path: Path, game_map: GameMap, seed: int, violation: str | None = None) -> None:
    network = simulate_game(game_map, seed).network
    if violation is not None:
        network = inject_violation(network, violation, game_map, seed)
    path.write_text(json.dumps(network.to_dict()), encoding="utf-8")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, game_map: GameMap) -> tuple[Path, int]:
    """A batch over network files (no pictures: fast) with hostile names, a broken rule and a bad file."""
    root = tmp_path_factory.mktemp("html")
    sheets = root / "sheets"
    sheets.mkdir()
    _network(sheets / f"{HOSTILE_FILE}.json", game_map, 21)
    _network(sheets / "b&b.json", game_map, 22, "cycle")
    _network(sheets / "plain.json", game_map, 23)
    (sheets / f"{HOSTILE_FILE}.png").write_text("not a picture")
    claims = root / "claims.csv"
    claims.write_text(f'file,player,total\nplain.json,"{HOSTILE_PLAYER}",1\n', encoding="utf-8")
    out = root / "out"
    summary = run_batch([sheets], out, BatchSettings(claims_csv=str(claims)), workers=1)
    return out, summary.sheets


def test_everything_from_the_input_is_escaped(report: tuple[Path, int]) -> None:
    out, _ = report
    page = (out / INDEX_HTML).read_text(encoding="utf-8")
    assert HOSTILE_FILE not in page
    assert HOSTILE_PLAYER not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "b&amp;b.json" in page
    assert "<script" not in page


def _chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        pytest.skip("Debian's chromium is not installed (CI installs it)")
    return path


def _load(html_file: Path, tmp_path: Path) -> tuple[str, list[str]]:
    """The DOM after load and the console messages of the page, from headless chromium."""
    cmd = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        "--dump-dom",
        html_file.resolve().as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console


def test_the_console_check_sees_page_errors(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><body><script>console.error("broken page")</script></body></html>')
    _, console = _load(page, tmp_path)
    assert any("broken page" in line for line in console)


def test_a_browser_shows_the_leaderboard_without_console_errors(report: tuple[Path, int], tmp_path: Path) -> None:
    out, sheets = report
    dom, console = _load(out / INDEX_HTML, tmp_path)
    assert console == []
    rows = re.findall(r'<tr class="standing[^"]*">(.*?)</tr>', dom, flags=re.S)
    assert len(rows) == sheets == 4
    sources = [re.search(r'<td class="source"><a [^>]*>(.*?)</a>', r, flags=re.S).group(1) for r in rows]  # type: ignore[union-attr]
    names = [Path(s).name for s in sources]
    # Ranked sheets by total first, the unreadable file last; the DOM serialiser re-escapes text.
    assert names[-1] == "&lt;img src=x onerror=alert(1)&gt;.png"
    assert re.search(r'<td class="num rank">–</td>', rows[-1])
    totals = [int(m.group(1)) for r in rows[:-1] if (m := re.search(r'<td class="num total">(\d+)</td>', r))]
    assert totals == sorted(totals, reverse=True) and len(totals) == 3
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert "<script" not in dom
    assert len(re.findall(r'<section class="sheet', dom)) == sheets
    # Sheets a person must check come first: the unreadable file, then the broken rule / differing claim.
    first_card = re.search(r'<section class="sheet status-(\w+)"', dom)
    assert first_card is not None and first_card.group(1) == "failed"


def test_standings_match_the_library_ranking(report: tuple[Path, int]) -> None:
    out, _ = report
    rows = json.loads((out / "results.json").read_text(encoding="utf-8"))
    standings = leaderboard([SheetRow.from_dict(r) for r in rows["sheets"]])
    assert [(s.rank, s.row.source) for s in standings] == [(e["rank"], e["source"]) for e in rows["leaderboard"]]


def test_only_the_batchs_own_thumbnails_are_embedded(tmp_path: Path) -> None:
    (tmp_path / "secret.jpg").write_bytes(b"private bytes")
    (tmp_path / "thumbs").mkdir()
    (tmp_path / "thumbs" / "a-p1-0123456789.jpg").write_bytes(b"thumbnail bytes")
    rows = [
        SheetRow("a.jpg", 1, "failed", ExitCode.BAD_INPUT, thumbnail="thumbs/a-p1-0123456789.jpg"),
        SheetRow("b.jpg", 1, "failed", ExitCode.BAD_INPUT, thumbnail="thumbs/../secret.jpg"),
    ]
    write_reports(tmp_path, rows)
    page = (tmp_path / INDEX_HTML).read_text(encoding="utf-8")
    assert base64.b64encode(b"thumbnail bytes").decode() in page
    assert base64.b64encode(b"private bytes").decode() not in page


def test_a_sheet_in_doubt_shows_the_command_that_settles_it_escaped() -> None:
    # A batch's sheet keeps the network read, not the per-section details.
    sheet = {
        "source": f"round 1/{HOSTILE_FILE}.pdf",
        "page": 2,
        "doubtful_sections": ["2,3-2,4", "4,5-4,6"],
        "network": {"lines": {"blue": [["4,5", "4,6"], ["5,7", "5,9"]], "green": []}},
    }
    html_text = _fix_command(sheet)
    assert "--fix 2:2,3-2,4=none --fix 2:4,5-4,6=blue</code>" in html_text
    assert "5,7-5,9" not in html_text
    # The path is quoted for a shell, then escaped for the page.
    assert "nsvision score &#x27;round 1/&lt;img src=x onerror=alert(1)&gt;.pdf&#x27;" in html_text
    assert _fix_command({**sheet, "doubtful_sections": []}) == ""


def test_a_sheet_with_circles_in_doubt_shows_how_to_settle_them() -> None:
    # Flagged for a station that may be circled, with no section in doubt: the command carries the
    # circle read (purple at 2,7) and says how to add the others.
    sheet = {
        "source": "round 1/a.jpg",
        "page": 1,
        "doubtful_sections": [],
        "circles_in_doubt": True,
        "network": {"lines": {"purple": [["2,7", "3,7"]]}, "doubled_stations": {"purple": "2,7"}},
    }
    html_text = _fix_command(sheet)
    assert "nsvision score &#x27;round 1/a.jpg&#x27; --fix purple=2,7</code>" in html_text
    assert "--fix COLOUR=x,y" in html_text
    assert _fix_command({**sheet, "circles_in_doubt": False}) == ""
