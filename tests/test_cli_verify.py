"""`nsvision verify` through the CLI: exit codes, messages, the JSON shape, CSV rows per page."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nsvision.claims import CLAIM_FIELDS, Claims, claims_from_score_boxes, parse_claims
from nsvision.cli import app
from nsvision.errors import ExitCode, NoMapFoundError
from nsvision.game.board import GameMap
from nsvision.game.network import Network, network_from_dict
from nsvision.game.scoring import OBJECTIVE_POINTS, ScoreCard, score_network
from nsvision.pipeline import SheetFailure, SheetReport, SheetResult, score_network_obj

runner = CliRunner()
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
RULEBOOK_CLAIM = "lines=20,16,29,22 tourist=14 interchanges=9,0,0 total=119"


def _run(*args: str) -> Any:
    return runner.invoke(app, ["verify", *args])


def _claim_text(card: ScoreCard) -> str:
    ic = card.interchanges
    claims = Claims(
        lines={ls.colour: ls.score for ls in card.lines},
        tourist=card.tourist_points,
        interchanges=(ic.two, ic.three, ic.four),
        objectives=tuple(o.points for o in card.objectives),
        total=card.total,
    )
    return claims.to_text()


@pytest.fixture
def rulebook_file(tmp_path: Path, rulebook_game: Network) -> Path:
    path = tmp_path / "rulebook.json"
    path.write_text(json.dumps(rulebook_game.to_dict()))
    return path


def test_matching_claims(rulebook_file: Path) -> None:
    res = _run(str(rulebook_file), "--claimed", RULEBOOK_CLAIM)
    assert res.exit_code == ExitCode.OK, res.output
    assert "every claimed number matches the sheet" in res.stdout
    assert "total: 119" in res.stdout  # the score card is shown too


def test_mismatch_is_explained(rulebook_file: Path) -> None:
    res = _run(str(rulebook_file), "--claimed", "lines=20,17,29,22 tourist=14 interchanges=9,0,0 total=119")
    assert res.exit_code == ExitCode.RULES_BROKEN, res.output
    flat = " ".join(res.stdout.split())
    assert "blue line: you wrote 17" in flat
    assert "your fields add up to 120, not the 119 you wrote" in flat
    assert "1 claimed number does not match the sheet" in flat


def test_json_shape(rulebook_file: Path) -> None:
    res = _run(str(rulebook_file), "--claimed", "blue=17 total=119 player=Ann", "--json")
    assert res.exit_code == ExitCode.RULES_BROKEN, res.output
    out = json.loads(res.stdout)
    assert out["source"] == str(rulebook_file) and out["total"] == 119  # the sheet's own report
    assert out["claims"]["player"] == "Ann" and out["claims"]["blue"] == 17 and out["claims"]["pink"] is None
    v = out["verification"]
    assert v["all_match"] is False and v["mismatches"] == ["blue"]
    assert [c["field"] for c in v["checks"]] == [f for f in CLAIM_FIELDS if not f.startswith("objective")]
    blue = v["checks"][1]
    assert (blue["claimed"], blue["read"], blue["matches"]) == (17, 16, False)
    assert "4 × 4 = 16" in blue["explanation"]
    assert out["exit_code"] == ExitCode.RULES_BROKEN


def test_rules_broken_with_matching_claims(tmp_path: Path, game_map: GameMap) -> None:
    path = tmp_path / "net.json"
    # A blue line that does not start at blue's departure station.
    path.write_text(json.dumps({"lines": {"blue": [["6,2", "3,2"]]}}))
    card = score_network(network_from_dict(json.loads(path.read_text())), game_map)
    res = _run(str(path), "--claimed", _claim_text(card))
    assert res.exit_code == ExitCode.RULES_BROKEN, res.output
    assert "rule broken" in res.stdout and "every claimed number matches" in res.stdout


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--claimed", "lines=20,1x,29,22 colour=2"], ["'1x' is not a whole number", "unknown key 'colour'"]),
        (["--claimed", "interchanges=9"], ["interchanges takes 3 values"]),
        (["--claimed", ""], ["nothing is claimed"]),
        ([], ["no claim given", "--claimed", "--claims-csv"]),
        (["--claimed", "total=1", "--claims-csv", "x.csv"], ["not both"]),
    ],
)
def test_malformed_claims(rulebook_file: Path, args: list[str], needles: list[str]) -> None:
    res = _run(str(rulebook_file), *args)
    assert res.exit_code == ExitCode.BAD_INPUT, res.output
    for needle in needles:
        assert needle in res.stderr
    assert "Traceback" not in res.output and res.stdout == ""


def test_syntax_shown_on_a_bad_claim(rulebook_file: Path) -> None:
    res = _run(str(rulebook_file), "--claimed", "tourist")
    assert res.exit_code == ExitCode.BAD_INPUT
    assert "lines=20,16,29,22 tourist=14 interchanges=9,0,0" in res.stderr


def test_unreadable_sheet(tmp_path: Path) -> None:
    res = _run(str(tmp_path / "nope.jpg"), "--claimed", "total=3")
    assert res.exit_code == ExitCode.BAD_INPUT
    assert "nope.jpg" in res.stderr


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "claims.csv"
    path.write_text(text)
    return path


def test_csv_row_found(tmp_path: Path, rulebook_file: Path) -> None:
    csv_path = _csv(tmp_path, "file,player,blue,total\nother.jpg,Bo,3,4\nrulebook.json,Ann,16,119\n")
    res = _run(str(rulebook_file), "--claims-csv", str(csv_path), "--json")
    assert res.exit_code == ExitCode.OK, res.output
    out = json.loads(res.stdout)
    assert out["claims"]["player"] == "Ann" and out["verification"]["all_match"] is True


def test_csv_without_a_row_for_the_sheet(tmp_path: Path, rulebook_file: Path) -> None:
    csv_path = _csv(tmp_path, "file,total\nother.jpg,4\n")
    res = _run(str(rulebook_file), "--claims-csv", str(csv_path))
    assert res.exit_code == ExitCode.BAD_INPUT, res.output
    assert "no row in" in res.stdout and "rulebook.json" in res.stdout
    res = _run(str(rulebook_file), "--claims-csv", str(csv_path), "--json")
    assert res.exit_code == ExitCode.BAD_INPUT
    out = json.loads(res.stdout)
    assert out["verification"] is None and "no row in" in out["claims_error"]
    assert "no row in" in res.stderr


def test_csv_bad_rows(tmp_path: Path, rulebook_file: Path) -> None:
    csv_path = _csv(tmp_path, "file,page,total\nrulebook.json,x,119\nrulebook.json,2,abc\n")
    res = _run(str(rulebook_file), "--claims-csv", str(csv_path))
    assert res.exit_code == ExitCode.BAD_INPUT
    assert "line 2: page 'x'" in res.stderr and "line 3: 'abc'" in res.stderr
    missing = _run(str(rulebook_file), "--claims-csv", str(tmp_path / "none.csv"))
    assert missing.exit_code == ExitCode.BAD_INPUT and "none.csv" in missing.stderr


def _fake_pdf(
    monkeypatch: pytest.MonkeyPatch, results: list[SheetResult]
) -> None:  # what read_any gives for a multi-page PDF, without rendering one
    monkeypatch.setattr("nsvision.cli.cmd_verify.read_any", lambda *args, **kwargs: results)


def _pages(rulebook_game: Network, game_map: GameMap, source: str = "game.pdf") -> list[SheetReport]:
    first = score_network_obj(rulebook_game, source=source)
    second_net = replace(rulebook_game, lines={**rulebook_game.lines, "blue": ()})
    second = replace(score_network_obj(second_net, source=source), page=2)
    return [first, second]


def test_one_claim_for_many_sheets_is_refused(
    monkeypatch: pytest.MonkeyPatch, rulebook_game: Network, game_map: GameMap
) -> None:
    _fake_pdf(monkeypatch, list(_pages(rulebook_game, game_map)))
    res = _run("game.pdf", "--claimed", RULEBOOK_CLAIM)
    assert res.exit_code == ExitCode.BAD_INPUT
    assert "holds 2 sheets" in res.stderr and "--claims-csv" in res.stderr


def test_csv_row_per_page(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, rulebook_game: Network, game_map: GameMap
) -> None:
    pages = _pages(rulebook_game, game_map)
    _fake_pdf(monkeypatch, list(pages))
    second_total = pages[1].score.total
    csv_path = _csv(tmp_path, f"file,page,total\ngame.pdf,1,119\ngame.pdf,2,{second_total}\n")
    res = _run("game.pdf", "--claims-csv", str(csv_path), "--json")
    assert res.exit_code == ExitCode.OK, res.output
    out = json.loads(res.stdout)
    assert [s["page"] for s in out["sheets"]] == [1, 2]
    assert all(s["verification"]["all_match"] for s in out["sheets"])
    # Page 2's row claims page 1's total: only page 2 differs.
    csv_path = _csv(tmp_path, "file,page,total\ngame.pdf,1,119\ngame.pdf,2,119\n")
    res = _run("game.pdf", "--claims-csv", str(csv_path), "--json")
    assert res.exit_code == ExitCode.RULES_BROKEN
    sheets = json.loads(res.stdout)["sheets"]
    assert [s["exit_code"] for s in sheets] == [ExitCode.OK, ExitCode.RULES_BROKEN]
    # A page without a row: that sheet exits 4, the other is still compared.
    csv_path = _csv(tmp_path, "file,page,total\ngame.pdf,1,119\n")
    res = _run("game.pdf", "--claims-csv", str(csv_path), "--json")
    assert res.exit_code == ExitCode.BAD_INPUT
    sheets = json.loads(res.stdout)["sheets"]
    assert sheets[0]["verification"]["all_match"] is True and sheets[1]["verification"] is None
    assert "page 2" in sheets[1]["claims_error"]


def test_page_without_a_map(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, rulebook_game: Network, game_map: GameMap
) -> None:
    first = _pages(rulebook_game, game_map)[0]
    _fake_pdf(monkeypatch, [first, SheetFailure("game.pdf", 2, NoMapFoundError("game.pdf page 2"))])
    csv_path = _csv(tmp_path, "file,page,total\ngame.pdf,1,119\ngame.pdf,2,50\n")
    res = _run("game.pdf", "--claims-csv", str(csv_path))
    assert res.exit_code == ExitCode.NO_MAP, res.output
    assert "no map found" in res.stdout and "every claimed number matches" in res.stdout


def test_reading_that_needs_review(monkeypatch: pytest.MonkeyPatch, rulebook_game: Network, game_map: GameMap) -> None:
    report = replace(
        score_network_obj(rulebook_game, source="photo.jpg"),
        needs_review=True,
        depends_on={"blue_line": ("5,7-5,9",), "total": ("5,7-5,9",)},
        review_reasons=("1 section(s) could not be read with confidence: 5,7-5,9",),
    )
    _fake_pdf(monkeypatch, [report])
    res = _run("photo.jpg", "--claimed", "blue=15 total=119")
    assert res.exit_code == ExitCode.NEEDS_REVIEW, res.output
    flat = " ".join(res.stdout.split())
    assert "blue line: you wrote 15" in flat  # the comparison is still shown
    assert "depends on doubtful 5,7-5,9" in flat
    assert "the numbers disagree, but the comparison depends on sections read with doubt" in flat
    res = _run("photo.jpg", "--claimed", "blue=15", "--json")
    check = json.loads(res.stdout)["verification"]["checks"][1]
    assert check["depends_on"] == ["5,7-5,9"] and check["matches"] is False


def _sample_sheets() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(SAMPLES.glob("*/expected.json")):
        data = json.loads(path.read_text())
        for sheet in data.get("sheets", [data]):
            out.append((f"{path.parent.name}-{sheet.get('page', 1)}", sheet))
    return out


@pytest.mark.parametrize(("name", "sheet"), _sample_sheets(), ids=[n for n, _ in _sample_sheets()])
def test_samples_every_field_mistake(tmp_path: Path, game_map: GameMap, name: str, sheet: dict[str, Any]) -> None:
    """Each committed sample's network: the numbers written on it match; a mistake in any one field is
    caught, named, and exits 1."""
    net_path = tmp_path / f"{name}.json"
    net_path.write_text(json.dumps(sheet["network"]))
    card = score_network(network_from_dict(sheet["network"]), game_map)
    good = _claim_text(card)
    if sheet["marks"]["written"]:
        written = claims_from_score_boxes(sheet["marks"]["written"], game_map).to_text()
        res = _run(str(net_path), "--claimed", written)
        assert res.exit_code in (ExitCode.OK, ExitCode.RULES_BROKEN), res.output
        assert "every claimed number matches" in res.stdout
    res = _run(str(net_path), "--claimed", good, "--json")
    expected = ExitCode.RULES_BROKEN if sheet["violations"] else ExitCode.OK
    assert res.exit_code == expected, res.output
    right = parse_claims(good).to_dict()
    for field in CLAIM_FIELDS:
        if right[field] is None:
            continue  # an objective box not in play
        wrong = OBJECTIVE_POINTS - right[field] if field.startswith("objective_") else right[field] + 1
        text = " ".join(f"{k}={wrong if k == field else v}" for k, v in right.items() if v is not None)
        res = _run(str(net_path), "--claimed", text, "--json")
        assert res.exit_code == ExitCode.RULES_BROKEN, (field, res.output)
        v = json.loads(res.stdout)["verification"]
        assert v["mismatches"] == [field]
        check = next(c for c in v["checks"] if c["field"] == field)
        assert re.search(rf"(wrote|counted) {wrong}\b", check["explanation"]), check["explanation"]
        assert str(check["read"]) in check["explanation"]


def _written_claims(sheet: dict[str, Any], game_map: GameMap) -> Claims:
    return claims_from_score_boxes(sheet["marks"]["written"], game_map)


PDF_SAMPLE = SAMPLES / "pdf-two-sheets"
SCAN_SAMPLE = SAMPLES / "scan-clean"


@pytest.mark.skipif(not PDF_SAMPLE.exists(), reason="no committed two-page PDF sample")
def test_real_pdf_one_claim_refused() -> None:
    (pdf,) = PDF_SAMPLE.glob("*.pdf")
    res = _run(str(pdf), "--claimed", "total=100")
    assert res.exit_code == ExitCode.BAD_INPUT
    assert "holds 2 sheets" in res.stderr


@pytest.mark.skipif(not PDF_SAMPLE.exists(), reason="no committed two-page PDF sample")
def test_real_pdf_each_page_finds_its_row(tmp_path: Path, game_map: GameMap) -> None:
    (pdf,) = PDF_SAMPLE.glob("*.pdf")
    sheets = json.loads((PDF_SAMPLE / "expected.json").read_text())["sheets"]
    header = "file,page,player,purple,blue,pink,green,tourist,interchanges_2,interchanges_3,interchanges_4,total"
    rows = [header]
    for sheet in sheets:
        c = _written_claims(sheet, game_map).to_dict()
        values = [c[k] for k in header.split(",")[3:]]
        rows.append(",".join([pdf.name, str(sheet["page"]), f"player {sheet['page']}", *map(str, values)]))
    csv_path = _csv(tmp_path, "\n".join(rows) + "\n")
    res = _run(str(pdf), "--claims-csv", str(csv_path), "--json")
    out = json.loads(res.stdout)["sheets"]
    assert [s["claims"]["player"] for s in out] == ["player 1", "player 2"]
    for s, truth in zip(out, sheets, strict=True):
        v = s["verification"]
        assert v is not None
        # A difference is only ever reported with confidence when the reading is right.
        if s["network"]["lines"] == truth["network"]["lines"]:
            assert v["all_match"], v
        elif not v["all_match"]:
            assert s["exit_code"] == ExitCode.NEEDS_REVIEW or s["violations"], s["doubtful_sections"]
    assert res.exit_code in {s["exit_code"] for s in out}


@pytest.mark.skipif(not SCAN_SAMPLE.exists(), reason="no committed scan sample")
def test_real_scan_numbers_written_on_it(game_map: GameMap) -> None:
    (picture,) = [p for p in SCAN_SAMPLE.iterdir() if p.suffix.lower() in (".png", ".jpg", ".tif", ".tiff")]
    truth = json.loads((SCAN_SAMPLE / "expected.json").read_text())
    res = _run(str(picture), "--claimed", _written_claims(truth, game_map).to_text(), "--json")
    out = json.loads(res.stdout)
    v = out["verification"]
    if v["all_match"]:
        assert res.exit_code in (ExitCode.OK, ExitCode.NEEDS_REVIEW), res.output
    else:  # only a reading in doubt may disagree with a truthful player
        assert res.exit_code == ExitCode.NEEDS_REVIEW and v["depends_on_doubtful_sections"], v


@pytest.mark.skipif(not (SAMPLES / "style-cream").exists(), reason="samples not generated")
def test_a_sheet_in_doubt_is_compared_again_once_its_sections_are_settled() -> None:
    image = next((SAMPLES / "style-cream").glob("*.jpg"))
    read = json.loads(runner.invoke(app, ["score", str(image), "--json"]).stdout)
    claim = f"total={read['total']}"
    before = _run(str(image), "--claimed", claim)
    assert before.exit_code == ExitCode.NEEDS_REVIEW, before.output
    colour = {s["section"]: s["colour"] for s in read["sections"]}
    fixes = [a for name in read["doubtful_sections"] for a in ("--fix", f"{name}={colour[name] or 'none'}")]
    after = _run(str(image), "--claimed", claim, "--json", *fixes)
    out = json.loads(after.stdout)
    assert out["needs_review"] is False and out["verification"]["all_match"] is True
    assert after.exit_code == (ExitCode.RULES_BROKEN if out["violations"] else ExitCode.OK), after.output
