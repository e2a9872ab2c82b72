"""Rebuild on hand-made evidence: how the game's structure settles what the pencil alone leaves open.

These are the rules' readings: the model learnt on the bench, which gives the sections they leave in
doubt their best reading last, is left out here (``tests/test_doubt_model.py`` tests it)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nsvision.calibration import load_calibration
from nsvision.game.board import Colour, Section, parse_station_name
from nsvision.vision import doubt_model
from nsvision.vision.detect import SegmentEvidence, pencil_hues
from nsvision.vision.rebuild import Reading, SectionReading, _band_explains, learn_hues, rebuild, settle_by_hand

MAP = load_calibration().map
HUES = pencil_hues()


@pytest.fixture(autouse=True)
def _rules_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doubt_model, "default_model", lambda: None)
    monkeypatch.setattr(doubt_model, "default_colour_model", lambda: None)


def _section(name: str) -> Section:
    a, b = name.split("-")
    return Section.of(parse_station_name(a), parse_station_name(b))


def _ev(s: Section, ink: float = 0.0, chroma: np.ndarray | None = None, **kw: float) -> SegmentEvidence:
    c = (0.0, 0.0, 0.0) if chroma is None else tuple(float(v) for v in chroma / np.linalg.norm(chroma))
    return SegmentEvidence(s, 40, ink, ink, 0.4 if ink else 0.0, c, span=ink, **kw)  # type: ignore[arg-type]


def _read(
    drawn: dict[str, Colour],
    blank_faint: float = 0.0,
    band: tuple[float, float, float] | None = None,
    **special: SegmentEvidence,
) -> Reading:
    """Every section empty except ``drawn`` (clearly drawn in its colour) and the ``special`` ones."""
    evidence = {s: _ev(s, faint=blank_faint) for s in MAP.sections}
    for name, colour in drawn.items():
        s = _section(name)
        evidence[s] = _ev(s, 1.0, HUES[colour])
    for ev in special.values():
        evidence[ev.section] = ev
    return rebuild(evidence, MAP, None, band)


# One clear section per line away from the sections under test, so that no line is read as empty.
OTHERS: dict[str, Colour] = {"5,7-5,9": "blue", "7,3-7,5": "pink", "3,1-3,2": "green"}


def test_a_plain_faint_join_of_a_line_is_read_as_drawn_without_doubt() -> None:
    join = _section("2,7-3,7")
    reading = _read({**OTHERS, "2,5-2,7": "purple", "3,6-3,7": "purple"}, join=_ev(join, 0.2, HUES["purple"]))
    assert reading.sections[join].colour == "purple"
    assert not reading.doubtful


def test_a_short_join_marked_on_a_fifth_of_it_makes_a_line_branch_only_in_doubt_on_a_photo() -> None:
    # Between two large symbols the strokes of the lines through them end in a short section: on a
    # photo a fifth of it marked, where it would meet a piece of the line in its middle (the line
    # branching at 3,7), is as often their ends as a stroke (`unseen` photo 86048).
    join = _section("2,7-3,7")
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple", "3,6-3,7": "purple", "3,7-3,9": "purple"}
    photo = _read(lines, join=_ev(join, 0.2, HUES["purple"], short=True))
    assert photo.sections[join].colour == "purple"
    assert photo.sections[join].doubtful
    # Marked on more of it, or joining two pieces' ends, or on a clean picture (a scan: specks
    # measured at its own resolution), it is the join without doubt.
    plainer = _read(lines, join=_ev(join, 0.35, HUES["purple"], short=True))
    ends = _read({**OTHERS, "2,5-2,7": "purple", "3,6-3,7": "purple"}, join=_ev(join, 0.2, HUES["purple"], short=True))
    far = _section("8,1-9,1")
    scan = _read(lines, join=_ev(join, 0.2, HUES["purple"], short=True), far=_ev(far, specks=(0.0, 0.0, 0.0, 0.0)))
    for reading in (plainer, ends, scan):
        assert reading.sections[join].colour == "purple"
        assert not reading.doubtful


def test_a_barely_marked_join_is_read_as_drawn_but_in_doubt() -> None:
    join = _section("2,7-3,7")
    reading = _read({**OTHERS, "2,5-2,7": "purple", "3,6-3,7": "purple"}, join=_ev(join, 0.08, HUES["purple"]))
    assert reading.sections[join].colour == "purple"
    assert reading.sections[join].doubtful


def test_a_section_marked_on_a_quarter_with_faint_marks_on_most_of_it_is_not_drawn_but_in_doubt() -> None:
    # Away from every line: a light stroke whose ink stops short of the share that reads it drawn,
    # its faint marks running on (a bench sheet read wrong without a flag had such a last section).
    lone = _section("8,1-9,1")
    reading = _read(OTHERS, lone=_ev(lone, 0.29, HUES["purple"], faint=0.73))
    assert reading.sections[lone].colour is None
    assert reading.sections[lone].doubtful
    # Less ink, or few faint marks beyond it: plainly not drawn.
    for ink, faint in ((0.2, 0.73), (0.29, 0.35)):
        plain = _read(OTHERS, lone=_ev(lone, ink, HUES["purple"], faint=faint))
        assert plain.sections[lone].colour is None
        assert not plain.sections[lone].doubtful


def test_the_one_join_with_faint_marks_of_the_lines_hue_joins_it_in_the_best_reading() -> None:
    # Too light to call drawn (no ink, faint marks on a third of it), but the only join that shows
    # anything: the best reading joins the line there, and a person is asked to look.
    join, other = _section("2,7-3,7"), _section("2,5-3,6")
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple", "3,6-3,7": "purple"}
    traced = _ev(join, 0.0, HUES["purple"], faint=0.35)
    reading = _read(lines, join=traced)
    assert reading.sections[join].colour == "purple"
    assert reading.sections[join].doubtful
    # Two joins with such marks: nothing says which, both are named and neither is drawn.
    both = _read(lines, join=traced, other=_ev(other, 0.0, HUES["purple"], faint=0.35))
    assert both.sections[join].colour is None and both.sections[other].colour is None
    assert both.sections[join].doubtful and both.sections[other].doubtful
    # Faint marks of the next hue to the line's (a light purple stroke often looks pink) are its
    # trace too; marks of a pencil far from it (green for purple) are not.
    pinkish = _read(lines, join=_ev(join, 0.0, HUES["pink"], faint=0.35))
    assert pinkish.sections[join].colour == "purple"
    assert pinkish.sections[join].doubtful
    greenish = _read(lines, join=_ev(join, 0.0, HUES["green"], faint=0.35))
    assert greenish.sections[join].colour is None


def test_a_join_over_the_thames_marked_on_a_quarter_is_drawn_without_doubt_when_no_other_join_is_marked() -> None:
    # Pink leaves 7,3 for 8,4; a piece of it runs 7,5-7,6. Of the two sections that would join
    # them, both over the Thames, one carries pink on 30 % of it, the other nothing at all.
    join, rival = _section("7,5-8,4"), _section("7,3-7,5")
    others: dict[str, Colour] = {"5,7-5,9": "blue", "3,1-3,2": "green", "2,5-2,7": "purple"}
    lines: dict[str, Colour] = {**others, "7,3-8,4": "pink", "7,5-7,6": "pink"}
    marked = _ev(join, 0.3, HUES["pink"], over_river=1.0)
    reading = _read(lines, join=marked, rival=_ev(rival, over_river=1.0))
    assert reading.sections[join].colour == "pink"
    assert not reading.doubtful
    # Faint marks on the other join, or less of this one marked: a person looks.
    faint_rival = _read(lines, join=marked, rival=_ev(rival, faint=0.2, over_river=1.0))
    assert faint_rival.sections[join].colour == "pink"
    assert faint_rival.sections[join].doubtful
    lighter = _read(lines, join=_ev(join, 0.2, HUES["pink"], over_river=1.0), rival=_ev(rival, over_river=1.0))
    assert lighter.sections[join].colour == "pink"
    assert lighter.sections[join].doubtful


def test_a_person_settles_a_section_in_doubt_and_nothing_else() -> None:
    join = _section("2,7-3,7")
    reading = _read({**OTHERS, "2,5-2,7": "purple", "3,6-3,7": "purple"}, join=_ev(join, 0.08, HUES["purple"]))
    assert reading.sections[join].doubtful
    settled = settle_by_hand(reading, {join: None})
    assert not settled.sections[join].doubtful and settled.sections[join].colour is None
    assert [r.section for r in settled.set_by_hand] == [join]
    assert "read as purple" in settled.sections[join].reason
    assert join not in settled.network.sections("purple")
    unchanged = {s: r for s, r in settled.sections.items() if s != join}
    assert unchanged == {s: r for s, r in reading.sections.items() if s != join}
    assert settled.network.sections("blue") == reading.network.sections("blue")


def test_a_join_with_only_faint_marks_along_it_is_read_as_drawn() -> None:
    join = _section("2,7-3,7")
    purple: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple", "3,6-3,7": "purple"}
    # The only join with any marks, on a sheet whose blank sections show none: a light stroke.
    plain = _read(purple, join=_ev(join, 0.0, HUES["purple"], faint=0.7))
    assert plain.sections[join].colour == "purple"
    assert not plain.doubtful
    # Another join carries faint marks too: which one was drawn is a person's call.
    other = _section("2,5-3,6")
    faint_other = _ev(other, 0.0, HUES["purple"], faint=0.5)
    both = _read(purple, join=_ev(join, 0.0, HUES["purple"], faint=0.7), other=faint_other)
    assert both.sections[join].colour == "purple"
    assert both.sections[join].doubtful
    # Where every blank guide shows faint marks, they do not make a join sure.
    noisy = _read(purple, 0.5, join=_ev(join, 0.0, HUES["purple"], faint=0.7))
    assert noisy.sections[join].colour == "purple"
    assert noisy.sections[join].doubtful


def test_a_light_stroke_broken_up_by_noise_leaving_a_line_station_is_drawn_in_the_best_reading_in_doubt() -> None:
    # A branch of the purple line at 2,5 (so not a line end, a Railroad Switch), drawn so lightly
    # that only a tenth of it reaches the stroke threshold, faint marks along half of it: a light
    # stroke more often than such marks by chance, so drawn in the best reading, named for a person.
    light = _section("2,5-4,5")
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple", "2,5-3,6": "purple"}
    ev = _ev(light, 0.12, HUES["purple"], faint=0.5)
    reading = _read(lines, light=ev)
    assert reading.sections[light].colour == "purple"
    assert reading.sections[light].doubtful
    # Ink on too little of it, faint marks on too little, or a short section: not drawn.
    for weaker in (
        _ev(light, 0.05, HUES["purple"], faint=0.5),
        _ev(light, 0.12, HUES["purple"], faint=0.3),
        _ev(light, 0.12, HUES["purple"], faint=0.5, short=True),
    ):
        assert _read(lines, light=weaker).sections[light].colour is None
    # Faint marks on a little over a third of it are enough (`print` 9022: ink on 18 %, faint on 39 %).
    third = _read(lines, light=_ev(light, 0.18, HUES["purple"], faint=0.39))
    assert [r.section for r in third.doubtful] == [light]
    # Between two stations of its line it would close a loop: not drawn.
    assert _read({**lines, "3,6-4,5": "purple"}, light=ev).sections[light].colour is None
    # The same marks with no line of that hue near are nothing to look at.
    away = _read({**OTHERS, "2,5-2,7": "purple"}, light=_ev(_section("5,3-5,4"), 0.12, HUES["purple"], faint=0.5))
    assert not away.doubtful


def test_marks_too_light_for_ink_at_a_line_end_are_put_in_doubt() -> None:
    nxt = _section("2,7-3,7")
    light = _read({**OTHERS, "2,5-2,7": "purple"}, nxt=_ev(nxt, 0.0, HUES["purple"], faint=0.6))
    assert light.sections[nxt].colour is None
    assert light.sections[nxt].doubtful
    blank = _read({**OTHERS, "2,5-2,7": "purple"})
    assert not blank.doubtful


def test_faint_marks_on_nearly_all_of_a_short_section_at_a_line_end_are_put_in_doubt_as_not_drawn() -> None:
    # Five positions between two rings: a light stroke there leaves no more than faint marks on them
    # (`unseen` photo 89018's 0,2-0,3), as a speck does on a few of them.
    short = _section("0,2-0,3")
    purple = {**OTHERS, "2,4-2,5": "purple", "0,2-2,4": "purple"}
    light = dataclasses.replace(_ev(short, 0.0, HUES["purple"], faint=1.0), samples=5)
    read = _read(purple, short=light)
    assert read.sections[short].colour is None
    assert [r.section for r in read.doubtful] == [short]
    assert "end of the purple line" in read.sections[short].reason
    speck = _read(purple, short=dataclasses.replace(light, faint=0.6))
    assert not speck.doubtful
    away = _read({**OTHERS, "2,4-2,5": "purple"}, short=light)
    assert not away.doubtful
    # Where the line also passes through the other station, a stroke there would close a loop.
    loop = {**purple, "1,4-2,5": "purple", "0,3-1,4": "purple", "0,3-0,5": "purple"}
    assert short not in {r.section for r in _read(loop, short=light).doubtful}


def test_a_last_section_far_lighter_than_its_line_is_checked_by_a_person() -> None:
    # A purple line of firm strokes (density 1.0) whose last section, marked all along, is a fifteenth
    # as dense: a section rubbed out leaves such a smear. A fifth as dense is a light stroke, read as is.
    evidence = {s: _ev(s) for s in MAP.sections}
    for name, colour in {**OTHERS, "2,5-2,7": "purple", "2,7-3,7": "purple", "3,6-3,7": "purple"}.items():
        evidence[_section(name)] = dataclasses.replace(_ev(_section(name), 1.0, HUES[colour]), strength=1.0)
    last = _section("3,6-4,6")
    for strength, doubt in ((0.065, True), (0.2, False)):
        evidence[last] = dataclasses.replace(_ev(last, 1.0, HUES["purple"]), strength=strength)
        reading = rebuild(evidence, MAP)
        assert reading.sections[last].colour == "purple"
        assert [r.section for r in reading.doubtful] == ([last] if doubt else [])
        if doubt:
            assert "rubbed out" in reading.sections[last].reason


def test_a_light_short_branch_of_a_line_is_checked_by_a_person() -> None:
    # Purple runs 2,5-2,7-3,7 in firm strokes; a short section leaving 2,7, marked all along but
    # lightly, would make a branch there: the blurred edge of a printed symbol looks like that.
    evidence = {s: _ev(s) for s in MAP.sections}
    for name, colour in {**OTHERS, "2,5-2,7": "purple", "2,7-3,7": "purple", "0,7-2,7": "purple"}.items():
        evidence[_section(name)] = dataclasses.replace(_ev(_section(name), 1.0, HUES[colour]), strength=1.0)
    leaf = _section("1,8-2,7")
    light = dataclasses.replace(_ev(leaf, 1.0, HUES["purple"]), strength=0.12, samples=5, short=True)
    evidence[leaf] = light
    reading = rebuild(evidence, MAP)
    assert reading.sections[leaf].colour == "purple"
    assert [r.section for r in reading.doubtful] == [leaf]
    assert "short branch" in reading.sections[leaf].reason
    # Drawn firmly, or long enough for its marks to say what they are, it is read as it is.
    for plain in (dataclasses.replace(light, strength=0.3), dataclasses.replace(light, samples=40, short=False)):
        evidence[leaf] = plain
        assert not rebuild(evidence, MAP).doubtful
    # The same light, short section as the last of a line that does not branch is left to the other rules.
    evidence[leaf] = light
    for name in ("0,7-2,7", "2,7-3,7"):
        evidence[_section(name)] = _ev(_section(name))
    assert not rebuild(evidence, MAP).doubtful


def test_faint_marks_on_a_little_more_than_half_of_a_section_are_in_doubt_at_a_line_end_only() -> None:
    # 149016: faint marks on 58 % of the section leaving the purple line's end, nearer purple than
    # pink but not plainly so, read as not drawn without a flag, were its last section drawn lightly.
    nxt, branch = _section("2,7-3,7"), _section("2,5-3,6")
    leaning = 0.8 * HUES["purple"] + 0.2 * HUES["pink"]
    at_end = _read({**OTHERS, "2,5-2,7": "purple"}, nxt=_ev(nxt, 0.0, leaning, faint=0.57))
    assert at_end.sections[nxt].nearest == "purple"
    assert at_end.sections[nxt].colour is None
    assert at_end.sections[nxt].doubtful
    # Beside a station inside the line the same marks are no doubt (from 60 % they are: a branch).
    inside = _read({**OTHERS, "2,5-2,7": "purple", "2,5-4,5": "purple"}, branch=_ev(branch, 0.0, leaning, faint=0.57))
    assert not inside.doubtful


def test_faint_marks_on_part_of_a_long_section_at_a_line_end_are_put_in_doubt() -> None:
    # A long section drawn lightly shows faint marks on only part of its length.
    long = _section("2,7-4,9")
    ev = dataclasses.replace(_ev(long, 0.0, HUES["purple"], faint=0.3), samples=150)
    at_end = _read({**OTHERS, "2,5-2,7": "purple"}, long=ev)
    assert at_end.sections[long].colour is None
    assert at_end.sections[long].doubtful
    # The same share on a short section is what a blank guide may show.
    short = dataclasses.replace(ev, section=_section("2,7-3,7"), samples=40)
    assert not _read({**OTHERS, "2,5-2,7": "purple"}, short=short).doubtful
    # Beside a line passing through, only marks along most of a section are looked at.
    through = _read({**OTHERS, "2,5-2,7": "purple", "2,7-3,7": "purple"}, long=ev)
    assert not through.sections[long].doubtful


def test_where_a_light_stroke_may_hide_without_doubt_is_named_for_a_second_look() -> None:
    nxt, river, away = _section("2,7-3,7"), _section("4,5-4,6"), _section("8,1-9,1")
    reading = _read(
        {**OTHERS, "2,5-2,7": "purple", "2,5-4,5": "purple"},
        nxt=_ev(nxt, 0.0, HUES["purple"], faint=0.4),
        away=_ev(away, 0.0, HUES["purple"], faint=0.4),
        river=_ev(river, 0.0, over_river=1.0),
    )
    assert not reading.doubtful
    # Purple marks on 40 % of a section at the purple line's end, and the Thames crossing at its other end.
    assert set(reading.second_look) == {nxt, river}
    assert "purple" in reading.second_look[nxt] and "Thames" in reading.second_look[river]
    # Settled by a person, a section needs no second look.
    assert set(settle_by_hand(reading, {nxt: None}).second_look) == {river}
    # At the line's end a little less is worth a look (a light stroke most often goes on a line);
    # beside its middle (2,5) the same marks are not.
    middle = _section("2,5-3,6")
    lighter = _read(
        {**OTHERS, "2,5-2,7": "purple", "2,5-4,5": "purple"},
        nxt=_ev(nxt, 0.0, HUES["purple"], faint=0.22),
        middle=_ev(middle, 0.0, HUES["purple"], faint=0.22),
    )
    assert not lighter.doubtful
    assert set(lighter.second_look) == {nxt}


def test_faint_marks_are_ignored_where_the_print_itself_leaves_them_everywhere() -> None:
    nxt = _section("2,7-3,7")
    # Warm light or a dark print: every blank guide shows faint marks, so they say nothing.
    reading = _read({**OTHERS, "2,5-2,7": "purple"}, 0.5, nxt=_ev(nxt, 0.0, HUES["purple"], faint=0.7))
    assert not reading.doubtful


def test_on_a_sheet_with_faint_marks_everywhere_far_more_of_them_in_a_lines_hue_at_its_end_are_in_doubt() -> None:
    nxt = _section("2,7-3,7")
    # Blank guides show faint marks on up to 30 % of them: on 60 % of a section, plainly purple at
    # the purple line's end, they are more than the print leaves, and a person should look.
    light = _read({**OTHERS, "2,5-2,7": "purple"}, 0.3, nxt=_ev(nxt, 0.0, HUES["purple"], faint=0.6))
    assert light.sections[nxt].colour is None
    assert light.sections[nxt].doubtful
    # Not when they are hardly more than on the blank sections, nor on one of the shortest sections
    # (ten positions in two runs either side of a district border, the print's marks beside the
    # border covering one run, half of it), nor in a
    # colour only nearer purple than pink (a colour margin of about 0.6).
    assert not _read({**OTHERS, "2,5-2,7": "purple"}, 0.3, nxt=_ev(nxt, 0.0, HUES["purple"], faint=0.5)).doubtful
    short = dataclasses.replace(_ev(nxt, 0.0, HUES["purple"], faint=0.9), samples=10)
    assert not _read({**OTHERS, "2,5-2,7": "purple"}, 0.3, nxt=short).doubtful
    # A short section next to a tourist site (14 positions) is long enough: 111044's light last
    # section was read as not drawn without a flag when 20 were asked for.
    beside_site = dataclasses.replace(short, samples=14)
    assert _read({**OTHERS, "2,5-2,7": "purple"}, 0.3, nxt=beside_site).sections[nxt].doubtful
    leaning = _ev(nxt, 0.0, 0.8 * HUES["purple"] + 0.2 * HUES["pink"], faint=0.6)
    reading = _read({**OTHERS, "2,5-2,7": "purple"}, 0.3, nxt=leaning)
    assert reading.sections[nxt].nearest == "purple"
    assert not reading.doubtful


def test_over_the_thames_a_plain_colour_whose_line_reaches_it_is_not_unclear_for_another_line_reaching() -> None:
    # Green ends at 2,4 and blue passes through it: plainly green and clearly drawn, the crossing is
    # green's, though blue (the next hue to green) reaches it as well.
    river = _section("2,3-2,4")
    lines: dict[str, Colour] = {**OTHERS, "0,2-2,4": "green", "1,4-2,4": "blue", "2,4-2,5": "blue"}
    reading = _read(lines, river=_ev(river, 1.0, HUES["green"], over_river=1.0))
    assert reading.sections[river].colour == "green"
    assert not reading.sections[river].doubtful
    # Marked on only part of it (where another guide crosses it, the band is not measured), a
    # crossing that carries its line on from 2,3 is as plain.
    carried: dict[str, Colour] = {**OTHERS, "2,3-3,2": "green", "1,4-2,4": "blue", "2,4-2,5": "blue"}
    part = _read(carried, river=_ev(river, 0.6, HUES["green"], over_river=1.0))
    assert part.sections[river].colour == "green"
    assert not part.sections[river].doubtful
    # Halfway between the two hues, it stays in doubt.
    halfway = _ev(river, 1.0, HUES["green"] + HUES["blue"], over_river=1.0)
    assert _read(lines, river=halfway).sections[river].doubtful


def _between_purple_and_pink() -> np.ndarray:
    return 0.6 * HUES["purple"] + 0.4 * HUES["pink"]


def test_over_the_thames_a_close_hue_is_settled_by_the_lines_that_reach_the_section() -> None:
    river = _section("4,5-4,6")
    ev = _ev(river, 1.0, _between_purple_and_pink(), over_river=1.0)
    purple: dict[str, Colour] = {"2,5-4,5": "purple", "4,6-4,9": "purple"}
    # Blue also ends at 4,6, but its pencil is not the one seen; pink, the close hue, is nowhere near.
    alone: dict[str, Colour] = {**OTHERS, **purple, "4,6-5,7": "blue"}
    reading = _read(alone, river=ev)
    assert reading.sections[river].colour == "purple"
    assert not reading.sections[river].doubtful
    # When the pink line reaches it as well, the hue cannot choose between the two: a person looks.
    both: dict[str, Colour] = {**OTHERS, **purple, "4,6-7,3": "pink"}
    reading = _read(both, river=ev)
    assert reading.sections[river].doubtful


def test_over_the_dark_band_a_colour_halfway_between_two_lines_that_reach_it_stays_in_doubt() -> None:
    # The cream print's dark blue band (its density over the paper, as measured on a photo). A colour
    # halfway between green and blue is one only the blue pencil "explains" on that band, but it is
    # halfway: both lines reach the section, so either may have drawn it (a shaken photo read a green
    # stroke blue there, without doubt).
    band = (0.90, 0.52, 0.02)
    river = _section("2,3-2,4")
    halfway = 0.5 * HUES["green"] + 0.5 * HUES["blue"]
    assert _band_explains(halfway / np.linalg.norm(halfway), HUES, band) == {"blue"}
    lines: dict[str, Colour] = {**OTHERS, "0,2-2,4": "green", "1,4-2,4": "blue", "2,4-2,5": "blue"}
    reading = _read(lines, band=band, river=_ev(river, 1.0, halfway, over_river=1.0))
    assert reading.sections[river].doubtful
    # Nearer one hue than even paper needs, the band's account of the colour settles it.
    bluish = 0.2 * HUES["green"] + 0.8 * HUES["blue"]
    reading = _read(lines, band=band, river=_ev(river, 1.0, bluish, over_river=1.0))
    assert reading.sections[river].colour == "blue"
    assert not reading.sections[river].doubtful


def test_a_partly_marked_section_holding_a_line_together_is_not_in_doubt() -> None:
    mid = _section("2,7-3,7")
    held = _read({**OTHERS, "2,5-2,7": "purple", "3,6-3,7": "purple"}, mid=_ev(mid, 0.45, HUES["purple"]))
    assert held.sections[mid].colour == "purple"
    assert not held.doubtful
    # The same marks at the end of the line could be a stroke that stops short or one that starts
    # a new section: a person looks.
    end = _read({**OTHERS, "2,5-2,7": "purple"}, mid=_ev(mid, 0.45, HUES["purple"]))
    assert end.sections[mid].colour == "purple"
    assert end.sections[mid].doubtful


def test_over_the_thames_a_hue_close_to_one_line_goes_to_it_when_only_that_line_of_the_two_reaches() -> None:
    river = _section("4,5-4,6")
    ev = _ev(river, 1.0, _between_purple_and_pink(), over_river=1.0)
    # Nearest purple, second pink; pink ends at 4,6 and so does green, whose pencil is far from it.
    green: dict[str, Colour] = {"3,2-3,6": "green", "3,6-4,6": "green"}
    lines: dict[str, Colour] = {**OTHERS, **green, "2,5-2,7": "purple", "4,6-7,3": "pink"}
    reading = _read(lines, river=ev)
    assert reading.sections[river].colour == "pink"
    assert not reading.sections[river].doubtful


def test_over_the_thames_a_plain_hue_is_not_given_to_another_line_without_doubt_where_its_own_does_not_reach() -> None:
    # Plainly purple, but the purple line (2,5-2,7) does not reach 4,5-4,6 and pink ends at 4,6: the
    # structure's guess, pink, goes against what is seen (a purple section next to it missed), so a
    # person confirms it. Between the two hues, the structure decides alone (the test above).
    river = _section("4,5-4,6")
    green: dict[str, Colour] = {"3,2-3,6": "green", "3,6-4,6": "green"}
    lines: dict[str, Colour] = {**OTHERS, **green, "2,5-2,7": "purple", "4,6-7,3": "pink"}
    reading = _read(lines, river=_ev(river, 1.0, HUES["purple"], over_river=1.0))
    assert reading.sections[river].doubtful


def test_faint_marks_over_the_thames_at_a_line_end_are_put_in_doubt_on_any_sheet() -> None:
    # A pencil of a hue near the band's own barely shows on it: faint marks are all that is left.
    river = _section("4,5-4,6")
    green: dict[str, Colour] = {**OTHERS, "3,2-3,6": "green", "3,6-4,6": "green"}
    for blank_faint in (0.0, 0.5):  # also where the paper's guides leave faint marks everywhere
        reading = _read(green, blank_faint, river=_ev(river, 0.0, HUES["green"], faint=0.35, over_river=1.0))
        assert reading.sections[river].colour is None
        assert reading.sections[river].doubtful
    fainter = _read(green, river=_ev(river, 0.0, HUES["green"], faint=0.2, over_river=1.0))
    assert not fainter.doubtful
    # On a band whose colour green pencil lacks, on 4 of the 14 positions of this short crossing
    # (a light stroke, blurred); specks of the band's own colour as many are its texture.
    light = _ev(river, 0.0, HUES["green"], faint=4 / 14, over_river=1.0)
    assert _read(green, band=DARK_BLUE_BAND, river=light).sections[river].doubtful
    specks = _ev(river, 0.0, np.array([0.92, 0.39, 0.0]), faint=4 / 14, over_river=1.0)
    assert not _read(green, band=DARK_BLUE_BAND, river=specks).doubtful


def test_faint_marks_all_along_a_river_section_at_a_station_inside_a_line_are_put_in_doubt() -> None:
    # A blue branch drawn on the blue band from 4,6, where the blue line passes: faint marks of
    # its hue all along the section are a stroke the band swallows, not the band's texture.
    river = _section("4,5-4,6")
    blue: dict[str, Colour] = {**OTHERS, "4,6-5,7": "blue", "3,6-4,6": "blue"}
    along = _read(blue, river=_ev(river, 0.0, HUES["blue"], faint=1.0, over_river=1.0))
    assert along.sections[river].doubtful
    # Marks on part of it there are the band's edges and texture.
    part = _read(blue, river=_ev(river, 0.0, HUES["blue"], faint=0.5, over_river=1.0))
    assert not part.doubtful


def test_faint_marks_over_the_thames_unlike_the_pencil_of_the_line_ending_there_are_the_band() -> None:
    river = _section("4,5-4,6")
    purple: dict[str, Colour] = {**OTHERS, "2,5-4,5": "purple"}
    bluish = _ev(river, 0.0, HUES["blue"], faint=0.35, over_river=1.0)
    # Purple shows plainly on a light band: bluish or pinkish specks next to its end are the band.
    assert not _read(purple, river=bluish).doubtful
    pinkish = _ev(river, 0.0, HUES["pink"], faint=0.35, over_river=1.0)
    assert not _read(purple, river=pinkish).doubtful
    # On a dark blue band purple fades in red and can look pink: they may be its next section.
    assert _read(purple, band=DARK_BLUE_BAND, river=pinkish).sections[river].doubtful


def test_a_colour_unlike_the_sheets_own_pencil_is_in_doubt() -> None:
    pink: dict[str, Colour] = {**OTHERS, "6,2-7,3": "pink", "7,0-7,3": "pink", "7,3-8,4": "pink"}
    # A grey guide under warm light: pinkish, but bluer than any pink pencil on the sheet.
    guide = _section("2,7-3,7")
    reading = _read(pink, guide=_ev(guide, 1.0, np.array([0.0, 0.6, 0.8])))
    assert reading.sections[guide].colour == "pink"
    assert reading.sections[guide].doubtful
    assert "unlike" in reading.sections[guide].reason
    assert [r.section for r in reading.doubtful] == [guide]


def _pink_leaning_river() -> tuple[Section, SegmentEvidence]:
    """The river section 4,5-4,6 clearly drawn in a colour between purple and pink, nearer pink."""
    river = _section("4,5-4,6")
    return river, _ev(river, 1.0, 0.4 * HUES["purple"] + 0.6 * HUES["pink"], over_river=1.0)


def test_a_colour_in_doubt_that_breaks_the_rules_takes_the_hue_that_keeps_them() -> None:
    river, ev = _pink_leaning_river()
    # Nearest pink, second purple; both lines reach it. Read pink, the purple line is in two pieces.
    # Purple and pink differ mostly in red, which the band hides: the rules decide, and surely.
    lines: dict[str, Colour] = {**OTHERS, "2,5-4,5": "purple", "4,6-4,9": "purple", "4,6-7,3": "pink"}
    reading = _read(lines, river=ev)
    assert reading.sections[river].colour == "purple"
    assert not reading.doubtful
    # Drawn lightly, whether it is drawn at all is in question too: mended, but a person looks.
    light = _read(lines, river=dataclasses.replace(ev, ink=0.45))
    assert light.sections[river].colour == "purple"
    assert light.sections[river].doubtful
    # When the purple line is whole anyway, nothing is mended: the nearest hue stays.
    whole: dict[str, Colour] = {**OTHERS, "2,5-4,5": "purple", "4,6-7,3": "pink"}
    assert _read(whole, river=ev).sections[river].colour == "pink"


def test_the_sheets_hues_are_learnt_from_firm_strokes_more_than_from_light_marks() -> None:
    evidence = {s: _ev(s) for s in MAP.sections}
    for name in ("7,3-7,5", "6,2-7,3", "7,0-7,3"):
        s = _section(name)
        evidence[s] = SegmentEvidence(s, 40, 1.0, 1.0, 0.6, tuple(HUES["pink"]), span=1.0)
    # Light pinkish marks (guides under warm light) outnumber the pink pencil's sections.
    for name in ("0,0-0,2", "2,7-3,7", "3,1-3,2", "5,7-5,9", "1,8-6,8"):
        s = _section(name)
        evidence[s] = SegmentEvidence(s, 40, 1.0, 1.0, 0.1, (0.0, 0.6, 0.8), span=1.0)
    assert float(np.array(learn_hues(evidence, MAP)["pink"]) @ HUES["pink"]) > 0.99


def test_a_few_specks_over_the_thames_next_to_a_line_are_the_band_not_pencil() -> None:
    river = _section("4,5-4,6")
    through: dict[str, Colour] = {**OTHERS, "2,5-4,5": "purple", "4,5-7,5": "purple"}
    # A few samples over the stroke threshold, nothing much else: the band's edge, not a stroke.
    specks = _read(through, river=_ev(river, 0.1, HUES["blue"], faint=0.15, over_river=1.0))
    assert not specks.doubtful
    # Marks along a good part of it, some of them dense, next to a line: a person looks.
    stroke = _read(through, river=_ev(river, 0.1, HUES["blue"], faint=0.4, over_river=1.0))
    assert stroke.sections[river].doubtful


def test_a_quarter_of_a_river_section_marked_in_a_colour_the_band_lacks_is_looked_at() -> None:
    # A line's last section over the band, drawn with a pencil the band mostly hides (a bright green
    # on the teal band keeps only its blue density): a quarter of it reaches the stroke threshold,
    # nothing more is seen. Specks of the band's own colour (its edges along a diagonal crossing) are not pencil.
    river = _section("4,5-4,6")
    green: dict[str, Colour] = {**OTHERS, "3,2-3,6": "green", "3,6-4,6": "green"}
    hidden = _ev(river, 0.25, np.array([0.1, 0.0, 1.0]), faint=0.25, over_river=1.0)
    assert _read(green, band=DARK_BLUE_BAND, river=hidden).sections[river].doubtful
    edges = _ev(river, 0.25, np.array([0.92, 0.39, 0.0]), faint=0.25, over_river=1.0)
    assert not _read(green, band=DARK_BLUE_BAND, river=edges).doubtful


def test_after_the_rules_mend_a_line_its_possible_joins_are_no_longer_named() -> None:
    river, ev = _pink_leaning_river()
    # Read pink, the purple line is in two pieces and 2,5-3,6 or 3,6-4,5 could join them; read
    # purple (the mend), it is whole: only the mended section is left for a person to check.
    lines: dict[str, Colour] = {**OTHERS, "2,5-4,5": "purple", "3,6-4,6": "purple", "4,6-7,3": "pink"}
    reading = _read(lines, river=ev)
    assert reading.sections[river].colour == "purple"
    assert not reading.doubtful


DARK_BLUE_BAND = (0.85, 0.5, 0.02)
"""Density over the paper of a dark blue Thames band (red and some green absorbed)."""


def test_on_a_dark_blue_band_purple_can_look_pink_but_green_never_looks_blue() -> None:
    pinkish = np.array([0.0, 0.91, 0.41])
    assert {"purple", "pink"} <= _band_explains(pinkish, HUES, DARK_BLUE_BAND)
    # Green loses its red there and keeps its blue: no other pencil can look like that.
    greenish = np.array([0.3, 0.0, 0.95])
    assert _band_explains(greenish / np.linalg.norm(greenish), HUES, DARK_BLUE_BAND) == {"green"}


def test_a_line_in_pieces_either_side_of_a_band_that_hides_its_pencil_is_joined_across_it_in_doubt() -> None:
    # Blue leaves 5,7 for 4,6, and a piece of it runs 4,4-4,5 beyond the Thames: the one section
    # that would join them crosses the band, where blue pencil on a blue band leaves no mark.
    join = _section("4,5-4,6")
    lines: dict[str, Colour] = {**OTHERS, "4,6-5,7": "blue", "4,4-4,5": "blue"}
    blank = _ev(join, over_river=1.0)
    reading = _read(lines, band=DARK_BLUE_BAND, join=blank)
    assert reading.sections[join].colour == "blue"
    assert reading.sections[join].doubtful
    assert "hides blue" in reading.sections[join].reason
    # A band of another hue would show blue pencil: the line is left in pieces, the join named.
    green_band = _read(lines, band=(0.47, 0.18, 0.55), join=blank)
    assert green_band.sections[join].colour is None
    assert green_band.sections[join].doubtful


def test_a_line_in_pieces_with_one_section_joining_their_ends_is_joined_there_in_doubt() -> None:
    # Purple leaves its departure 2,5 for 3,6; a piece of it runs 4,6-5,7 with no pencil between.
    # The line grew from its ends, and 3,6-4,6 alone joins an end of the first part to an end of
    # the piece, crossing nothing drawn: drawn in the best reading, in doubt, so the sheet is not
    # scored as a line left in pieces unseen.
    join = _section("3,6-4,6")
    lines: dict[str, Colour] = {**OTHERS, "2,5-3,6": "purple", "4,6-5,7": "purple"}
    reading = _read(lines)
    assert reading.sections[join].colour == "purple" and reading.sections[join].doubtful
    assert "the one section joining their ends" in reading.sections[join].reason
    assert join in reading.network.sections("purple")
    # Where the first part ends at 3,7 instead, two sections join its end to an end of the piece
    # (3,7-4,6 and 3,7-5,7): which, if either, is for a person to say. The line stays in pieces.
    two = _read({**OTHERS, "2,5-3,6": "purple", "3,6-3,7": "purple", "4,6-5,7": "purple"})
    assert two.sections[_section("3,7-4,6")].colour is None and two.sections[_section("3,7-5,7")].colour is None
    assert two.sections[_section("3,7-4,6")].doubtful


def test_on_the_band_the_one_reaching_line_whose_pencil_can_look_so_takes_the_section() -> None:
    river = _section("4,5-4,6")
    ev = _ev(river, 1.0, np.array([0.3, 0.0, 0.95]), over_river=1.0)
    # Green and purple both reach it; the colour is between hues, so without the band's look the
    # purple line is a rival.
    lines: dict[str, Colour] = {**OTHERS, "2,5-4,5": "purple", "3,6-4,6": "green", "3,2-3,6": "green"}
    assert _read(lines, river=ev).sections[river].doubtful
    reading = _read(lines, band=DARK_BLUE_BAND, river=ev)
    assert reading.sections[river].colour == "green"
    assert not reading.sections[river].doubtful


def test_a_clearly_drawn_section_of_a_close_hue_that_cuts_a_line_off_is_mended_and_flagged() -> None:
    # Nearest pink but not by much; read pink, it would be a piece cut off from the pink line.
    # On paper, where purple shows its red, a hue between the two may be both pencils on one
    # section: the rules mend it in the best reading, and a person confirms it.
    cut = _section("2,7-3,7")
    ev = _ev(cut, 1.0, 0.3 * HUES["purple"] + 0.7 * HUES["pink"])
    reading = _read({**OTHERS, "2,5-2,7": "purple"}, cut=ev)
    assert reading.sections[cut].colour == "purple"
    assert [r.section for r in reading.doubtful] == [cut]
    assert "break the rules" in reading.sections[cut].reason


WARM_TINT = np.array([0.0, 0.54, 0.84])
"""The colour warm light gives the grey guides (pinkish brown)."""


def _warm_sheet(drawn: dict[str, Colour], light: Section) -> Reading:
    """Blank guides tinted by warm light everywhere, ``drawn`` clearly, ``light`` a light pinkish stroke."""
    evidence = {s: SegmentEvidence(s, 40, 0.0, 0.0, 0.0, tuple(WARM_TINT), faint=0.4) for s in MAP.sections}
    for name, colour in drawn.items():
        s = _section(name)
        evidence[s] = _ev(s, 1.0, HUES[colour])
    evidence[light] = SegmentEvidence(light, 40, 1.0, 1.0, 0.2, tuple(HUES["pink"]), span=1.0)
    return rebuild(evidence, MAP)


def test_under_warm_light_a_light_pink_looking_stroke_is_settled_by_the_lines_that_reach_it() -> None:
    # Warm light tints a light purple stroke until it looks pink.
    lone = _section("2,7-3,7")
    reading = _warm_sheet({**OTHERS, "2,5-2,7": "purple"}, lone)
    assert reading.sections[lone].colour == "purple"
    assert reading.sections[lone].doubtful
    # Both the purple and the pink line reach it: either pencil could look so, a person looks.
    shared = _section("7,5-7,6")
    reading = _warm_sheet({**OTHERS, "2,5-4,5": "purple", "4,5-7,5": "purple"}, shared)
    assert reading.sections[shared].colour == "pink"
    assert reading.sections[shared].doubtful


def test_a_short_piece_cut_off_from_its_line_is_in_doubt_however_marked() -> None:
    # Five positions between a compass and a ring: a spike's tip under a warm cast reads as purple.
    stray = _section("9,6-9,7")
    short = dataclasses.replace(_ev(stray, 1.0, HUES["purple"]), samples=5)
    reading = _read({**OTHERS, "2,5-2,7": "purple"}, stray=short)
    assert reading.sections[stray].colour == "purple"
    assert reading.sections[stray].doubtful
    # Measured nearer its symbols as well, it has more positions, but the new ones lie by the
    # symbols' edges: still too short to trust.
    nearer = dataclasses.replace(_ev(stray, 1.0, HUES["purple"]), samples=14, short=True)
    assert _read({**OTHERS, "2,5-2,7": "purple"}, stray=nearer).sections[stray].doubtful
    # Marked along a long section, a piece apart is the player's own rule break: no doubt.
    long = _read({**OTHERS, "2,5-2,7": "purple"}, stray=_ev(stray, 1.0, HUES["purple"]))
    assert not long.sections[stray].doubtful


def test_a_piece_cut_off_until_a_faint_join_is_found_is_not_left_in_doubt() -> None:
    join, piece = _section("2,7-3,7"), _section("3,6-3,7")
    # The piece is drawn but not firmly: cut off from its line it is suspect, until the plain
    # faint join connects it.
    reading = _read(
        {**OTHERS, "2,5-2,7": "purple"},
        join=_ev(join, 0.2, HUES["purple"]),
        piece=_ev(piece, 0.6, HUES["purple"]),
    )
    assert reading.sections[join].colour == reading.sections[piece].colour == "purple"
    assert not reading.doubtful
    # Without the join the piece stays cut off, and in doubt.
    alone = _read({**OTHERS, "2,5-2,7": "purple"}, piece=_ev(piece, 0.6, HUES["purple"]))
    assert alone.sections[piece].doubtful


def test_a_light_stroke_at_a_departure_does_not_set_its_lines_hue() -> None:
    # A light purple stroke can look pink (a phone's sharpening, a coloured light). As the purple
    # line's only mark at its departure it made purple's hue pink, and the two lines swapped.
    pinkish = np.array([0.0, 0.88, 0.47])
    first = _section("2,5-3,6")
    light = SegmentEvidence(first, 40, 0.6, 0.6, 0.08, tuple(pinkish), span=0.6)  # type: ignore[arg-type]
    lines: dict[str, Colour] = {**OTHERS, "3,6-3,7": "purple", "2,7-3,7": "purple", "6,2-7,3": "pink"}
    reading = _read(lines, light=light)
    hues = reading.hues
    assert float(np.array(hues["purple"]) @ HUES["purple"]) > float(np.array(hues["purple"]) @ HUES["pink"])
    assert reading.sections[_section("3,6-3,7")].colour == "purple"
    assert reading.sections[_section("6,2-7,3")].colour == "pink"


def test_another_lines_pencil_through_a_departure_does_not_set_that_departures_hue() -> None:
    # The pink line runs through purple's departure 2,5, firmly; the purple line leaves it lightly
    # (too light to show its pencil). Taken as purple's anchor, pink's stroke, a little bluer there
    # than at pink's own departure, gave purple pink's hue, and the two lines swapped all over the
    # sheet (`print` 7034 of seed 7000's plan).
    lines: dict[str, Colour] = {k: v for k, v in OTHERS.items() if v != "pink"}
    bluer = np.array([0.0, 0.9, 0.44])
    pinks = {
        "through": _ev(_section("2,5-2,7"), 1.0, bluer),
        "through_too": _ev(_section("2,5-4,3"), 1.0, bluer),
        "on": _ev(_section("7,0-7,3"), 1.0, bluer),
        "own": _ev(_section("7,3-9,1"), 1.0, np.array([0.0, 0.924, 0.381])),
    }
    light = {
        f"purple{i}": dataclasses.replace(_ev(_section(name), 0.9, HUES["purple"]), strength=0.1)
        for i, name in enumerate(("1,4-2,5", "0,3-1,4", "0,3-0,5"))
    }
    reading = _read(lines, 0.0, None, **pinks, **light)
    assert float(np.array(reading.hues["purple"]) @ HUES["purple"]) > 0.99
    assert reading.sections[_section("2,5-2,7")].colour == "pink"
    assert reading.sections[_section("0,3-0,5")].colour == "purple"


def test_a_section_of_another_colour_that_would_join_a_line_in_pieces_may_be_drawn_twice() -> None:
    # Blue and purple both drawn along 2,7-3,7: the two pencils read as blue, and purple falls apart.
    shared = _section("2,7-3,7")
    drawn: dict[str, Colour] = {
        **OTHERS,
        "3,7-5,7": "blue",
        "2,7-3,7": "blue",
        "2,5-2,7": "purple",
        "3,6-3,7": "purple",
    }
    reading = _read(drawn)
    assert reading.sections[shared].colour == "blue"
    assert reading.sections[shared].doubtful
    assert "purple" in reading.sections[shared].reason
    # With the purple line whole, the same blue section is nothing to look at.
    whole = _read({**drawn, "3,6-3,7": "blue", "2,5-3,6": "purple"})
    assert not whole.sections[shared].doubtful


def test_a_rule_broken_through_a_lightly_drawn_river_section_is_checked_by_a_person() -> None:
    # The purple line closes a loop through 1,4-2,3, over the Thames and not strongly drawn: one
    # section read in the wrong pencil there (blue on a blue band) makes a loop the player never drew.
    river = _section("1,4-2,3")
    loop: dict[str, Colour] = {**OTHERS, "2,4-2,5": "purple", "2,3-2,4": "purple", "1,4-2,5": "purple"}
    light = _read(loop, river=_ev(river, 0.75, HUES["purple"], over_river=1.0))
    assert light.sections[river].colour == "purple"
    assert light.sections[river].doubtful
    assert "cycle" in light.sections[river].reason
    # Drawn strongly, the loop is the player's own rule break: scored as read, no doubt.
    strong = _read(loop, river=_ev(river, 1.0, HUES["purple"], over_river=1.0))
    assert not strong.sections[river].doubtful


def test_a_rule_broken_through_a_section_marked_on_part_of_it_is_checked_by_a_person() -> None:
    # On paper too: half of a short section marked lightly may be the print (a symbol's edge) seen
    # as pencil; read as drawn it closes a loop the player never drew, reported without a flag.
    part = _section("2,7-3,7")
    loop: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple", "2,7-3,6": "purple", "3,6-3,7": "purple"}
    light = _read(loop, part=_ev(part, 0.5, HUES["purple"]))
    assert light.sections[part].colour == "purple"
    assert light.sections[part].doubtful
    assert "cycle" in light.sections[part].reason
    strong = _read(loop, part=_ev(part, 1.0, HUES["purple"]))
    assert not strong.sections[part].doubtful


def test_a_lightly_marked_last_section_of_a_line_is_read_but_in_doubt() -> None:
    # Just over half of it marked, lightly: at the line's end nothing else vouches for it.
    last = _section("2,7-3,7")
    light = dataclasses.replace(_ev(last, 0.55, HUES["purple"]), strength=0.1)
    reading = _read({**OTHERS, "2,5-2,7": "purple"}, last=light)
    assert reading.sections[last].colour == "purple"
    assert reading.doubtful == (reading.sections[last],)
    assert "end of the purple line" in reading.sections[last].reason
    # The same marks inside the line, or a firm stroke at its end, are read without doubt.
    inside = _read({**OTHERS, "2,5-2,7": "purple", "3,6-3,7": "purple"}, last=light)
    assert inside.sections[last].colour == "purple"
    assert not inside.doubtful
    firm = _read({**OTHERS, "2,5-2,7": "purple"}, last=_ev(last, 0.55, HUES["purple"]))
    assert not firm.doubtful


def test_marks_too_light_for_ink_leaving_a_station_inside_a_line_are_put_in_doubt() -> None:
    # A Railroad Switch lets a line branch from any of its stations: a faint branch is looked at.
    branch = _section("2,5-3,6")
    light = _read(
        {**OTHERS, "2,5-2,7": "purple", "2,5-4,5": "purple"}, branch=_ev(branch, 0.0, HUES["purple"], faint=0.7)
    )
    assert light.sections[branch].colour is None
    assert light.sections[branch].doubtful
    # Faint marks of another line's hue there are not that line's branch.
    other = _read(
        {**OTHERS, "2,5-2,7": "purple", "2,5-4,5": "purple"}, branch=_ev(branch, 0.0, HUES["blue"], faint=0.7)
    )
    assert not other.doubtful


def test_the_one_lightly_traced_section_leaving_a_line_end_is_the_line_going_on_in_doubt() -> None:
    # Faint purple along 60 % of it and a few darker marks: too light to call drawn, but it leaves
    # the purple line's end, and nothing else there does. The line goes on there, lightly; so does
    # the next section, traced alike.
    nxt, after = _section("2,7-3,7"), _section("3,7-5,7")
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple"}
    light = _ev(nxt, 0.15, HUES["purple"], faint=0.6)
    reading = _read(lines, nxt=light, after=_ev(after, 0.15, HUES["purple"], faint=0.6))
    assert reading.sections[nxt].colour == "purple" and reading.sections[nxt].doubtful
    assert reading.sections[after].colour == "purple" and reading.sections[after].doubtful
    # Two such sections at one end: nothing says which, neither is drawn; both are named.
    rival = _section("2,7-4,9")
    both = _read(lines, nxt=light, rival=_ev(rival, 0.15, HUES["purple"], faint=0.6))
    assert both.sections[nxt].colour is None and both.sections[rival].colour is None
    assert both.sections[nxt].doubtful and both.sections[rival].doubtful
    # On a little less than half of it, plainly purple, still the line going on; of a colour between
    # purple and pink, or on a third of it, not drawn.
    assert _read(lines, nxt=_ev(nxt, 0.15, HUES["purple"], faint=0.42)).sections[nxt].colour == "purple"
    between = HUES["purple"] / np.linalg.norm(HUES["purple"]) + HUES["pink"] / np.linalg.norm(HUES["pink"])
    assert _read(lines, nxt=_ev(nxt, 0.15, between, faint=0.42)).sections[nxt].colour is None
    assert _read(lines, nxt=_ev(nxt, 0.15, between, faint=0.6)).sections[nxt].colour == "purple"
    assert _read(lines, nxt=_ev(nxt, 0.15, HUES["purple"], faint=0.33)).sections[nxt].colour is None
    # Faint marks only, with no ink among them, or marks of another pencil's hue: not drawn.
    assert _read(lines, nxt=_ev(nxt, 0.0, HUES["purple"], faint=0.6)).sections[nxt].colour is None
    assert _read(lines, nxt=_ev(nxt, 0.15, HUES["blue"], faint=0.6)).sections[nxt].colour is None


def test_a_light_short_mark_on_its_own_away_from_its_line_is_not_drawn_in_the_best_reading() -> None:
    # A purple-looking mark on one short section far from the purple line, lightly marked: a
    # spike's tip or a guide a phone sharpened, more often than a pencil. Still named for a person.
    stray = _section("8,1-9,1")
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple"}
    light = dataclasses.replace(_ev(stray, 0.6, HUES["purple"]), strength=0.1)
    reading = _read(lines, stray=light)
    assert reading.sections[stray].colour is None
    assert reading.sections[stray].doubtful
    assert "on its own" in reading.sections[stray].reason
    # Firmly drawn, or a piece of two sections, it is a line left in pieces: read as drawn, in doubt.
    firm = _read(lines, stray=_ev(stray, 0.6, HUES["purple"]))
    assert firm.sections[stray].colour == "purple" and firm.sections[stray].doubtful
    piece = _read({**lines, "8,1-8,4": "purple"}, stray=light)
    assert piece.sections[stray].colour == "purple" and piece.sections[stray].doubtful


def test_on_a_band_that_hides_a_reaching_lines_pencil_a_colour_no_pencil_explains_is_in_doubt() -> None:
    # Marks that no pencil on the band looks like, between pink and green, at 4,6 where the green and
    # the blue lines pass (not pink). On a green band blue pencil would show, and what is seen is far
    # from it: the green line, the only one of the two nearest hues reaching it, takes it.
    river = _section("4,5-4,6")
    ev = _ev(river, 1.0, np.array([0.0, 0.32, 0.95]), over_river=1.0)
    lines: dict[str, Colour] = {**OTHERS, "3,2-3,6": "green", "3,6-4,6": "green", "4,6-5,7": "blue"}
    green_band = _read(lines, band=(0.47, 0.18, 0.55), river=ev)
    assert green_band.sections[river].colour == "green"
    assert not green_band.sections[river].doubtful
    # On a dark blue band a blue stroke there would leave nothing to see: a person looks.
    reading = _read(lines, band=DARK_BLUE_BAND, river=ev)
    assert reading.sections[river].doubtful


def _with_beside(ev: SegmentEvidence, colour: Colour, share: float) -> SegmentEvidence:
    """``ev`` with marks of ``colour``'s pencil beside its stroke on ``share`` of its positions."""
    return dataclasses.replace(ev, beside=np.tile(HUES[colour], (round(share * ev.samples), 1)))


def test_another_lines_pencil_beside_a_stroke_where_that_line_reaches_it_is_in_doubt_as_drawn_twice() -> None:
    section = _section("7,3-7,5")
    blue_to_it: dict[str, Colour] = {**OTHERS, "5,7-6,6": "blue", "6,6-7,5": "blue"}
    reading = _read(blue_to_it, twice=_with_beside(_ev(section, 1.0, HUES["pink"]), "blue", 0.5))
    assert reading.sections[section].colour == "pink"
    assert [r.section for r in reading.doubtful] == [section]
    assert "blue pencil beside the pink" in reading.sections[section].reason
    # The best reading counts it in both lines, so the rule it breaks is reported.
    assert reading.sections[section].also == "blue"
    assert section in reading.network.sections("pink") and section in reading.network.sections("blue")
    # A person who checked it says one pencil only: the blue line no longer has it.
    settled = settle_by_hand(reading, {section: "pink"})
    assert settled.sections[section].also is None and section not in settled.network.sections("blue")


def test_pencil_beside_a_stroke_here_and_there_or_of_a_line_elsewhere_is_no_doubt() -> None:
    section = _section("7,3-7,5")
    blue_to_it: dict[str, Colour] = {**OTHERS, "5,7-6,6": "blue", "6,6-7,5": "blue"}
    here_and_there = _read(blue_to_it, twice=_with_beside(_ev(section, 1.0, HUES["pink"]), "blue", 0.1))
    assert not here_and_there.doubtful
    assert here_and_there.sections[section].also is None
    # The blue line does not reach the section: a stroke's spread, not the blue pencil drawn along it.
    elsewhere = _read(OTHERS, twice=_with_beside(_ev(section, 1.0, HUES["pink"]), "blue", 0.5))
    assert not elsewhere.doubtful
    # Bluish marks beside another pink section too: the light or the exposure turns the pink
    # pencil's edge blue on this sheet, no second pencil.
    other_pink = _section("7,0-7,3")
    cast = _read(
        blue_to_it,
        twice=_with_beside(_ev(section, 1.0, HUES["pink"]), "blue", 0.5),
        more=_with_beside(_ev(other_pink, 1.0, HUES["pink"]), "blue", 0.1),
    )
    assert not cast.doubtful and cast.sections[section].also is None


def test_on_a_section_of_few_positions_a_second_pencil_is_looked_for_beside_half_of_it() -> None:
    # 6,2-6,3 between two rings, measured at 10 positions, ends the green line; the pink line ends at
    # 6,2. Pink beside the green stroke on 60 % of it is a second pencil drawn along it (`print`
    # 94002 of seed 74000's plan, read green alone without a flag); on 30 %, the pink stroke leaving
    # 6,2 may reach that far into so short a section.
    short = _section("6,2-6,3")
    lines: dict[str, Colour] = {**OTHERS, "6,2-7,3": "pink", "3,2-6,2": "green"}
    few = dataclasses.replace(_ev(short, 1.0, HUES["green"]), samples=10)
    twice = _read(lines, short=_with_beside(few, "pink", 0.6))
    assert twice.sections[short].colour == "green" and twice.sections[short].also == "pink"
    assert [r.section for r in twice.doubtful] == [short]
    assert not _read(lines, short=_with_beside(few, "pink", 0.3)).doubtful
    # On fewer positions still, no share is trusted.
    fewer = dataclasses.replace(few, samples=6)
    assert not _read(lines, short=_with_beside(fewer, "pink", 0.7)).doubtful


def test_a_join_drawn_in_a_colour_unlike_its_lines_pencil_stays_in_doubt() -> None:
    # The section holds the purple line together, but its colour lies between purple and blue: the
    # structure says the purple line goes there, not that purple alone drew it (blue drawn over it
    # as well breaks a rule and changes the score), so a person looks.
    join = _section("2,7-3,7")
    mixed = 0.6 * HUES["purple"] + 0.4 * HUES["blue"]
    purple = ("0,5-2,5", "2,5-2,7", "3,6-3,7", "3,7-3,9")
    lines: dict[str, Colour] = {**OTHERS, **dict.fromkeys(purple, "purple")}
    reading = _read(lines, join=_ev(join, 1.0, mixed))
    assert reading.sections[join].colour == "purple"
    assert reading.sections[join].doubtful
    assert [r.section for r in reading.doubtful] == [join]
    # Drawn in the line's own pencil, the same join is read without doubt.
    assert not _read(lines, join=_ev(join, 1.0, HUES["purple"])).doubtful


def test_a_second_pencil_beside_a_stroke_whose_colour_it_pulls_is_looked_for_on_less_of_it() -> None:
    # Green beside the pink stroke on 18 % of the section, under the fifth that makes a section drawn
    # twice on its own: where the stroke's own colour is pink, that is a pencil's edge (no doubt);
    # where it is pulled towards green (the two pencils lie partly on top of each other; not so far
    # that it is unlike the sheet's pink on its own), the green line reaching it has drawn it too,
    # and the section is read in both, in doubt.
    section = _section("7,3-7,5")
    green = ("3,2-4,3", "4,3-5,3", "5,3-7,5")
    pink = ("7,0-7,3", "6,2-7,3", "6,1-6,2")
    lines: dict[str, Colour] = {**OTHERS, **dict.fromkeys(green, "green"), **dict.fromkeys(pink, "pink")}
    plain = _read(lines, twice=_with_beside(_ev(section, 1.0, HUES["pink"]), "green", 0.18))
    assert not plain.doubtful and plain.sections[section].also is None
    pulled = 0.7 * HUES["pink"] + 0.3 * HUES["green"]
    mixed = _read(lines, twice=_with_beside(_ev(section, 1.0, pulled), "green", 0.18))
    assert mixed.sections[section].colour == "pink" and mixed.sections[section].also == "green"
    assert [r.section for r in mixed.doubtful] == [section]
    assert mixed.sections[section].reason.startswith("green pencil beside the pink")


def test_a_short_light_branch_ending_where_another_line_ends_is_checked_by_a_person() -> None:
    # Purple runs through 9,7 and pink ends at 9,6, a tourist site's spikes away: the short 9,6-9,7
    # lightly marked in a colour between the two may be pink's last section with purple's stroke
    # ends in it, as well as a purple branch.
    short = _section("9,6-9,7")
    lines: dict[str, Colour] = {
        **OTHERS,
        "2,5-4,5": "purple",
        "4,5-7,5": "purple",
        "7,5-9,7": "purple",
        "9,7-9,9": "purple",
        "7,3-9,3": "pink",
        "9,3-9,6": "pink",
    }
    mixed = 0.8 * HUES["purple"] + 0.2 * HUES["pink"]
    light = dataclasses.replace(_ev(short, 1.0, mixed, short=True), strength=0.07)
    reading = _read(lines, short=light)
    assert reading.sections[short].colour == "purple"
    assert reading.sections[short].doubtful
    assert "pink line's last section" in reading.sections[short].reason
    # Firmly drawn, it is a purple branch. Plainly purple but as light, it is still checked, but as
    # a mark that may be no pencil at all (see the next test).
    assert not _read(lines, short=dataclasses.replace(light, strength=0.3)).doubtful
    plain = dataclasses.replace(_ev(short, 1.0, HUES["purple"], short=True), strength=0.07)
    assert "short branch of the purple line" in _read(lines, short=plain).sections[short].reason


def test_a_section_read_near_its_symbols_in_a_colour_it_lacks_clear_of_them_is_checked() -> None:
    # A plainly purple 2,5-3,6 leaving the purple departure disc, read nearer the symbols, where the
    # disc's colour is in the measure. Clear of them its marks are pink: which pencil drew it?
    leaving = _section("2,5-3,6")
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple", "2,7-3,7": "purple"}
    near = _ev(leaving, 1.0, HUES["purple"])
    reading = _read(lines, leaving=dataclasses.replace(near, clear_chroma=tuple(HUES["pink"])))
    assert reading.sections[leaving].colour == "purple"
    assert reading.sections[leaving].doubtful
    assert "purple nearer its symbols, pink clear of them" in reading.sections[leaving].reason
    # Purple clear of them too, or too few marks there to tell (zero): nothing to check.
    assert not _read(lines, leaving=dataclasses.replace(near, clear_chroma=tuple(HUES["purple"]))).doubtful
    assert not _read(lines, leaving=near).doubtful


def test_a_light_stroke_leaving_a_line_across_the_band_is_drawn_in_the_best_reading_in_doubt() -> None:
    # Green marks over the band on a third of the crossing and faint ones along most of it, leaving
    # the green line's end: the line going on lightly, named for a person.
    river = _section("4,5-4,6")
    green: dict[str, Colour] = {**OTHERS, "3,2-3,6": "green", "3,6-4,6": "green"}
    light = _ev(river, 0.35, HUES["green"], faint=0.7, over_river=1.0)
    reading = _read(green, band=DARK_BLUE_BAND, river=light)
    assert reading.sections[river].colour == "green" and reading.sections[river].doubtful
    # Ink on under a quarter of it, or marks of the band's own colour (its texture): not drawn.
    for weaker in (
        _ev(river, 0.15, HUES["green"], faint=0.7, over_river=1.0),
        _ev(river, 0.35, np.array(DARK_BLUE_BAND), faint=0.7, over_river=1.0),
    ):
        assert _read(green, band=DARK_BLUE_BAND, river=weaker).sections[river].colour is None


def test_a_colour_between_two_pencils_where_the_second_ones_line_ends_is_checked_as_drawn_twice() -> None:
    # Purple drawn on top of blue along 3,7-5,7: the two pencils mix into a colour nearer blue, and
    # the purple line seems to stop at 3,7. Read blue, with confidence but for that.
    shared = _section("3,7-5,7")
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple", "2,7-3,7": "purple"}
    mixed = _ev(shared, 1.0, 0.52 * HUES["blue"] + 0.48 * HUES["purple"])
    reading = _read(lines, mixed=mixed)
    assert reading.sections[shared].colour == "blue"
    assert reading.sections[shared].colour_margin < 0.4
    assert reading.sections[shared].doubtful
    assert "purple line ends" in reading.sections[shared].reason
    # Where the purple line goes on, or the colour is plainly blue, it is blue and nothing to check.
    assert not _read({**lines, "3,6-3,7": "purple"}, mixed=mixed).doubtful
    plain = _ev(shared, 1.0, 0.7 * HUES["blue"] + 0.3 * HUES["purple"])
    assert not _read(lines, mixed=plain).doubtful
    # A margin under a half is still pulled enough (blue over purple measured 0.42 and 0.48 on two
    # sheets drawn twice).
    pulled = _read(lines, mixed=_ev(shared, 1.0, 0.57 * HUES["blue"] + 0.43 * HUES["purple"]))
    assert 0.4 < pulled.sections[shared].colour_margin < 0.5
    assert pulled.sections[shared].doubtful
    # On a short section, where the strokes' ends weigh more, a colour less pulled is enough.
    less = _ev(shared, 1.0, 0.62 * HUES["blue"] + 0.38 * HUES["purple"])
    assert 0.5 < _read(lines, mixed=less).sections[shared].colour_margin < 0.6
    assert not _read(lines, mixed=less).doubtful
    assert _read(lines, mixed=dataclasses.replace(less, short=True)).sections[shared].doubtful


def test_a_light_section_not_plainly_of_its_lines_pencil_on_a_line_breaking_a_rule_is_checked() -> None:
    # Pink branches at 7,3 and at 7,5: a rule broken. 4,5-7,5, light and between pink and purple,
    # adds to the second branch; a light purple stroke that took pink's hue would read so.
    light = _section("4,5-7,5")
    lines: dict[str, Colour] = {
        **OTHERS,
        "7,3-9,3": "pink",
        "6,3-7,3": "pink",
        "7,5-9,7": "pink",
        "5,3-7,5": "pink",
        "2,5-4,5": "purple",
    }
    # (Pulled further towards purple, where the purple line ends, it would be in doubt however firm
    # it is: drawn in both? See the test above.)
    pinkish = 0.75 * HUES["pink"] + 0.25 * HUES["purple"]
    reading = _read(lines, light=dataclasses.replace(_ev(light, 1.0, pinkish), strength=0.1))
    assert reading.sections[light].colour == "pink"
    assert reading.sections[light].doubtful
    assert "breaks a rule (too_many_branches)" in reading.sections[light].reason
    # Drawn firmly, or plainly pink, it is the player's rule broken, nothing to check.
    assert not _read(lines, light=dataclasses.replace(_ev(light, 1.0, pinkish), strength=0.3)).doubtful
    assert not _read(lines, light=dataclasses.replace(_ev(light, 1.0, HUES["pink"]), strength=0.1)).doubtful


def test_over_the_band_blue_and_purple_mixed_where_the_purple_line_ends_is_checked_as_drawn_twice() -> None:
    # On a dark blue band a blue stroke with purple on top still reads blue, its colour pulled
    # towards purple, the hue next to it; the purple line stops at 4,5. (Purple and pink mixed there
    # say nothing: the band makes them alike, see the tests above.)
    river = _section("4,5-4,6")
    lines: dict[str, Colour] = {**OTHERS, "4,6-5,7": "blue", "2,5-4,5": "purple"}
    ev = _ev(river, 1.0, 0.65 * HUES["blue"] + 0.35 * HUES["purple"], over_river=1.0)
    reading = _read(lines, band=DARK_BLUE_BAND, river=ev)
    assert reading.sections[river].colour == "blue"
    assert reading.sections[river].doubtful
    assert "purple line ends" in reading.sections[river].reason
    # With the purple line going on past 4,5 it is blue, and sure.
    assert not _read({**lines, "4,5-7,5": "purple"}, band=DARK_BLUE_BAND, river=ev).doubtful


def _with_specks(lines: dict[str, Colour], blank: tuple[float, ...], **special: tuple[float, ...]) -> Reading:
    """``lines`` clearly drawn, every other section blank; as on a clean scan, every section's specks
    measured: ``blank`` on each, the ``special`` ones (by section name, ``_`` for ``-``) their own."""
    evidence = {s: _ev(s, specks=blank) for s in MAP.sections}  # type: ignore[arg-type]
    for name, colour in lines.items():
        s = _section(name)
        evidence[s] = _ev(s, 1.0, HUES[colour], specks=(0.0, 0.0, 0.0, 0.0))  # type: ignore[arg-type]
    for name, shares in special.items():
        s = _section(name.replace("_", "-"))
        evidence[s] = dataclasses.replace(evidence[s], specks=shares)
    return rebuild(evidence, MAP, None, None)


def _with_medians(lines: dict[str, Colour], blank: float, faint: float = 0.4, **special: float) -> Reading:
    """``lines`` clearly drawn, every other section blank with a median mark of ``blank`` in every
    pencil's hue, the ``special`` ones (by section name, ``_`` for ``-``) with their own in purple's
    and faint marks on ``faint`` of them."""
    evidence = {s: _ev(s, median_mark=(blank,) * 4) for s in MAP.sections}  # type: ignore[arg-type]
    for name, colour in lines.items():
        s = _section(name)
        evidence[s] = _ev(s, 1.0, HUES[colour], median_mark=(0.3,) * 4)  # type: ignore[arg-type]
    for name, level in special.items():
        s = _section(name.replace("_", "-"))
        evidence[s] = dataclasses.replace(evidence[s], median_mark=(level, blank, blank, blank), faint=faint)
    return rebuild(evidence, MAP, None, None)


def test_a_light_mark_all_along_a_section_leaving_a_line_puts_it_in_doubt() -> None:
    # Purple ends at 2,7. 2,7-3,7 has faint marks on 40 % of it, too few to say a light stroke, but
    # its marks' median in purple's hue is three times the largest on the sheet's blank sections.
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple"}
    join = _section("2,7-3,7")
    reading = _with_medians(lines, 0.01, **{"2,7_3,7": 0.03})
    assert reading.sections[join].colour is None
    assert reading.sections[join].doubtful
    assert "light purple marks all along it (3.0 times" in reading.sections[join].reason
    # Its few faint marks nearest pink, the pencil it would be drawn in is still the line's.
    evidence = {s: r.evidence for s, r in reading.sections.items()}
    pinkish = tuple(float(v) for v in HUES["pink"] / np.linalg.norm(HUES["pink"]))
    evidence[join] = dataclasses.replace(evidence[join], chroma=pinkish)
    assert rebuild(evidence, MAP).sections[join].nearest == "purple"
    # No more than 1.5 times what the blank sections show, on a section no purple line reaches, or
    # leaving the line where it goes on (a branch, far rarer than a line going on): nothing.
    assert not _with_medians(lines, 0.01, **{"2,7_3,7": 0.014}).doubtful
    assert not _with_medians(lines, 0.01, **{"6,3_7,3": 0.03}).doubtful
    assert not _with_medians({**lines, "2,7-3,7": "purple"}, 0.01, **{"2,7_3,6": 0.03}).doubtful
    # Nor on a print whose blank guides all carry as much (its level is learnt from them).
    assert not _with_medians(lines, 0.03, **{"2,7_3,7": 0.03}).doubtful
    # Nor with faint marks on under 30 % of it: a median so raised with so few faint marks was a
    # blank section nearly every time on the bench.
    assert not _with_medians(lines, 0.01, faint=0.2, **{"2,7_3,7": 0.03}).doubtful
    # On a sheet whose blank sections all measure nothing (a clean scan), it says so.
    clean = _with_medians(lines, 0.0, **{"2,7_3,7": 0.03}).sections[join]
    assert clean.doubtful and "light purple marks all along it (none on its blank sections)" in clean.reason
    # Nor where the sheet is so clean that the median is noise however it compares.
    assert not _with_medians(lines, 0.001, **{"2,7_3,7": 0.008}).doubtful
    # Measured nowhere (a reading stored before the median was): nothing.
    assert not _read(lines).doubtful


def test_specks_of_a_lines_pencil_on_a_section_leaving_it_put_that_section_in_doubt() -> None:
    # A scan: purple ends at 2,7. Beside it, 2,7-3,7 shows nothing at the reader's resolution, but
    # specks of purple pigment at the picture's own on a quarter of it: a stroke too light to mark.
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple"}
    join = _section("2,7-3,7")
    quiet = (0.0, 0.0, 0.0, 0.0)
    reading = _with_specks(lines, quiet, **{"2,7_3,7": (0.15, 0.0, 0.0, 0.0)})
    assert reading.sections[join].colour is None
    assert reading.sections[join].doubtful
    assert "specks of purple pencil on 15% of it" in reading.sections[join].reason
    # On a fifth of it and more, the line going on is the best reading, still in doubt.
    reading = _with_specks(lines, quiet, **{"2,7_3,7": (0.25, 0.0, 0.0, 0.0)})
    assert reading.sections[join].colour == "purple"
    assert reading.sections[join].doubtful
    # So is a section in doubt already (faint marks along it), read as not drawn.
    evidence = {s: _ev(s, specks=quiet) for s in MAP.sections}  # type: ignore[arg-type]
    for name, colour in lines.items():
        evidence[_section(name)] = _ev(_section(name), 1.0, HUES[colour], specks=quiet)  # type: ignore[arg-type]
    evidence[join] = _ev(join, 0.0, HUES["purple"], faint=0.7, specks=(0.0, 0.0, 0.0, 0.0))  # type: ignore[arg-type]
    alone = rebuild(evidence, MAP).sections[join]
    assert alone.doubtful and alone.colour is None
    evidence[join] = dataclasses.replace(evidence[join], specks=(0.25, 0.0, 0.0, 0.0))
    assert rebuild(evidence, MAP).sections[join].colour == "purple"
    # Not where two such sections leave the line's end: which, if either, is for a person to say.
    both = _with_specks(lines, quiet, **{"2,7_3,7": (0.25, 0.0, 0.0, 0.0), "2,7_3,6": (0.3, 0.0, 0.0, 0.0)})
    assert both.sections[join].colour is None and both.sections[_section("2,7-3,6")].colour is None
    assert both.sections[join].doubtful and both.sections[_section("2,7-3,6")].doubtful
    # Specks of a pencil whose line does not reach it, or too few, say nothing.
    assert not _with_specks(lines, quiet, **{"2,7_3,7": (0.0, 0.0, 0.0, 0.25)}).doubtful
    assert not _with_specks(lines, quiet, **{"2,7_3,7": (0.08, 0.0, 0.0, 0.0)}).doubtful
    # Nor do they where the sheet's blank sections away from the purple line show as many (a print
    # whose guides are tinted purple).
    assert not _with_specks(lines, (0.15, 0.0, 0.0, 0.0), **{"2,7_3,7": (0.25, 0.0, 0.0, 0.0)}).doubtful
    # A section crossed by a drawn one carries that stroke's specks where they cross.
    crossed: dict[str, Colour] = {**lines, "0,7-2,5": "purple"}
    assert _section("0,7-2,5") in MAP.crossing_partners[_section("0,5-2,7")]
    assert not _with_specks(crossed, quiet, **{"0,5_2,7": (0.25, 0.0, 0.0, 0.0)}).doubtful
    assert _with_specks(lines, quiet, **{"0,5_2,7": (0.25, 0.0, 0.0, 0.0)}).doubtful


def test_specks_of_its_pencil_along_a_light_line_end_settle_its_doubt() -> None:
    # A scan: the purple line's last section, 2,7-3,7, is marked on just over half of it, lightly:
    # in doubt at the reader's resolution. Specks of purple along half of it at the picture's own
    # say the stroke is there: drawn, no longer in doubt.
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple"}
    end = _section("2,7-3,7")
    quiet = (0.0, 0.0, 0.0, 0.0)

    def light_end(specks: tuple[float, ...], blank: tuple[float, ...] = quiet) -> SectionReading:
        reading = _with_specks({**lines, "2,7-3,7": "purple"}, blank)
        evidence = {s: r.evidence for s, r in reading.sections.items()}
        evidence[end] = dataclasses.replace(evidence[end], ink=0.55, span=0.55, strength=0.08, specks=specks)
        return rebuild(evidence, MAP).sections[end]

    unmeasured = light_end(())
    assert unmeasured.colour == "purple" and unmeasured.doubtful
    assert unmeasured.reason.startswith("light pencil (55% of it marked) at the end of the purple line")
    sure = light_end((0.5, 0.0, 0.0, 0.0))
    assert sure.colour == "purple" and not sure.doubtful
    # Too few specks, more of another pencil's than of its own, or no more than the sheet's blank
    # sections away from the purple line show (a print whose guides are tinted purple): still in doubt.
    assert light_end((0.2, 0.0, 0.0, 0.0)).doubtful
    assert light_end((0.5, 0.0, 0.6, 0.0)).doubtful
    assert light_end((0.5, 0.0, 0.0, 0.0), blank=(0.3, 0.0, 0.0, 0.0)).doubtful
    # A last section marked all along but far lighter than the rest of its line may be a section
    # rubbed out, whose smear leaves specks too: it stays in doubt whatever they show.
    longer: dict[str, Colour] = {**OTHERS, "1,4-2,5": "purple", "0,3-1,4": "purple", "2,5-2,7": "purple"}
    reading = _with_specks({**longer, "2,7-3,7": "purple"}, quiet)
    evidence = {s: r.evidence for s, r in reading.sections.items()}
    evidence[end] = dataclasses.replace(evidence[end], strength=0.02, specks=(0.9, 0.0, 0.0, 0.0))
    smear = rebuild(evidence, MAP).sections[end]
    assert smear.doubtful and "rubbed out?" in smear.reason


def test_without_specks_measured_nothing_is_in_doubt_for_want_of_them() -> None:
    # A photo: no specks measured, none expected.
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple"}
    assert not _read(lines).doubtful


def test_a_weak_section_crossing_a_clearly_drawn_one_is_not_drawn_in_the_best_reading_but_in_doubt() -> None:
    # Two drawn sections may not cross: a lightly marked one across a firm one is more often print or
    # a stray mark than a player breaking the rule. It is named, and read as not drawn meanwhile.
    weak = _section("5,4-5,7")
    reading = _read({**OTHERS, "2,5-2,7": "purple", "4,6-7,3": "pink"}, weak=_ev(weak, 0.6, HUES["blue"]))
    assert reading.sections[weak].colour is None
    assert reading.sections[weak].doubtful
    assert reading.sections[weak].reason == "crosses 4,6-7,3, which is drawn more clearly"
    assert reading.sections[_section("4,6-7,3")].colour == "pink"


def test_sparse_marks_over_the_thames_of_a_colour_no_pencil_takes_are_not_a_stroke_next_to_any_line() -> None:
    # Where a station's ring meets the band (7,5 here), its banks and the guides converging on the
    # station leave a few dense marks on the river section's first positions. Of a pencil's colour,
    # they may be any line's light stroke there, the hue saying little on the band: in doubt next to
    # the blue line ending at 7,5. Yellowish, no pencil on paper or on the band: only a line of the
    # nearest pencil (pink, away from the section) would be looked at.
    river = _section("7,5-8,4")
    lines: dict[str, Colour] = {**OTHERS, "7,3-7,5": "blue", "6,2-6,3": "pink"}
    pinkish = _ev(river, 0.23, np.array([0.0, 0.7, 0.7]), faint=0.23, over_river=1.0)
    reading = _read(lines, band=DARK_BLUE_BAND, river=pinkish)
    assert reading.sections[river].doubtful
    assert "next to the blue line" in reading.sections[river].reason
    yellowish = _ev(river, 0.23, np.array([0.0, 0.4, 0.9]), faint=0.23, over_river=1.0)
    assert river not in {r.section for r in _read(lines, band=DARK_BLUE_BAND, river=yellowish).doubtful}


def test_faint_marks_on_a_handful_of_positions_put_no_section_in_doubt() -> None:
    # Between two large symbols a short section keeps five positions, a pixel apart: faint marks on
    # three of them are one spot, not a stroke going on from the purple line's end. On ten, a stroke
    # (on nearly all of the five at a line end: `test_faint_marks_on_nearly_all_of_a_short_section_...`).
    nxt = _section("2,7-3,7")
    marks = _ev(nxt, 0.0, HUES["purple"], faint=0.6)
    lines: dict[str, Colour] = {**OTHERS, "2,5-2,7": "purple"}
    assert not _read(lines, nxt=dataclasses.replace(marks, samples=5)).doubtful
    assert _read(lines, nxt=dataclasses.replace(marks, samples=10)).sections[nxt].doubtful
