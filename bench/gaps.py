"""Does a missed stroke darken the paper between a dashed guide's dashes, where blank guides leave paper?

    python3 bench/gaps.py --seed 42000          # the `print` photos of a plan (80 + 10; ~3 min on 2 cores)
    python3 bench/gaps.py --seed 42000 --style cream   # solid guides: no gaps to see paper in

The real sheet's guides are thin grey dashes (RULES.md section 5), as the `print` style's are. The
reader measures a section's pencil as chroma over what the print explains; a light stroke whose
colour the print's guide shares under a warm light (the guide looks pinkish) is explained away as
print, and a JPEG's halved colour leaves little chroma between the dashes either. But between the
dashes a blank guide leaves the paper, and any stroke darkens it: this measures, on each sheet read
as the CLI reads it (written as JPEG, loaded, measured, decided), the median luminance density
(mean of the three channels' density, ``Straightened.density``) along the section's centre line
where the guide is lightest (the lightest 30 % of its positions, clear of dark print and of the
Thames band), and scores each section against the same sheet's blank sections: (value - their
median) / (their 99th percentile - their median). Compared: drawn sections the reader misses (read
not drawn, in doubt or not), and the highest score of each sheet's blank sections.

A development probe, not a benchmark of the product: the reader does not use this measure. Built
into the reader and judged as a doubt rule on what the reader can know (the sections it reads as
blank), it caught at most one or two of the sheets wrong without a flag on seeds 43000 and 44000
for some forty flags more each, and was not made (see the history, thirty-sixth and
thirty-seventh sessions).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from accuracy import Case, plan  # beside this script

from nsvision.calibration import load_calibration
from nsvision.game.board import LINE_COLOURS, Section, parse_section_name
from nsvision.pipeline import decide, measure_sheet
from nsvision.render.sample import write_sample
from nsvision.vision import detect, straighten
from nsvision.vision.load import load_page

GAP_SHARE = 30
"""Percentile of a section's guide darkness (its darkest channel) under which a position is between dashes."""
MIN_POSITIONS = 8
"""Fewest positions clear of dark print and the band for a section to be scored."""


def gap_density(case: Case) -> dict[str, Any]:
    """One sheet: each scored section's gap luminance density, which are drawn, which the reader misses."""
    cv2.setNumThreads(1)
    cal = load_calibration()
    sample = case.sample()
    with tempfile.TemporaryDirectory() as tmp:
        path = next(p for p in write_sample(sample, Path(tmp), fmt="jpg") if p.suffix != ".json")
        measured, straight = measure_sheet(load_page(path), cal)
    report = decide(measured, cal)
    assert report.reading is not None
    radius = cal.sheet.station_radius / cal.sheet.lattice_pitch
    positions = detect._sample_positions(straight, cal.map, radius, detect.END_GAP, detect.DISC_EXTRA)
    lines = sample.expected["network"]["lines"]
    drawn = {parse_section_name("-".join(p)) for c in LINE_COLOURS for p in lines[c]}
    values: dict[Section, float] = {}
    for s, along in positions.items():
        pts = detect._points_across(straight, s, along, np.array([0.0]))
        xs, ys = pts[..., 0].ravel(), pts[..., 1].ravel()
        ok = ~straighten.sample_mask(straight.ignore, xs, ys) & ~straighten.sample_mask(straight.river, xs, ys)
        if ok.sum() < MIN_POSITIONS:
            continue
        density = straighten.sample_at(straight.density, xs, ys)
        guide = density.min(axis=1)
        gaps = ok & (guide <= np.percentile(guide[ok], GAP_SHARE))
        values[s] = float(np.median(density.mean(axis=1)[gaps]))
    blank = np.array([v for s, v in values.items() if s not in drawn])
    med, p99 = float(np.median(blank)), float(np.percentile(blank, 99))

    def score(v: float) -> float:
        return (v - med) / max(p99 - med, 1e-3)

    missed = [
        (r.section.name, round(score(values[r.section]), 2), r.doubtful)
        for r in report.reading.sections.values()
        if r.section in drawn and r.colour is None and r.section in values
    ]
    return {"case": case.__dict__, "top_blank": round(max(score(v) for v in blank), 2), "missed": missed}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1000, help="the accuracy plan's first seed (default 1000)")
    ap.add_argument("--style", default="print", help="which style's photos (default print: dashed guides)")
    ap.add_argument("--workers", type=int, default=2, help="parallel processes, each single-threaded")
    args = ap.parse_args(argv)
    cases = [c for c in plan(240, args.seed) if c.mode == "photo" and c.style == args.style]
    start = time.time()
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(gap_density, cases))
    missed = [m for r in rows for m in r["missed"]]
    tops = [r["top_blank"] for r in rows]
    print(f"{len(rows)} {args.style} photos of seed {args.seed}'s plan, {time.time() - start:.0f} s")
    for r in rows:
        for name, sc, doubtful in r["missed"]:
            print(
                f"  {r['case']['seed']} {name}: score {sc} ({'in doubt' if doubtful else 'not in doubt'}); "
                f"top blank of the sheet {r['top_blank']}"
            )
    print("| score at least | missed sections (not in doubt) | sheets with a blank section there |")
    print("|---:|---:|---:|")
    for t in (1.5, 2.0, 3.0):
        above = [m for m in missed if m[1] >= t]
        print(
            f"| {t} | {len(above)} of {len(missed)} ({sum(not m[2] for m in above)}) | "
            f"{sum(x >= t for x in tops)} of {len(tops)} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
