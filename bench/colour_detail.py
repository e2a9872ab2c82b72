"""What a JPEG that keeps colour at half resolution costs where the map is small in the picture.

A JPEG as phones and messaging apps save it (4:2:0 chroma subsampling) keeps colour at half the
resolution of brightness. Where the stations lie only some tens of pixels apart, a pencil stroke is
a few pixels wide and its colour blurs into the paper. This bench reads the same pictures saved
three ways, at the same JPEG quality: 4:2:0 (as sent), 4:4:4 (colour kept whole) and PNG (lossless).

* The robustness bench's 40 photos (``bench/robustness.py``), shrunk to 1600 and to 1200 px on
  their long side, as a messaging app sends them.
* The accuracy set's 180 photos as rendered (``bench/accuracy.py``), split by how far apart the
  stations are in the picture (``pipeline.SMALL_MAP_PITCH``); those under it are read losslessly too.

Reported per group: sheets, the stations' median spacing (px), totals exactly right, sheets fully
right, flagged for review, wrong without a flag.

    python3 bench/colour_detail.py     # about 11 minutes on 2 cores
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import accuracy  # bench/accuracy.py, beside this script
import cv2
import numpy as np
import robustness  # bench/robustness.py, beside this script
from accuracy import Case, judge, outcome_cells, transformed

from nsvision.calibration import load_calibration
from nsvision.pipeline import SMALL_MAP_PITCH, SheetReport, analyze_file
from nsvision.render.sample import Sample, write_sample

SIZES = (1600, 1200)
"""Long sides (px) the robustness photos are shrunk to."""
SAVED = {"JPEG 4:2:0": 2, "JPEG 4:4:4": 0, "PNG": None}
"""How a picture is saved: a JPEG's chroma subsampling (Pillow's ``subsampling``), or lossless."""


def pitch_px(sample: Sample) -> float:
    """The stations' spacing in the picture (px per lattice unit), from the sample's ground truth."""
    xy = sample.expected["map_position"]["stations_px"]
    names = sorted(xy)
    lattice = np.array([[float(v) for v in n.split(",")] for n in names])
    px = np.array([xy[n] for n in names], dtype=np.float64)
    i, j = np.triu_indices(len(names), 1)
    return float(np.median(np.linalg.norm(px[i] - px[j], axis=1) / np.linalg.norm(lattice[i] - lattice[j], axis=1)))


def read_saved(sample: Sample, how: str) -> dict[str, Any]:
    """Save the sample's picture as ``how`` (a key of ``SAVED``) as every bench writes it
    (``write_sample``), read it as the CLI does, judge it."""
    with tempfile.TemporaryDirectory() as tmp:
        sampling = SAVED[how]
        fmt, kw = ("png", {}) if sampling is None else ("jpg", {"subsampling": sampling})
        path = next(p for p in write_sample(sample, Path(tmp), fmt=fmt, **kw) if p.suffix != ".json")
        result = analyze_file(path, load_calibration())[0]
    if not isinstance(result, SheetReport):
        return {"correct": False, "flagged": True, "total_right": False, "seed": sample.expected["seed"]}
    return {**judge(result, sample.expected), "seed": sample.expected["seed"], "total": result.total}


def run_shrunk(case: Case) -> list[dict[str, Any]]:
    """One robustness photo shrunk to each of ``SIZES``, read saved every way."""
    cv2.setNumThreads(1)
    rows = []
    rendered = case.sample()
    for size in SIZES:
        sample = transformed(rendered, robustness._shrink(size))
        # The ground truth's station positions are the picture's as rendered, before it was shrunk.
        spacing = pitch_px(rendered) * min(1.0, size / max(rendered.pages[0].stored.shape[:2]))
        rows += [
            {"group": f"shrunk to {size} px", "saved": how, "pitch": spacing, **read_saved(sample, how)}
            for how in SAVED
        ]
    return rows


def run_accuracy(case: Case) -> list[dict[str, Any]]:
    """One accuracy photo as rendered, as the accuracy bench reads it; losslessly too if its map is small."""
    cv2.setNumThreads(1)
    sample = case.sample()
    spacing = pitch_px(sample)
    small = spacing < SMALL_MAP_PITCH
    group = f"accuracy photos, stations {'under' if small else 'at least'} {SMALL_MAP_PITCH:.0f} px apart"
    return [
        {"group": group, "saved": how, "pitch": spacing, **read_saved(sample, how)}
        for how in (("JPEG 4:2:0", "PNG") if small else ("JPEG 4:2:0",))
    ]


def summarise(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| pictures | saved as | sheets | stations apart (px) | total exact | sheet fully right | flagged "
        "| wrong, **not** flagged |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for group in dict.fromkeys(r["group"] for r in rows):
        for how in SAVED:
            rs = [r for r in rows if r["group"] == group and r["saved"] == how]
            if rs:
                median = np.median([r["pitch"] for r in rs])
                lines.append(f"| {group} | {how} | {len(rs)} | {median:.0f} | {outcome_cells(rs)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=robustness.COUNT, help="robustness photos (default %(default)s)")
    ap.add_argument("--photos", type=int, default=None, help="accuracy photos (default: all 180)")
    ap.add_argument("--workers", type=int, default=2, help="parallel processes, each single-threaded")
    args = ap.parse_args(argv)
    photos = [c for c in accuracy.plan(accuracy.COUNT, accuracy.SEED) if c.mode == "photo"][: args.photos]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = [r for rs in pool.map(run_shrunk, robustness.photos(args.count, accuracy.SEED)) for r in rs]
        rows += [r for rs in pool.map(run_accuracy, photos) for r in rs]
    print(summarise(rows))
    wrong_unflagged = [r for r in rows if not r["correct"] and not r["flagged"]]
    for r in wrong_unflagged:
        print(f"WRONG, NOT FLAGGED: {r['group']}, {r['saved']}: seed {r['seed']}: read {r.get('total')}")
    return 1 if wrong_unflagged else 0


if __name__ == "__main__":
    sys.exit(main())
