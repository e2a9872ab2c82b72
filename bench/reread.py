"""Read a bench set once, keep what the reader measured on every sheet, and read those measurements
again with the working tree's rebuild, rules and scoring: in seconds instead of minutes, so that a
change to how a reading is decided is judged on every set before it is made, and a refactor is
shown to change no reading at all.

    python3 bench/reread.py store accuracy     # the accuracy set's 240 sheets, read once (~6 min on 2 cores)
    python3 bench/reread.py store accuracy --seed 3000   # its plan from another seed: sheets never tuned on
    python3 bench/reread.py store sharpened    # its 180 photos, sharpened as by accuracy.py --sharpen 1.0,1.5
    python3 bench/reread.py store unseen       # bench/unseen.py's 60 sheets; also: mono, slate, overlaid
    python3 bench/reread.py store robustness   # bench/robustness.py's 1,120 reads of photos, 140 of scans (~30 min)
    python3 bench/reread.py store twice        # 40 photos, each with one section drawn in two pencils
    python3 bench/reread.py compare accuracy   # read again: the figures then and now, and each sheet that changed
    python3 bench/reread.py compare accuracy --all   # ... and every sheet whose reading changed at all
    python3 bench/reread.py compare accuracy --seed 3000   # the sheets stored from that seed
    python3 bench/reread.py compare accuracy --by-strength # ... and its legal photos by quarter of the
                                                         # strength sweep
    python3 bench/reread.py compare accuracy --seed 42000 43000 --by-strength   # several stored plans,
                                                         # each compared, their photos by strength summed
    python3 bench/reread.py compare accuracy --seed 72000 --wrong   # ... and each sheet wrong without a
                                                         # flag, its misread sections and their marks
    python3 bench/reread.py compare accuracy --seed 72000 --errors  # ... and the sheets read wrong by
                                                         # where the error lies (in doubt, or sure)
    python3 bench/reread.py store unseen --seed 76000 --count 90   # 90 random prints drawn afresh
    python3 bench/reread.py store unseen-overlaid --seed 87000 --count 90   # ... their Thames printed
                                                         # over the guides (styles overlaid-N)
    python3 bench/reread.py compare accuracy --against other.pkl   # the same set measured by a changed
                                                                 # reader (kept with store --file)
    python3 bench/reread.py compare accuracy --seed 42000 --set rebuild.FAINT_END_SHARE=0.5
                                       # "then" the working tree, "now" the same with that constant
                                       # changed: a threshold judged on every set before it is edited
    python3 bench/reread.py compare accuracy --doubt-model none     # "now" the rules alone, without the
                                       # models that give a section in doubt its best reading (or
                                       # --doubt-model PATH: another one, from bench/train_doubts.py;
                                       # --colour-model PATH or none: the second, which picks its pencil)
    python3 bench/reread.py store accuracy --file other.pkl --jpegs-from bench/out/measured-accuracy.pkl
                                       # read again only what is not a JPEG (the scans): for a change
                                       # to what is measured on clean pictures only (~2 min)
    python3 bench/reread.py store accuracy --file other.pkl --pictures /tmp/pictures
                                       # keep every picture written in that folder and read it from
                                       # there the next time instead of rendering it again: a change
                                       # to what is measured, stored again in a third of the time
                                       # (the accuracy set: 465 s, then 169 s; its pictures 594 MB)

What is kept per sheet (``bench/out/measured-SET.pkl``): its case and truth, the reader's
measurements (``nsvision.pipeline.Measurements``: registration, every section's pencil evidence,
the circles round stations, the score zone's marks) and the outcome when they were stored. Only
``nsvision.pipeline.decide`` runs again, with the score zone judged again from the scores kept
(``marks.judge_marks``): a change to what is measured (the registration, the evidence in
``vision/detect.py``, the circles, the marks' scores) needs the set stored again. The file is a
Python pickle, for this checkout's own use: do not load one from elsewhere.

The pictures kept with ``--pictures`` lie in a subfolder named by a digest of the code that makes
them (``picture_key``: the renderer, the map and the benches' plans and changes), so a change to any
of it renders them anew; old subfolders are left for you to delete.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import importlib
import json
import pickle
import sys
import time
from collections.abc import Collection, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import accuracy  # bench/accuracy.py, beside this script
import cv2
import robustness  # bench/robustness.py, beside this script
import unseen  # bench/unseen.py, beside this script
from accuracy import Case, file_format, judge, outcome_cells, outcomes, plan, prepared, read_back  # beside this script

from nsvision.calibration import Calibration, load_calibration
from nsvision.game.board import Section
from nsvision.pipeline import SheetReport, SheetResult, analyze_file, decide
from nsvision.render.sample import Sample, write_sample
from nsvision.render.style import OVERLAID_PREFIX, UNSEEN_PREFIX
from nsvision.vision import doubt_model
from nsvision.vision.marks import judge_marks
from nsvision.vision.rebuild import SectionReading

SETS = ("accuracy", "sharpened", "unseen", "unseen-overlaid", "mono", "slate", "overlaid", "robustness", "twice")
TWICE = 40, 60_000
"""The ``twice`` set: its size and first seed. Photos of both styles across the strength sweep, each
breaking ``drawn_twice`` (the accuracy set has four such sheets, too few to judge that rule by)."""
SHARPEN = (1.0, 1.5)
"""The unsharp mask of the README's sharpened photos (amount, sigma in px)."""


def cases(name: str, seed: int | None = None, count: int | None = None) -> list[Case]:
    """The sheets of a named set, as its bench plans them (``seed``: the accuracy set's or the unseen
    prints' plan from another first seed, sheets the reader was not tuned on; ``count``: how many
    unseen prints)."""
    if name == "accuracy":
        return plan(accuracy.COUNT, accuracy.SEED if seed is None else seed)
    if name == "sharpened":
        return [c for c in plan(accuracy.COUNT, accuracy.SEED) if c.mode == "photo"]
    if name == "robustness":
        return [
            *robustness.photos(robustness.COUNT, accuracy.SEED),
            *robustness.scans(robustness.SCAN_COUNT, accuracy.SEED),
        ]
    if name in ("unseen", "unseen-overlaid"):
        prefix = UNSEEN_PREFIX if name == "unseen" else OVERLAID_PREFIX
        return unseen.plan(count or unseen.COUNT, unseen.SEED if seed is None else seed, prefix=prefix)
    if name == "twice":
        size, first = TWICE
        styles = ("print", "cream")
        return [
            Case(first + i, "photo", styles[i % 2], round((i // 2) / (size // 2 - 1), 3), "drawn_twice")
            for i in range(size)
        ]
    return unseen.plan(unseen.COUNT, unseen.SEED, name)


def _variants(case: Case, name: str) -> tuple[str, ...]:
    """The names of the reads of one case in a named set ("" for the sheet itself)."""
    if name == "robustness":
        return robustness.SCAN_READS if case.mode == "scan" else robustness.READS
    return ("sharpened",) if name == "sharpened" and case.mode == "photo" else ("",)


def _format(case: Case, name: str, variant: str) -> str:
    return robustness.file_format_of(variant) if name == "robustness" else file_format(case)


def reads(case: Case, name: str, skip: Collection[str] = ()) -> list[tuple[str, Sample]]:
    """What is read of one case in a named set: the sheet itself, sharpened, or each of its robustness
    variants; with the variant's name ("" for the sheet itself). Those named in ``skip`` are not
    even rendered."""
    wanted = [v for v in _variants(case, name) if v not in skip]
    if not wanted:
        return []
    if name == "robustness":
        return list(robustness.variants(case, wanted))
    if name == "sharpened" and case.mode == "photo":
        return [("sharpened", prepared(case, SHARPEN))]
    return [("", case.sample())]


_ROOT = Path(__file__).resolve().parent.parent
"""The checkout this script belongs to."""
_PICTURE_SOURCES = (
    "nsvision/render",
    "calibration/london.json",
    "bench/accuracy.py",
    "bench/robustness.py",
    "bench/unseen.py",
    "bench/reread.py",
)
"""What the sets' pictures are made by (relative to the checkout; a folder: its ``.py`` files)."""


@functools.cache
def picture_key() -> str:
    """A digest of the files the sets' pictures are made by (``_PICTURE_SOURCES``), so that pictures
    kept by another renderer or plan are never read as this one's."""
    digest = hashlib.sha256()
    for source in _PICTURE_SOURCES:
        path = _ROOT / source
        for f in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(f.relative_to(_ROOT).as_posix().encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()[:16]


def picture_folder(pictures: Path, name: str, case: Case, variant: str) -> Path:
    """Where ``--pictures`` keeps one read of a case in a named set."""
    what = json.dumps([name, case.__dict__, variant], sort_keys=True).encode()
    return pictures / picture_key() / name / f"{case.seed}-{hashlib.sha256(what).hexdigest()[:12]}"


_TRUTH = "truth.pkl"
"""In a kept picture's folder, the sample's truth: written last, so that a folder without it (a store
stopped while writing) is rendered again."""


def _read_kept(folder: Path) -> tuple[SheetResult, dict[str, Any]]:
    """The first sheet's result of the picture kept in ``folder``, read as the CLI does, and its truth."""
    image = next(p for p in sorted(folder.iterdir()) if p.suffix not in (".json", ".pkl"))
    with (folder / _TRUTH).open("rb") as f:
        expected = pickle.load(f)
    return analyze_file(image, load_calibration())[0], expected


def store_case(
    case: Case, name: str, stored: Mapping[str, dict[str, Any]] | None = None, pictures: Path | None = None
) -> list[dict[str, Any]]:
    """Read one case's sheets as the CLI does; each one's case, variant, truth, measurements and outcome.
    A read saved as JPEG that ``stored`` holds (by variant) is taken from there, not read again; with
    ``pictures``, each picture is kept there (``picture_folder``) and read from there when it is."""
    cv2.setNumThreads(1)
    kept = {v: row for v, row in (stored or {}).items() if _format(case, name, v) == "jpg"}
    folders = {v: picture_folder(pictures, name, case, v) for v in _variants(case, name)} if pictures else {}
    ready = {v for v, folder in folders.items() if (folder / _TRUTH).exists()}
    fresh = dict(reads(case, name, skip={*kept, *ready}))
    rows = []
    for variant in _variants(case, name):
        if variant in kept:
            rows.append(kept[variant])
            continue
        fmt = _format(case, name, variant)
        if variant in folders:
            folder = folders[variant]
            if variant not in ready:
                write_sample(fresh[variant], folder, fmt=fmt)
                with (folder / _TRUTH).open("wb") as f:
                    pickle.dump(fresh[variant].expected, f)
            result, expected = _read_kept(folder)
        else:
            result, _seconds = read_back(fresh[variant], fmt)
            expected = fresh[variant].expected
        row: dict[str, Any] = {"case": case.__dict__, "variant": variant, "expected": expected}
        if not isinstance(result, SheetReport):
            rows.append({**row, "error": result.error.message})
        else:
            rows.append({**row, "measurements": result.measurements, "then": judge(result, expected)})
    return rows


def store(
    name: str,
    path: Path,
    workers: int,
    seed: int | None = None,
    count: int | None = None,
    jpegs: Path | None = None,
    pictures: Path | None = None,
) -> None:
    start = time.time()
    planned = cases(name, seed, count)
    kept: dict[tuple[Any, ...], dict[str, Any]] = {}
    if jpegs is not None:
        with jpegs.open("rb") as f:
            kept = {_key(row): row for row in pickle.load(f)}
    # Each case is sent its own stored reads only, by variant (the whole file, sent with every case,
    # took longer than reading the scans).
    mine = [
        {v: kept[k] for v in _variants(c, name) if (k := _key({"case": c.__dict__, "variant": v})) in kept}
        for c in planned
    ]
    with ProcessPoolExecutor(workers) as pool:
        every = [pictures] * len(planned)
        rows = [row for rs in pool.map(store_case, planned, [name] * len(planned), mine, every) for row in rs]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        pickle.dump(rows, f)
    print(f"{name}: {len(rows)} sheets measured in {time.time() - start:.0f} s, kept in {path}")


def state(outcome: dict[str, Any]) -> str:
    return ("right" if outcome["correct"] else "WRONG") + (", flagged" if outcome["flagged"] else ", not flagged")


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    """What names one stored read: its case (with the fields a file stored by an older bench lacks
    at their defaults) and variant."""
    return tuple(sorted(Case(**row["case"]).__dict__.items())), row.get("variant", "")


_FAILED: dict[str, Any] = {"correct": False, "flagged": True, "total": None, "doubtful": []}
"""The outcome of a read that found no map or was refused: the same whatever the rebuild."""


def decide_stored(row: dict[str, Any], cal: Calibration) -> SheetReport:
    """A stored read's measurements (the row must hold them) decided by the working tree."""
    measured = row["measurements"]
    # The score zone as the working tree judges the scores kept (how crossed each circle looks).
    marks = measured.marks
    measured = replace(measured, marks=judge_marks(marks.circles, marks.objectives, marks.shapes_found))
    return decide(measured, cal)


def _decided(row: dict[str, Any], cal: Calibration) -> dict[str, Any]:
    """A stored read decided by the working tree's rebuild, judged against its truth; a sheet read
    wrong also gets where its ``errors`` lie (``error_kinds``), and one read wrong without a flag its
    ``misread`` sections (``misread_sections``)."""
    if "measurements" not in row:
        return _FAILED
    report = decide_stored(row, cal)
    outcome = judge(report, row["expected"])
    if not outcome["correct"]:
        misread = _misread(report, row["expected"])
        outcome["errors"] = error_kinds(misread)
        if not outcome["flagged"]:
            outcome["misread"] = misread_sections(report, misread)
    return outcome


Misread = list[tuple[Section, SectionReading, set[str]]]
"""Sections read otherwise than drawn: each section, its reading and the pencils that drew it."""


def drawn_in(expected: dict[str, Any]) -> dict[frozenset[str], set[str]]:
    """The pencils that drew each section of a sample's truth, by its two station names."""
    truth: dict[frozenset[str], set[str]] = {}
    for colour, sections in expected["network"]["lines"].items():
        for a, b in sections:
            truth.setdefault(frozenset((a, b)), set()).add(colour)
    return truth


def _misread(report: SheetReport, expected: dict[str, Any]) -> Misread:
    """Each section of ``report`` read otherwise than drawn in ``expected`` (a sample's truth)."""
    if report.reading is None:
        return []
    truth = drawn_in(expected)
    out = []
    for s, r in report.reading.sections.items():
        drawn = truth.get(frozenset(s.to_list()), set())
        if {c for c in (r.colour, r.also) if c} != drawn:
            out.append((s, r, drawn))
    return out


def misread_sections(report: SheetReport, misread: Misread) -> list[str]:
    """Each section of ``report`` read otherwise than drawn (``_misread``), with what was measured on
    it: the pencil marks' share of its positions (ink, and faint at half the threshold), how many
    positions, and the second look a person would be shown were the sheet reviewed, if any."""
    looks = report.reading.second_look if report.reading is not None else {}
    out = []
    for s, r, drawn in misread:
        ev = r.evidence
        look = f"; a second look were it reviewed: {looks[s]}" if s in looks else ""
        was = f"drawn in {' and '.join(sorted(drawn))}" if drawn else "not drawn"
        out.append(
            f"{s.name} read as {r.as_read}, {was}: ink on {ev.ink:.0%}, "
            f"faint marks on {ev.faint:.0%} of {ev.samples} positions{look}"
        )
    return out


NOTHING_FAINT = 0.1
"""``compare --errors``: a drawn section read as not drawn, with no ink and faint marks on less than
this share of it, left nothing the reader measures: no rule reads it, and none can doubt it."""


def error_kinds(misread: Misread) -> dict[str, bool]:
    """Where a sheet read wrong went wrong, from its sections read otherwise than drawn
    (``_misread``): ``sure``, some section is misread without doubt (a flag on the sheet, if any,
    comes from other sections); ``nothing``, some drawn section read as not drawn left nothing
    measured (``NOTHING_FAINT``); ``sections``, any section is misread at all (else the error lies
    elsewhere: the score zone, a rule)."""
    return {
        "sections": bool(misread),
        "sure": any(not r.doubtful for _, r, _ in misread),
        "nothing": any(
            drawn and r.colour is None and r.evidence.ink == 0 and r.evidence.faint < NOTHING_FAINT
            for _, r, drawn in misread
        ),
    }


def by_error(rows: list[dict[str, Any]], now: list[dict[str, Any]]) -> str:
    """A table of the sheets ``now`` read wrong (decided again, in the order of ``rows``), photos and
    scans apart, by where the error lies (``error_kinds``). A sheet misread where the reader is sure
    is flagged, if at all, for its other sections: taking a kind of doubt away unflags it wrong."""
    lines = [
        "| mode | sheets | read wrong | every misread section in doubt | a section misread without doubt "
        "| ... and flagged for others | ... a drawn section left nothing measured | no section misread |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for mode in ("photo", "scan"):
        mine = [o for row, o in zip(rows, now, strict=True) if row["case"]["mode"] == mode]
        wrong = [o for o in mine if not o["correct"]]
        kinds = [o.get("errors", {}) for o in wrong]
        sure = [o for o, k in zip(wrong, kinds, strict=True) if k.get("sure")]
        cells = (
            len(mine),
            len(wrong),
            sum(bool(k.get("sections")) and not k.get("sure") for k in kinds),
            len(sure),
            sum(o["flagged"] for o in sure),
            sum(bool(k.get("nothing")) for k in kinds),
            sum(not k.get("sections") for k in kinds),
        )
        lines.append(f"| {mode} | " + " | ".join(str(n) for n in cells) + " |")
    return "\n".join(lines)


def by_mode(rows: list[dict[str, Any]], now: list[dict[str, Any]]) -> str:
    """A table of the outcomes ``now`` (decided again, in the order of ``rows``) of the photos and the
    scans apart, over every plan compared: the README's goals are counted by mode."""
    lines = [
        "| mode | sheets | total exact | fully right | flagged | wrong, not flagged |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for mode in ("photo", "scan"):
        mine = [o for row, o in zip(rows, now, strict=True) if row["case"]["mode"] == mode]
        lines.append(f"| {mode} | {len(mine)} | {outcome_cells(mine)} |")
    return "\n".join(lines)


STRENGTH_BINS = 4
"""``compare --by-strength``: the strength sweep (0 to 1) cut into this many equal parts."""


def by_strength(rows: list[dict[str, Any]], now: list[dict[str, Any]]) -> str:
    """A table of the legal photos' outcomes ``now`` (decided again, in the order of ``rows``) by
    part of the strength sweep: where the photos' errors and flags lie, easy pictures to hard."""
    lines = [
        "| strength | photos | total exact | fully right | flagged | wrong, not flagged |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    parts: list[list[dict[str, Any]]] = [[] for _ in range(STRENGTH_BINS)]
    for row, outcome in zip(rows, now, strict=True):
        c = row["case"]
        if c["mode"] == "photo" and not c.get("violation"):
            parts[min(int(c["strength"] * STRENGTH_BINS), STRENGTH_BINS - 1)].append(outcome)
    for k, part in enumerate(parts):
        low, high = k / STRENGTH_BINS, (k + 1) / STRENGTH_BINS
        lines.append(f"| {low:.2f}–{high:.2f} | {len(part)} | {outcome_cells(part)} |")
    return "\n".join(lines)


def _sheet(row: dict[str, Any]) -> str:
    """A stored read as named in the listings: its print, mode, seed and variant, if any."""
    c = row["case"]
    variant = f" ({row['variant']})" if row.get("variant") else ""
    return f"{c['style']}/{c['mode']} seed {c['seed']}{variant}"


def wrong_unflagged(rows: list[dict[str, Any]], now: list[dict[str, Any]]) -> str:
    """The sheets ``now`` read wrong without a flag (decided again, in the order of ``rows``), each
    with its misread sections: the worst outcome, listed to be looked at one by one."""
    lines = []
    for row, outcome in zip(rows, now, strict=True):
        if outcome["correct"] or outcome["flagged"]:
            continue
        c = row["case"]
        lines.append(
            f"wrong without a flag: {_sheet(row)}, strength {c['strength']:.2f}"
            f"{', breaking ' + c['violation'] if c.get('violation') else ''}; total {outcome['total']} "
            f"(true {row['expected']['total']})"
        )
        lines += [f"    {line}" for line in outcome.get("misread", [])]
    return "\n".join(lines) if lines else "no sheet read wrong without a flag"


Setting = tuple[ModuleType, str, Any]
"""A constant to change for ``compare --set``: its module, its name and the value it takes (a number;
for ``--doubt-model`` and ``--colour-model``, the function that gives the model)."""


def parse_setting(text: str) -> Setting:
    """``MODULE.NAME=VALUE`` (``rebuild.FAINT_END_SHARE=0.5``): a number of a module of
    ``nsvision.vision`` or ``nsvision``, with the value it takes, of the number's own type."""
    target, eq, value = text.partition("=")
    module_name, dot, attr = target.rpartition(".")
    if not (eq and dot and module_name and attr):
        raise ValueError(f"{text!r}: write MODULE.NAME=VALUE, say rebuild.FAINT_END_SHARE=0.5")
    for package in ("nsvision.vision", "nsvision"):
        try:
            module = importlib.import_module(f"{package}.{module_name}")
        except ModuleNotFoundError:
            continue
        current = getattr(module, attr, None)
        if isinstance(current, bool) or not isinstance(current, (int, float)):
            raise ValueError(f"{text!r}: {package}.{module_name} has no number {attr}")
        try:
            return module, attr, float(value) if isinstance(current, float) else int(value)
        except ValueError:
            kind = "number" if isinstance(current, float) else "whole number"
            raise ValueError(f"{text!r}: {value!r} is not a {kind} like {current!r}") from None
    raise ValueError(f"{text!r}: no module {module_name} in nsvision.vision or nsvision")


@contextlib.contextmanager
def constants_set(settings: Collection[Setting]) -> Iterator[None]:
    """The constants set to their values for as long as the block runs, then as they were. Only
    what reads the constant from its module when it runs sees the change (not a default argument,
    nor a name imported into another module)."""
    before = [(module, attr, getattr(module, attr)) for module, attr, _ in settings]
    try:
        for module, attr, value in settings:
            setattr(module, attr, value)
        yield
    finally:
        for module, attr, value in before:
            setattr(module, attr, value)


def compare(
    name: str, path: Path, every: bool, against: Path | None = None, settings: Collection[Setting] = ()
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Decide every stored sheet again; print the figures then and now, and the sheets that changed.
    With ``against`` (the same set stored by a changed reader), "then" is this file's reads decided
    now and "now" is the other file's: what a change of measurement does, sheet by sheet. With
    ``settings``, "then" is the reads decided now and "now" the same with those constants changed.
    Returns the stored rows and their outcomes now, in the same order."""
    with path.open("rb") as f:
        rows = pickle.load(f)
    cal = load_calibration()
    others: dict[tuple[Any, ...], dict[str, Any]] = {}
    if against is not None:
        with against.open("rb") as f:
            others = {_key(row): row for row in pickle.load(f)}
        missing = [row for row in rows if _key(row) not in others]
        if missing:
            raise SystemExit(f"{against} does not hold {len(missing)} of the reads in {path}: not the same set")
    then: list[dict[str, Any]] = []
    now: list[dict[str, Any]] = []
    for row in rows:
        other = others.get(_key(row), row)
        if settings:
            before = _decided(row, cal)
            with constants_set(settings):
                after = _decided(row, cal)
        else:
            before = row["then"] if against is None and "measurements" in row else _decided(row, cal)
            after = _decided(other, cal)
        then.append(before)
        now.append(after)
        changed = (before["correct"], before["flagged"]) != (after["correct"], after["flagged"])
        if changed or (every and (before["total"], before["doubtful"]) != (after["total"], after["doubtful"])):
            print(
                f"  {_sheet(row)}: {state(before)} -> {state(after)}; total "
                f"{before['total']} -> {after['total']} (true {row['expected']['total']}); in doubt now: "
                f"{', '.join(after['doubtful']) or 'none'}"
            )
    labels = ("total exact", "fully right", "flagged", "wrong, not flagged")
    print(f"{name} ({path.name}): {len(rows)} sheets")
    for label, a, b in zip(labels, outcomes(then), outcomes(now), strict=True):
        print(f"  {label:20s} {a:4d} -> {b:4d}")
    for variant in dict.fromkeys(row["variant"] for row in rows if row.get("variant")):
        mine = [i for i, row in enumerate(rows) if row.get("variant") == variant]
        counted_then, counted_now = outcomes([then[i] for i in mine]), outcomes([now[i] for i in mine])
        if counted_then != counted_now:
            pairs = zip(labels, counted_then, counted_now, strict=True)
            print(f"  {variant}: " + ", ".join(f"{label} {x} -> {y}" for label, x, y in pairs))
    return rows, now


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("store", "compare"))
    ap.add_argument("set", choices=SETS)
    ap.add_argument("--file", type=Path, help="where the measurements are kept (default bench/out/measured-SET.pkl)")
    ap.add_argument("--workers", type=int, default=2, help="parallel processes for store, each single-threaded")
    ap.add_argument("--all", action="store_true", help="compare: list every sheet whose total or doubts changed")
    ap.add_argument(
        "--by-strength", action="store_true", help="compare: the legal photos' outcomes now, by quarter of the sweep"
    )
    ap.add_argument(
        "--errors",
        action="store_true",
        help="compare: the outcomes of the photos and the scans apart, and the sheets now read wrong by "
        "where the error lies",
    )
    ap.add_argument(
        "--wrong",
        action="store_true",
        help="compare: each sheet now read wrong without a flag, with its misread sections and what was measured",
    )
    ap.add_argument(
        "--seed",
        type=int,
        nargs="+",
        help="accuracy, unseen, unseen-overlaid: the plan from another first seed (kept in measured-SET-SEED.pkl); "
        "compare takes several, each compared in turn",
    )
    ap.add_argument(
        "--count", type=int, help=f"unseen, unseen-overlaid: how many prints to store (default {unseen.COUNT})"
    )
    ap.add_argument(
        "--against", type=Path, help="compare: the same set stored by a changed reader (store --file), read against it"
    )
    ap.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="compare: 'then' is the working tree's reading, 'now' the same with this constant of "
        "nsvision.vision.MODULE (or nsvision.MODULE) set to VALUE; may be given several times",
    )
    ap.add_argument(
        "--doubt-model",
        metavar="PATH",
        help="compare: 'then' is the working tree's reading, 'now' the same with the best reading of the "
        "sections in doubt from this model (bench/train_doubts.py), or from the rules alone with 'none'",
    )
    ap.add_argument(
        "--colour-model",
        metavar="PATH",
        help="compare: as --doubt-model, for the second model, the pencil of a section in doubt read drawn "
        "(bench/train_doubts.py --colours); 'none' leaves it out ('--doubt-model none' leaves both out)",
    )
    ap.add_argument(
        "--jpegs-from",
        type=Path,
        help="store: take the reads saved as JPEG from this stored file of the same set, reading only the "
        "others again (for a change to what is measured on clean pictures only)",
    )
    ap.add_argument(
        "--pictures",
        type=Path,
        help="store: keep every picture written in this folder and read it from there when it already is "
        "(rendered once for every change to what is measured)",
    )
    args = ap.parse_args(argv)
    seeds: list[int | None] = list(args.seed) if args.seed else [None]
    if args.seed is not None and args.set not in ("accuracy", "unseen", "unseen-overlaid"):
        ap.error("--seed is for the accuracy, unseen and unseen-overlaid sets only")
    if len(seeds) > 1 and (args.action != "compare" or args.file is not None or args.against is not None):
        ap.error("several seeds are for compare, without --file or --against")
    if args.count is not None and (not args.set.startswith("unseen") or args.action != "store" or args.count < 1):
        ap.error("--count is a positive number of unseen prints to store")
    if args.against is not None and (args.action != "compare" or not args.against.exists()):
        ap.error("--against names a stored file of the same set, for compare")
    if args.jpegs_from is not None and (args.action != "store" or not args.jpegs_from.exists()):
        ap.error("--jpegs-from names a stored file of the same set, for store")
    if args.pictures is not None and args.action != "store":
        ap.error("--pictures is for store")
    if args.settings and (args.action != "compare" or args.against is not None):
        ap.error("--set is for compare, without --against")
    try:
        settings: list[Setting] = [parse_setting(text) for text in args.settings]
    except ValueError as e:
        ap.error(f"--set {e}")
    colour_model = "none" if args.doubt_model == "none" else args.colour_model
    for option, path, load, name in (
        ("--doubt-model", args.doubt_model, doubt_model.load_model, "default_model"),
        ("--colour-model", colour_model, doubt_model.load_colour_model, "default_colour_model"),
    ):
        if path is None:
            continue
        if args.action != "compare" or args.against is not None:
            ap.error(f"{option} is for compare, without --against")
        try:
            model = None if path == "none" else load(path)
        except (OSError, ValueError, KeyError) as e:
            ap.error(f"{option} {path}: {e}")
        if model is None and path != "none":
            ap.error(f"{option} {path}: no such file")
        settings.append((doubt_model, name, lambda model=model: model))
    paths = {
        seed: args.file
        or Path(__file__).resolve().parent
        / "out"
        / (f"measured-{args.set}" + (f"-{seed}" if seed is not None else "") + ".pkl")
        for seed in seeds
    }
    if args.action == "store":
        store(args.set, paths[seeds[0]], args.workers, seeds[0], args.count, args.jpegs_from, args.pictures)
        return 0
    for seed, path in paths.items():
        if not path.exists():
            flag = f" --seed {seed}" if seed is not None else ""
            ap.error(f"no measurements kept in {path}: run `python3 bench/reread.py store {args.set}{flag}` first")
    rows: list[dict[str, Any]] = []
    now: list[dict[str, Any]] = []
    for path in paths.values():
        stored, decided = compare(args.set, path, args.all, args.against, settings)
        rows += stored
        now += decided
    if args.by_strength:
        print(by_strength(rows, now))
    if args.errors:
        print(by_mode(rows, now))
        print(by_error(rows, now))
    if args.wrong:
        print(wrong_unflagged(rows, now))
    return 1 if outcomes(now)[3] else 0


if __name__ == "__main__":
    sys.exit(main())
