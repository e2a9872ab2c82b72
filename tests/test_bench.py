"""The benchmarks' own judging: every accuracy figure in the README rests on it.

``bench/accuracy.py`` plans the set and judges each report against its truth; ``bench/reread.py``
decides stored measurements again, changes constants for a trial, sorts the errors and keeps the
pictures it stores from for the next time. A mistake
here would change every figure without a line of the reader changing.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import accuracy  # noqa: E402  (bench/accuracy.py)
import reread  # noqa: E402  (bench/reread.py)

from nsvision.calibration import Calibration  # noqa: E402
from nsvision.game.board import Colour, Section, parse_section_name  # noqa: E402
from nsvision.game.network import Network, network_from_dict  # noqa: E402
from nsvision.pipeline import score_network_obj  # noqa: E402
from nsvision.vision import rebuild  # noqa: E402
from nsvision.vision.detect import SegmentEvidence  # noqa: E402
from nsvision.vision.rebuild import SectionReading  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "photo-ordinary" / "expected.json"


def _expected() -> dict[str, Any]:
    return json.loads(SAMPLE.read_text())


def _without(expected: dict[str, Any], colour: str, index: int) -> tuple[Network, Section]:
    """The sheet's true network with one section of ``colour`` left out, and that section."""
    data = copy.deepcopy(expected["network"])
    pair = data["lines"][colour].pop(index)
    return network_from_dict(data), parse_section_name("-".join(pair))


def test_the_accuracy_set_is_planned_as_the_issue_asks() -> None:
    # At least 200 sheets: phone photos across the whole strength sweep, scans, both styles, legal
    # and illegal networks (each rule broken), every seed its own sheet.
    cases = accuracy.plan(accuracy.COUNT, accuracy.SEED)
    assert len(cases) >= 200
    assert len({c.seed for c in cases}) == len(cases)
    for style in ("print", "cream"):
        photos = [c for c in cases if c.style == style and c.mode == "photo" and c.violation is None]
        assert min(c.strength for c in photos) == 0.0 and max(c.strength for c in photos) == 1.0
        assert any(c.style == style and c.mode == "scan" for c in cases)
        broken = {c.violation for c in cases if c.style == style and c.violation}
        assert broken == set(accuracy.VIOLATIONS)


def test_a_report_of_the_true_network_is_judged_right(calibration: Calibration) -> None:
    expected = _expected()
    report = score_network_obj(network_from_dict(expected["network"]), calibration)
    assert report.total == expected["total"]
    judged = accuracy.judge(report, expected)
    assert judged["correct"] and judged["total_right"] and not judged["flagged"]
    assert all(v["fp"] == 0 and v["fn"] == 0 for v in judged["per_colour"].values())


def test_a_section_missed_without_doubt_is_wrong_and_not_named(calibration: Calibration) -> None:
    expected = _expected()
    colour = "blue"
    drawn = len(expected["network"]["lines"][colour])
    network, _missed = _without(expected, colour, -1)
    judged = accuracy.judge(score_network_obj(network, calibration), expected)
    assert not judged["correct"] and not judged["flagged"]
    assert judged["per_colour"][colour] == {"tp": drawn - 1, "fp": 0, "fn": 1}
    assert not judged["named_in_doubt"] and not judged["named_at_all"]
    # ... and counted as the worst outcome: wrong without a flag.
    assert accuracy.outcomes([judged])[3] == 1


def test_a_total_right_by_chance_is_still_a_wrong_sheet(calibration: Calibration) -> None:
    # The right total with other sections, or with a rule broken that is not, is no sheet read right:
    # the figures count sheets fully right apart from exact totals.
    expected = _expected()
    report = score_network_obj(network_from_dict(expected["network"]), calibration)
    other, _missed = _without(expected, "green", 0)
    judged = accuracy.judge(dataclasses.replace(report, network=other), expected)
    assert judged["total_right"] and not judged["correct"]
    assert judged["per_colour"]["green"]["fn"] == 1
    judged = accuracy.judge(report, {**expected, "violations": [{"code": "cycle"}]})
    assert judged["total_right"] and not judged["correct"]


def _reading(section: Section, colour: Colour | None, doubtful: bool, ink: float, faint: float) -> SectionReading:
    evidence = SegmentEvidence(section, 40, ink, ink, 0.2 if ink else 0.0, (0.0, 1.0, 0.0), faint=faint)
    return SectionReading(section, colour, 0.4 if doubtful else 0.95, doubtful, "", evidence, colour or "blue", 1.0)


def test_errors_are_sorted_by_where_they_lie() -> None:
    s = Section((0, 0), (1, 0))
    # A drawn section read as not drawn, in doubt: every misread section is named.
    kinds = reread.error_kinds([(s, _reading(s, None, True, 0.1, 0.6), {"blue"})])
    assert kinds == {"sections": True, "sure": False, "nothing": False}
    # The same without doubt, and with nothing measured on it: a sure error no rule can read.
    kinds = reread.error_kinds([(s, _reading(s, None, False, 0.0, 0.05), {"blue"})])
    assert kinds == {"sections": True, "sure": True, "nothing": True}
    # Faint marks on a fifth of it are something measured.
    assert not reread.error_kinds([(s, _reading(s, None, False, 0.0, 0.2), {"blue"})])["nothing"]
    # No section misread: the error lies elsewhere (the score zone, a rule).
    assert reread.error_kinds([]) == {"sections": False, "sure": False, "nothing": False}


def test_a_wrong_sheet_lists_its_misread_sections(calibration: Calibration) -> None:
    expected = _expected()
    network, missed = _without(expected, "pink", 0)
    report = score_network_obj(network, calibration)
    reading = rebuild.Reading(
        network,
        {missed: _reading(missed, None, False, 0.0, 0.3)},
        {},
        {},
    )
    report = dataclasses.replace(report, reading=reading)
    misread = reread._misread(report, expected)
    assert [(s, drawn) for s, _r, drawn in misread] == [(missed, {"pink"})]
    (line,) = reread.misread_sections(report, misread)
    assert line.startswith(f"{missed.name} read as not drawn, drawn in pink: ink on 0%, faint marks on 30% of 40")


def test_a_constant_is_changed_for_a_trial_and_put_back() -> None:
    module, name, value = reread.parse_setting("rebuild.FAINT_END_SHARE=0.5")
    assert (module, name, value) == (rebuild, "FAINT_END_SHARE", 0.5)
    before = rebuild.FAINT_END_SHARE
    with pytest.raises(RuntimeError), reread.constants_set([(module, name, value)]):
        assert rebuild.FAINT_END_SHARE == 0.5
        raise RuntimeError("a trial that fails")
    after = rebuild.FAINT_END_SHARE
    assert after == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("FAINT_END_SHARE=0.5", "write MODULE.NAME=VALUE"),
        ("rebuild.FAINT_END_SHARE", "write MODULE.NAME=VALUE"),
        ("nomodule.X=1", "no module nomodule"),
        ("rebuild.NO_SUCH_NAME=1", "has no number NO_SUCH_NAME"),
        ("rebuild.FAINT_END_SHARE=half", "is not a number"),
        ("rebuild.LONG_SAMPLES=1.5", "is not a whole number"),
    ],
)
def test_a_bad_setting_is_refused_with_what_to_write(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        reread.parse_setting(text)


def test_the_outcome_counts() -> None:
    rows = [
        {"correct": True, "flagged": False, "total_right": True},
        {"correct": True, "flagged": True, "total_right": True},
        {"correct": False, "flagged": True, "total_right": True},
        {"correct": False, "flagged": False, "total_right": False},
    ]
    assert accuracy.outcomes(rows) == (3, 2, 2, 1)


def test_the_wrong_sheets_are_counted_by_where_the_error_lies() -> None:
    # The README's table of where the errors lie: per mode, the sheets read wrong, those with every
    # misread section in doubt, those with a sure error (and of them the flagged), those where a
    # drawn stroke left nothing measured, and those with no section misread (the score zone, a rule).
    def row(mode: str) -> dict[str, Any]:
        return {"case": {"mode": mode}}

    def wrong(flagged: bool, **kinds: bool) -> dict[str, Any]:
        errors = {"sections": True, "sure": False, "nothing": False, **kinds}
        return {"correct": False, "flagged": flagged, "errors": errors}

    right = {"correct": True, "flagged": False}
    rows = [row("photo")] * 6 + [row("scan")]
    now = [
        right,
        wrong(True),
        wrong(True, sure=True),
        wrong(False, sure=True, nothing=True),
        wrong(True, sections=False),
        right,
        wrong(True),
    ]
    lines = reread.by_error(rows, now).splitlines()
    assert lines[2] == "| photo | 6 | 4 | 1 | 2 | 1 | 1 | 1 |"
    assert lines[3] == "| scan | 1 | 1 | 1 | 0 | 0 | 0 | 0 |"
    # The goals are counted by mode over every plan compared: here no total is exact but the right
    # sheets' (``total_right`` unset counts as not exact), one photo wrong without a flag.
    now[0] = now[5] = {**right, "total_right": True}
    modes = reread.by_mode(rows, now).splitlines()
    assert modes[2] == "| photo | 6 | 2 | 2 | 3 | 1 |"
    assert modes[3] == "| scan | 1 | 0 | 0 | 1 | 0 |"


@pytest.mark.parametrize("second", [False, True], ids=["first model", "second model"])
def test_the_fitted_trees_are_walked_as_scikit_learn_walks_them(second: bool) -> None:
    # bench/train_doubts.py writes the models the reader walks in NumPy; the script refuses to write
    # trees whose probabilities differ from scikit-learn's. A colour margin of exactly 1.0 beside one a
    # hair below it is what rounding the thresholds got wrong.
    pytest.importorskip("sklearn")
    import train_doubts  # bench/train_doubts.py

    from nsvision.vision import doubt_model

    names = doubt_model.COLOUR_FEATURES if second else doubt_model.FEATURES
    rng = np.random.default_rng(0)
    x = rng.random((600, len(names)))
    margin = names.index("margin")
    x[:, margin] = rng.choice([1.0, 1.0 - 1e-12, 0.5], size=len(x))
    y = ((x[:, names.index("faint")] > 0.5) & (x[:, margin] == 1.0)).astype(np.int64)
    data = json.loads(json.dumps(train_doubts.fit(x, y, names)))
    model = doubt_model.TreeModel.from_dict(data)
    assert model.features == names
    assert ((model.probability(x) > 0.5) == (y == 1)).mean() > 0.95


def test_a_store_keeps_its_pictures_and_reads_them_again_without_rendering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A change to what is measured needs a set stored again; its pictures need not be rendered again.
    case = next(c for c in reread.cases("accuracy") if c.mode == "scan")
    (first,) = reread.store_case(case, "accuracy", pictures=tmp_path)
    folder = reread.picture_folder(tmp_path, "accuracy", case, "")
    assert folder.parent.parent.name == reread.picture_key() and (folder / "truth.pkl").exists()

    def rendered(self: accuracy.Case) -> None:
        raise RuntimeError(f"seed {self.seed} rendered again")

    monkeypatch.setattr(accuracy.Case, "sample", rendered)
    (again,) = reread.store_case(case, "accuracy", pictures=tmp_path)
    assert again["expected"] == first["expected"] and again["then"] == first["then"]
    assert again["measurements"].evidence == first["measurements"].evidence
    # A picture whose truth was never written (a store stopped while writing it) is rendered again.
    (folder / "truth.pkl").unlink()
    with pytest.raises(RuntimeError, match="rendered again"):
        reread.store_case(case, "accuracy", pictures=tmp_path)


def test_kept_pictures_are_named_by_the_code_that_makes_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for source in reread._PICTURE_SOURCES:
        path = tmp_path / source
        path = path / "sheet.py" if not path.suffix else path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {source}\n")
    monkeypatch.setattr(reread, "_ROOT", tmp_path)
    key = reread.picture_key.__wrapped__()
    assert reread.picture_key.__wrapped__() == key
    (tmp_path / "nsvision" / "render" / "sheet.py").write_text("# another renderer\n")
    assert reread.picture_key.__wrapped__() != key
