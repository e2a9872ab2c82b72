"""How much of each drawn stroke reaches the picture, and which strokes the reader misses.

    python3 bench/visibility.py                # the accuracy set's 240 sheets (~10 min on 2 cores)
    python3 bench/visibility.py --count 40     # a quick look

A missed section may be the reader's fault or the picture's: the renderer draws some sections so
lightly, and some photos blur and compress them so much, that little of the stroke is left. This
tells the two apart. Each sheet of ``bench/accuracy.py``'s set is rendered twice from the same
seed: as the bench renders it, and with every line's pencil left off (``Case.sample(lines=False)``:
each random draw made all the same, so the two pictures differ only by the strokes). Both are
written in the bench's format and decoded as the CLI does; the first is read, and both are
straightened through the registration the reader found on the first. A stroke's **chroma** is
then what it adds to the picture in the reader's own terms: the colour density of thin marks over
their surroundings (``vision.detect``), its grey part removed, at the offset across the section
where the stroke lies (within the reader's search), as the median over the positions the reader
measures.

For scale: the reader counts a position as pencil from a chroma of ``STROKE_MIN`` (0.085) on a
photo, or five times the noise of the sheet's blank sections when that is less, never under
``STROKE_MIN_CLEAN`` (0.04, a clean scan's), and as faint pencil from half of that. The table gives,
per chroma band, the drawn sections and how the reader read them; then each drawn section it read
wrong, with its chroma.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from accuracy import Case, add_set_arguments, file_format, plan, read_back  # beside this script

from nsvision.calibration import load_calibration
from nsvision.game.board import Section
from nsvision.pipeline import SheetReport
from nsvision.render.sample import write_sample
from nsvision.vision import detect, straighten
from nsvision.vision.channels import chroma_density
from nsvision.vision.load import load_page

BANDS = (0.0, 0.02, 0.04, 0.085, float("inf"))
"""Chroma bands of the table: under half the faint threshold, faint, between faint and a photo's
stroke threshold, above it."""

ACROSS = 0.1
"""Lattice units either side of a section's centre line searched for the stroke (as the reader does)."""


def decoded(sample: Any, fmt: str) -> np.ndarray:
    """The sample's first page as the CLI sees it: written as ``fmt``, decoded by ``load_page``."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_sample(sample, Path(tmp), fmt=fmt)
        return load_page(next(p for p in paths if p.suffix != ".json")).image


def stroke_chroma(
    with_lines: straighten.Straightened, without: straighten.Straightened, s: Section, radius: float
) -> float:
    """The median chroma density the stroke of ``s`` adds, at its own offset across the section."""
    ppp = with_lines.px_per_pitch
    a = np.array(with_lines.lattice_to_px(*s.a))
    b = np.array(with_lines.lattice_to_px(*s.b))
    length = float(np.linalg.norm(b - a))
    d = (b - a) / length
    n = np.array([-d[1], d[0]])
    # Clear of both symbols (``radius`` in lattice units), as the reader measures: its default gaps,
    # without a disc's extra.
    gap = (radius + detect.END_GAP) * ppp
    t = np.arange(gap, length - gap, 1.0)
    if len(t) < 4:
        return float("nan")
    offsets = np.linspace(-ACROSS, ACROSS, 9) * ppp
    pts = a + t[:, None, None] * d + offsets[None, :, None] * n
    xs, ys = pts[..., 0].ravel(), pts[..., 1].ravel()
    added = straighten.sample_at(with_lines.density, xs, ys) - straighten.sample_at(without.density, xs, ys)
    chroma = np.linalg.norm(chroma_density(np.clip(added, 0.0, None)), axis=1).reshape(len(t), len(offsets))
    ignored = straighten.sample_mask(with_lines.ignore, xs, ys).reshape(len(t), len(offsets))
    best = np.where(ignored, 0.0, chroma).max(axis=1)
    kept = ~ignored.all(axis=1)
    return float(np.median(best[kept])) if kept.any() else float("nan")


def run_case(case: Case) -> dict[str, Any]:
    cv2.setNumThreads(1)
    cal = load_calibration()
    fmt = file_format(case)
    sample = case.sample()
    bare = case.sample(lines=False)
    result, _ = read_back(sample, fmt)
    row: dict[str, Any] = {"case": case.__dict__, "sections": []}
    if not isinstance(result, SheetReport) or result.registration is None or result.reading is None:
        row["error"] = "not read"
        return row
    with_lines = straighten.straighten(decoded(sample, fmt), result.registration, cal.map)
    without = straighten.straighten(decoded(bare, fmt), result.registration, cal.map)
    radius = cal.sheet.station_radius / cal.sheet.lattice_pitch
    read = {s.name: r.colour for s, r in result.reading.sections.items()}
    by_name = {s.name: s for s in result.reading.sections}
    for colour, sections in sample.expected["network"]["lines"].items():
        for a, b in sections:
            name = f"{a}-{b}" if f"{a}-{b}" in by_name else f"{b}-{a}"
            row["sections"].append(
                {
                    "section": name,
                    "colour": colour,
                    "read": read.get(name),
                    "chroma": round(stroke_chroma(with_lines, without, by_name[name], radius), 4),
                }
            )
    truth = {r["section"] for r in row["sections"]}
    row["drawn_where_blank"] = sorted(name for name, c in read.items() if c is not None and name not in truth)
    return row


def band_of(chroma: float) -> int:
    return next(i for i in range(len(BANDS) - 1) if chroma < BANDS[i + 1])


def measured(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The sheet's drawn sections whose stroke could be measured (not those too short to sample)."""
    return [s for s in row["sections"] if not math.isnan(s["chroma"])]


def summarise(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| mode | stroke chroma | drawn sections | read right | read blank | read in another colour |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for mode in ("photo", "scan"):
        secs = [s for r in rows if r["case"]["mode"] == mode for s in measured(r)]
        for i in range(len(BANDS) - 1):
            here = [s for s in secs if band_of(s["chroma"]) == i]
            label = f"{BANDS[i]:.3f}–{BANDS[i + 1]:.3f}" if BANDS[i + 1] < float("inf") else f"{BANDS[i]:.3f} and more"
            right = sum(s["read"] == s["colour"] for s in here)
            blank = sum(s["read"] is None for s in here)
            lines.append(f"| {mode} | {label} | {len(here)} | {right} | {blank} | {len(here) - right - blank} |")
    lines.append("")
    lines.append("drawn sections read wrong, faintest first:")
    wrong = [(s["chroma"], r["case"], s) for r in rows for s in measured(r) if s["read"] != s["colour"]]
    for chroma, case, s in sorted(wrong, key=lambda w: w[0]):
        lines.append(
            f"  {chroma:.3f}  {case['style']}/{case['mode']} {case['seed']} {s['section']} "
            f"{s['colour']} read {s['read'] or 'blank'}"
        )
    blank_read = sum(len(r.get("drawn_where_blank", [])) for r in rows)
    unread = sum("error" in r for r in rows)
    lines.append(f"\nblank sections read as drawn: {blank_read}; sheets not read: {unread}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_set_arguments(ap)
    ap.add_argument("--out", type=Path, default=Path("bench/out/visibility.json"), help="per-section results")
    args = ap.parse_args(argv)
    start = time.time()
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(run_case, plan(args.count, args.seed), chunksize=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1))
    print(summarise(rows))
    print(f"\nwall time {time.time() - start:.0f} s; per-section results in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
