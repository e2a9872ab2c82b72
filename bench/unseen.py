"""How nsvision reads prints nobody tuned it on: each sheet printed in its own random style.

The product is judged on photos of prints we never rendered. This bench draws every sheet in a
style of its own (``nsvision.render.style.random_style``: ink, ring and symbol widths, river colour,
opacity and width, banks or none, guide grey and dashes, border colour, page margin all drawn at
random), then reads it exactly as ``bench/accuracy.py`` does (written to disk, ``analyze_file``).
Reported per mode: maps found, totals exactly right, sheets fully right, flagged for review, and
wrong without a flag; the last must stay 0, as on the known styles.

    python3 bench/unseen.py               # 60 sheets (40 photos, 20 scans), about 1 minute on 2 cores
    python3 bench/unseen.py --count 150
    python3 bench/unseen.py --style mono  # the same plan, every sheet in one named untuned print
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from accuracy import Case, grouped, outcome_cells, run_case  # bench/accuracy.py, beside this script

from nsvision.render.style import UNSEEN_PREFIX, get_style

COUNT, SEED = 60, 9000
"""The README's set: its size and first seed."""


def plan(count: int, seed: int, style: str | None = None, prefix: str = UNSEEN_PREFIX) -> list[Case]:
    """Two photos for every scan, over the strength sweep; style ``unseen-<i>`` for sheet ``i`` (or
    ``overlaid-<i>``: ``prefix``), or ``style`` for every sheet when one is named."""
    cases = []
    for i in range(count):
        mode = "scan" if i % 3 == 2 else "photo"
        look = style or f"{prefix}{seed + i}"
        cases.append(Case(seed + i, mode, look, round((i * 0.37) % 1.0, 3), None))
    return cases


def summarise(rows: list[dict[str, Any]], label: str = "unseen") -> str:
    lines = [
        "| set | sheets | map found | total exact | all correct | flagged | wrong, not flagged |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, rs in grouped(rows, lambda c: f"{label}/{c['mode']}").items():
        lines.append(f"| {name} | {len(rs)} | {sum('error' not in r for r in rs)} | {outcome_cells(rs)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=COUNT, help=f"sheets, each in its own style (default {COUNT})")
    ap.add_argument("--seed", type=int, default=SEED, help=f"first seed (default {SEED})")
    ap.add_argument("--style", help="render every sheet in this named style (say mono, slate) instead of random prints")
    ap.add_argument("--workers", type=int, default=2, help="parallel processes, each single-threaded")
    ap.add_argument("--out", help="per-sheet results (default bench/out/unseen.json, or unseen-STYLE.json)")
    args = ap.parse_args(argv)
    if args.style is not None:
        try:
            get_style(args.style)
        except KeyError as e:
            ap.error(str(e.args[0]))
    name = "unseen" if args.style is None else f"unseen-{args.style}"
    out = Path(args.out or Path(__file__).resolve().parent / "out" / f"{name}.json")
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(run_case, plan(args.count, args.seed, args.style)))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))
    print(summarise(rows, args.style or "unseen"))
    for r in rows:
        if not r["correct"] and not r["flagged"]:
            c = r["case"]
            print(
                f"WRONG, NOT FLAGGED: {c['style']} {c['mode']} strength {c['strength']}: read {r.get('total')}, "
                f"true {r['expected_total']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
