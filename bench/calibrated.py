"""Does teaching nsvision a print help? Default versus calibrated reading of a print it was not tuned on.

Renders a blank sheet of the "slate" style (a third print, never used to tune the reader;
``--style`` names another) as a flatbed scan (``--blank photo``: a phone photo), runs ``nsvision
calibrate`` on it (the library call behind it), then renders filled sheets of that print as phone
photos over the strength sweep and reads each one twice: with the default calibration and with the
learnt one. Reports, per reading: totals exactly right, wrong
sections, sections in doubt, sheets flagged, and sheets wrong without a flag.

    python3 bench/calibrated.py                        # 40 photos, about 4 minutes on 2 cores
    python3 bench/calibrated.py --count 10             # quicker
    python3 bench/calibrated.py --style cream --count 30  # a print the reader was tuned on
    python3 bench/calibrated.py --blank photo          # the blank photographed, not scanned
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from typing import Any

import cv2

from nsvision.calibration import Calibration, load_calibration
from nsvision.game.board import LINE_COLOURS
from nsvision.pipeline import SheetReport, analyze_sheet
from nsvision.render.sample import make_sample
from nsvision.render.style import get_style
from nsvision.vision.calibrate import calibrate_blank

STYLE = "slate"
"""The print calibrated and read, unless ``--style`` names another."""


@cache
def learnt_calibration(seed: int, style: str = STYLE, blank_mode: str = "scan") -> Calibration:
    """The calibration ``nsvision calibrate`` makes from a scan (or a photo) of a blank sheet of ``style``."""
    base = load_calibration()
    blank = make_sample(base, seed, mode=blank_mode, style=style, strength=0.3, blank=True)
    return calibrate_blank(blank.pages[0].image, base, f"{style}-blank.png", name=style)


def compare(report: SheetReport | Any, expected: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(report, SheetReport):
        return {"read": False, "total_ok": False, "wrong": 0, "doubt": 0, "flagged": True, "correct": False}
    truth = {c: {tuple(s) for s in expected["network"]["lines"][c]} for c in LINE_COLOURS}
    read = {c: {tuple(s.to_list()) for s in report.network.sections(c)} for c in LINE_COLOURS}
    wrong = sum(len(read[c] ^ truth[c]) for c in LINE_COLOURS)
    total_ok = report.total == expected["total"]
    return {
        "read": True,
        "total_ok": total_ok,
        "wrong": wrong,
        "doubt": len(report.doubtful_sections),
        "flagged": report.needs_review,
        "correct": total_ok and wrong == 0,
    }


def run_case(args: tuple[int, float, int, str, str]) -> dict[str, Any]:
    seed, strength, blank_seed, style, blank_mode = args
    cv2.setNumThreads(1)
    default = load_calibration()
    learnt = learnt_calibration(blank_seed, style, blank_mode)
    sample = make_sample(default, seed, mode="photo", style=style, strength=strength)
    image = sample.pages[0].image
    out: dict[str, Any] = {"seed": seed, "strength": strength}
    for name, cal in (("default", default), ("calibrated", learnt)):
        out[name] = compare(analyze_sheet(image, cal, source=f"{style}-{seed}"), sample.expected)
    return out


def summarise(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| reading | sheets | total exact | all correct | wrong sections | sections in doubt | flagged "
        "| wrong, not flagged |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in ("default", "calibrated"):
        rs = [r[name] for r in rows]
        lines.append(
            f"| {name} | {len(rs)} | {sum(r['total_ok'] for r in rs)} | {sum(r['correct'] for r in rs)} | "
            f"{sum(r['wrong'] for r in rs)} | {sum(r['doubt'] for r in rs)} | {sum(r['flagged'] for r in rs)} | "
            f"{sum((not r['correct']) and not r['flagged'] for r in rs)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=40, help="filled photos (default 40)")
    ap.add_argument("--seed", type=int, default=5000, help="first seed (default 5000)")
    ap.add_argument("--style", default=STYLE, help=f"the print to calibrate and read (default {STYLE})")
    ap.add_argument(
        "--blank", choices=("scan", "photo"), default="scan", help="how the blank sheet is taken (default scan)"
    )
    ap.add_argument("--workers", type=int, default=2, help="parallel processes, each single-threaded")
    args = ap.parse_args(argv)
    try:
        get_style(args.style)
    except KeyError as e:
        ap.error(str(e.args[0]))
    cases = [
        (args.seed + i, round(i / max(1, args.count - 1), 3), args.seed - 1, args.style, args.blank)
        for i in range(args.count)
    ]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(run_case, cases))
    print(summarise(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
