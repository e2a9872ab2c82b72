"""Claimed totals: the claim syntax, the CSV, and every single-field mistake caught and explained."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nsvision.claims import (
    CLAIM_FIELDS,
    INTERCHANGE_KINDS,
    Claims,
    ClaimsRow,
    claims_from_score_boxes,
    find_claims,
    parse_claims,
    read_claims_csv,
    verify_claims,
)
from nsvision.errors import ClaimError, ExitCode, InputError
from nsvision.game.board import LINE_COLOURS, GameMap
from nsvision.game.network import OBJECTIVES, GameOptions, Network, network_from_dict
from nsvision.game.scoring import OBJECTIVE_POINTS, ScoreCard, score_network
from nsvision.game.simulate import simulate_game

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SAMPLE_FILES = sorted(SAMPLES.glob("*/expected.json"))
SEEDS = range(8)
OBJECTIVE_PAIRS = [tuple(OBJECTIVES)[i % 5 : i % 5 + 2] or ("thames_6", "interchanges_8") for i in SEEDS]
WORD = {2: "two", 3: "three", 4: "four"}


def correct_claims(card: ScoreCard) -> Claims:
    """What a careful player writes in the score zone."""
    ic = card.interchanges
    return Claims(
        lines={ls.colour: ls.score for ls in card.lines},
        tourist=card.tourist_points,
        interchanges=(ic.two, ic.three, ic.four),
        objectives=tuple(o.points for o in card.objectives),
        total=card.total,
    )


def with_field(claims: Claims, name: str, value: int) -> Claims:
    """``claims`` with one field changed."""
    if name in LINE_COLOURS:
        return replace(claims, lines={**claims.lines, name: value})
    if name.startswith("interchanges_"):
        counts = list(claims.interchanges)
        counts[INTERCHANGE_KINDS.index(int(name[-1]))] = value
        return replace(claims, interchanges=(counts[0], counts[1], counts[2]))
    if name.startswith("objective_"):
        boxes = list(claims.objectives)
        boxes[int(name[-1]) - 1] = value
        return replace(claims, objectives=tuple(boxes))
    if name == "tourist":
        return replace(claims, tourist=value)
    assert name == "total"
    return replace(claims, total=value)


def mistakes(card: ScoreCard, game_map: GameMap) -> list[tuple[str, int]]:
    """Every single-field slip a player can make: (field, wrong value)."""
    out: list[tuple[str, int]] = []
    for ls in card.lines:
        out += [(ls.colour, ls.score + d) for d in (-3, -2, -1, 1, 2, 3) if ls.score + d >= 0]
    track = game_map.tourist_track
    i = track.index(card.tourist_points)
    wrong_tourist = {card.tourist_points + 1, *(track[j] for j in (i - 1, i + 1) if 0 <= j < len(track))}
    wrong_tourist.discard(card.tourist_points)
    out += [("tourist", v) for v in sorted(wrong_tourist) if v >= 0]
    ic = card.interchanges
    for n, read in zip(INTERCHANGE_KINDS, (ic.two, ic.three, ic.four), strict=True):
        out += [(f"interchanges_{n}", read + d) for d in (-1, 1) if read + d >= 0]
    for box, obj in enumerate(card.objectives):
        out.append((f"objective_{box + 1}", OBJECTIVE_POINTS - obj.points))
    out += [("total", card.total + d) for d in (-3, -2, -1, 1, 2, 3)]
    return out


def right_value_text(name: str, card: ScoreCard) -> list[str]:
    """What the explanation of a mistake in ``name`` must show (the right value and its reason)."""
    if name in LINE_COLOURS:
        ls = card.line(name)  # type: ignore[arg-type]
        return [f"{name} line", f"{ls.districts} district", f"× {ls.max_in_district}", ls.formula()]
    if name == "tourist":
        return ["tourist", f"{card.tourist_sites} tourist site", f"→ {card.tourist_points} points"]
    if name.startswith("interchanges_"):
        n = int(name[-1])
        read = {2: card.interchanges.two, 3: card.interchanges.three, 4: card.interchanges.four}[n]
        stations = [f"{s} ({', '.join(cs)})" for s, cs in card.interchanges.stations if len(cs) == n]
        return [f"{WORD[n]}-line interchange", f"the sheet has {read}", *stations]
    if name.startswith("objective_"):
        obj = card.objectives[int(name[-1]) - 1]
        return [f"objective {name[-1]}", obj.description, f"→ {obj.points}"]
    return ["total", f"the sheet adds up to {card.total}"]


def claimed_sum(claims: Claims, card: ScoreCard, game_map: GameMap) -> int:
    points = sum(game_map.interchange_points[n] * (k or 0) for n, k in zip((2, 3, 4), claims.interchanges, strict=True))
    return (
        sum(v or 0 for v in claims.lines.values())
        + (claims.tourist or 0)
        + points
        + sum(v or 0 for v in claims.objectives)
        + card.solo_penalty
    )


def _networks(game_map: GameMap) -> list[tuple[str, Network]]:
    nets = []
    for seed, objectives in zip(SEEDS, OBJECTIVE_PAIRS, strict=True):
        net = simulate_game(game_map, seed).network
        nets.append((f"seed {seed}", replace(net, options=GameOptions(objectives=objectives))))
    for name, sheet in sample_sheets():
        nets.append((name, network_from_dict(sheet["network"])))
    return nets


def sample_sheets() -> list[tuple[str, dict]]:
    """Every committed sample sheet's ground truth (a two-page PDF holds two)."""
    out = []
    for path in SAMPLE_FILES:
        data = json.loads(path.read_text())
        for sheet in data.get("sheets", [data]):
            out.append((f"{path.parent.name} page {sheet.get('page', 1)}", sheet))
    return out


@pytest.fixture(scope="module")
def networks(game_map: GameMap) -> list[tuple[str, Network]]:
    return _networks(game_map)


def test_correct_claims_match(networks: list[tuple[str, Network]], game_map: GameMap) -> None:
    for name, net in networks:
        card = score_network(net, game_map)
        v = verify_claims(correct_claims(card), card, game_map)
        assert v.all_match, name
        assert all(c.explanation == "matches" for c in v.checks), name
        assert v.arithmetic is not None and v.arithmetic.matches, name


def test_every_single_field_mistake_is_caught_and_explained(
    networks: list[tuple[str, Network]], game_map: GameMap
) -> None:
    caught = 0
    for name, net in networks:
        card = score_network(net, game_map)
        good = correct_claims(card)
        for field_name, wrong in mistakes(card, game_map):
            claims = with_field(good, field_name, wrong)
            v = verify_claims(claims, card, game_map)
            where = f"{name}: {field_name}={wrong}"
            assert not v.all_match, where
            assert [c.field for c in v.mismatches] == [field_name], where
            check = v.check(field_name)
            assert (check.claimed, check.read) == (wrong, card_value(card, field_name)), where
            assert f"{wrong}" in check.explanation, where
            for needle in right_value_text(field_name, card):
                assert needle in check.explanation, f"{where}: {needle!r} not in {check.explanation!r}"
            # The claim no longer adds up to its own total: say what it adds up to.
            assert v.arithmetic is not None and not v.arithmetic.matches, where
            total = claimed_sum(claims, card, game_map)
            assert (
                f"your fields add up to {total}, not the {claims.total} you wrote"
                == v.arithmetic.explanation.split(" (")[0]
            ), where
            caught += 1
    assert caught >= 20 * len(networks)


def card_value(card: ScoreCard, name: str) -> int:
    value = correct_claims(card).value(name)
    assert value is not None
    return value


def test_numbers_written_on_the_samples_match(game_map: GameMap) -> None:
    """The committed samples carry the numbers their player wrote in the score boxes: they match."""
    checked = 0
    for name, sheet in sample_sheets():
        card = score_network(network_from_dict(sheet["network"]), game_map)
        written = sheet["marks"]["written"]
        if not written:
            continue
        claims = claims_from_score_boxes(written, game_map)
        assert claims.total == card.total, name
        v = verify_claims(claims, card, game_map)
        assert v.all_match, (name, [c.explanation for c in v.mismatches])
        checked += 1
    assert checked >= min(1, len(SAMPLE_FILES) - 1)


def test_claims_from_score_boxes(game_map: GameMap) -> None:
    boxes = {"purple_line_total": 20, "purple_districts": 6, "interchanges_2": 9, "interchanges_5": 1, "total": 3}
    claims = claims_from_score_boxes(boxes, game_map)
    assert claims == Claims(lines={"purple": 20}, interchanges=(9, 1, None), total=3)
    with pytest.raises(ClaimError, match="interchanges_7"):
        claims_from_score_boxes({"interchanges_7": 1}, game_map)


def test_rulebook_example(rulebook_game: Network, game_map: GameMap) -> None:
    card = score_network(rulebook_game, game_map)
    ok = parse_claims("lines=20,16,29,22 tourist=14 interchanges=9,0,0 total=119")
    assert verify_claims(ok, card, game_map).all_match
    v = verify_claims(parse_claims("lines=20,17,29,22 tourist=11 interchanges=8,0,0 total=118"), card, game_map)
    assert v.check("blue").explanation.startswith("blue line: you wrote 17, the sheet shows 4 districts × 4")
    assert (
        "you counted 8 two-line interchanges, the sheet has 9: 0,3 (purple, green)"
        in v.check("interchanges_2").explanation
    )
    assert "you wrote 11 (6 circles crossed)" in v.check("tourist").explanation
    assert "7 tourist sites → 7 circles → 14 points" in v.check("tourist").explanation
    assert v.check("total").explanation.startswith("total: you wrote 118, the sheet adds up to 119")
    assert v.arithmetic is not None
    # 20 + 17 + 29 + 22 = 88 lines, 11 tourist points, 8 × 2 interchange points.
    assert v.arithmetic.explanation.startswith("your fields add up to 115, not the 118 you wrote")


def test_arithmetic_slip_alone(rulebook_game: Network, game_map: GameMap) -> None:
    """Every field right but added up wrong: the total and the claim's own sum both say so."""
    card = score_network(rulebook_game, game_map)
    v = verify_claims(parse_claims("lines=20,16,29,22 tourist=14 interchanges=9,0,0 total=117"), card, game_map)
    assert [c.field for c in v.mismatches] == ["total"]
    assert v.arithmetic is not None
    assert v.arithmetic.explanation.startswith("your fields add up to 119, not the 117 you wrote")


def test_line_hints(rulebook_game: Network, game_map: GameMap) -> None:
    card = score_network(rulebook_game, game_map)
    purple = card.line("purple")
    assert purple.thames == 1
    forgot = verify_claims(Claims(lines={"purple": purple.score - 2}), card, game_map)
    assert "left out the Thames crossings" in forgot.check("purple").explanation
    one_more = purple.score + purple.max_in_district
    hint = verify_claims(Claims(lines={"purple": one_more}), card, game_map).check("purple").explanation
    assert f"you may have counted {purple.districts + 1} districts" in hint


def test_partial_claims(rulebook_game: Network, game_map: GameMap) -> None:
    card = score_network(rulebook_game, game_map)
    v = verify_claims(parse_claims("blue=16 total=119"), card, game_map)
    assert v.all_match and v.arithmetic is None
    assert v.check("pink").explanation == "not claimed" and v.check("pink").claimed is None
    assert v.check("pink").read == card.line("pink").score
    assert {c.field for c in v.checks} == set(CLAIM_FIELDS) - {"objective_1", "objective_2"}


def test_objective_not_in_play(rulebook_game: Network, game_map: GameMap) -> None:
    card = score_network(rulebook_game, game_map)
    v = verify_claims(parse_claims("objectives=0,10"), card, game_map)
    assert v.check("objective_1").matches
    check = v.check("objective_2")
    assert not check.matches and check.read == 0
    assert "no objective 2 is in play" in check.explanation and "--objective" in check.explanation


def test_solo_penalty_in_the_claims_sum(rulebook_game: Network, game_map: GameMap) -> None:
    net = replace(rulebook_game, options=GameOptions(objectives=("interchanges_8", "thames_6"), solo=True))
    card = score_network(net, game_map)
    assert card.solo_penalty < 0
    v = verify_claims(correct_claims(card), card, game_map)
    assert v.all_match, v.arithmetic
    wrong = verify_claims(replace(correct_claims(card), total=card.total - card.solo_penalty), card, game_map)
    assert wrong.arithmetic is not None and "solo penalty" in wrong.arithmetic.explanation
    assert "solo penalty" in wrong.check("total").explanation


def test_depends_on_doubtful_sections(rulebook_game: Network, game_map: GameMap) -> None:
    card = score_network(rulebook_game, game_map)
    doubt = {"blue_line": ("5,7-5,9",), "interchange_points": ("4,6-4,9",), "total": ("5,7-5,9", "4,6-4,9")}
    v = verify_claims(parse_claims("blue=16 interchanges=9,0,0"), card, game_map, depends_on=doubt)
    assert v.check("blue").depends_on == ("5,7-5,9",)
    assert v.check("interchanges_3").depends_on == ("4,6-4,9",)
    assert v.check("pink").depends_on == ()
    assert v.depends_on_doubt
    assert not verify_claims(parse_claims("pink=29"), card, game_map, depends_on=doubt).depends_on_doubt
    assert v.to_dict()["checks"][1]["depends_on"] == ["5,7-5,9"]


RULEBOOK = Claims(lines=dict(zip(LINE_COLOURS, (20, 16, 29, 22), strict=True)), tourist=14, interchanges=(9, 0, 0))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("lines=20,16,29,22 tourist=14 interchanges=9,0,0", RULEBOOK),
        ("purple=20 blue=16 pink=29 green=22; tourist=14; interchanges=9,0,0", RULEBOOK),
        ("  Lines = 20, 16, 29, 22 ;TOURIST:14 interchanges_2=9 interchanges_3=0 interchange_4=0 ", RULEBOOK),
        ("lines=20,-,29,22", Claims(lines={"purple": 20, "pink": 29, "green": 22})),
        ("lines=20,?,29,22", Claims(lines={"purple": 20, "pink": 29, "green": 22})),
        ("interchanges=9,-,0", Claims(interchanges=(9, None, 0))),
        ("objectives=10", Claims(objectives=(10,))),
        ("objectives=0,10 total=-3", Claims(objectives=(0, 10), total=-3)),
        ("objective_2=+10", Claims(objectives=(None, 10))),
        ('total=119 player="Ann O\'Neil"', Claims(total=119, player="Ann O'Neil")),
        ("total=119 player='Ann'", Claims(total=119, player="Ann")),
        ("blue=16 lines=-,16,-,-", Claims(lines={"blue": 16})),
        ("tourist=0", Claims(tourist=0)),
    ],
)
def test_parse_variants(text: str, expected: Claims) -> None:
    assert parse_claims(text) == expected


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("lines=20,16,29", ["lines takes 4 values", "'lines=20,16,29'"]),
        ("lines=20,16,29,22,5", ["lines takes 4 values", "got 5"]),
        ("interchanges=9,0", ["interchanges takes 3 values", "2,3,4-line counts"]),
        ("objectives=10,0,10", ["objectives takes one or two boxes"]),
        ("objectives=5", ["an objective box holds 0 or 10, not 5"]),
        ("blue=1x", ["'1x' is not a whole number", "'blue=1x'"]),
        ("lines=20,sixteen,29,22", ["'sixteen' is not a whole number"]),
        ("tourist=-2", ["'-2' cannot be negative"]),
        ("touristes=14", ["unknown key 'touristes'", "did you mean 'tourist'"]),
        ("orange=3", ["unknown key 'orange'"]),
        ("total", ["'total' is not key=value"]),
        ("blue=16 lines=20,17,29,22", ["blue line claimed twice: 16", "17"]),
        ('player="Ann', ["quote is not closed"]),
        ("", ["nothing is claimed"]),
        ("lines=-,-,-,- total=?", ["nothing is claimed"]),
    ],
)
def test_parse_errors(text: str, needles: list[str]) -> None:
    with pytest.raises(ClaimError) as info:
        parse_claims(text)
    err = info.value
    assert err.exit_code == ExitCode.BAD_INPUT
    for needle in needles:
        assert needle in err.message
    assert "lines=20,16,29,22 tourist=14 interchanges=9,0,0" in err.message  # the valid syntax is shown
    assert err.message.startswith("--claimed: ")


def test_parse_reports_every_bad_token_at_once() -> None:
    with pytest.raises(ClaimError) as info:
        parse_claims("lines=20,1x,29,22 colour=3 interchanges=9,0 total=abc", source="sheet.jpg claim")
    message = info.value.message
    assert message.startswith("sheet.jpg claim: ")
    for needle in ("'1x'", "'colour'", "interchanges takes 3", "'abc'"):
        assert needle in message


_value = st.one_of(st.none(), st.integers(0, 200))


@settings(max_examples=60, deadline=None)
@given(
    lines=st.tuples(_value, _value, _value, _value),
    tourist=_value,
    interchanges=st.tuples(_value, _value, _value),
    objectives=st.lists(st.sampled_from([None, 0, OBJECTIVE_POINTS]), max_size=2),
    total=st.one_of(st.none(), st.integers(-40, 300)),
    # A name wrapped in single quotes loses them (they are read as shell-style quotes).
    player=st.one_of(
        st.none(),
        st.text("abcdef ;,'=-", min_size=1).map(str.strip).filter(lambda p: bool(p) and p[0] + p[-1] != "''"),
    ),
)
def test_to_text_parses_back(lines, tourist, interchanges, objectives, total, player) -> None:
    claims = Claims(
        lines=dict(zip(LINE_COLOURS, lines, strict=True)),
        tourist=tourist,
        interchanges=interchanges,
        objectives=tuple(objectives),
        total=total,
        player=player,
    )
    if claims.is_empty:
        return
    back = parse_claims(claims.to_text())
    # A trailing unclaimed objective box is the same claim as no box.
    assert replace(back, objectives=()) == replace(claims, objectives=())
    assert [v for v in back.objectives if v is not None] == [v for v in claims.objectives if v is not None]


def _csv(tmp_path: Path, text: str, name: str = "claims.csv", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def test_csv_rows(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        "file,page,player,purple,blue,pink,green,tourist,interchanges_2,interchanges_3,interchanges_4,"
        "objective_1,objective_2,total\n"
        "game1.pdf,1,Ann,20,16,29,22,14,9,0,0,,,119\n"
        "\n"
        "# a comment row\n"
        'game1.pdf,2,"Lee, Bo",,17,,,,,,,10,0,\n'
        "photos/c.jpg,,,,,,,,,,,,,90\n",
    )
    rows = read_claims_csv(path)
    assert [(r.file, r.page, r.player, r.line) for r in rows] == [
        ("game1.pdf", 1, "Ann", 2),
        ("game1.pdf", 2, "Lee, Bo", 5),
        ("photos/c.jpg", 1, None, 6),
    ]
    assert rows[0].claims == replace(RULEBOOK, total=119, player="Ann")
    assert rows[1].claims == Claims(lines={"blue": 17}, objectives=(10, 0), player="Lee, Bo")
    assert rows[2].claims == Claims(total=90)


def test_csv_from_a_spreadsheet(tmp_path: Path) -> None:
    """Semicolons, a byte-order mark, spaced and capitalised headers: what spreadsheets save."""
    path = _csv(
        tmp_path, "File;Page;Player;Purple;Tourist Points;Total\r\na.jpg;1;Ann;20;14;119\r\n", encoding="utf-8-sig"
    )
    (row,) = read_claims_csv(path)
    assert row.claims == Claims(lines={"purple": 20}, tourist=14, total=119, player="Ann")


def test_csv_bad_rows_reported_together(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        "file,page,purple,objective_1,total\n"
        "a.jpg,1,20,,119\n"
        "b.jpg,x,20,,\n"
        ",1,20,,\n"
        "c.jpg,1,2o,5,\n"
        "a.jpg,1,21,,\n"
        "d.jpg,1,,,\n"
        "e.jpg,1,1,0,3,4\n",
    )
    with pytest.raises(ClaimError) as info:
        read_claims_csv(path)
    message = info.value.message
    assert info.value.exit_code == ExitCode.BAD_INPUT
    assert message.startswith(f"{path}: ")
    for needle in (
        "line 3: page 'x' is not a page number",
        "line 4: the 'file' cell is empty",
        "line 5: '2o' is not a whole number",
        "line 5: an objective box holds 0 or 10, not 5",
        "line 6: a.jpg page 1 already has a row (line 2)",
        "line 7: nothing is claimed for d.jpg",
        "line 8: 6 cells but the header has 5 columns",
    ):
        assert needle in message
    assert "line 2" not in message.replace("(line 2)", "")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "the file is empty"),
        ("file,colour\na.jpg,blue\n", "unknown column 'colour'"),
        ("page,total\n1,119\n", "no 'file' column"),
        ("file,total,Total\na.jpg,1,1\n", "column 'total' appears twice"),
        ("file,total\n", "no rows"),
        ("file,totl\na.jpg,1\n", "did you mean 'total'"),
    ],
)
def test_csv_bad_files(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(ClaimError) as info:
        read_claims_csv(_csv(tmp_path, text))
    assert needle in info.value.message
    assert "file (required)" in info.value.message  # the valid columns are shown


def test_csv_unreadable(tmp_path: Path) -> None:
    with pytest.raises(InputError) as missing:
        read_claims_csv(tmp_path / "nope.csv")
    assert "nope.csv" in missing.value.message and missing.value.exit_code == ExitCode.BAD_INPUT
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81garbage")
    with pytest.raises(ClaimError, match="UTF-8"):
        read_claims_csv(binary)


def _row(file: str, page: int = 1, total: int = 1) -> ClaimsRow:
    return ClaimsRow(file=file, page=page, player=None, claims=Claims(total=total), line=2)


def test_find_claims(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [_row("a.jpg", total=1), _row("game.pdf", 2, total=2), _row("round2/a.jpg", total=3)]
    assert find_claims(rows, "a.jpg", 1) == Claims(total=1)
    assert find_claims(rows, "/photos/round1/a.jpg", 1) == Claims(total=1)
    assert find_claims(rows, "/photos/round2/a.jpg", 1) == Claims(total=3)  # the most specific row wins
    assert find_claims(rows, "scans/game.pdf", 2) == Claims(total=2)
    assert find_claims(rows, "scans/game.pdf", 1) is None
    assert find_claims(rows, "xa.jpg", 1) is None
    # A path written from the CSV's folder.
    (tmp_path / "sheets").mkdir()
    monkeypatch.chdir(tmp_path / "sheets")
    rows = [_row("../sheets/b.jpg", total=4), _row("sheets/c.jpg", total=5)]
    assert find_claims(rows, "b.jpg", 1) == Claims(total=4)
    assert find_claims(rows, "c.jpg", 1) is None
    assert find_claims(rows, "c.jpg", 1, csv_dir=tmp_path) == Claims(total=5)


def test_verification_json(rulebook_game: Network, game_map: GameMap) -> None:
    card = score_network(rulebook_game, game_map)
    v = verify_claims(parse_claims("lines=20,17,29,22 total=119"), card, game_map)
    data = json.loads(json.dumps(v.to_dict()))
    assert data["all_match"] is False and data["mismatches"] == ["blue"]
    blue = next(c for c in data["checks"] if c["field"] == "blue")
    assert blue == {
        "field": "blue",
        "claimed": 17,
        "read": 16,
        "matches": False,
        "explanation": v.check("blue").explanation,
        "depends_on": [],
    }
    assert data["arithmetic"] is None


def test_csv_list_columns(tmp_path: Path) -> None:
    (row,) = read_claims_csv(_csv(tmp_path, 'file,lines,interchanges,objectives\na.jpg,"20,16,29,22","9,-,0",10\n'))
    assert row.claims == Claims(lines=RULEBOOK.lines, interchanges=(9, None, 0), objectives=(10,))
