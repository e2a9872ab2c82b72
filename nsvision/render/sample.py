"""Whole samples: a simulated game drawn on a sheet, photographed or scanned, with its ground truth.

``make_sample`` is deterministic per seed: the game (``simulate_game(map, seed)``), the broken
rule if one is asked for, the pencil strokes and the degradation all derive from it. The
expected content (``expected.json``) is what the reader should find: the network, the score
card and violations recomputed by the game core, the marks written on the sheet, and where
the map lies in the picture.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from PIL import Image

from nsvision.calibration import Calibration
from nsvision.game.board import LINE_COLOURS
from nsvision.game.inject import inject_violation
from nsvision.game.network import OBJECTIVES, GameOptions, Network
from nsvision.game.rules import VIOLATION_CODES, check_network
from nsvision.game.scoring import score_network
from nsvision.game.simulate import simulate_game
from nsvision.render.degrade import UNIT_MM, Degraded, clean, photo, photo_px_per_unit, scan, scan_px_per_unit
from nsvision.render.pencil import HANDS, PENCIL_SETS, SheetMarks, draw_sheet, marks_from_card
from nsvision.render.sheet import render_blank
from nsvision.render.style import SheetStyle, get_style

FORMAT = "nsvision-expected"
VERSION = 1
MODES = ("photo", "scan", "clean")
FORMATS = ("jpg", "png", "tiff", "webp", "pdf", "heic")
"""Output formats of ``write_sample``; ``jpeg``/``tif``/``heif`` are accepted as aliases."""
_ALIASES = {"jpeg": "jpg", "tif": "tiff", "heif": "heic"}
_EXIF_FORMATS = ("jpg", "tiff", "webp", "heic")
"""Formats that carry an EXIF orientation; the others are written as displayed."""
_EXIF_ORIENTATION_TAG = 0x0112
_PAGE_SEED_STEP = 100_003
"""Page ``i`` of a multi-page sample uses ``seed + i * step``: far from the next sample's seeds."""
_INJECT_TRIES = 5
_SILENT_SCORER = 0.15
"""Share of sheets whose player did not fill in the score boxes."""
CLEAN_PX_PER_UNIT = 4.0


@dataclass(frozen=True)
class Sample:
    """Rendered pages and the ``expected.json`` content (``image`` names are filled in by ``write_sample``)."""

    pages: tuple[Degraded, ...]
    expected: dict[str, Any]


def _with_advanced_modules(network: Network, seed: int) -> Network:
    """Two shared objectives in play and a station circled with the double-station power on 1–2 lines."""
    rng = np.random.default_rng([seed, 0xADF])
    objectives = tuple(str(k) for k in rng.choice(sorted(OBJECTIVES), size=2, replace=False))
    drawn = [c for c in LINE_COLOURS if network.sections(c)]
    chosen = [
        drawn[int(i)] for i in rng.choice(len(drawn), size=min(len(drawn), int(rng.integers(1, 3))), replace=False)
    ]
    doubled = {c: sorted(network.stations(c))[int(rng.integers(0, len(network.stations(c))))] for c in chosen}
    options = GameOptions(
        objectives=objectives,
        powers=MappingProxyType(dict.fromkeys(doubled, "double_station")),
        doubled_stations=MappingProxyType(doubled),
    )
    return Network(network.lines, options)


def _network(calibration: Calibration, seed: int, violation: str | None, blank: bool, advanced: bool) -> Network:
    if blank:
        return Network.build()
    game = simulate_game(calibration.map, seed)
    if violation is None:
        return _with_advanced_modules(game.network, seed) if advanced else game.network
    # A few simulated games cannot be edited into every violation; the next games of the seed can.
    for attempt in range(_INJECT_TRIES):
        base = game.network if attempt == 0 else simulate_game(calibration.map, seed * 31 + attempt).network
        try:
            broken = inject_violation(base, violation, calibration.map, seed)
            return _with_advanced_modules(broken, seed) if advanced else broken
        except ValueError:
            continue
    raise ValueError(f"cannot make a sheet of seed {seed} break {violation!r}")


def _render_page(
    calibration: Calibration,
    seed: int,
    mode: str,
    style: str | SheetStyle,
    strength: float,
    violation: str | None,
    blank: bool,
    dpi: int,
    px_per_unit: float | None,
    frame: tuple[int, int] | None,
    megapixels: float | None,
    advanced: bool,
    pencils: str,
    lines: bool = True,
    hand: str = "default",
) -> tuple[Degraded, dict[str, Any]]:
    network = _network(calibration, seed, violation, blank, advanced)
    card = score_network(network, calibration.map)
    violations = check_network(network, calibration.map)
    marks = marks_from_card(card, network)
    if not blank and np.random.default_rng([seed, 0x5C0E]).random() < _SILENT_SCORER:
        marks = SheetMarks(circled_stations=marks.circled_stations)
    if mode == "photo":
        ppu = photo_px_per_unit(calibration, seed, strength, frame, megapixels)
    elif mode == "scan":
        ppu = scan_px_per_unit(dpi)
    else:
        ppu = px_per_unit or CLEAN_PX_PER_UNIT
    blank_sheet = render_blank(calibration, style, ppu)
    sheet = draw_sheet(
        blank_sheet, network, calibration, seed, marks, PENCIL_SETS[pencils], lines=lines, sloppiness=HANDS[hand]
    )
    if mode == "photo":
        page = photo(sheet, calibration, seed, strength, frame, megapixels)
    elif mode == "scan":
        page = scan(sheet, calibration, seed, strength, dpi)
    else:
        page = clean(sheet, calibration)
    expected = {
        "format": FORMAT,
        "version": VERSION,
        "seed": seed,
        "mode": mode,
        "style": get_style(style).name,
        "strength": strength,
        "pencils": pencils,
        "hand": hand,
        "image": None,
        "page": 1,
        "network": network.to_dict(),
        "score": card.to_dict(),
        "total": card.total,
        "violations": [v.to_dict() for v in violations],
        "marks": marks.to_dict(),
        "map_position": page.map_position(),
        "picture": dict(page.details),
    }
    return page, expected


def make_sample(
    calibration: Calibration,
    seed: int,
    mode: str = "photo",
    style: str | SheetStyle = "print",
    strength: float = 0.5,
    violation: str | None = None,
    blank: bool = False,
    pages: int = 1,
    *,
    dpi: int = 300,
    px_per_unit: float | None = None,
    frame: tuple[int, int] | None = None,
    megapixels: float | None = None,
    advanced: bool = False,
    pencils: str = "default",
    lines: bool = True,
    hand: str = "default",
) -> Sample:
    """Render ``pages`` sheets (page ``i`` from seed ``seed + i * 100003``) and their ground truth.

    ``mode`` is ``photo``, ``scan`` (at ``dpi``) or ``clean`` (at ``px_per_unit``, default 4);
    ``style`` a style or its name (``get_style``: ``"unseen-<n>"`` is a random unseen print);
    ``violation`` a key of ``VIOLATION_CODES`` to break on purpose; ``blank`` leaves the sheet
    empty (score 0). ``frame`` fixes a photo's displayed size (width, height) in px;
    ``megapixels`` scales the phone frame instead (same picture, smaller file). ``advanced``
    plays two shared objectives (ticked when met) and circles a station with the double-station
    pencil power on one or two lines. ``pencils`` names the player's pencil set (``PENCIL_SETS``),
    ``hand`` how far their strokes stray from the guides (``HANDS``).
    ``lines=False`` renders the same picture with the lines' pencil left off (every random draw made
    as before; the truth still describes the network that was not drawn).
    Raises ``ValueError`` naming the bad argument.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    try:
        style = get_style(style)
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None
    if violation is not None and violation not in VIOLATION_CODES:
        raise ValueError(f"unknown violation {violation!r}; expected one of {', '.join(VIOLATION_CODES)}")
    if violation is not None and blank:
        raise ValueError("a blank sheet cannot break a rule: drop either blank or violation")
    if not 0.0 <= strength <= 1.0:
        raise ValueError(f"strength must lie between 0 and 1, got {strength}")
    if pages < 1:
        raise ValueError(f"pages must be at least 1, got {pages}")
    if pencils not in PENCIL_SETS:
        raise ValueError(f"unknown pencils {pencils!r}; expected one of {', '.join(PENCIL_SETS)}")
    if hand not in HANDS:
        raise ValueError(f"unknown hand {hand!r}; expected one of {', '.join(HANDS)}")
    rendered = [
        _render_page(
            calibration,
            seed + i * _PAGE_SEED_STEP,
            mode,
            style,
            strength,
            violation,
            blank,
            dpi,
            px_per_unit,
            frame,
            megapixels,
            advanced,
            pencils,
            lines,
            hand,
        )
        for i in range(pages)
    ]
    if pages == 1:
        expected = rendered[0][1]
    else:
        expected = {"format": FORMAT, "version": VERSION, "sheets": [e for _, e in rendered]}
    return Sample(tuple(p for p, _ in rendered), expected)


def _exif(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[_EXIF_ORIENTATION_TAG] = orientation
    return exif.tobytes()


def _pixels_per_inch(page: Degraded) -> float:
    if page.dpi is not None:
        return float(page.dpi)
    if page.kind == "clean":
        return float(page.sheet_to_image[0, 0] * 25.4 / UNIT_MM)
    return 300.0


def _save_image(page: Degraded, path: Path, fmt: str, subsampling: int = 2) -> int:
    """Write one page (a JPEG with Pillow's chroma ``subsampling``); returns the EXIF orientation the
    file carries."""
    keep_exif = fmt in _EXIF_FORMATS and page.exif_orientation != 1
    pixels = page.stored if keep_exif else page.image
    im = Image.fromarray(pixels)
    ppi = round(_pixels_per_inch(page))
    extra: dict[str, Any] = {}
    if keep_exif:
        extra["exif"] = _exif(page.exif_orientation)
    if fmt == "jpg":
        im.save(path, "JPEG", quality=page.jpeg_quality, subsampling=subsampling, dpi=(ppi, ppi), **extra)
    elif fmt == "png":
        im.save(path, "PNG", dpi=(ppi, ppi), compress_level=6)
    elif fmt == "tiff":
        im.save(path, "TIFF", compression="tiff_lzw", dpi=(ppi, ppi), **extra)
    elif fmt == "webp":
        im.save(path, "WEBP", quality=page.jpeg_quality, **extra)
    elif fmt == "heic":
        from pillow_heif import register_heif_opener

        register_heif_opener()
        im.save(path, "HEIF", quality=page.jpeg_quality, **extra)
    return page.exif_orientation if keep_exif else 1


_FLAT_LIST = re.compile(r"\[\s*([^\[\]{}]*?)\s*\]")


def _dumps(doc: dict[str, Any]) -> str:
    """Indented JSON with innermost lists (sections, points, matrix rows) kept on one line."""
    return _FLAT_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", json.dumps(doc, indent=1))


def write_sample(sample: Sample, out_dir: Path, fmt: str = "jpg", subsampling: int = 2) -> list[Path]:
    """Write the page image(s) and ``expected.json`` into ``out_dir``; returns the written paths.

    ``fmt`` is one of ``FORMATS``. JPEG uses the page's quality with 4:2:0 chroma subsampling (as
    phones save; Pillow's ``subsampling``: 0 keeps colour whole, 4:4:4);
    formats without EXIF (PNG, PDF) get the displayed pixels and ``exif_orientation`` 1. A
    ``pdf`` holds every page in one file (Pillow, JPEG-compressed); other formats write one
    file per page.
    """
    fmt = _ALIASES.get(fmt.lower(), fmt.lower())
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sheets = [sample.expected] if "sheets" not in sample.expected else list(sample.expected["sheets"])
    sheets = [json.loads(json.dumps(s)) for s in sheets]
    first = sheets[0]
    stem = f"{first['mode']}-{first['seed']}"
    written: list[Path] = []
    if fmt == "pdf":
        path = out_dir / f"{stem}.pdf"
        ims = [Image.fromarray(p.image) for p in sample.pages]
        quality = min(p.jpeg_quality for p in sample.pages)
        ims[0].save(
            path,
            "PDF",
            save_all=True,
            append_images=ims[1:],
            resolution=_pixels_per_inch(sample.pages[0]),
            quality=quality,
        )
        written.append(path)
        for i, s in enumerate(sheets):
            s.update(image=path.name, page=i + 1)
            s["map_position"]["exif_orientation"] = 1
    else:
        for i, (page, s) in enumerate(zip(sample.pages, sheets, strict=True)):
            name = f"{stem}.{fmt}" if len(sample.pages) == 1 else f"{stem}-p{i + 1}.{fmt}"
            path = out_dir / name
            s.update(image=name, page=1)
            s["map_position"]["exif_orientation"] = _save_image(page, path, fmt, subsampling)
            written.append(path)
    doc = sheets[0] if "sheets" not in sample.expected else {"format": FORMAT, "version": VERSION, "sheets": sheets}
    target = out_dir / "expected.json"
    target.write_text(_dumps(doc) + "\n", encoding="utf-8")
    written.append(target)
    return written
