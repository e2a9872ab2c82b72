"""Tournament batches: many sheets in, one result per sheet persisted at once, a leaderboard out.

A batch is a list of ``Job`` (one sheet: a file and a page) enumerated from files and folders
(``enumerate_jobs``). ``run_jobs`` reads them in parallel — local worker processes, or an existing
Dask cluster — and yields a ``JobOutcome`` per sheet in completion order. ``ResultStore`` appends
each outcome to ``results.jsonl`` as soon as it is known (flush + fsync), so a batch that is
killed keeps every sheet already read, and a resumed batch skips them. ``write_reports`` turns
the stored rows into ``results.csv``, ``results.json``, ``leaderboard.csv`` and ``index.html``.

Only strings and numbers cross the process boundary (jobs, settings, JSON-ready rows and JPEG
thumbnail bytes): the pictures are opened by the worker that reads them, so the same jobs run
unchanged on remote Dask workers that can reach the files.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import multiprocessing
import os
import re
import signal
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nsvision.errors import ExitCode, InputError, NsvisionError
from nsvision.game.board import LINE_COLOURS
from nsvision.game.network import OBJECTIVES, GameOptions

if TYPE_CHECKING:
    from nsvision.calibration import Calibration
    from nsvision.claims import ClaimsRow
    from nsvision.fixes_csv import FixesRow
    from nsvision.pipeline import SheetReport, SheetResult

FORMAT = "nsvision-batch"
VERSION = 1

PICTURE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".bmp", ".heic", ".heif"})
DOCUMENT_SUFFIXES = frozenset({".pdf"})
NETWORK_SUFFIXES = frozenset({".json"})
SHEET_SUFFIXES = PICTURE_SUFFIXES | DOCUMENT_SUFFIXES | NETWORK_SUFFIXES
"""Extensions picked up when walking a folder (a file named on the command line is always read)."""

NOT_SHEET_FORMATS = frozenset({"nsvision-expected", FORMAT})
"""JSON files with these ``format`` keys are sample ground truth or batch output, not sheets."""

RESULTS_JSONL = "results.jsonl"
RESULTS_CSV = "results.csv"
RESULTS_JSON = "results.json"
LEADERBOARD_CSV = "leaderboard.csv"
INDEX_HTML = "index.html"
SETTINGS_JSON = "settings.json"
THUMBS_DIR = "thumbs"

THUMBNAIL_WIDTH_PX = 400
"""Width of the overlay thumbnails embedded in ``index.html``: legible lines, ~30 kB per sheet (and
~20 kB more per section to check on a sheet that needs review, for its close-ups)."""
THUMBNAIL_JPEG_QUALITY = 80
THUMBNAIL_CLOSEUP_PX = 190
"""Side of each close-up view under the thumbnail of a sheet that needs review (one section a row)."""

SEVERITY: tuple[ExitCode, ...] = (
    ExitCode.INTERNAL,
    ExitCode.BAD_CALIBRATION,
    ExitCode.BAD_INPUT,
    ExitCode.NO_MAP,
    ExitCode.NEEDS_REVIEW,
    ExitCode.RULES_BROKEN,
)
"""Most serious first: the batch exits with the first of these that any sheet has (as ``overall_exit_code``)."""

_BULKY_KEYS = ("sections", "seconds")
"""Dropped from a sheet's ``to_dict()``: per-section measurements are for debugging one sheet, and
timing would make two runs over the same sheets differ."""
_REGISTRATION_KEYS = ("stations_found", "stations_total", "rotation_deg", "median_residual_lattice")
"""The part of the registration worth keeping per sheet (the rest is per-station pixel positions)."""


@dataclass(frozen=True)
class Job:
    """One sheet to read: a page of a picture or PDF, or a network JSON file."""

    source: str
    """The path as given on the command line or found in a folder (shown in every output)."""
    page: int
    """1-based page (PDF pages, multi-page TIFF); 1 for a single picture or a network file."""
    path: str
    """The absolute path the worker opens (workers may run elsewhere than the current folder)."""
    kind: str = "image"
    """``image`` (picture or PDF page) or ``network`` (a network JSON scored without reading)."""
    fixes: tuple[str, ...] = ()
    """What a person settled on this sheet after a review, as ``--fix`` takes it (``fix_text``,
    sorted): the sheet is read with them (``--fixes``)."""

    @property
    def key(self) -> tuple[str, int]:
        return (self.source, self.page)


@dataclass(frozen=True)
class BatchSettings:
    """What every job of a batch shares; stored with the results so a resume cannot mix settings."""

    calibration: str | None = None
    """Absolute path of the calibration file; ``None`` = the bundled London print."""
    objectives: tuple[str, ...] = ()
    """Shared objectives in play (keys of ``OBJECTIVES``)."""
    solo: bool = False
    claims_csv: str | None = None
    """Absolute path of a claims CSV: each sheet's claimed totals are verified."""

    def __post_init__(self) -> None:
        for key in self.objectives:
            if key not in OBJECTIVES:
                raise InputError("--objective", f"unknown objective {key!r}", f"use one of {', '.join(OBJECTIVES)}")

    def game_options(self) -> GameOptions | None:
        if not self.objectives and not self.solo:
            return None
        return GameOptions(objectives=self.objectives, solo=self.solo)

    def to_dict(self) -> dict[str, Any]:
        return {
            "calibration": self.calibration,
            "objectives": list(self.objectives),
            "solo": self.solo,
            "claims_csv": self.claims_csv,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BatchSettings:
        return cls(
            calibration=data.get("calibration"),
            objectives=tuple(data.get("objectives", ())),
            solo=bool(data.get("solo", False)),
            claims_csv=data.get("claims_csv"),
        )


@dataclass(frozen=True)
class SheetRow:
    """The persisted result of one sheet (one line of ``results.jsonl``)."""

    source: str
    page: int
    status: str
    """``ok``, ``rules_broken``, ``needs_review`` (read), or ``failed``, ``no_map`` (not read)."""
    exit_code: ExitCode
    """The sheet's own exit code; a claim that differs from the sheet raises ``OK`` to ``RULES_BROKEN``."""
    player: str | None = None
    """From the claims CSV, when a row names this sheet and gives a player."""
    tie_break: tuple[int, int] | None = None
    """``tie_break_key`` of the score card: (total, best single line), in points; ``None`` when not read."""
    sheet: Mapping[str, Any] = field(default_factory=dict)
    """The sheet's ``to_dict()`` without per-section measurements (a failure's ``to_dict()`` when not read)."""
    verification: Mapping[str, Any] | None = None
    """``Verification.to_dict()`` of the sheet's claims; ``None`` without claims for it."""
    claim_differences: tuple[str, ...] = ()
    """Plain-English explanation of each claimed field that differs (or why there is no claim)."""
    thumbnail: str | None = None
    """The overlay thumbnail's path relative to the output folder (pictures only)."""
    fixes: tuple[str, ...] = ()
    """The fixes the sheet was read with (``Job.fixes``)."""

    @property
    def key(self) -> tuple[str, int]:
        return (self.source, self.page)

    @property
    def read(self) -> bool:
        """The sheet was read and scored (it has a total)."""
        return self.tie_break is not None

    @property
    def total(self) -> int | None:
        return self.tie_break[0] if self.tie_break else None

    @property
    def claims_differ(self) -> bool:
        return self.verification is not None and not self.verification.get("all_match", True)

    @property
    def error(self) -> str | None:
        value = self.sheet.get("error")
        return str(value) if value is not None else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON line: who and what first, then the sheet's report, then claims and thumbnail.

        The key order is fixed, so a row read back from ``results.jsonl`` writes the same bytes.
        """
        head = {
            "source": self.source,
            "page": self.page,
            "player": self.player,
            "status": self.status,
            "exit_code": int(self.exit_code),
            "tie_break": list(self.tie_break) if self.tie_break else None,
        }
        return {
            **head,
            **{k: v for k, v in self.sheet.items() if k not in head},
            "verification": dict(self.verification) if self.verification is not None else None,
            "claim_differences": list(self.claim_differences),
            "fixes": list(self.fixes),
            "thumbnail": self.thumbnail,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SheetRow:
        """Read back a ``to_dict()``; raises ``KeyError``/``ValueError``/``TypeError`` on a damaged line."""
        tie = data["tie_break"]
        return cls(
            source=str(data["source"]),
            page=int(data["page"]),
            status=str(data["status"]),
            exit_code=ExitCode(int(data["exit_code"])),
            player=data.get("player"),
            tie_break=(int(tie[0]), int(tie[1])) if tie is not None else None,
            sheet=_sheet_part(data),
            verification=data.get("verification"),
            claim_differences=tuple(data.get("claim_differences", ())),
            thumbnail=data.get("thumbnail"),
            fixes=tuple(str(f) for f in data.get("fixes", ())),
        )


@dataclass(frozen=True)
class JobOutcome:
    """What a worker sends back for one job."""

    row: SheetRow
    thumbnail_jpeg: bytes | None = None
    """The overlay thumbnail (JPEG, ``THUMBNAIL_WIDTH_PX`` wide) of a sheet read from a picture."""


@dataclass(frozen=True)
class Standing:
    """One leaderboard line."""

    rank: int | None
    """1 = best; sheets with the same total and best single line share a rank; ``None`` = not read."""
    row: SheetRow


@dataclass(frozen=True)
class BatchSummary:
    """The counts and the exit code of a finished batch."""

    sheets: int
    ok: int
    rules_broken: int
    needs_review: int
    failed: int
    """Not read: unreadable file, no map found, or an internal error."""
    claims_differ: int
    exit_code: ExitCode

    def to_dict(self) -> dict[str, Any]:
        return {
            "sheets": self.sheets,
            "ok": self.ok,
            "rules_broken": self.rules_broken,
            "needs_review": self.needs_review,
            "failed": self.failed,
            "claims_differ": self.claims_differ,
            "exit_code": int(self.exit_code),
        }


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that puts ``sheet2`` before ``sheet10`` (then by the exact text, so the order is total)."""
    parts = re.split(r"(\d+)", text.replace(os.sep, "/"))
    return (tuple(int(p) if p.isdigit() else p.lower() for p in parts), text)


def _is_network_file(path: Path) -> bool:
    # Same test as ``nsvision score``: a .json name, or a text that starts like a JSON object.
    if path.suffix.lower() in NETWORK_SUFFIXES:
        return True
    try:
        with path.open("rb") as fh:
            return fh.read(64).lstrip().startswith(b"{")
    except OSError:
        return False


def _is_other_json(path: Path) -> bool:
    """A JSON file found in a folder that is ground truth or batch output, not a sheet."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False  # kept: reading it as a sheet reports what is wrong with it
    return isinstance(data, dict) and data.get("format") in NOT_SHEET_FORMATS


def _walk(folder: Path, exclude: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        # Hidden folders and files (.git, .DS_Store, macOS "._photo.jpg" forks) are never sheets.
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and (here / d).resolve() not in exclude]
        for name in filenames:
            path = here / name
            if name.startswith(".") or path.suffix.lower() not in SHEET_SUFFIXES:
                continue
            if path.suffix.lower() in NETWORK_SUFFIXES and _is_other_json(path):
                continue
            found.append(path)
    return sorted(found, key=lambda p: natural_key(str(p.relative_to(folder))))


def find_sheet_files(inputs: Sequence[str | Path], *, exclude: Sequence[str | Path] = ()) -> list[Path]:
    """Files named in ``inputs``, then each folder's sheet files (recursively, natural order), once each.

    ``exclude`` lists folders not to walk into (the batch's own output folder). A path that does
    not exist is kept: reading it reports the problem as that sheet's failure.
    """
    skip = [Path(p).resolve() for p in exclude]
    seen: set[Path] = set()
    out: list[Path] = []
    for item in inputs:
        path = Path(item)
        candidates = _walk(path, skip) if path.is_dir() else [path]
        for c in candidates:
            resolved = c.resolve()
            if resolved not in seen:
                seen.add(resolved)
                out.append(c)
    return out


def enumerate_jobs(inputs: Sequence[str | Path], *, exclude: Sequence[str | Path] = ()) -> list[Job]:
    """One job per sheet: per page of a PDF or multi-page TIFF (``page_count``), one per other file.

    A file whose pages cannot be counted (corrupt, missing) gives one job, whose reading reports why.
    """
    from nsvision.vision.load import page_count

    jobs: list[Job] = []
    for path in find_sheet_files(inputs, exclude=exclude):
        source, absolute = str(path), str(path.absolute())
        if path.is_file() and _is_network_file(path):
            jobs.append(Job(source, 1, absolute, "network"))
            continue
        try:
            pages = page_count(path)
        except NsvisionError:
            pages = 1
        jobs.extend(Job(source, page, absolute) for page in range(1, pages + 1))
    return jobs


def attach_fixes(jobs: Sequence[Job], rows: Sequence[FixesRow], csv_path: str | Path) -> list[Job]:
    """``jobs``, each with the fixes that the rows of a fixes CSV (``read_fixes_csv``) give for it.

    A row's file is matched as in a claims CSV (``file_match``): the sheets it matches most
    specifically. A row that names no sheet of the batch, several, or a network file, and fixes
    that contradict each other on one sheet, stop the batch before any sheet is read
    (``InputError`` listing every such row): a slip in the file must not go unapplied unseen.
    """
    from nsvision.claims import file_match
    from nsvision.pipeline import conflicting_fixes, fix_text

    base = Path(csv_path).parent
    given: dict[tuple[str, int], list[FixesRow]] = {}
    problems: list[str] = []
    for row in rows:
        scores = [(file_match(row.file, job.source, base), job) for job in jobs if job.page == row.page]
        best = max((score for score, _ in scores), default=0)
        named = [job for score, job in scores if score and score == best]
        if not named:
            problems.append(f"line {row.line}: page {row.page} of {row.file} is not among the batch's sheets")
        elif len(named) > 1:
            sheets = ", ".join(job.source for job in named)
            problems.append(f"line {row.line}: {row.file} names several sheets ({sheets}): write more of its path")
        elif named[0].kind == "network":
            problems.append(f"line {row.line}: {named[0].source} is a network file: edit it instead")
        else:
            given.setdefault(named[0].key, []).append(row)
    for key, settled in given.items():
        conflict = conflicting_fixes([r.fix for r in settled])
        if conflict:
            lines = ", ".join(str(r.line) for r in settled)
            problems.append(f"lines {lines}, page {key[1]} of {key[0]}: {conflict}")
    if problems:
        listed = problems[0] if len(problems) == 1 else "\n  " + "\n  ".join(problems)
        raise InputError(str(csv_path), f"cannot use the fixes: {listed}", "correct those rows")
    return [
        replace(job, fixes=tuple(sorted({fix_text(r.fix) for r in given[job.key]}))) if job.key in given else job
        for job in jobs
    ]


@lru_cache(maxsize=4)
def _calibration(path: str | None) -> Calibration:
    # Cached per worker process: a batch reads hundreds of sheets with one calibration.
    from nsvision.calibration import load_calibration

    return load_calibration(path)


@lru_cache(maxsize=4)
def _claims_rows(path: str) -> tuple[ClaimsRow, ...]:
    from nsvision.claims import read_claims_csv

    return tuple(read_claims_csv(path))


def _slim(sheet: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in sheet.items() if k not in _BULKY_KEYS}
    if isinstance(out.get("registration"), dict):
        out["registration"] = {k: out["registration"][k] for k in _REGISTRATION_KEYS if k in out["registration"]}
    return out


def _thumbnail(result: SheetResult) -> bytes | None:
    import cv2
    import numpy as np

    from nsvision.overlay import render_closeups, render_overlay
    from nsvision.pipeline import SheetReport

    if not isinstance(result, SheetReport) or result.straightened is None or result.registration is None:
        return None
    image = render_overlay(result, closeups=False)
    height, width = image.shape[:2]
    size = (THUMBNAIL_WIDTH_PX, max(1, round(height * THUMBNAIL_WIDTH_PX / width)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    # The sections to check, close and at full size: shrunk with the map they would be too small to judge.
    strip = render_closeups(result, THUMBNAIL_WIDTH_PX, THUMBNAIL_CLOSEUP_PX)
    if strip is not None:
        small = np.vstack([small, strip])
    ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, THUMBNAIL_JPEG_QUALITY])
    return data.tobytes() if ok else None


def _read(job: Job, calibration: Calibration, settings: BatchSettings) -> SheetResult:
    from nsvision.pipeline import SheetFailure, analyze_sheet, parse_fix, score_network_file
    from nsvision.vision.load import load_page

    options = settings.game_options()
    try:
        if job.kind == "network":
            return score_network_file(job.path, calibration, options)
        fixes = [parse_fix(text, calibration.map) for text in job.fixes]
        return analyze_sheet(load_page(job.path, job.page), calibration, options, fixes=fixes, closeups=True)
    except NsvisionError as exc:
        return SheetFailure(job.source, job.page, exc)


_ROW_KEYS = frozenset({"exit_code", "player", "tie_break", "verification", "claim_differences", "fixes", "thumbnail"})
"""Keys a ``SheetRow`` adds to the sheet's ``to_dict()`` in its JSON line."""


def _sheet_part(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in _ROW_KEYS}


def _failure_row(job: Job, message: str, code: ExitCode) -> SheetRow:
    status = "no_map" if code == ExitCode.NO_MAP else "failed"
    sheet = {"source": job.source, "page": job.page, "status": status, "error": message}
    return SheetRow(job.source, job.page, status, code, sheet=sheet, fixes=job.fixes)


def run_job(job: Job, settings: BatchSettings) -> JobOutcome:
    """Read, score and (with claims) verify one sheet; never raises for a bad sheet.

    An unreadable file or a picture without a map becomes a ``failed``/``no_map`` row with the
    reason; an unexpected error (a bug) becomes a ``failed`` row with exit code INTERNAL, so one
    sheet cannot stop a batch of hundreds.
    """
    from nsvision.game.scoring import tie_break_key
    from nsvision.pipeline import SheetReport

    try:
        calibration = _calibration(settings.calibration)
        result = _read(job, calibration, settings)
        if not isinstance(result, SheetReport):
            return JobOutcome(_failure_row(job, result.error.message, result.exit_code))
        sheet = _sheet_part(_slim(result.to_dict()))
        sheet["source"], sheet["page"] = job.source, job.page
        code = result.exit_code
        player: str | None = None
        verification: dict[str, Any] | None = None
        differences: tuple[str, ...] = ()
        if settings.claims_csv is not None:
            player, verification, differences = _verify(job, result, calibration, settings.claims_csv)
            if verification is not None and not verification["all_match"] and code == ExitCode.OK:
                code = ExitCode.RULES_BROKEN
        row = SheetRow(
            source=job.source,
            page=job.page,
            status=result.status,
            exit_code=code,
            player=player,
            tie_break=tie_break_key(result.score),
            sheet=sheet,
            verification=verification,
            claim_differences=differences,
            fixes=job.fixes,
        )
        return JobOutcome(row, _thumbnail(result))
    except NsvisionError as exc:  # the calibration or claims file went bad during the batch
        return JobOutcome(_failure_row(job, exc.message, exc.exit_code))
    except Exception as exc:  # a bug on one sheet: record it and let the batch go on
        message = f"internal error: {type(exc).__name__}: {exc} — please report it with the input file"
        return JobOutcome(_failure_row(job, message, ExitCode.INTERNAL))


def _verify(
    job: Job, report: SheetReport, calibration: Calibration, claims_csv: str
) -> tuple[str | None, dict[str, Any] | None, tuple[str, ...]]:
    from nsvision.claims import find_claims, verify_claims

    rows = _claims_rows(claims_csv)
    claims = find_claims(rows, job.source, job.page, csv_dir=Path(claims_csv).parent)
    if claims is None:
        return None, None, (f"no row of {Path(claims_csv).name} names this sheet (file {job.source}, page {job.page})",)
    verification = verify_claims(claims, report.score, calibration.map, depends_on=report.depends_on)
    differences = [f"{c.label}: {c.explanation}" for c in verification.mismatches]
    if verification.arithmetic is not None and not verification.arithmetic.matches:
        differences.append(verification.arithmetic.explanation)
    return claims.player, verification.to_dict(), tuple(differences)


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _init_worker(threads: int) -> None:
    # Ctrl-C goes to the whole process group: let only the parent handle it (it cancels what is
    # queued and keeps what is done), and split the cores between OpenCV's threads and the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import cv2

    cv2.setNumThreads(threads)


def _pool_context() -> Any:
    # Forking a process whose other threads (the progress bar) hold locks can deadlock the child;
    # a fork server starts clean workers fast because it imports nsvision once.
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["nsvision.batch", "nsvision.pipeline"])
        return ctx
    return multiprocessing.get_context("spawn")


def run_jobs(
    jobs: Sequence[Job],
    settings: BatchSettings,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
) -> Generator[JobOutcome, None, None]:
    """Run ``jobs`` and yield each outcome as soon as it is known (completion order).

    ``workers`` local processes (default: all cores), or the Dask cluster at ``scheduler``; one
    worker reads in this process (no start-up cost, OpenCV keeps all its threads). Closing the
    iterator early (an interrupted batch) cancels the jobs not started yet.
    """
    if not jobs:
        return
    if scheduler is not None:
        yield from _run_dask(jobs, settings, scheduler)
        return
    n = max(1, min(workers or default_workers(), len(jobs)))
    if n == 1:
        for job in jobs:
            yield run_job(job, settings)
        return
    threads = max(1, default_workers() // n)
    with ProcessPoolExecutor(n, mp_context=_pool_context(), initializer=_init_worker, initargs=(threads,)) as pool:
        futures: list[Future[JobOutcome]] = [pool.submit(run_job, job, settings) for job in jobs]
        try:
            for future in as_completed(futures):
                yield future.result()
        except BrokenProcessPool:
            raise NsvisionError(
                "a worker process died (out of memory?): the sheets done so far are saved — "
                "rerun with --resume and fewer --workers"
            ) from None
        finally:
            for f in futures:
                f.cancel()


def _run_dask(jobs: Sequence[Job], settings: BatchSettings, scheduler: str) -> Iterator[JobOutcome]:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise InputError("--scheduler", "Dask distributed is not installed", "pip install 'nsvision[dask]'") from None
    try:
        client = Client(scheduler, timeout="20s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(
            "--scheduler", f"cannot reach the Dask scheduler at {scheduler} ({exc})", "check the address and port"
        ) from None
    futures: list[Any] = []
    try:
        # pure=False: the same file read twice (after a resume) must really be read again.
        futures = client.map(run_job, list(jobs), settings=settings, pure=False)
        for future in dask_completed(futures):
            yield future.result()
    finally:
        if futures:
            client.cancel(futures)
        client.close()


def _fsync_write(path: Path, data: bytes) -> None:
    """Write a whole file so that a crash leaves either the old or the new content."""
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def thumbnail_name(source: str, page: int) -> str:
    """A stable, file-system-safe name for a sheet's thumbnail."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(source).stem)[:40] or "sheet"
    digest = hashlib.sha1(f"{source}\0{page}".encode()).hexdigest()[:10]
    return f"{THUMBS_DIR}/{stem}-p{page}-{digest}.jpg"


class ResultStore:
    """``results.jsonl`` in the output folder: one line per finished sheet, durable as soon as written.

    Opening an existing store without ``resume`` is refused (it would throw work away); with
    ``resume`` the complete lines are loaded and a torn last line (a kill during a write) is cut
    off, so new lines start on a clean line.
    """

    def __init__(self, out_dir: str | Path, settings: BatchSettings, *, resume: bool = False) -> None:
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / RESULTS_JSONL
        self.settings = settings
        self.rows: dict[tuple[str, int], SheetRow] = {}
        self.ignored_lines = 0
        """Lines of an earlier run that could not be read back (a torn last line)."""
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(str(self.out_dir), f"cannot create the folder ({exc.strerror})", "check --out") from None
        exists = self.path.exists() and self.path.stat().st_size > 0
        if exists and not resume:
            raise InputError(
                str(self.out_dir),
                f"already holds the results of a batch ({RESULTS_JSONL})",
                "pass --resume to continue it (or to read it again with --fixes), or choose another --out folder",
            )
        self._check_settings(resume and exists)
        if exists:
            self._load()
        self._fh = self.path.open("ab")

    def _check_settings(self, resuming: bool) -> None:
        target = self.out_dir / SETTINGS_JSON
        if resuming and target.exists():
            try:
                before = BatchSettings.from_dict(json.loads(target.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError, AttributeError):
                before = None
            if before is not None and before != self.settings:
                raise InputError(
                    str(self.out_dir),
                    f"was started with other settings ({json.dumps(before.to_dict())})",
                    "resume with the same --calibration, --objective, --solo and --claims, or use another --out",
                )
        _fsync_write(target, (json.dumps(self.settings.to_dict(), indent=1) + "\n").encode())

    def _load(self) -> None:
        data = self.path.read_bytes()
        good_end = 0
        offset = 0
        for raw in data.splitlines(keepends=True):
            offset += len(raw)
            if not raw.endswith(b"\n"):
                break  # the torn last line of a killed run
            try:
                row = SheetRow.from_dict(json.loads(raw))
            except (ValueError, KeyError, TypeError, IndexError):
                self.ignored_lines += 1
                good_end = offset
                continue
            self.rows[row.key] = row
            good_end = offset
        if good_end < len(data):
            self.ignored_lines += 1
            with self.path.open("r+b") as fh:
                fh.truncate(good_end)
                fh.flush()
                os.fsync(fh.fileno())

    def append(self, outcome: JobOutcome) -> SheetRow:
        """Persist one outcome: its thumbnail first, then its line (a line implies its thumbnail)."""
        row = outcome.row
        if outcome.thumbnail_jpeg is not None:
            name = thumbnail_name(row.source, row.page)
            target = self.out_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            _fsync_write(target, outcome.thumbnail_jpeg)
            row = replace(row, thumbnail=name)
        line = json.dumps(row.to_dict(), ensure_ascii=False) + "\n"
        self._fh.write(line.encode("utf-8"))
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.rows[row.key] = row
        return row

    def ordered(self, jobs: Sequence[Job] = ()) -> list[SheetRow]:
        """Rows in job order; rows of sheets not among ``jobs`` (an earlier run's inputs) after them."""
        position = {job.key: i for i, job in enumerate(jobs)}
        rows = list(self.rows.values())
        return sorted(rows, key=lambda r: (position.get(r.key, len(position)), natural_key(r.source), r.page))

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def shared_ranks(keys: Sequence[tuple[int, int]]) -> list[int]:
    """The rank of each key (1 = best); equal keys share a rank (1, 1, 3, ...), as ``rank_cards``."""
    return [1 + sum(1 for other in keys if other > k) for k in keys]


def leaderboard(rows: Sequence[SheetRow]) -> list[Standing]:
    """Read sheets ranked by total, then best single line (the rules' tie-break); a lasting tie shares
    its rank and keeps the input order. Sheets that could not be read follow, unranked."""
    read = [r for r in rows if r.tie_break is not None]
    ranks = shared_ranks([r.tie_break for r in read if r.tie_break is not None])
    ranked = sorted(zip(ranks, range(len(read)), read, strict=True), key=lambda t: (t[0], t[1]))
    standings = [Standing(rank, row) for rank, _, row in ranked]
    return standings + [Standing(None, r) for r in rows if r.tie_break is None]


def batch_exit_code(rows: Iterable[SheetRow]) -> ExitCode:
    """The most serious sheet's exit code (``SEVERITY``); OK when every sheet is legal and matches."""
    codes = {r.exit_code for r in rows}
    return next((c for c in SEVERITY if c in codes), ExitCode.OK)


def summarize(rows: Sequence[SheetRow]) -> BatchSummary:
    return BatchSummary(
        sheets=len(rows),
        ok=sum(1 for r in rows if r.status == "ok"),
        rules_broken=sum(1 for r in rows if r.status == "rules_broken"),
        needs_review=sum(1 for r in rows if r.status == "needs_review"),
        failed=sum(1 for r in rows if not r.read),
        claims_differ=sum(1 for r in rows if r.claims_differ),
        exit_code=batch_exit_code(rows),
    )


CSV_COLUMNS = (
    "source",
    "page",
    "player",
    "status",
    *LINE_COLOURS,
    "tourist",
    "interchanges",
    "objectives",
    "total",
    "violations",
    "doubtful sections",
    "settled by hand",
    "claim differences",
    "note",
    "also check",
)
"""``results.csv``'s columns, in order; a column added later goes at the end (scripts may read by position)."""
LEADERBOARD_COLUMNS = ("rank", "player", "source", "page", "total", "best line", "status")

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    """A CSV cell; text that a spreadsheet would run as a formula (a file or player named
    ``=HYPERLINK(...)``) is quoted with a leading apostrophe."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_row(row: SheetRow) -> dict[str, Any]:
    """One ``results.csv`` row: scores, status, player, violations, doubts, claim differences, a note
    and the sections worth a look besides those in doubt (``also_check``)."""
    out: dict[str, Any] = {"source": row.source, "page": row.page, "player": row.player, "status": row.status}
    score = row.sheet.get("score")
    if row.read and isinstance(score, Mapping):
        for colour in LINE_COLOURS:
            out[colour] = score["lines"][colour]["score"]
        out["tourist"] = score["tourist_points"]
        out["interchanges"] = score["interchanges"]["points"]
        out["objectives"] = sum(o["points"] for o in score["objectives"])
        out["total"] = score["total"]
        out["violations"] = "; ".join(v["code"] for v in row.sheet.get("violations", ()))
        out["doubtful sections"] = " ".join(row.sheet.get("doubtful_sections", ()))
        out["also check"] = " ".join(item["section"] for item in row.sheet.get("also_check", ()))
    out["settled by hand"] = " ".join(row.fixes)
    out["claim differences"] = " | ".join(row.claim_differences)
    out["note"] = row.error if row.error else "; ".join(row.sheet.get("review_reasons", ()))
    return {k: _cell(out.get(k)) for k in CSV_COLUMNS}


def _csv_bytes(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> bytes:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    # The byte-order mark makes spreadsheet programs read the file as UTF-8 (accented player names).
    return buf.getvalue().encode("utf-8-sig")


def leaderboard_row(standing: Standing) -> dict[str, Any]:
    row = standing.row
    return {
        "rank": standing.rank,
        "player": _cell(row.player),
        "source": _cell(row.source),
        "page": row.page,
        "total": row.tie_break[0] if row.tie_break else None,
        "best line": row.tie_break[1] if row.tie_break else None,
        "status": row.status,
    }


def write_reports(out_dir: str | Path, rows: Sequence[SheetRow]) -> BatchSummary:
    """Write ``results.csv``, ``results.json``, ``leaderboard.csv`` and ``index.html`` from ``rows``.

    Each file is replaced whole, never left half-written.
    """
    from nsvision.html_report import render_html

    out = Path(out_dir)
    standings = leaderboard(rows)
    summary = summarize(rows)
    _fsync_write(out / RESULTS_CSV, _csv_bytes(CSV_COLUMNS, (csv_row(r) for r in rows)))
    _fsync_write(out / LEADERBOARD_CSV, _csv_bytes(LEADERBOARD_COLUMNS, (leaderboard_row(s) for s in standings)))
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "summary": summary.to_dict(),
        "leaderboard": [
            {"rank": s.rank, "source": s.row.source, "page": s.row.page, "player": s.row.player} for s in standings
        ],
        "sheets": [r.to_dict() for r in rows],
    }
    _fsync_write(out / RESULTS_JSON, (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    _fsync_write(out / INDEX_HTML, render_html(standings, rows, summary, out).encode("utf-8"))
    return summary


def run_batch(
    inputs: Sequence[str | Path],
    out_dir: str | Path,
    settings: BatchSettings | None = None,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    fixes_csv: str | Path | None = None,
    on_row: Callable[[SheetRow], None] | None = None,
    on_start: Callable[[int, Sequence[SheetRow]], None] | None = None,
) -> BatchSummary:
    """The whole batch: enumerate, skip what is done (``resume``), run, persist each row, write reports.

    ``fixes_csv`` (``read_fixes_csv``) says what a person settled on some sheets after a review:
    they are read with those fixes. A sheet is done when its row was read with the fixes given now,
    so a resume reads again exactly the sheets whose fixes changed (given, edited or taken away).
    ``on_start(total_sheets, rows_already_done)`` and ``on_row(row)`` let a caller show progress.
    """
    settings = settings or BatchSettings()
    if settings.claims_csv is not None:
        _claims_rows(settings.claims_csv)  # a malformed CSV stops the batch before any work
    jobs = enumerate_jobs(inputs, exclude=[out_dir])
    if fixes_csv is not None:
        from nsvision.fixes_csv import read_fixes_csv

        jobs = attach_fixes(jobs, read_fixes_csv(fixes_csv, _calibration(settings.calibration).map), fixes_csv)
    with ResultStore(out_dir, settings, resume=resume) as store:
        done = {j.key for j in jobs if j.key in store.rows and store.rows[j.key].fixes == j.fixes}
        todo = [j for j in jobs if j.key not in done]
        if on_start is not None:
            on_start(len(jobs), [store.rows[j.key] for j in jobs if j.key in done])
        outcomes = run_jobs(todo, settings, workers=workers, scheduler=scheduler)
        try:
            with contextlib.closing(outcomes):
                for outcome in outcomes:
                    row = store.append(outcome)
                    if on_row is not None:
                        on_row(row)
        except (KeyboardInterrupt, NsvisionError):
            # Interrupted: the reports show what is done; --resume completes them.
            write_reports(out_dir, store.ordered(jobs))
            raise
        rows = store.ordered(jobs)
    return write_reports(out_dir, rows)
