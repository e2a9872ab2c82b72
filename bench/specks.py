"""Does a missed stroke leave specks of pigment at the picture's own resolution, and does blank paper?

    python3 bench/specks.py --mode scan --seed 42000     # the 60 scans of a plan (~3 min on 2 cores)
    python3 bench/specks.py --mode photo --count 60      # the 40 photos of a plan of 60 sheets
    python3 bench/specks.py --unseen --seed 76000 --count 90   # the scans of bench/unseen.py's random prints

A light pencil stroke leaves pigment on the peaks of the paper's tooth only: sparse specks, a pixel
or two each, that the reader's resampling to ``PX_PER_PITCH`` averages into the paper. The reader
measures them on clean pictures (``nsvision.vision.specks``) and puts in doubt a section read as
blank beside a line that shows its pencil's specks; this tells how far they separate a stroke the
reader misses from a blank section, on any picture (photos too, where the reader does not measure
them).

Each sheet of ``bench/accuracy.py``'s plan in the chosen mode is read as the CLI reads it, and its
picture's specks measured as the reader measures them (``speck_shares``). Compared per pencil:
drawn sections the reader reads right, drawn sections it misses (their own pencil's share), blank
sections that no drawn section crosses, at no station of a line of that pencil nor its departure
station, and blank sections beside a line of that pencil (where a stroke that runs on past its
station leaves specks, as a missed section would).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import cv2
import numpy as np
import unseen  # bench/unseen.py, beside this script
from accuracy import Case, add_set_arguments, file_format, plan, read_back  # beside this script
from visibility import decoded  # beside this script

from nsvision.calibration import load_calibration
from nsvision.game.board import LINE_COLOURS, Section, parse_section_name
from nsvision.pipeline import SheetReport
from nsvision.vision.specks import speck_shares


def run_case(case: Case) -> dict[str, Any]:
    cv2.setNumThreads(1)
    cal = load_calibration()
    sample = case.sample()
    fmt = file_format(case)
    result, _ = read_back(sample, fmt)
    row: dict[str, Any] = {"case": case.__dict__, "sections": []}
    if not isinstance(result, SheetReport) or result.registration is None or result.reading is None:
        row["error"] = "not read"
        return row
    # A section drawn twice (an illegal sheet) is drawn in both pencils.
    drawn: dict[Section, list[str]] = {}
    for colour, pairs in sample.expected["network"]["lines"].items():
        for pair in pairs:
            drawn.setdefault(parse_section_name("-".join(pair)), []).append(colour)
    # Measured whatever the picture (the reader measures them on clean pictures only), skipping
    # where a truly drawn section crosses (the reader: one it sees drawn).
    radius = cal.sheet.station_radius / cal.sheet.lattice_pitch
    crossed = {s: [t for t in cal.map.crossing_partners[s] if t in drawn] for s in cal.map.sections}
    shares = speck_shares(decoded(sample, fmt), result.registration, cal.map, radius, None, crossed)
    at: dict[Any, set[str]] = {}
    for s, colours in drawn.items():
        at.setdefault(s.a, set()).update(colours)
        at.setdefault(s.b, set()).update(colours)
    for s, reading in result.reading.sections.items():
        if s not in shares:
            continue
        colours = drawn.get(s, [])
        across = any(t in drawn for t in cal.map.crossing_partners[s])
        # A blank section compared with missed strokes: no drawn section crosses it.
        blank = not (colours or across)
        lines_here = at.get(s.a, set()) | at.get(s.b, set())
        row["sections"].append(
            {
                "section": s.name,
                "colours": colours,
                "read": reading.colour,
                "shares": list(shares[s]),
                # The pencils a blank section is compared for: not where its own specks may come from.
                "blank_for": [c for c in LINE_COLOURS if c not in lines_here and cal.map.departure(c) not in (s.a, s.b)]
                if blank
                else [],
                # The pencils whose line reaches a station of this blank section: where a stroke that
                # runs on past its station leaves specks, as a missed section would.
                "beside": sorted(lines_here) if blank else [],
            }
        )
    return row


def summarise(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| pencil | blank sections | share: 99th pct | 99.9th | max "
        "| blank, beside a line of the pencil | share: 90th pct | 99th | max "
        "| drawn, read right | share: 5th pct | 10th | drawn, missed | over the blank max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    missed_rows = []
    secs = [(r["case"], s) for r in rows for s in r["sections"]]
    for k, c in enumerate(LINE_COLOURS):
        blank = np.array([s["shares"][k] for _, s in secs if c in s["blank_for"]])
        beside = np.array([s["shares"][k] for _, s in secs if c in s.get("beside", ())])
        s90, s99 = np.percentile(beside, [90, 99]) if len(beside) else (0.0, 0.0)
        s_top = float(beside.max()) if len(beside) else 0.0
        found = np.array([s["shares"][k] for _, s in secs if c in s["colours"] and s["read"] == c])
        missed = [(case, s) for case, s in secs if c in s["colours"] and s["read"] is None]
        top = float(blank.max()) if len(blank) else 0.0
        b99, b999 = np.percentile(blank, [99, 99.9]) if len(blank) else (0.0, 0.0)
        f5, f10 = np.percentile(found, [5, 10]) if len(found) else (0.0, 0.0)
        over = sum(s["shares"][k] > top for _, s in missed)
        lines.append(
            f"| {c} | {len(blank)} | {b99:.2f} | {b999:.2f} | {top:.2f} | {len(beside)} | {s90:.2f} | {s99:.2f} | "
            f"{s_top:.2f} | {len(found)} | {f5:.2f} | {f10:.2f} | "
            f"{len(missed)} | {over} |"
        )
        missed_rows += [
            f"  {case['style']}/{case['mode']} {case['seed']} {s['section']} {c}: {s['shares'][k]:.2f}"
            for case, s in missed
        ]
    lines.append("")
    lines.append("drawn sections read as not drawn, with their own pencil's share:")
    lines += missed_rows
    unread = sum("error" in r for r in rows)
    lines.append(f"\nsheets not read: {unread}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_set_arguments(ap)
    ap.add_argument("--mode", choices=("scan", "photo"), default="scan", help="which sheets of the plan")
    ap.add_argument("--unseen", action="store_true", help="bench/unseen.py's prints (each its own) instead")
    args = ap.parse_args(argv)
    start = time.time()
    planned = unseen.plan(args.count, args.seed) if args.unseen else plan(args.count, args.seed)
    cases = [c for c in planned if c.mode == args.mode]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(run_case, cases, chunksize=2))
    print(summarise(rows))
    print(f"\n{len(rows)} sheets; wall time {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
