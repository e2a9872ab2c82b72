"""`nsvision batch`: same results as reading each sheet alone, failures recorded, ranking, resume, exit codes.

One small round of sheets is generated per test session (two phone photos, a scan, a two-page
PDF, a truncated JPEG, a network JSON, plus files a folder walk must skip) and batched once;
the tests below inspect that run, and the cheap cases use network JSON files only.
"""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from nsvision.batch import (
    INDEX_HTML,
    RESULTS_CSV,
    RESULTS_JSON,
    RESULTS_JSONL,
    SheetRow,
    batch_exit_code,
    enumerate_jobs,
    find_sheet_files,
    leaderboard,
    write_reports,
)
from nsvision.calibration import Calibration
from nsvision.cli import app
from nsvision.errors import ExitCode, InputError
from nsvision.fixes_csv import read_fixes_csv
from nsvision.game.board import GameMap
from nsvision.game.inject import inject_violation
from nsvision.game.simulate import simulate_game
from nsvision.pipeline import SheetReport, analyze_file, fix_text, parse_fix, score_network_file
from nsvision.render.sample import make_sample, write_sample

runner = CliRunner()
REPORTS = (RESULTS_CSV, RESULTS_JSON, "leaderboard.csv", "index.html")


def _batch(*args: str) -> Result:
    return runner.invoke(app, ["batch", *args])


def _network_file(path: Path, game_map: GameMap, seed: int, violation: str | None = None) -> Path:
    network = simulate_game(game_map, seed).network
    if violation is not None:
        network = inject_violation(network, violation, game_map, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(network.to_dict()), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Round:
    folder: Path
    out: Path
    result: Result
    truncated: Path
    pdf: Path


@pytest.fixture(scope="session")
def round_(tmp_path_factory: pytest.TempPathFactory, calibration: Calibration) -> Round:
    root = tmp_path_factory.mktemp("batch")
    folder = root / "round"
    # Photos at 2 MP instead of a phone's 12: the same pipeline, a quarter of the time.
    photo = write_sample(make_sample(calibration, 3, megapixels=2.0), folder / "table1", "jpg")[0]
    broken_rule = make_sample(calibration, 4, violation="sections_cross", megapixels=2.0)
    write_sample(broken_rule, folder / "table2", "jpg")
    write_sample(make_sample(calibration, 5, mode="scan", dpi=150), folder / "table10", "png")
    pdf = write_sample(make_sample(calibration, 6, mode="scan", dpi=150, pages=2), folder / "table3", "pdf")[0]
    data = photo.read_bytes()
    truncated = folder / "table4" / "cut.jpg"
    truncated.parent.mkdir()
    truncated.write_bytes(data[: len(data) // 2])
    _network_file(folder / "table5" / "typed-in.json", calibration.map, 8)
    (folder / "notes.txt").write_text("not a sheet")
    (folder / ".hidden.jpg").write_bytes(data)
    out = root / "results"
    result = _batch(str(folder), "--out", str(out), "--workers", "2")
    return Round(folder, out, result, truncated, pdf)


def _rows(out: Path) -> list[dict]:
    return json.loads((out / RESULTS_JSON).read_text(encoding="utf-8"))["sheets"]


def test_walks_folders_in_natural_order_and_skips_what_is_not_a_sheet(round_: Round) -> None:
    sources = [Path(r["source"]).relative_to(round_.folder).as_posix() for r in _rows(round_.out)]
    assert sources == [
        "table1/photo-3.jpg",
        "table2/photo-4.jpg",
        "table3/scan-6.pdf",
        "table3/scan-6.pdf",
        "table4/cut.jpg",
        "table5/typed-in.json",
        "table10/scan-5.png",
    ]


def test_each_sheet_as_nsvision_score_reads_it(round_: Round, calibration: Calibration) -> None:
    expected: dict[tuple[str, int], tuple[str, int | None]] = {}
    for path in find_sheet_files([round_.folder]):
        if path.suffix == ".json":
            report = score_network_file(path, calibration)
            expected[(str(path), 1)] = (report.status, report.total)
            continue
        try:
            for r in analyze_file(path, calibration):
                expected[(str(path), r.page)] = (r.status, r.total if isinstance(r, SheetReport) else None)
        except InputError:
            expected[(str(path), 1)] = ("failed", None)
    got = {(r["source"], r["page"]): (r["status"], r.get("total")) for r in _rows(round_.out)}
    assert got == expected
    assert {status for status, _ in got.values()} & {"ok", "rules_broken", "needs_review"}


def test_a_corrupt_file_is_a_failed_row_and_the_others_are_read(round_: Round) -> None:
    rows = {r["source"]: r for r in _rows(round_.out)}
    bad = rows.pop(str(round_.truncated))
    assert bad["status"] == "failed"
    assert bad["exit_code"] == ExitCode.BAD_INPUT
    assert "cut.jpg" in bad["error"]
    assert all(r["tie_break"] is not None for r in rows.values())
    with (round_.out / RESULTS_CSV).open(encoding="utf-8-sig", newline="") as fh:
        csv_rows = {r["source"]: r for r in csv.DictReader(fh)}
    assert csv_rows[str(round_.truncated)]["note"] == bad["error"]
    assert csv_rows[str(round_.truncated)]["total"] == ""


def test_a_two_page_pdf_gives_two_rows_in_page_order(round_: Round) -> None:
    pages = [r["page"] for r in _rows(round_.out) if r["source"] == str(round_.pdf)]
    assert pages == [1, 2]
    assert [j.page for j in enumerate_jobs([round_.pdf])] == [1, 2]


def test_exit_code_is_the_most_serious_sheets(round_: Round) -> None:
    rows = [SheetRow.from_dict(r) for r in _rows(round_.out)]
    assert round_.result.exit_code == batch_exit_code(rows) == ExitCode.BAD_INPUT, round_.result.output
    assert "7 sheets" in round_.result.stdout


def test_every_result_is_in_the_jsonl_with_a_thumbnail_for_pictures(round_: Round) -> None:
    lines = (round_.out / RESULTS_JSONL).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 7
    pictures = 0
    for line in lines:
        row = json.loads(line)
        if row["tie_break"] is not None and not row["source"].endswith(".json"):
            assert (round_.out / row["thumbnail"]).stat().st_size > 1000
            pictures += 1
        else:
            assert row["thumbnail"] is None
    assert pictures == 5
    page = (round_.out / "index.html").read_text(encoding="utf-8")
    assert page.count('src="data:image/jpeg;base64,') == pictures


def test_resume_after_an_interrupted_run_ends_with_identical_results(round_: Round, tmp_path: Path) -> None:
    out = tmp_path / "results"
    shutil.copytree(round_.out, out)
    for name in REPORTS:
        (out / name).unlink()
    lines = (out / RESULTS_JSONL).read_bytes().splitlines(keepends=True)
    # The batch was killed while writing the network sheet's line; the truncated JPEG's was never written.
    cheap = [ln for ln in lines if b"typed-in.json" in ln or b"cut.jpg" in ln]
    kept = [ln for ln in lines if ln not in cheap]
    torn = next(ln for ln in cheap if b"typed-in.json" in ln)
    (out / RESULTS_JSONL).write_bytes(b"".join(kept) + torn[: len(torn) // 2])

    res = _batch(str(round_.folder), "--out", str(out), "--resume", "--workers", "1")

    assert res.exit_code == ExitCode.BAD_INPUT, res.output
    assert "5 of 7 sheets already done" in res.stderr
    for name in (RESULTS_CSV, RESULTS_JSON, "leaderboard.csv", "index.html"):
        assert (out / name).read_bytes() == (round_.out / name).read_bytes(), name
    resumed = [json.loads(ln) for ln in (out / RESULTS_JSONL).read_text(encoding="utf-8").splitlines()]
    assert len(resumed) == 7


def test_an_existing_results_folder_is_not_overwritten_without_resume(round_: Round, tmp_path: Path) -> None:
    out = tmp_path / "results"
    shutil.copytree(round_.out, out)
    before = (out / RESULTS_JSONL).read_bytes()
    res = _batch(str(round_.folder / "table5"), "--out", str(out))
    assert res.exit_code == ExitCode.BAD_INPUT
    assert "--resume" in res.stderr
    assert (out / RESULTS_JSONL).read_bytes() == before


def test_resume_with_other_settings_is_refused(tmp_path: Path, game_map: GameMap) -> None:
    sheet = _network_file(tmp_path / "in" / "a.json", game_map, 1)
    out = tmp_path / "out"
    assert _batch(str(sheet), "--out", str(out), "--workers", "1").exit_code == ExitCode.OK
    res = _batch(str(sheet), "--out", str(out), "--resume", "--objective", "thames_6")
    assert res.exit_code == ExitCode.BAD_INPUT
    assert "other settings" in res.stderr


def test_legal_sheets_exit_0_and_a_broken_rule_exits_1(tmp_path: Path, game_map: GameMap) -> None:
    legal = [_network_file(tmp_path / "in" / f"legal{i}.json", game_map, i) for i in range(2)]
    res = _batch(*map(str, legal), "--out", str(tmp_path / "a"), "--workers", "1")
    assert res.exit_code == ExitCode.OK, res.output
    broken = _network_file(tmp_path / "in" / "broken.json", game_map, 7, "cycle")
    res = _batch(*map(str, legal), str(broken), "--out", str(tmp_path / "b"), "--workers", "1")
    assert res.exit_code == ExitCode.RULES_BROKEN, res.output
    missing = tmp_path / "in" / "missing.jpg"
    res = _batch(str(broken), str(missing), "--out", str(tmp_path / "c"), "--workers", "1")
    assert res.exit_code == ExitCode.BAD_INPUT, res.output
    (row,) = [r for r in _rows(tmp_path / "c") if r["source"] == str(missing)]
    assert row["status"] == "failed"
    assert "missing.jpg" in row["error"]


def test_claims_are_verified_per_sheet(tmp_path: Path, game_map: GameMap, calibration: Calibration) -> None:
    right = _network_file(tmp_path / "in" / "right.json", game_map, 11)
    wrong = _network_file(tmp_path / "in" / "wrong.json", game_map, 12)
    _network_file(tmp_path / "in" / "unnamed.json", game_map, 13)
    right_total = score_network_file(right, calibration).total
    wrong_total = score_network_file(wrong, calibration).total
    claims = tmp_path / "claims.csv"
    claims.write_text(
        f'file,player,total\nright.json,Ann Lee,{right_total}\nwrong.json,=HYPERLINK("x"),{wrong_total + 2}\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    res = _batch(str(tmp_path / "in"), "--out", str(out), "--claims", str(claims), "--workers", "1")
    assert res.exit_code == ExitCode.RULES_BROKEN, res.output
    rows = {Path(r["source"]).name: r for r in _rows(out)}
    assert rows["right.json"]["player"] == "Ann Lee"
    assert rows["right.json"]["verification"]["all_match"] is True
    assert rows["right.json"]["claim_differences"] == []
    assert rows["wrong.json"]["verification"]["all_match"] is False
    assert any(str(wrong_total) in d for d in rows["wrong.json"]["claim_differences"])
    assert rows["unnamed.json"]["verification"] is None
    assert "no row" in rows["unnamed.json"]["claim_differences"][0]
    with (out / RESULTS_CSV).open(encoding="utf-8-sig", newline="") as fh:
        csv_rows = {Path(r["source"]).name: r for r in csv.DictReader(fh)}
    assert str(wrong_total) in csv_rows["wrong.json"]["claim differences"]
    # A spreadsheet must show the player's name, not run it as a formula.
    assert csv_rows["wrong.json"]["player"] == '\'=HYPERLINK("x")'


def test_a_malformed_claims_file_stops_the_batch_before_reading(tmp_path: Path, game_map: GameMap) -> None:
    sheet = _network_file(tmp_path / "in" / "a.json", game_map, 1)
    claims = tmp_path / "claims.csv"
    claims.write_text("file,total\na.json,lots\n", encoding="utf-8")
    res = _batch(str(sheet), "--out", str(tmp_path / "out"), "--claims", str(claims))
    assert res.exit_code == ExitCode.BAD_INPUT
    assert "line 2" in res.stderr
    assert not (tmp_path / "out" / RESULTS_JSONL).exists()


def test_fixes_settle_a_sheet_and_a_resume_reads_again_only_the_sheets_whose_fixes_changed(
    round_: Round, tmp_path: Path, calibration: Calibration
) -> None:
    out = tmp_path / "results"
    shutil.copytree(round_.out, out)
    before = {(r["source"], r["page"]): r for r in _rows(round_.out)}
    photo = round_.folder / "table1" / "photo-3.jpg"
    read = before[(str(photo), 1)]
    colour, pairs = next((c, p) for c, p in read["network"]["lines"].items() if p)
    section = "-".join(pairs[-1])
    fixes = tmp_path / "fixes.csv"
    # As pasted from the report's command: a bare file name, --fix and all.
    fixes.write_text(f'file,page,fix\nphoto-3.jpg,,"--fix {section}=none"\n', encoding="utf-8")

    res = _batch(str(round_.folder), "--out", str(out), "--resume", "--fixes", str(fixes), "--workers", "1")

    assert "6 of 7 sheets already done" in res.stderr, res.output
    rows = {(r["source"], r["page"]): r for r in _rows(out)}
    fixed = rows.pop((str(photo), 1))
    alone = analyze_file(photo, calibration, fixes=[parse_fix(f"{section}=none", calibration.map)])[0]
    assert isinstance(alone, SheetReport)
    assert (fixed["status"], fixed["total"]) == (alone.status, alone.total)
    assert fixed["fixes"] == [f"{section}=none"]
    assert section in fixed["set_by_hand"]
    assert section.split("-") not in fixed["network"]["lines"][colour]
    assert {k: (r["status"], r.get("total")) for k, r in rows.items()} == {
        k: (r["status"], r.get("total")) for k, r in before.items() if k != (str(photo), 1)
    }
    with (out / RESULTS_CSV).open(encoding="utf-8-sig", newline="") as fh:
        settled = {r["source"]: r["settled by hand"] for r in csv.DictReader(fh)}
    assert settled[str(photo)] == f"{section}=none"
    assert "settled by hand" in (out / INDEX_HTML).read_text(encoding="utf-8")

    # The same fixes again: nothing to read. Without them: that sheet is read as before.
    done = (out / RESULTS_JSON).read_bytes()
    res = _batch(str(round_.folder), "--out", str(out), "--resume", "--fixes", str(fixes), "--workers", "1")
    assert "7 of 7 sheets already done" in res.stderr, res.output
    assert (out / RESULTS_JSON).read_bytes() == done
    res = _batch(str(round_.folder), "--out", str(out), "--resume", "--workers", "1")
    assert "6 of 7 sheets already done" in res.stderr, res.output
    again = {(r["source"], r["page"]): r for r in _rows(out)}[(str(photo), 1)]
    assert (again["total"], again["network"], again["fixes"]) == (read["total"], read["network"], [])


def test_a_fixes_file_with_a_slip_stops_the_batch_before_reading(tmp_path: Path, game_map: GameMap) -> None:
    for name in ("r1/alice.jpg", "r2/alice.jpg", "r1/bob.jpg"):
        (tmp_path / "in" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "in" / name).write_bytes(b"not read: the batch stops first")
    _network_file(tmp_path / "in" / "typed.json", game_map, 1)
    fixes = tmp_path / "fixes.csv"
    out = tmp_path / "out"

    def run(text: str) -> Result:
        fixes.write_text(text, encoding="utf-8")
        return _batch(str(tmp_path / "in"), "--out", str(out), "--fixes", str(fixes))

    res = run('file,fix\ncarol.jpg,"2,3-2,4=green"\nalice.jpg,"2,3-2,4=green"\ntyped.json,"2,3-2,4=green"\n')
    assert res.exit_code == ExitCode.BAD_INPUT, res.output
    assert "line 2: page 1 of carol.jpg is not among the batch's sheets" in res.stderr
    assert "line 3: alice.jpg names several sheets" in res.stderr
    assert "line 4:" in res.stderr and "network file" in res.stderr
    res = run('file,fix\nr1/alice.jpg,"2,3-2,4=green"\nbob.jpg,"2,3-2,4=green 2,3-2,4=blue"\n')
    assert res.exit_code == ExitCode.BAD_INPUT, res.output
    assert "2,3-2,4 is given two colours" in res.stderr
    assert "line 2" not in res.stderr
    res = run('file,fix\nbob.jpg,2,3-2,4=green\nbob.jpg,"2,3-2,9=green"\n')
    assert res.exit_code == ExitCode.BAD_INPUT, res.output
    assert "line 2: 4 cells but the header has 2 columns" in res.stderr
    assert "line 3: '2,3-2,9=green': 2,3-2,9 is not a section of the map" in res.stderr
    assert not (out / RESULTS_JSONL).exists()


def test_a_fixes_csv_takes_pasted_options_pages_and_semicolons(tmp_path: Path, game_map: GameMap) -> None:
    fixes = tmp_path / "fixes.csv"
    fixes.write_text(
        'file,page,fix\nphoto-17.jpg,,"2,3-2,4=green 5,7-8,7=none"\n'
        'table3/scan-6.pdf,2,"--fix 2:4,5-4,6=blue+pink --fix pink=7,3"\nscan-6.pdf,,"--fix 3:green=none"\n',
        encoding="utf-8",
    )
    got = [(r.file, r.page, fix_text(r.fix), r.fix.page, r.line) for r in read_fixes_csv(fixes, game_map)]
    assert got == [
        ("photo-17.jpg", 1, "2,3-2,4=green", None, 2),
        ("photo-17.jpg", 1, "5,7-8,7=none", None, 2),
        ("table3/scan-6.pdf", 2, "4,5-4,6=blue+pink", None, 3),
        ("table3/scan-6.pdf", 2, "pink=7,3", None, 3),
        ("scan-6.pdf", 3, "green=none", None, 4),
    ]
    fixes.write_text("file;page;fix\na.jpg;2;1:2,3-2,4=green\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2: '1:2,3-2,4=green' is for page 1, but the row is for page 2"):
        read_fixes_csv(fixes, game_map)


def test_a_fix_sent_to_a_worker_as_text_is_read_back_as_it_was(game_map: GameMap) -> None:
    # A batch sends each sheet's fixes to its worker as text (``fix_text``), which parses them again.
    for section in game_map.sections:
        for said in ("none", "purple", "blue+pink"):
            fix = parse_fix(f"{section.name}={said}", game_map)
            assert parse_fix(fix_text(fix), game_map) == fix
    for text in ("green=5,3", "pink=none"):
        assert fix_text(parse_fix(text, game_map)) == text


def _row(source: str, total: int | None, best: int | None = None) -> SheetRow:
    if total is None:
        return SheetRow(source, 1, "failed", ExitCode.BAD_INPUT, sheet={"error": f"{source}: cannot be read"})
    assert best is not None
    return SheetRow(source, 1, "ok", ExitCode.OK, tie_break=(total, best), sheet={"total": total})


def test_ranking_uses_the_best_single_line_and_shares_lasting_ties(tmp_path: Path) -> None:
    rows = [
        _row("bad.jpg", None),
        _row("c.jpg", 100, 28),
        _row("a.jpg", 100, 30),
        _row("d.jpg", 90, 45),
        _row("b.jpg", 100, 30),
        _row("e.jpg", 101, 20),
    ]
    board = [(s.rank, s.row.source) for s in leaderboard(rows)]
    assert board == [(1, "e.jpg"), (2, "a.jpg"), (2, "b.jpg"), (4, "c.jpg"), (5, "d.jpg"), (None, "bad.jpg")]
    write_reports(tmp_path, rows)
    with (tmp_path / "leaderboard.csv").open(encoding="utf-8-sig", newline="") as fh:
        table = [(r["rank"], r["source"], r["total"], r["best line"]) for r in csv.DictReader(fh)]
    assert table == [
        ("1", "e.jpg", "101", "20"),
        ("2", "a.jpg", "100", "30"),
        ("2", "b.jpg", "100", "30"),
        ("4", "c.jpg", "100", "28"),
        ("5", "d.jpg", "90", "45"),
        ("", "bad.jpg", "", ""),
    ]


def test_exit_code_order() -> None:
    ok, broken, review, bad = (
        SheetRow("a", 1, "ok", ExitCode.OK),
        SheetRow("b", 1, "rules_broken", ExitCode.RULES_BROKEN),
        SheetRow("c", 1, "needs_review", ExitCode.NEEDS_REVIEW),
        SheetRow("d", 1, "failed", ExitCode.BAD_INPUT),
    )
    assert batch_exit_code([]) == ExitCode.OK
    assert batch_exit_code([ok, ok]) == ExitCode.OK
    assert batch_exit_code([ok, broken]) == ExitCode.RULES_BROKEN
    assert batch_exit_code([broken, review]) == ExitCode.NEEDS_REVIEW
    assert batch_exit_code([review, bad, ok]) == ExitCode.BAD_INPUT


def test_folder_walk_order_and_filters(tmp_path: Path) -> None:
    for name in ("s10.jpg", "s2.JPG", "s1.pdf", "b/s3.png", ".git/x.png", "._s4.jpg", "readme.md", "out/r.png"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "expected.json").write_text(json.dumps({"format": "nsvision-expected"}))
    (tmp_path / "net.json").write_text(json.dumps({"lines": {}}))
    found = [p.relative_to(tmp_path).as_posix() for p in find_sheet_files([tmp_path], exclude=[tmp_path / "out"])]
    assert found == ["b/s3.png", "net.json", "s1.pdf", "s2.JPG", "s10.jpg"]
    # A file named twice (directly and through its folder) is one sheet.
    assert len(find_sheet_files([tmp_path / "s1.pdf", tmp_path], exclude=[tmp_path / "out"])) == 5


def test_the_report_gives_each_sheet_in_doubt_the_command_that_settles_it(round_: Round) -> None:
    page = (round_.out / INDEX_HTML).read_text(encoding="utf-8")
    for row in _rows(round_.out):
        doubtful = row.get("doubtful_sections", [])
        prefix = f"{row['page']}:" if row["page"] > 1 else ""
        for name in doubtful:
            assert f"--fix {prefix}{name}=" in page
    if not any(row.get("doubtful_sections") for row in _rows(round_.out)):
        assert "--fix" not in page


def test_the_csv_names_the_sections_worth_a_look_besides_those_in_doubt(
    tmp_path: Path, calibration: Calibration
) -> None:
    # A sheet flagged for review whose reading names a section read as not drawn that is worth a
    # look too (the tourist track counts a site the lines as read miss): the organiser reading the
    # CSV sees it beside the sections in doubt, in the last column (scripts may read by position).
    report = score_network_file(_network_file(tmp_path / "net.json", calibration.map, 3), calibration)
    sheet = {
        **report.to_dict(),
        "doubtful_sections": ["2,7-3,7"],
        "also_check": [{"section": "0,2-0,3", "reason": "the tourist track counts 5 sites, the lines as read 4"}],
    }
    best = max(line["score"] for line in sheet["score"]["lines"].values())
    row = SheetRow("a.jpg", 1, "needs_review", ExitCode.NEEDS_REVIEW, tie_break=(report.score.total, best), sheet=sheet)
    write_reports(tmp_path, [row])
    with (tmp_path / RESULTS_CSV).open(encoding="utf-8-sig", newline="") as fh:
        header = next(csv.reader(fh))
        fh.seek(0)
        (written,) = list(csv.DictReader(fh))
    assert header[-1] == "also check"
    assert (written["doubtful sections"], written["also check"]) == ("2,7-3,7", "0,2-0,3")
    assert written["total"] == str(report.score.total)
