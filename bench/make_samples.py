"""Regenerate the committed ``samples/`` folders (deterministic: the same code gives the same files).

    python3 bench/make_samples.py              # all folders
    python3 bench/make_samples.py photo-hard   # one folder

Each folder gets its picture(s) and ``expected.json`` from ``nsvision.render.sample``. Photos
are phone frames scaled to 8 MP so the set stays small (under 15 MB); everything else about
them (tilt, light, blur, noise, JPEG quality) is as at full size.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nsvision.calibration import load_calibration
from nsvision.render.sample import make_sample, write_sample

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


@dataclass(frozen=True)
class Spec:
    folder: str
    seed: int
    fmt: str
    options: dict[str, Any] = field(default_factory=dict)
    note: str = ""


SPECS: tuple[Spec, ...] = (
    Spec("scan-clean", 3, "png", {"mode": "scan", "strength": 0.1, "dpi": 200}, "a flatbed scan at 200 dpi"),
    Spec("photo-ordinary", 21, "jpg", {"mode": "photo", "strength": 0.4, "megapixels": 8.0}, "an everyday photo"),
    Spec(
        "photo-hard",
        126,
        "jpg",
        {"mode": "photo", "strength": 1.0, "megapixels": 8.0},
        "27° tilt close up, a hand shadow, warm tungsten light, shallow depth of field, JPEG 66",
    ),
    Spec(
        "pdf-two-sheets",
        31,
        "pdf",
        {"mode": "scan", "strength": 0.3, "dpi": 150, "pages": 2},
        "two players' sheets scanned at 150 dpi into one PDF",
    ),
    Spec("blank", 41, "jpg", {"mode": "photo", "strength": 0.3, "blank": True, "megapixels": 8.0}, "nothing drawn"),
    Spec(
        "rules-broken",
        51,
        "jpg",
        {"mode": "photo", "strength": 0.4, "violation": "sections_cross", "megapixels": 8.0},
        "two drawn sections cross away from a station",
    ),
    Spec(
        "style-cream",
        61,
        "jpg",
        {"mode": "photo", "style": "cream", "strength": 0.5, "megapixels": 8.0},
        "the second print style",
    ),
)


def make(spec: Spec, root: Path = SAMPLES) -> list[Path]:
    folder = root / spec.folder
    if folder.exists():
        for old in folder.iterdir():
            if old.is_file() and old.name != "README.md":
                old.unlink()
    sample = make_sample(load_calibration(), spec.seed, **spec.options)
    return write_sample(sample, folder, spec.fmt)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="*", help=f"folders to remake (default all): {', '.join(s.folder for s in SPECS)}")
    args = ap.parse_args(argv)
    unknown = set(args.folders) - {s.folder for s in SPECS}
    if unknown:
        print(f"unknown folder(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    for spec in SPECS:
        if args.folders and spec.folder not in args.folders:
            continue
        for path in make(spec):
            print(f"{path.relative_to(SAMPLES.parent)}  {path.stat().st_size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
