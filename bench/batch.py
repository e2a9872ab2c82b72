"""Throughput and robustness of ``nsvision batch`` on a tournament-sized round.

    python3 bench/batch.py                  # the README's figures (>= 100 sheets; ~20 min on 2 cores)
    python3 bench/batch.py --count 20       # a quick look

The round (cached in ``bench/out/batch-set/``, regenerated when ``--count``/``--seed`` change) holds phone
photos (8–12 MP JPEG, as phones take them), flatbed scans (PNG and JPEG), one multi-page PDF of scans, a few corrupt
files (truncated JPEG, empty file, text named .png, random bytes named .pdf), and the committed
``samples/``. The bench then

1. runs ``nsvision batch`` with 1 and with 2 workers (a fresh process each, timed end to end:
   start-up, enumeration, reading, reports) and reports sheets per second;
2. checks that every sheet's status and total equal what ``analyze_file`` (``nsvision score``)
   gives for that file, and that both runs wrote identical reports;
3. kills a 2-worker run (SIGKILL to the whole process group) once half the sheets are saved,
   reruns it with ``--resume``, and checks the final reports are identical to the uninterrupted
   run's.

It prints a markdown table and exits 1 if any check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
SAMPLES = ROOT / "samples"
REPORTS = ("results.csv", "results.json", "leaderboard.csv", "index.html")
VIOLATIONS = ("sections_cross", "cycle", "drawn_twice", "not_connected")
PLAN_VERSION = 1


@dataclass(frozen=True)
class Case:
    name: str
    seed: int
    mode: str
    fmt: str
    strength: float
    violation: str | None = None
    pages: int = 1


def plan(count: int, seed: int) -> list[Case]:
    """``count`` readable sheets: ~60 % photos, the rest scans, 8 of them as one PDF; 1 in 7 breaks a rule."""
    rng = random.Random(seed)
    pdf_pages = min(8, max(2, count // 10))
    singles = count - pdf_pages
    n_photo = singles * 3 // 5
    cases = []
    for i in range(singles):
        photo = i < n_photo
        violation = VIOLATIONS[i % len(VIOLATIONS)] if i % 7 == 3 else None
        cases.append(
            Case(
                name=f"{'photo' if photo else 'scan'}-{i:03d}",
                seed=seed + i,
                mode="photo" if photo else "scan",
                fmt="jpg" if photo or i % 3 == 0 else "png",
                strength=round(rng.uniform(0.1, 0.7), 2),
                violation=violation,
            )
        )
    cases.append(Case("round-scans", seed + 5000, "scan", "pdf", 0.3, pages=pdf_pages))
    return cases


def render_case(case: Case, folder: str) -> None:
    from nsvision.calibration import load_calibration
    from nsvision.render.sample import make_sample, write_sample

    sample = make_sample(
        load_calibration(),
        case.seed,
        mode=case.mode,
        strength=case.strength,
        violation=case.violation,
        pages=case.pages,
        dpi=200,
    )
    write_sample(sample, Path(folder) / case.name, case.fmt)


def write_corrupt(folder: Path, donor: Path) -> None:
    bad = folder / "corrupt"
    bad.mkdir(parents=True, exist_ok=True)
    data = donor.read_bytes()
    (bad / "cut-in-half.jpg").write_bytes(data[: len(data) // 2])
    (bad / "empty.jpg").write_bytes(b"")
    (bad / "notes.png").write_text("this is not a picture\n")
    (bad / "noise.pdf").write_bytes(random.Random(1).randbytes(4096))


def ensure_set(count: int, seed: int, workers: int) -> Path:
    folder = OUT / "batch-set"
    manifest = {"version": PLAN_VERSION, "count": count, "seed": seed}
    marker = OUT / "batch-set.json"  # beside the set: a JSON inside it would be read as a sheet
    if marker.exists() and json.loads(marker.read_text()) == manifest:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    cases = plan(count, seed)
    start = time.time()
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(render_case, cases, [str(folder)] * len(cases)))
    write_corrupt(folder, next(folder.glob("photo-*/*.jpg")))
    # Written last: an interrupted generation is redone, never half-used.
    marker.write_text(json.dumps(manifest))
    print(f"generated {len(cases)} files in {time.time() - start:.0f} s into {folder}", file=sys.stderr)
    return folder


def nsvision(*args: str) -> list[str]:
    return [sys.executable, "-c", "from nsvision.cli import main; main()", *args]


def run_batch(inputs: list[Path], out: Path, workers: int, *extra: str) -> tuple[float, int]:
    if "--resume" not in extra:
        shutil.rmtree(out, ignore_errors=True)
    cmd = nsvision("batch", *map(str, inputs), "--out", str(out), "--workers", str(workers), *extra)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1, 3, 4, 5):
        raise SystemExit(f"batch failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return seconds, proc.returncode


def kill_half_way(inputs: list[Path], out: Path, workers: int, sheets: int) -> int:
    """Start a batch, SIGKILL it and its workers once half the sheets are saved; return the lines saved."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = nsvision("batch", *map(str, inputs), "--out", str(out), "--workers", str(workers))
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    jsonl = out / "results.jsonl"
    try:
        while proc.poll() is None:
            if jsonl.exists() and jsonl.read_bytes().count(b"\n") >= sheets // 2:
                os.killpg(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.1)
    finally:
        proc.wait()
    return jsonl.read_bytes().count(b"\n") if jsonl.exists() else 0


def read_one(path: str) -> list[tuple[str, int, str, int | None]]:
    """What ``nsvision score`` finds in one file: (source, page, status, total) per sheet."""
    import cv2

    from nsvision.errors import ExitCode, NsvisionError
    from nsvision.pipeline import SheetReport, analyze_file, score_network_file

    cv2.setNumThreads(1)
    try:
        if path.endswith(".json"):
            r = score_network_file(path)
            return [(path, 1, r.status, r.total)]
        return [(path, r.page, r.status, r.total if isinstance(r, SheetReport) else None) for r in analyze_file(path)]
    except NsvisionError as exc:
        return [(path, 1, "no_map" if exc.exit_code == ExitCode.NO_MAP else "failed", None)]


def batch_results(out: Path) -> dict[tuple[str, int], tuple[str, int | None]]:
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {(r["source"], r["page"]): (r["status"], r.get("total")) for r in doc["sheets"]}


def same_reports(a: Path, b: Path) -> bool:
    return all((a / n).read_bytes() == (b / n).read_bytes() for n in REPORTS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=100, help="readable generated sheets (default 100)")
    ap.add_argument("--seed", type=int, default=7000, help="first seed (default 7000)")
    args = ap.parse_args(argv)

    folder = ensure_set(args.count, args.seed, workers=2)
    inputs = [folder, SAMPLES]
    from nsvision.batch import enumerate_jobs, find_sheet_files

    sheets = len(enumerate_jobs(inputs))
    runs = OUT / "batch-runs"
    figures: list[dict[str, Any]] = []
    for workers in (1, 2):
        seconds, code = run_batch(inputs, runs / f"w{workers}", workers)
        figures.append({"workers": workers, "sheets": sheets, "seconds": seconds, "exit_code": code})

    with ProcessPoolExecutor(2) as pool:
        direct_rows = [row for rows in pool.map(read_one, map(str, find_sheet_files(inputs))) for row in rows]
    direct = {(s, p): (status, total) for s, p, status, total in direct_rows}
    got = batch_results(runs / "w2")
    agree = sum(1 for k, v in direct.items() if got.get(k) == v)
    for k, v in direct.items():
        if got.get(k) != v:
            print(f"DIFFERS: {k}: batch {got.get(k)}, nsvision score {v}", file=sys.stderr)
    same_workers = same_reports(runs / "w1", runs / "w2")

    saved = kill_half_way(inputs, runs / "killed", 2, sheets)
    resume_seconds, _ = run_batch(inputs, runs / "killed", 2, "--resume")
    resumed_same = same_reports(runs / "killed", runs / "w2")

    statuses: dict[str, int] = {}
    for status, _ in got.values():
        statuses[status] = statuses.get(status, 0) + 1
    print("| workers | sheets | wall time (s) | sheets / s |")
    print("|---:|---:|---:|---:|")
    for f in figures:
        print(f"| {f['workers']} | {f['sheets']} | {f['seconds']:.0f} | {f['sheets'] / f['seconds']:.2f} |")
    print()
    print(f"- sheets by status: {', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))}")
    print(f"- same status and total as `nsvision score` on each file: {agree} / {len(direct)}")
    print(f"- 1 and 2 workers wrote identical reports: {'yes' if same_workers else 'NO'}")
    print(
        f"- killed (SIGKILL) after {saved} of {sheets} sheets were saved; `--resume` read the rest in "
        f"{resume_seconds:.0f} s; final reports identical to the uninterrupted run: {'yes' if resumed_same else 'NO'}"
    )
    print(f"- load average during the bench: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    (OUT / "batch-bench.json").write_text(
        json.dumps(
            {
                "figures": figures,
                "agree": agree,
                "sheets_compared": len(direct),
                "same_workers": same_workers,
                "killed_after": saved,
                "resumed_identical": resumed_same,
                "plan": [asdict(c) for c in plan(args.count, args.seed)],
            },
            indent=1,
        )
    )
    ok = agree == len(direct) == sheets and same_workers and resumed_same and 0 < saved < sheets
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
