"""Does a missed stroke leave specks of pigment at the picture's own resolution?

    python3 bench/specks.py --mode scan --seed 42000     # the 60 scans of a plan (~5 min on 2 cores)
    python3 bench/specks.py --mode photo --count 60      # the 40 photos of a plan of 60 sheets
    python3 bench/specks.py --unseen --seed 76000 --count 90   # the scans of bench/unseen.py's random prints

A light pencil stroke leaves pigment on the peaks of the paper's tooth only: sparse specks, a pixel
or two each, that the reader's resampling to ``PX_PER_PITCH`` averages into the paper. This measures,
without changing the reader, whether they tell a stroke the reader misses from a blank section.

Each sheet of ``bench/accuracy.py``'s plan in the chosen mode is read as the CLI reads it; its
picture, decoded at its own resolution, is compared pixel by pixel with a median of a quarter pitch
around it (the paper and print there). A **speck** is a pixel whose chroma density over that median
reaches ``--threshold`` with a pencil's hue (``vision.detect``'s hues, as similar as the reader asks
of a mark). Along each section, clear of its symbols as the reader measures it and within
``ACROSS`` of its centre line, the share of positions with a speck of each pencil's hue is taken.
Compared per pencil: drawn sections the reader reads right, drawn sections it misses (their own
pencil's share), and blank sections that no drawn section crosses, off the Thames, at no station of a
line of that pencil nor its departure station (where its disc's edge lies).
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
from nsvision.game.board import LINE_COLOURS, Section
from nsvision.pipeline import SheetReport
from nsvision.vision import detect

ACROSS = 0.08
"""Lattice units either side of a section's centre line where specks are looked for."""
SURROUND = 0.25
"""Width of the median a speck is compared with, in pitches (wider than a stroke, narrower than a band)."""


def speck_hues(image: np.ndarray, pitch_px: float, threshold: float) -> np.ndarray:
    """Per pixel, the index (``LINE_COLOURS``) of the pencil whose hue a speck there has; -1 if none."""
    k = min(255, int(round(SURROUND * pitch_px)) | 1)
    background = cv2.medianBlur(image, k)
    density = np.clip(detect.stroke_density(image, background), 0.0, None)
    chroma = detect._chroma(density)
    hues = detect.pencil_hues()
    dirs = np.stack([hues[c] for c in LINE_COLOURS]).astype(np.float32)
    proj = chroma @ dirs.T
    mag = np.linalg.norm(chroma, axis=2)
    speck = (mag >= threshold) & (proj.max(axis=2) >= detect.HUE_MIN_COS * mag)
    return np.where(speck, proj.argmax(axis=2), -1).astype(np.int8)


def _key(s: Section) -> frozenset[str]:
    """A section as the truth names it: its two stations, in either order."""
    return frozenset(f"{x},{y}" for x, y in (s.a, s.b))


def run_case(case: Case, threshold: float) -> dict[str, Any]:
    cv2.setNumThreads(1)
    cal = load_calibration()
    sample = case.sample()
    fmt = file_format(case)
    result, _ = read_back(sample, fmt)
    row: dict[str, Any] = {"case": case.__dict__, "sections": []}
    if not isinstance(result, SheetReport) or result.registration is None or result.reading is None:
        row["error"] = "not read"
        return row
    reg = result.registration
    specks = speck_hues(decoded(sample, fmt), reg.pitch_px, threshold)
    # A section drawn twice (an illegal sheet) is drawn in both pencils.
    drawn: dict[Section, list[str]] = {}
    for colour, pairs in sample.expected["network"]["lines"].items():
        for pair in pairs:
            s = next(t for t in result.reading.sections if _key(t) == frozenset(pair))
            drawn.setdefault(s, []).append(colour)
    at: dict[Any, set[str]] = {}
    for s, colours in drawn.items():
        at.setdefault(s.a, set()).update(colours)
        at.setdefault(s.b, set()).update(colours)
    gap = cal.sheet.station_radius / cal.sheet.lattice_pitch + detect.END_GAP
    for s, reading in result.reading.sections.items():
        (ax, ay), (bx, by) = s.a, s.b
        length = float(np.hypot(bx - ax, by - ay))
        along = np.arange(gap, length - gap, 1.0 / reg.pitch_px)
        if len(along) < 3:
            continue
        u = np.array([bx - ax, by - ay]) / length
        n = np.array([-u[1], u[0]])
        across = np.arange(-ACROSS, ACROSS + 1e-9, 1.0 / reg.pitch_px)
        pts = np.array([ax, ay]) + along[:, None, None] * u + across[None, :, None] * n
        px = reg.lattice_to_px(pts.reshape(-1, 2)).reshape(len(along), len(across), 2)
        xs = np.clip(np.round(px[..., 0]).astype(int), 0, specks.shape[1] - 1)
        ys = np.clip(np.round(px[..., 1]).astype(int), 0, specks.shape[0] - 1)
        here = specks[ys, xs]
        shares = [float((here == k).any(axis=1).mean()) for k in range(len(LINE_COLOURS))]
        colours = drawn.get(s, [])
        crossed = any(t in drawn for t in cal.map.crossing_partners[s])
        # A blank section compared with missed strokes: no drawn section crosses it, off the band.
        blank = not (colours or crossed or reading.evidence.over_river > 0)
        lines_here = at.get(s.a, set()) | at.get(s.b, set())
        row["sections"].append(
            {
                "section": s.name,
                "colours": colours,
                "read": reading.colour,
                "shares": shares,
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
    ap.add_argument("--threshold", type=float, default=0.1, help="chroma density of a speck (default 0.1)")
    ap.add_argument("--unseen", action="store_true", help="bench/unseen.py's prints (each its own) instead")
    args = ap.parse_args(argv)
    start = time.time()
    planned = unseen.plan(args.count, args.seed) if args.unseen else plan(args.count, args.seed)
    cases = [c for c in planned if c.mode == args.mode]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(run_case, cases, [args.threshold] * len(cases), chunksize=2))
    print(summarise(rows))
    print(f"\n{len(rows)} sheets, threshold {args.threshold}; wall time {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
