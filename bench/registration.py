"""Where the reader puts the map: registration against the renderer's truth, on hard photos.

Everything the reader measures is sampled where the registration's model puts the lattice
(``Registration.lattice_to_px``: the homography and the thin-plate field through the re-found
stations), so a station placed a fifth of a pitch away moves every section that meets it off its
pencil, without a word. This bench compares that model at every station with where the renderer
drew the station.

    python3 bench/registration.py                       # 120 photos, about 2.5 minutes on 2 cores
    python3 bench/registration.py --count 300 --seed 7300
    python3 bench/registration.py --lens 0.1            # each photo bent by a lens (barrel; < 0: pincushion)

The plan: phone photos over the upper half of the strength sweep (0.5 to 1: tilts up to 35°,
motion blur, hand shadows, warm light), every other one in a print of its own
(``unseen-<seed>``, as ``bench/unseen.py``) and the rest in ``print`` and ``cream``; each
written to disk as JPEG and loaded as the CLI loads it. Reported: maps found; the station error
in pitches (median, 99th percentile and largest, over every station of every map found); sheets
with a station off by more than ``OFF`` of a pitch; and the stations whose symbol was seen.
``--lens K`` bends each photo as a lens the phone did not straighten
(``nsvision.render.degrade.lens_distortion``) and moves the truth with it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from accuracy import transformed  # bench/accuracy.py, beside this script

from nsvision.calibration import load_calibration
from nsvision.errors import NoMapFoundError
from nsvision.render.degrade import lens_distorted, lens_distortion
from nsvision.render.sample import make_sample, write_sample
from nsvision.render.style import UNSEEN_PREFIX
from nsvision.vision.load import load_page
from nsvision.vision.register import register

COUNT, SEED = 120, 7100
"""The README's set: its size and first seed."""
OFF = 0.05
"""Station error (pitches) past which a sheet counts as misplaced: a pencil stroke is about a
twentieth of a pitch wide, so the sections at such a station are measured beside it."""


def plan(count: int, seed: int) -> list[tuple[int, str, float]]:
    """(seed, style, strength) of each photo."""
    cases = []
    for i in range(count):
        style = f"{UNSEEN_PREFIX}{seed + i}" if i % 2 else ("print" if i % 4 == 0 else "cream")
        cases.append((seed + i, style, round(0.5 + 0.5 * ((i * 0.37) % 1.0), 3)))
    return cases


def run_case(case: tuple[int, str, float], lens: float = 0.0) -> dict[str, Any]:
    cv2.setNumThreads(1)
    seed, style, strength = case
    cal = load_calibration()
    sample = make_sample(cal, seed, mode="photo", style=style, strength=strength)
    truth = sample.expected["map_position"]["stations_px"]
    if lens:
        height, width = sample.pages[0].image.shape[:2]
        moved = lens_distorted(np.array(list(truth.values())), lens, (width, height))
        truth = dict(zip(truth, moved, strict=True))
        sample = transformed(sample, lambda im: lens_distortion(im, lens))
    out: dict[str, Any] = {"seed": seed, "style": style, "strength": strength}
    with tempfile.TemporaryDirectory() as tmp:
        path = next(p for p in write_sample(sample, Path(tmp), fmt="jpg") if p.suffix != ".json")
        page = load_page(path)
    try:
        reg = register(page.image, cal.map, str(path.name))
    except NoMapFoundError as e:
        return {**out, "error": e.message}
    points = np.array(sorted(reg.station_xy_px), dtype=np.float64)
    placed = reg.lattice_to_px(points) / page.scale
    errors = [
        float(np.hypot(*(xy - truth[f"{int(x)},{int(y)}"]))) / (reg.pitch_px / page.scale)
        for (x, y), xy in zip(points, placed, strict=True)
    ]
    return {**out, "errors": errors, "stations_found": reg.stations_found}


def summarise(rows: list[dict[str, Any]]) -> str:
    found = [r for r in rows if "errors" in r]
    if not found:
        return f"no map found in any of the {len(rows)} photos"
    errors = np.array([e for r in found for e in r["errors"]])
    off = [r for r in found if max(r["errors"]) > OFF]
    seen = [r["stations_found"] for r in found]
    lines = [
        "| photos | map found | station error, pitches: median | p99 | largest | sheets off > "
        f"{OFF} pitch | symbols seen: median | fewest |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {len(rows)} | {len(found)} | {np.median(errors):.4f} | {np.quantile(errors, 0.99):.4f} | "
        f"{errors.max():.4f} | {len(off)} | {int(np.median(seen))} | {min(seen)} |",
    ]
    for r in off:
        worst = max(r["errors"])
        lines.append(f"OFF: seed {r['seed']} {r['style']} strength {r['strength']}: {worst:.3f} pitch")
    for r in rows:
        if "error" in r:
            lines.append(f"NO MAP: seed {r['seed']} {r['style']} strength {r['strength']}: {r['error']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=COUNT, help=f"photos (default {COUNT})")
    ap.add_argument("--seed", type=int, default=SEED, help=f"first seed (default {SEED})")
    ap.add_argument("--workers", type=int, default=2, help="parallel processes, each single-threaded")
    ap.add_argument("--out", help="per-photo results (default bench/out/registration.json)")
    ap.add_argument("--lens", type=float, default=0.0, help="radial lens distortion of each photo (default 0: none)")
    args = ap.parse_args(argv)
    out = Path(args.out or Path(__file__).resolve().parent / "out" / "registration.json")
    cases = plan(args.count, args.seed)
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(run_case, cases, [args.lens] * len(cases)))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))
    print(summarise(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
