"""The best reading of a section in doubt from the model learnt on the bench (``vision.doubt_model``)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from nsvision.calibration import load_calibration
from nsvision.game.board import LINE_COLOURS, Section, parse_station_name
from nsvision.vision import doubt_model
from nsvision.vision.detect import SegmentEvidence, pencil_hues
from nsvision.vision.rebuild import CONFIDENT, rebuild

MAP = load_calibration().map
HUES = pencil_hues()
DEPARTURES = {k: MAP.departure(k) for k in LINE_COLOURS}


def _section(name: str) -> Section:
    a, b = name.split("-")
    return Section.of(parse_station_name(a), parse_station_name(b))


def _model(faint_at: float = 0.5, below: float = -2.0, above: float = 2.0) -> doubt_model.TreeModel:
    """One tree: faint marks on at most ``faint_at`` of a section give ``below``, more give ``above``."""
    faint = doubt_model.FEATURES.index("faint")
    tree = [[faint, faint_at, 1, 2, 0.0], [-1, 0.0, 0, 0, below], [-1, 0.0, 0, 0, above]]
    return doubt_model.TreeModel.from_dict(
        {"features": list(doubt_model.FEATURES), "baseline": 0.0, "depth": 1, "trees": [tree]}
    )


def _colour_model(lead_at: float = 0.2) -> doubt_model.TreeModel:
    """One tree: a lead of the pencil read over the other of at most ``lead_at`` gives "the other"."""
    lead = doubt_model.COLOUR_FEATURES.index("lead")
    tree = [[lead, lead_at, 1, 2, 0.0], [-1, 0.0, 0, 0, 2.0], [-1, 0.0, 0, 0, -2.0]]
    return doubt_model.TreeModel.from_dict(
        {"features": list(doubt_model.COLOUR_FEATURES), "baseline": 0.0, "depth": 1, "trees": [tree]}
    )


def _between(first: str, second: str, share: float) -> tuple[float, float, float]:
    """A unit colour ``share`` of the way from the hue of ``first`` to that of ``second``."""
    a, b = (HUES[k] / np.linalg.norm(HUES[k]) for k in (first, second))
    v = (1 - share) * a + share * b
    return tuple(float(x) for x in v / np.linalg.norm(v))  # type: ignore[return-value]


def _ev(s: Section, ink: float = 0.0, faint: float = 0.0) -> SegmentEvidence:
    c = (0.0, 0.0, 0.0) if not ink else tuple(float(v) for v in HUES["purple"] / np.linalg.norm(HUES["purple"]))
    return SegmentEvidence(s, 40, ink, ink, 0.4 if ink else 0.0, c, span=ink, faint=faint)  # type: ignore[arg-type]


def test_the_trees_give_the_logistic_of_the_leaves_reached() -> None:
    model = _model()
    x = np.zeros((2, len(doubt_model.FEATURES)))
    x[1, doubt_model.FEATURES.index("faint")] = 0.8
    assert model.probability(x) == pytest.approx([1 / (1 + math.exp(2.0)), 1 / (1 + math.exp(-2.0))])


def test_a_model_of_other_features_is_refused_naming_its_file(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"features": ["ink"], "baseline": 0.0, "depth": 0, "trees": [[[-1, 0.0, 0, 0, 1.0]]]}))
    with pytest.raises(ValueError, match=r"old\.json"):
        doubt_model.load_model(path)
    assert doubt_model.load_model(tmp_path / "none.json") is None


def test_the_shipped_models_read_the_readers_features() -> None:
    model = doubt_model.load_model()
    assert model is not None and model.features == doubt_model.FEATURES
    assert model.probability(np.zeros((3, len(doubt_model.FEATURES)))).shape == (3,)
    second = doubt_model.load_colour_model()
    assert second is not None and second.features == doubt_model.COLOUR_FEATURES
    assert second.probability(np.zeros((2, len(doubt_model.COLOUR_FEATURES)))).shape == (2,)
    with pytest.raises(ValueError, match="features"):
        doubt_model.load_colour_model(doubt_model.DEFAULT_PATH)  # the first model is not the second


def _decisions() -> tuple[dict[Section, doubt_model.Decision], dict[Section, SegmentEvidence]]:
    """Every section read blank with confidence, nothing measured on it: the tests set their own."""
    decided: dict[Section, doubt_model.Decision] = {s: (None, 1.0, "", 1.0) for s in MAP.sections}
    evidence = {s: _ev(s) for s in MAP.sections}
    return decided, evidence


def test_a_section_in_doubt_takes_the_models_reading_and_stays_in_doubt() -> None:
    decided, evidence = _decisions()
    light, sure, crossed, twice = (_section(n) for n in ("0,2-0,3", "8,1-9,1", "4,3-5,4", "2,3-2,4"))
    partner = next(iter(MAP.crossing_partners[crossed]))
    nearest = {s: "purple" for s in MAP.sections}
    decided[light] = (None, 0.6, "faint pencil (80% of it) next to the purple line", 1.0)
    decided[crossed] = (None, 0.6, "faint", 1.0)
    decided[partner] = ("blue", 1.0, "", 1.0)
    decided[twice] = (None, 0.6, "faint", 1.0)
    for s in (light, sure, crossed, twice):
        evidence[s] = _ev(s, faint=0.8)
    doubt_model.settle_doubts(
        decided,
        evidence,
        nearest,
        {twice: "blue"},
        MAP.crossing_partners,
        CONFIDENT,
        _model(),
        DEPARTURES,
        HUES,
    )
    colour, confidence, reason, _m = decided[light]
    assert colour == "purple" and confidence == 0.6
    assert reason.startswith("faint pencil") and "model learnt on the bench" in reason
    assert decided[sure][0] is None  # read with confidence: the rules' reading stands
    assert decided[crossed][0] is None  # a drawn section crosses it
    assert decided[twice][0] is None  # drawn in two pencils: the rules' own doubt


def test_a_section_in_doubt_read_drawn_is_not_drawn_when_the_model_says_so() -> None:
    decided, evidence = _decisions()
    s = _section("8,1-9,1")
    decided[s] = ("purple", 0.6, "light pencil", 1.0)
    evidence[s] = _ev(s, ink=0.3, faint=0.3)
    doubt_model.settle_doubts(decided, evidence, {}, {}, MAP.crossing_partners, CONFIDENT, _model(), DEPARTURES, HUES)
    assert decided[s][0] is None and decided[s][1] == 0.6


def test_the_features_follow_the_line_the_section_would_belong_to() -> None:
    # The pink line leaves its departure (7,3) for 9,1; a piece of it lies apart (4,4-5,3). A section
    # in doubt leaving 9,1 touches the line's end, on the part joined to the departure; one from
    # 5,3 to 6,2 touches only the piece.
    decided, evidence = _decisions()
    leaving, beside_piece = _section("9,1-9,2"), _section("5,3-6,2")
    decided[_section("7,3-9,1")] = ("pink", 1.0, "", 1.0)
    decided[_section("4,4-5,3")] = ("pink", 1.0, "", 1.0)
    decided[leaving] = (None, 0.6, "faint", 0.8)
    decided[beside_piece] = (None, 0.6, "faint", 0.8)
    evidence[leaving] = dataclasses.replace(_ev(leaving), chroma=tuple(HUES["pink"] / np.linalg.norm(HUES["pink"])))
    nearest = {leaving: "pink", beside_piece: "pink"}
    x = doubt_model.features(decided, evidence, nearest, [leaving, beside_piece], CONFIDENT, DEPARTURES, HUES)
    first, second = (dict(zip(doubt_model.FEATURES, row, strict=True)) for row in x)
    assert (first["line_ends"], first["line_touches"], first["read_drawn"], first["margin"]) == (1, 1, 0, 0.8)
    assert (first["main_touches"], first["stray_touches"]) == (1, 0)
    assert first["hue_cos"] == pytest.approx(1.0)
    assert (second["main_touches"], second["stray_touches"], second["hue_cos"]) == (0, 1, 0.0)
    # The line's length and its ends away from the section, the section itself left out: two
    # sections, ends at 7,3, 4,4 and 5,3 (and 9,1, where the first section would join it).
    assert (first["line_sections"], first["line_tips"]) == (2, 3)
    decided[leaving] = ("pink", 0.6, "faint", 0.8)
    (row,) = doubt_model.features(decided, evidence, nearest, [leaving], CONFIDENT, DEPARTURES, HUES)
    read_drawn = dict(zip(doubt_model.FEATURES, row, strict=True))
    assert (read_drawn["line_sections"], read_drawn["line_tips"]) == (2, 3)


def test_on_a_scan_the_features_weigh_the_specks_of_the_pencil_against_the_sheets_blank_sections() -> None:
    # Specks are measured on a clean scan only: on a photo every speck measure says "not measured".
    decided, evidence = _decisions()
    s = _section("9,1-9,2")
    decided[_section("7,3-9,1")] = ("pink", 1.0, "", 1.0)
    decided[s] = (None, 0.6, "would connect", 0.8)
    nearest = {s: "pink"}
    (row,) = doubt_model.features(decided, evidence, nearest, [s], CONFIDENT, DEPARTURES, HUES)
    photo = dict(zip(doubt_model.FEATURES, row, strict=True))
    assert (photo["specks"], photo["specks_lead"], photo["specks_blank"]) == (-1, 0, -1)
    # On a scan: pink specks on 60 % of the section, purple on 10 %; the sheet's blank sections away
    # from the pink line show pink specks on 5 % at most (a tinted guide), those touching it (where
    # its own stroke's edge lies) on more, which do not count.
    pink = LINE_COLOURS.index("pink")
    blank = tuple(0.05 if k == pink else 0.0 for k in range(4))
    for t in evidence:
        evidence[t] = dataclasses.replace(evidence[t], specks=blank)
    evidence[_section("8,1-9,1")] = dataclasses.replace(evidence[s], specks=(0.0, 0.0, 0.4, 0.0))
    evidence[s] = dataclasses.replace(evidence[s], specks=(0.1, 0.0, 0.6, 0.0))
    (row,) = doubt_model.features(decided, evidence, nearest, [s], CONFIDENT, DEPARTURES, HUES)
    scan = dict(zip(doubt_model.FEATURES, row, strict=True))
    assert (scan["specks"], scan["specks_lead"], scan["specks_blank"]) == pytest.approx((0.6, 0.5, 0.05))
    # The second model has each pencil's specks: the one read and the other beside it.
    decided[s] = ("pink", 0.6, "colour between two pencils", 0.3)
    evidence[s] = dataclasses.replace(evidence[s], chroma=_between("purple", "pink", 0.7))
    (row,) = doubt_model.colour_features(decided, evidence, [s], ["purple"], CONFIDENT, DEPARTURES, HUES)
    x = dict(zip(doubt_model.COLOUR_FEATURES, row, strict=True))
    assert (x["read_specks"], x["other_specks"]) == pytest.approx((0.6, 0.1))


def test_the_rebuild_gives_the_model_the_last_word_on_its_doubts(monkeypatch: pytest.MonkeyPatch) -> None:
    # Away from every line, a section marked on a quarter with faint marks on most of it: the rules
    # read it as not drawn, in doubt; a model that reads such faint marks as drawn has it drawn, still
    # in doubt, so the sheet is still flagged.
    lone = _section("8,1-9,1")
    evidence = {s: _ev(s) for s in MAP.sections}
    evidence[lone] = _ev(lone, ink=0.29, faint=0.73)
    monkeypatch.setattr(doubt_model, "default_model", lambda: None)
    monkeypatch.setattr(doubt_model, "default_colour_model", lambda: None)
    alone = rebuild(evidence, MAP).sections[lone]
    assert alone.colour is None and alone.doubtful
    monkeypatch.setattr(doubt_model, "default_model", lambda: _model())
    learnt = rebuild(evidence, MAP).sections[lone]
    assert learnt.colour == "purple" and learnt.doubtful


def test_a_section_in_doubt_read_drawn_takes_the_other_pencil_the_second_model_prefers() -> None:
    # Three sections of a colour between purple and pink, nearer pink: one read pink in doubt (the
    # model keeps it), one read purple in doubt (it takes pink), one read purple with confidence.
    decided, evidence = _decisions()
    kept, switched, sure = (_section(n) for n in ("8,1-9,1", "0,2-0,3", "2,3-2,4"))
    decided[kept] = ("pink", 0.6, "colour between two pencils", 0.3)
    decided[switched] = ("purple", 0.6, "colour between two pencils", 0.1)
    decided[sure] = ("purple", 0.95, "", 0.1)
    for s in (kept, switched, sure):
        evidence[s] = dataclasses.replace(_ev(s, ink=0.9), chroma=_between("purple", "pink", 0.6))
    doubt_model.settle_colours(decided, evidence, {}, CONFIDENT, _colour_model(), DEPARTURES, HUES)
    assert decided[kept][0] == "pink"
    colour, confidence, reason, _m = decided[switched]
    assert (colour, confidence) == ("pink", 0.6)
    assert reason.startswith("colour between") and "drawn in pink, not purple" in reason
    assert decided[sure][0] == "purple"
    assert doubt_model.settle_colours(decided, evidence, {}, CONFIDENT, None, DEPARTURES, HUES) is None


def test_the_second_models_features_weigh_both_pencils_lines_without_the_section() -> None:
    # The pink line leaves its departure (7,3) for 9,1; a section in doubt read purple leaves 9,1
    # with a colour nearer purple than pink, and the purple line is nowhere near it.
    decided, evidence = _decisions()
    s = _section("9,1-9,2")
    decided[_section("7,3-9,1")] = ("pink", 1.0, "", 1.0)
    decided[s] = ("purple", 0.6, "colour between two pencils", 0.4)
    evidence[s] = dataclasses.replace(_ev(s, ink=0.9), chroma=_between("purple", "pink", 0.3))
    other = doubt_model.other_pencil(evidence[s], "purple", HUES)
    assert other == "pink"
    (row,) = doubt_model.colour_features(decided, evidence, [s], [other], CONFIDENT, DEPARTURES, HUES)
    x = dict(zip(doubt_model.COLOUR_FEATURES, row, strict=True))
    assert 0 < x["lead"] < 1 and x["clear_lead"] == 0
    assert (x["read_touches"], x["read_ends"], x["read_main_touches"], x["read_line_sections"]) == (0, 0, 0, 0)
    assert (x["other_touches"], x["other_ends"], x["other_main_touches"], x["other_line_sections"]) == (1, 1, 1, 1)
    assert x["other_line_tips"] == 1  # the pink line's end at its departure, away from the section
    assert x["read_hue_cos"] > x["other_hue_cos"]
