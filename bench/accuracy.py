"""Accuracy and speed of the reader on a generated benchmark set with known ground truth.

    python3 bench/accuracy.py                 # the README's figures (240 sheets, ~10 min on 2 cores)
    python3 bench/accuracy.py --count 40      # a quick look
    python3 bench/accuracy.py --sharpen 1.0,1.5   # photos sharpened as a phone does before saving
    python3 bench/accuracy.py --turn 90       # every picture turned a quarter clockwise (also 180, 270)

Each sheet is rendered by ``nsvision.render`` (phone photos across the strength sweep, flatbed
scans, both visual styles, legal and illegal networks), written to disk in its usual format
(JPEG photos, PNG scans), then read back with ``nsvision.pipeline.analyze_file`` exactly as the
CLI does. Timing covers decode + read + score of one sheet on one core (OpenCV single-threaded).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from nsvision.calibration import load_calibration
from nsvision.game.board import LINE_COLOURS
from nsvision.pipeline import SheetReport, SheetResult, analyze_file
from nsvision.render.sample import Sample, make_sample, write_sample

VIOLATIONS = ("sections_cross", "cycle", "drawn_twice", "not_connected")
COUNT, SEED = 240, 1000
"""The README's set: its size and first seed."""


@dataclass(frozen=True)
class Case:
    seed: int
    mode: str
    style: str
    strength: float
    violation: str | None
    pencils: str = "default"
    hand: str = "default"

    @property
    def label(self) -> str:
        return f"{self.style}/{self.mode}"

    def sample(self, lines: bool = True) -> Sample:
        """The rendered sheet of this case, with its ground truth (``lines=False``: the same picture
        with the lines' pencil left off, see ``make_sample``)."""
        return make_sample(
            load_calibration(),
            self.seed,
            mode=self.mode,
            style=self.style,
            strength=self.strength,
            violation=self.violation,
            pencils=self.pencils,
            lines=lines,
            hand=self.hand,
        )


def plan(count: int, seed: int) -> list[Case]:
    """The benchmark set: per style, 2/3 photos over the strength sweep, 1/4 scans, the rest illegal photos."""
    cases: list[Case] = []
    per_style = count // 2
    for si, style in enumerate(("print", "cream")):
        n_photo = per_style * 2 // 3
        n_scan = per_style // 4
        n_illegal = per_style - n_photo - n_scan
        base = seed + si * 100_000
        for i in range(n_photo):
            cases.append(Case(base + i, "photo", style, round(i / max(1, n_photo - 1), 3), None))
        for i in range(n_scan):
            cases.append(Case(base + 10_000 + i, "scan", style, round(i / max(1, n_scan - 1), 3), None))
        for i in range(n_illegal):
            v = VIOLATIONS[i % len(VIOLATIONS)]
            cases.append(Case(base + 20_000 + i, "photo", style, round(i / max(1, n_illegal - 1), 3), v))
    return cases


def unsharp(image: np.ndarray, amount: float, sigma: float) -> np.ndarray:
    """A phone's sharpening: an unsharp mask of ``amount`` at ``sigma`` px (the renderer has none)."""
    blur = cv2.GaussianBlur(image, (0, 0), sigma)
    return cv2.addWeighted(image, 1.0 + amount, blur, -amount, 0)


TURNS = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}
"""Quarter turns (degrees clockwise) a picture can be given before it is saved (``--turn``)."""


def turned(sample: Sample, degrees: int) -> Sample:
    """The sample with every page's picture turned ``degrees`` clockwise (a key of ``TURNS``) and
    saved that way up, with no EXIF orientation to undo it: the same sheet photographed with the
    phone held another way round."""
    up = [cv2.rotate(p.image, TURNS[degrees]) for p in sample.pages]
    pages = tuple(
        dataclasses.replace(p, image=im, stored=im, exif_orientation=1) for p, im in zip(sample.pages, up, strict=True)
    )
    return dataclasses.replace(sample, pages=pages)


def prepared(case: Case, sharpen: tuple[float, float] | None = None, turn: int = 0) -> Sample:
    """The case's sheet as the bench reads it: a photo given an unsharp mask first when ``sharpen``
    (amount, sigma) is given; then every picture turned ``turn`` degrees clockwise, if any."""
    sample = case.sample()
    if sharpen is not None and case.mode == "photo":
        sample = transformed(sample, lambda im: unsharp(im, *sharpen))
    return turned(sample, turn) if turn else sample


def file_format(case: Case) -> str:
    """The format the case's sheet is written in: a photo as JPEG, a scan as PNG."""
    return "jpg" if case.mode == "photo" else "png"


def run_case(case: Case, sharpen: tuple[float, float] | None = None, turn: int = 0) -> dict[str, Any]:
    cv2.setNumThreads(1)
    return {"case": case.__dict__, **read_sample(prepared(case, sharpen, turn), file_format(case))}


def transformed(sample: Sample, change: Callable[[np.ndarray], np.ndarray], quality: int | None = None) -> Sample:
    """The sample with ``change`` applied to every page's pixels (and a JPEG quality, if given)."""
    pages = tuple(
        dataclasses.replace(p, image=change(p.image), stored=change(p.stored), jpeg_quality=quality or p.jpeg_quality)
        for p in sample.pages
    )
    return dataclasses.replace(sample, pages=pages)


def read_back(sample: Sample, fmt: str) -> tuple[SheetResult, float]:
    """Write the sample to disk as ``fmt`` and read it back as the CLI does: the first sheet's
    result, and the seconds ``analyze_file`` took."""
    cal = load_calibration()
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_sample(sample, Path(tmp), fmt=fmt)
        image_path = next(p for p in paths if p.suffix != ".json")
        start = time.perf_counter()
        results = analyze_file(image_path, cal)
        return results[0], time.perf_counter() - start


def read_sample(sample: Sample, fmt: str) -> dict[str, Any]:
    """Write the sample to disk as ``fmt``, read it back as the CLI does and compare with the truth."""
    expected = sample.expected
    result, seconds = read_back(sample, fmt)
    out: dict[str, Any] = {"seconds": seconds, "expected_total": expected["total"]}
    if not isinstance(result, SheetReport):
        out.update(status=result.status, error=result.error.message, correct=False, flagged=True)
        return out
    out.update(judge(result, expected))
    return out


def judge(result: SheetReport, expected: dict[str, Any]) -> dict[str, Any]:
    """How a sheet's report compares with its truth (``Sample.expected``): total and sections right,
    flagged, what a person reviewing it is shown, and per colour the sections right and wrong."""
    truth = {c: {tuple(s) for s in expected["network"]["lines"][c]} for c in LINE_COLOURS}
    read = {c: {tuple(s.to_list()) for s in result.network.sections(c)} for c in LINE_COLOURS}
    exp_codes = sorted({v["code"] for v in expected["violations"]})
    got_codes = sorted({v.code for v in result.violations})
    correct = result.total == expected["total"] and exp_codes == got_codes and read == truth
    misread = {"-".join(s) for c in LINE_COLOURS for s in read[c] ^ truth[c]}
    return dict(
        # On a sheet read wrong: is every misread section named for the person reviewing it?
        named_in_doubt=misread <= set(result.doubtful_sections),
        named_at_all=misread <= set(result.doubtful_sections) | {s.name for s, _ in result.also_check},
        status=result.status,
        total=result.total,
        correct=correct,
        total_right=result.total == expected["total"],
        flagged=result.needs_review,
        doubtful=list(result.doubtful_sections),
        stations_found=result.registration.stations_found if result.registration else 0,
        per_colour={
            c: {"tp": len(read[c] & truth[c]), "fp": len(read[c] - truth[c]), "fn": len(truth[c] - read[c])}
            for c in LINE_COLOURS
        },
    )


def grouped(rows: list[dict[str, Any]], name: Callable[[dict[str, Any]], str]) -> dict[str, list[dict[str, Any]]]:
    """Rows by the set their case belongs to (``name`` of the case), then all of them."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(name(r["case"]), []).append(r)
    groups["all"] = rows
    return groups


def outcomes(rs: list[dict[str, Any]]) -> tuple[int, int, int, int]:
    """Totals exactly right, sheets fully right, flagged, wrong without a flag."""
    return (
        sum(r.get("total_right", False) for r in rs),
        sum(r["correct"] for r in rs),
        sum(r["flagged"] for r in rs),
        sum((not r["correct"]) and not r["flagged"] for r in rs),
    )


def outcome_cells(rs: list[dict[str, Any]]) -> str:
    """Table cells: totals exactly right, sheets fully right, flagged, wrong without a flag."""
    return " | ".join(str(n) for n in outcomes(rs))


def summarise(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| set | sheets | total exact | all correct | flagged | wrong, not flagged | median s | p95 s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    groups = grouped(rows, lambda c: f"{c['style']}/{c['mode']}" + ("/illegal" if c["violation"] else ""))
    for name, rs in groups.items():
        secs = sorted(r["seconds"] for r in rs)
        p95 = secs[min(len(secs) - 1, int(round(0.95 * (len(secs) - 1))))]
        lines.append(f"| {name} | {len(rs)} | {outcome_cells(rs)} | {statistics.median(secs):.2f} | {p95:.2f} |")
    flagged_wrong = [r for r in rows if r["flagged"] and not r["correct"] and "named_at_all" in r]
    lines.append("")
    lines.append(
        f"flagged sheets read wrong: {len(flagged_wrong)}; every misread section among those in doubt: "
        f"{sum(r['named_in_doubt'] for r in flagged_wrong)}, among those in doubt or worth a second look: "
        f"{sum(r['named_at_all'] for r in flagged_wrong)}"
    )
    lines.append("")
    lines.append("| colour | precision | recall |")
    lines.append("|---|---:|---:|")
    for c in LINE_COLOURS:
        tp = sum(r["per_colour"][c]["tp"] for r in rows if "per_colour" in r)
        fp = sum(r["per_colour"][c]["fp"] for r in rows if "per_colour" in r)
        fn = sum(r["per_colour"][c]["fn"] for r in rows if "per_colour" in r)
        lines.append(f"| {c} | {tp / max(1, tp + fp):.4f} | {tp / max(1, tp + fn):.4f} |")
    return "\n".join(lines)


def add_set_arguments(ap: argparse.ArgumentParser) -> None:
    """The options that choose this set and how it is read: ``--count``, ``--seed``, ``--workers``
    (``plan(args.count, args.seed)``; also for ``bench/visibility.py``, which reads the same set)."""
    ap.add_argument("--count", type=int, default=COUNT, help=f"sheets in the set (default {COUNT})")
    ap.add_argument("--seed", type=int, default=SEED, help=f"first seed (default {SEED})")
    ap.add_argument("--workers", type=int, default=2, help="parallel processes, each single-threaded")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_set_arguments(ap)
    ap.add_argument("--out", type=Path, default=Path("bench/out/accuracy.json"), help="per-sheet results")
    ap.add_argument(
        "--sharpen", default=None, help="AMOUNT,SIGMA: sharpen every photo with an unsharp mask before it is saved"
    )
    ap.add_argument(
        "--turn", type=int, default=0, choices=(0, *TURNS), help="turn every picture this many degrees clockwise"
    )
    args = ap.parse_args(argv)
    sharpen: tuple[float, float] | None = None
    if args.sharpen:
        try:
            amount, sigma = (float(v) for v in args.sharpen.split(","))
        except ValueError:
            ap.error(f"--sharpen wants AMOUNT,SIGMA (two numbers), got {args.sharpen!r}")
        sharpen = (amount, sigma)
    cases = plan(args.count, args.seed)
    start = time.time()
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(functools.partial(run_case, sharpen=sharpen, turn=args.turn), cases, chunksize=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1))
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(summarise(rows))
    print(
        f"\npeak memory of a worker: {peak_mb:.0f} MB; wall time {time.time() - start:.0f} s; "
        f"per-sheet results in {args.out}"
    )
    wrong_unflagged = [r for r in rows if not r["correct"] and not r["flagged"]]
    for r in wrong_unflagged:
        print("WRONG, NOT FLAGGED:", r["case"], r.get("total"), r["expected_total"], file=sys.stderr)
    return 1 if wrong_unflagged else 0


if __name__ == "__main__":
    sys.exit(main())
