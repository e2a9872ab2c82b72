"""How the reader copes with what a phone or a messaging app does to a photo after it is taken.

The renderer's photos stop at the camera: light, tilt, blur, noise, a JPEG of good quality. Real
pictures go through more: the phone sharpens and denoises, the white balance misses, the app that
sends the picture shrinks it and compresses it hard, a hand shakes. This bench renders photos from
the accuracy set (``bench/accuracy.py``: both styles, legal and illegal, across the strength sweep),
then reads each one after every change below, exactly as the CLI does (JPEG on disk,
``analyze_file``); two of the changes are a lens's distortion that the phone did not take out
(``nsvision.render.degrade.lens_distortion``: the renderer's camera is a pinhole), one a fold, one a
document-scanner app's enhancement, one light of two colours, and two local contrast stretches (a
phone's HDR, a photo editor's clarity). One more read saves the photo as it left the camera model,
without the JPEG (a PNG). Five more reads leave something on the sheet (a pen over a line's last
section, a green pencil across the map), cut part of the map off the picture, wash a line's end out
with glare, or leave the smear of a section rubbed out at a line's end; three more draw the same
sheet with other pencil sets (the reader was tuned on one), and one with a sloppier hand.

Scans go through other hands: the accuracy set's scans are PNGs at 300 dpi, but a scanner, or the
app or copier behind it, saves a JPEG or a PDF of JPEG pages, at 150 or 200 dpi as often as 300,
from paper with a grain of its own, with colours weaker than the renderer's. Twenty scans of the
accuracy set (both styles, across the strength sweep; its scans are all of legal sheets) are read
after each of those (``SCAN_VARIANTS``) as well. Reported per change: sheets, maps found, totals
exactly right, sheets fully right, flagged for review, and wrong without a flag (which must stay 0).

    python3 bench/robustness.py              # 40 photos x 28 reads and 20 scans x 7, about 30 minutes on 2 cores
    python3 bench/robustness.py --count 12   # a quick look
    python3 bench/robustness.py --count 0 --scans 60   # every scan of the set after each scan's change (~12 min)
    python3 bench/robustness.py --only "a section rubbed out at a line's end"   # one read of each
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import accuracy  # bench/accuracy.py, beside this script
import cv2
import numpy as np
from accuracy import Case, outcome_cells, plan, read_sample, transformed, unsharp

from nsvision.calibration import load_calibration
from nsvision.game.board import (
    LINE_COLOURS,
    Colour,
    GameMap,
    Section,
    parse_section_name,
    parse_station_name,
    sections_cross,
)
from nsvision.render.degrade import lens_distortion
from nsvision.render.pencil import PENCIL_RGB
from nsvision.render.sample import Sample

Image = np.ndarray
COUNT = 40
"""The README's reads: this many photos of the accuracy set, each read after every change."""


def _gamma(g: float) -> Callable[[Image], Image]:
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** g, 0, 255).astype(np.uint8)
    return lambda im: lut[im]


def _white_balance(gains: tuple[float, float, float]) -> Callable[[Image], Image]:
    return lambda im: np.clip(im.astype(np.float32) * np.array(gains, np.float32), 0, 255).astype(np.uint8)


def _shrink(long_side: int) -> Callable[[Image], Image]:
    def change(im: Image) -> Image:
        f = long_side / max(im.shape[:2])
        return cv2.resize(im, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else im

    return change


def _shake(length: int) -> Callable[[Image], Image]:
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length
    return lambda im: cv2.filter2D(im, -1, kernel)


def _fold(slope: float, shade: float) -> Callable[[Image], Image]:
    """A sheet folded once down its middle and laid flat again: the crease (a line through the
    picture's centre, 8° off its vertical) a thin dark line, the half beyond it tilted a little away
    from the camera (foreshortened: what lay ``slope`` times its distance from the crease further
    out shows there, so lines crossing the crease bend there, a kink no smooth field has) and from
    the light (``shade`` of its brightness)."""

    def change(im: Image) -> Image:
        h, w = im.shape[:2]
        normal = np.array([np.cos(np.radians(8.0)), np.sin(np.radians(8.0))])
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        d = (xs - (w - 1) / 2) * normal[0] + (ys - (h - 1) / 2) * normal[1]
        beyond = np.maximum(d, 0)
        mx = (xs + slope * beyond * normal[0]).astype(np.float32)
        my = (ys + slope * beyond * normal[1]).astype(np.float32)
        out = cv2.remap(im, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        out *= (1 - (1 - shade) * np.clip(d / 6.0 + 0.5, 0, 1))[..., None]
        out *= (1 - 0.25 * np.exp(-((d / 2.0) ** 2)))[..., None]
        return np.clip(out, 0, 255).astype(np.uint8)

    return change


def _mixed_light(warm: tuple[float, float, float], cool: tuple[float, float, float]) -> Callable[[Image], Image]:
    """Two lights of different colour, as a lamp on one side and a window on the other: the white
    balance's gains go from ``warm`` at the picture's top-left corner to ``cool`` at its bottom-right,
    so no one colour cast holds over the sheet."""

    def change(im: Image) -> Image:
        h, w = im.shape[:2]
        t = (
            np.arange(w, dtype=np.float32)[None, :] / max(w - 1, 1)
            + np.arange(h, dtype=np.float32)[:, None] / max(h - 1, 1)
        ) / 2
        gains = np.array(warm, np.float32) + t[..., None] * (np.array(cool, np.float32) - np.array(warm, np.float32))
        return np.clip(im.astype(np.float32) * gains, 0, 255).astype(np.uint8)

    return change


def _local_contrast(clip: float, tiles: int, keep_ratios: bool) -> Callable[[Image], Image]:
    """Each part of the picture's lightness stretched over its own range (CLAHE, ``clip`` limit,
    ``tiles`` x ``tiles`` tiles). ``keep_ratios``: as a phone's own HDR tone mapping does, each pixel's
    three colours multiplied by the one gain its lightness got (a pencil keeps its hue, only its depth
    changes); otherwise as a photo editor's "clarity" or "structure" does, on L* with a* and b* kept as
    they were (a darkened stroke keeps its CIELAB colour, so its hue moves in the pencil's own terms)."""

    def change(im: Image) -> Image:
        lab = cv2.cvtColor(im, cv2.COLOR_RGB2LAB)
        lab[..., 0] = cv2.createCLAHE(clipLimit=clip, tileGridSize=(tiles, tiles)).apply(lab[..., 0])
        edited = cv2.cvtColor(lab, cv2.COLOR_LAB2RGB)
        if not keep_ratios:
            return edited
        gain = (cv2.cvtColor(edited, cv2.COLOR_RGB2GRAY).astype(np.float32) + 1) / (
            cv2.cvtColor(im, cv2.COLOR_RGB2GRAY).astype(np.float32) + 1
        )
        return np.clip(im.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)

    return change


def _enhanced(white: float, saturation: float) -> Callable[[Image], Image]:
    """What a phone's document-scanner app does to a page before saving it: the paper evened out
    (each pixel over the local paper, taken as the brightest nearby, an eighth of the picture's size,
    blurred), levels that make everything from ``white`` of the paper white, and colours boosted
    (``saturation`` times as saturated)."""

    def change(im: Image) -> Image:
        f = im.astype(np.float32)
        small = cv2.resize(f, None, fx=0.125, fy=0.125, interpolation=cv2.INTER_AREA)
        paper = cv2.GaussianBlur(cv2.dilate(small, np.ones((7, 7), np.uint8)), (0, 0), 6)
        paper = cv2.resize(paper, (im.shape[1], im.shape[0]), interpolation=cv2.INTER_LINEAR)
        even = np.clip(f / np.maximum(paper, 1.0) * 255.0 * 255.0 / white, 0, 255).astype(np.uint8)
        hsv = cv2.cvtColor(even, cv2.COLOR_RGB2HSV).astype(np.float32)
        hsv[..., 1] = np.clip(hsv[..., 1] * saturation, 0, 255)
        return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2RGB)

    return change


VARIANTS: dict[str, tuple[Callable[[Image], Image], int | None]] = {
    "as rendered": (lambda im: im, None),
    "sharpened (unsharp 1.0, 1.5 px)": (lambda im: unsharp(im, 1.0, 1.5), None),
    "denoised (bilateral)": (lambda im: cv2.bilateralFilter(im, 7, 25, 5), None),
    "JPEG quality 40": (lambda im: im, 40),
    "shrunk to 1600 px": (_shrink(1600), None),
    "out of focus (2 px)": (lambda im: cv2.GaussianBlur(im, (0, 0), 2.0), None),
    "shaken (9 px)": (_shake(9), None),
    "warm white balance": (_white_balance((1.18, 1.0, 0.8)), None),
    "cool white balance": (_white_balance((0.82, 1.0, 1.2)), None),
    "underexposed (gamma 1.6)": (_gamma(1.6), None),
    "overexposed (gamma 0.6)": (_gamma(0.6), None),
    "lens distortion, barrel (10 % at the corners)": (lambda im: lens_distortion(im, 0.1), None),
    "lens distortion, pincushion (6 % at the corners)": (lambda im: lens_distortion(im, -0.06), None),
    "folded down the middle": (_fold(0.05, 0.8), None),
    "a scanner app's enhancement (paper whitened, colours boosted)": (_enhanced(230.0, 1.3), None),
    "mixed light (warm at one corner, cool at the other)": (_mixed_light((1.18, 1.0, 0.8), (0.82, 1.0, 1.2)), None),
    "a phone's HDR (local contrast, every colour given its lightness's gain)": (_local_contrast(2.0, 8, True), None),
    "an editor's clarity (local contrast on L*, a* and b* kept)": (_local_contrast(2.0, 8, False), None),
}
"""Each change: a function of the RGB pixels, and the JPEG quality it is saved at (None: the photo's own)."""


LOSSLESS = "saved as PNG, not JPEG"
"""The photo's pixels as the renderer's camera left them, saved losslessly: its sensor noise, which a
phone's JPEG (its chroma subsampling) mostly takes out of the colour, is all there."""


def file_format_of(variant: str) -> str:
    """The format a read of ``variant`` is saved in: a scan's as its change says, PNG for
    ``LOSSLESS``, the phone's JPEG otherwise."""
    if variant in SCAN_VARIANTS:
        return SCAN_VARIANTS[variant][1]
    return "png" if variant == LOSSLESS else "jpg"


Ends = Callable[[Sample], tuple[np.ndarray, np.ndarray]]


def _lattice_to_px(sample: Sample) -> np.ndarray:
    """The affine map (2x3) from lattice coordinates to picture pixels that best fits the stations."""
    xy = sample.expected["map_position"]["stations_px"]
    lattice = np.array([[*map(float, name.split(",")), 1.0] for name in xy])
    affine, *_ = np.linalg.lstsq(lattice, np.array(list(xy.values()), np.float64), rcond=None)
    return affine.T


def _pitch(sample: Sample) -> float:
    """The lattice pitch in picture pixels: the length of one lattice step along x in the fit above."""
    return float(np.hypot(*_lattice_to_px(sample)[:, 0]))


def _laid_over(sample: Sample, ends: Ends, rgb: tuple[int, int, int]) -> Sample:
    """The sample with an opaque bar (a pen, a pencil) 0.45 pitch wide between two picture points,
    lit like the paper around it (a pen in the shade of a dim photo is darker than in full light)."""
    pitch = _pitch(sample)
    a, b = ends(sample)
    pages = []
    for page in sample.pages:
        value = page.image.max(axis=2).astype(np.float32)
        light = cv2.GaussianBlur(value, (0, 0), pitch) / float(np.percentile(value, 90))
        mask = np.zeros(value.shape, np.uint8)
        cv2.line(mask, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 255, max(3, int(0.45 * pitch)), cv2.LINE_AA)
        alpha = (mask.astype(np.float32) / 255.0)[..., None]
        lit = np.array(rgb, np.float32) * np.clip(light, 0.0, 1.2)[..., None]
        im = np.clip(page.image * (1.0 - alpha) + lit * alpha, 0, 255).astype(np.uint8)
        # Written upright: the EXIF orientation of a rotated phone photo no longer applies.
        pages.append(dataclasses.replace(page, image=im, stored=im, exif_orientation=1))
    return dataclasses.replace(sample, pages=tuple(pages))


def _line_end(sample: Sample) -> tuple[np.ndarray, np.ndarray]:
    """Station to station over a line's last section (the longest line's)."""
    xy = sample.expected["map_position"]["stations_px"]
    lines = sample.expected["network"]["lines"]
    for colour in sorted(LINE_COLOURS, key=lambda c: -len(lines[c])):
        for s in lines[colour]:
            if any(sum(p in t for t in lines[colour]) == 1 for p in s):
                return np.array(xy[s[0]]), np.array(xy[s[1]])
    return np.array(xy["0,0"]), np.array(xy["9,9"])


def _across(sample: Sample) -> tuple[np.ndarray, np.ndarray]:
    """Four pitches long, somewhere over the map at some angle (drawn from the sheet's seed)."""
    rng = np.random.default_rng(sample.expected["seed"])
    centre = rng.uniform(2.0, 7.0, 2)
    angle = rng.uniform(0, np.pi)
    half = 2.0 * np.array([np.cos(angle), np.sin(angle)])
    affine = _lattice_to_px(sample)
    return affine @ np.array([*(centre - half), 1.0]), affine @ np.array([*(centre + half), 1.0])


def _glare(sample: Sample) -> Sample:
    """Glare over a line's last section: light reflected off the paper (a lamp, a window) adds to the
    picture, most at its centre (1.5 times white, falling off over half a pitch), washing out pencil
    and print alike; its core is clipped white."""
    pitch = _pitch(sample)
    a, b = _line_end(sample)
    cx, cy = (a + b) / 2
    pages = []
    for page in sample.pages:
        h, w = page.image.shape[:2]
        yy, xx = np.ogrid[0:h, 0:w]
        r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (0.5 * pitch) ** 2
        light = (1.5 * 255.0 * np.exp(-r2 / 2.0)).astype(np.float32)
        im = np.clip(page.image.astype(np.float32) + light[..., None], 0, 255).astype(np.uint8)
        pages.append(dataclasses.replace(page, image=im, stored=im, exif_orientation=1))
    return dataclasses.replace(sample, pages=tuple(pages))


ERASED_LEFT = 0.3
"""Share of its pencil that an eraser leaves of a section rubbed out: coloured pencil is wax and does
not come off the paper cleanly. Before the reader checked such smears (8c20413), 0.2 left 1 read of
the 40 wrong without a flag, 0.3 left 5 and 0.4 left 10."""


@cache
def _game_map() -> GameMap:
    """The London map, read once per process."""
    return load_calibration().map


def _erased_section(sample: Sample) -> tuple[Colour, Section] | None:
    """A section leaving a line's end (the longest line's, else the next longest's) to a station no
    line visits, crossing no drawn section: where a player who drew a wrong section would rub it out."""
    game_map = _game_map()
    lines = sample.expected["network"]["lines"]
    drawn = {parse_section_name("-".join(pair)) for colour in LINE_COLOURS for pair in lines[colour]}
    visited = {p for s in drawn for p in (s.a, s.b)}
    for colour in sorted(LINE_COLOURS, key=lambda c: -len(lines[c])):
        stations = [p for pair in lines[colour] for p in pair]
        for end in sorted({parse_station_name(p) for p in stations if stations.count(p) == 1}):
            for s in game_map.sections:
                other = s.b if s.a == end else s.a if s.b == end else None
                if other is not None and other not in visited and not any(sections_cross(s, t) for t in drawn):
                    return colour, s
    return None


def _erased(sample: Sample) -> Sample:
    """A section drawn on from a line's end in that line's pencil, then rubbed out: ``ERASED_LEFT`` of
    its colour stays as a soft smear 0.06 pitch wide, grainy, over the guide. It is not drawn: the
    truth is unchanged."""
    found = _erased_section(sample)
    if found is None:
        return sample
    colour, section = found
    affine = _lattice_to_px(sample)
    pitch = _pitch(sample)
    a, b = (affine @ np.array([*p, 1.0]) for p in (section.a, section.b))
    rng = np.random.default_rng(sample.expected["seed"])
    pencil = np.array(PENCIL_RGB[colour], np.float32) / 255.0
    pages = []
    for page in sample.pages:
        h, w = page.image.shape[:2]
        mask: np.ndarray = np.zeros((h, w), np.float32)
        cv2.line(mask, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 1.0, max(2, int(0.06 * pitch)), cv2.LINE_AA)
        mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, 0.015 * pitch))
        grain = cv2.GaussianBlur(rng.uniform(0.4, 1.0, (h, w)).astype(np.float32), (0, 0), 1.0)
        alpha = (ERASED_LEFT * mask * grain)[..., None]
        # Pigment filters the light the paper reflects: what is left multiplies the picture.
        im = np.clip(page.image * (1.0 - alpha * (1.0 - pencil)), 0, 255).astype(np.uint8)
        pages.append(dataclasses.replace(page, image=im, stored=im, exif_orientation=1))
    return dataclasses.replace(sample, pages=tuple(pages))


def _corner_cut(sample: Sample) -> Sample:
    """The photo cut a pitch and a half inside the map's topmost station: a corner or an edge of the
    map, as it lies in the picture, is out of it (the frame aimed too low)."""
    xy = sample.expected["map_position"]["stations_px"]
    pitch = _pitch(sample)
    top = int(min(y for _, y in xy.values()) + 1.5 * pitch)
    pages = []
    for page in sample.pages:
        im = np.ascontiguousarray(page.image[top:])
        pages.append(dataclasses.replace(page, image=im, stored=im, exif_orientation=1))
    return dataclasses.replace(sample, pages=tuple(pages))


OBJECTS: dict[str, Callable[[Sample], Sample]] = {
    "a pen lying on a line's end": lambda s: _laid_over(s, _line_end, (38, 36, 44)),
    "a green pencil lying across": lambda s: _laid_over(s, _across, (46, 150, 70)),
    "part of the map out of the picture": _corner_cut,
    "glare over a line's end": _glare,
    "a section rubbed out at a line's end": _erased,
}
"""Things left on the sheet, glare, or a map not wholly in the picture: what is not seen must be put
in doubt, never read as blank paper."""


PENCILS: dict[str, str] = {
    "pencils like the printed discs": "discs",
    "violet, cyan, magenta, lime pencils": "violet",
    "plum, ultramarine, salmon, teal pencils": "plum",
}
"""Other pencil sets (``nsvision.render.pencil.PENCIL_SETS``): the same sheet drawn again with them."""

HANDS: dict[str, str] = {"a sloppy hand (strokes bowed three times as far)": "sloppy"}
"""Other hands (``nsvision.render.pencil.HANDS``): the same sheet drawn again, straying further from
the guides."""

READS: tuple[str, ...] = (*VARIANTS, LOSSLESS, *OBJECTS, *PENCILS, *HANDS)
"""Every read of a photo, in the order ``variants`` yields them and the table lists them."""


def _scan_quality(quality: int) -> Callable[[Sample], Sample]:
    """The scan saved at this JPEG ``quality`` (when it is saved as JPEG)."""
    return lambda s: transformed(s, lambda im: im, quality)


def _scan_dpi(dpi: int) -> Callable[[Sample], Sample]:
    """The 300 dpi scan as a scanner set to ``dpi`` saves it: each page shrunk by area averaging."""

    def change(sample: Sample) -> Sample:
        pages = []
        for page in sample.pages:
            f = dpi / (page.dpi or dpi)
            im = cv2.resize(page.image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            pages.append(dataclasses.replace(page, image=im, stored=im, dpi=dpi))
        return dataclasses.replace(sample, pages=tuple(pages))

    return change


def _grain(sigma: float) -> Callable[[Image], Image]:
    """Noise of ``sigma`` levels on every channel of every pixel: a paper's grain, a cheap sensor's
    noise (the same draw for every picture: a change, not a second random sheet)."""

    def change(im: Image) -> Image:
        noise = np.random.default_rng(0).normal(0.0, sigma, im.shape)
        return np.clip(np.rint(im + noise), 0, 255).astype(np.uint8)

    return change


def _faded(saturation: float) -> Callable[[Image], Image]:
    """Every colour's saturation scaled by ``saturation``, its hue and lightness kept."""

    def change(im: Image) -> Image:
        hsv = cv2.cvtColor(im, cv2.COLOR_RGB2HSV).astype(np.float32)
        hsv[..., 1] *= saturation
        return cv2.cvtColor(np.clip(np.rint(hsv), 0, 255).astype(np.uint8), cv2.COLOR_HSV2RGB)

    return change


SCAN_VARIANTS: dict[str, tuple[Callable[[Sample], Sample], str]] = {
    "scan: as rendered (PNG, 300 dpi)": (lambda s: s, "png"),
    "scan: saved as JPEG (quality 85)": (_scan_quality(85), "jpg"),
    "scan: saved as a PDF of JPEG pages": (lambda s: s, "pdf"),
    "scan: at 200 dpi": (_scan_dpi(200), "png"),
    "scan: at 150 dpi": (_scan_dpi(150), "png"),
    "scan: grainy paper (noise of 4 levels)": (lambda s: transformed(s, _grain(4.0)), "png"),
    "scan: faded colours (saturation x 0.7)": (lambda s: transformed(s, _faded(0.7)), "png"),
}
"""Each change to a scan: a function of the rendered sample, and the format it is saved in."""

SCAN_READS: tuple[str, ...] = tuple(SCAN_VARIANTS)
"""Every read of a scan, in the order ``variants`` yields them and the table lists them."""

SCAN_COUNT = 20
"""The README's reads of scans: this many scans of the accuracy set, each read after every change."""


def _spread(mode: str, count: int, seed: int) -> list[Case]:
    """``count`` of the accuracy set's sheets of ``mode``, spread evenly over them in plan order."""
    every = [c for c in plan(accuracy.COUNT, seed) if c.mode == mode]
    count = min(count, len(every))
    return [every[i * len(every) // count] for i in range(count)]


def scans(count: int, seed: int) -> list[Case]:
    """``count`` scans spread evenly over the accuracy set's scans (both styles, across the sweep)."""
    return _spread("scan", count, seed)


def photos(count: int, seed: int) -> list[Case]:
    """``count`` photos spread evenly over the accuracy set's photos (legal and illegal, both styles)."""
    return _spread("photo", count, seed)


def variants(case: Case, only: Sequence[str] = ()) -> Iterator[tuple[str, Sample]]:
    """One photo, rendered once, after every change; then drawn again with each other pencil set and
    each other hand. One scan, rendered once, after every change to a scan (``only``: just the reads
    of those names)."""
    sample = case.sample()
    if case.mode == "scan":
        for name, (change, _fmt) in SCAN_VARIANTS.items():
            if name in (only or SCAN_READS):
                yield name, change(sample)
        return
    wanted = set(only or READS)
    for name, (change, quality) in VARIANTS.items():
        if name in wanted:
            yield name, transformed(sample, change, quality)
    if LOSSLESS in wanted:
        yield LOSSLESS, sample
    for name, lay in OBJECTS.items():
        if name in wanted:
            yield name, lay(sample)
    for name, kind in PENCILS.items():
        if name in wanted:
            yield name, dataclasses.replace(case, pencils=kind).sample()
    for name, kind in HANDS.items():
        if name in wanted:
            yield name, dataclasses.replace(case, hand=kind).sample()


def run_case(case: Case, only: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every read of one photo (see ``variants``)."""
    cv2.setNumThreads(1)
    return [
        {"case": case.__dict__, "variant": name, **read_sample(sample, file_format_of(name))}
        for name, sample in variants(case, only)
    ]


def summarise(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| change | sheets | map found | total exact | all correct | flagged | wrong, not flagged |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in (*READS, *SCAN_READS):
        rs = [r for r in rows if r["variant"] == name]
        if not rs:
            continue
        lines.append(f"| {name} | {len(rs)} | {sum('error' not in r for r in rs)} | {outcome_cells(rs)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=COUNT, help=f"photos, each read after every change (default {COUNT})")
    ap.add_argument(
        "--scans",
        type=int,
        default=SCAN_COUNT,
        help=f"scans, each read after every change to a scan (default {SCAN_COUNT})",
    )
    ap.add_argument(
        "--seed", type=int, default=accuracy.SEED, help=f"first seed of the accuracy set (default {accuracy.SEED})"
    )
    ap.add_argument("--workers", type=int, default=2, help="parallel processes, each single-threaded")
    ap.add_argument("--out", type=Path, default=Path("bench/out/robustness.json"), help="per-read results")
    ap.add_argument(
        "--only", action="append", choices=(*READS, *SCAN_READS), metavar="READ", help="just this read (repeatable)"
    )
    args = ap.parse_args(argv)
    only = args.only or ()
    cases = [c for c in photos(args.count, args.seed) if not only or set(only) & set(READS)]
    cases += [c for c in scans(args.scans, args.seed) if not only or set(only) & set(SCAN_READS)]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = [r for rs in pool.map(run_case, cases, [only] * len(cases)) for r in rs]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1))
    print(summarise(rows))
    wrong_unflagged = [r for r in rows if not r["correct"] and not r["flagged"]]
    for r in wrong_unflagged:
        c = r["case"]
        what = f"{c['style']} seed {c['seed']} strength {c['strength']} {c['violation'] or 'legal'}"
        print(f"WRONG, NOT FLAGGED: {r['variant']}: {what}: read {r.get('total')}, true {r['expected_total']}")
    return 1 if wrong_unflagged else 0


if __name__ == "__main__":
    sys.exit(main())
