"""Pencil evidence: for every potential section, how much of it carries pencil, and of what colour.

Measured on the map straightened to the canonical lattice frame (``vision.straighten``), as the
optical density of thin marks: pencil plus the print's own thin marks, with the print's masks.

Those print marks are masked (``vision.straighten``) where the map data says they are, whatever the
print looks like: each station's radially symmetric ring and halo, the district borders, the
Thames' banks (found as the lines that run alongside the river), dark ink near the symbols. What
the print puts under every section (the guide dashes) is explained away per sample by a
non-negative fit of "print + one pencil", the print's level learnt from the sheet's own undrawn
sections; with a calibrated print, what its blank sheet puts under each sample is taken away too,
whichever leaves less (the blank was scanned or photographed under another light). Within a few
pixels of the Thames band's edge, the paper's print or the band's may be what is seen: the one that
explains more is taken away.

On the Thames band a section's guide is printed over the band, lighter than it: a stroke drawn
along the section lies on it and is partly hidden as lighter than its surround. Deep in the band a
mark's colour is taken from what the sheet's blank guide there (learnt from all its crossings,
``_band_guide``) does not explain. Some prints lay a guide darker than the band (grey dashes on a
pale band): there what that blank guide explains is print too.

Each section is then sampled between the two symbols (following a wobbling stroke sideways), and
its raw measurements are kept: the share marked with pencil-like colour, the longest run, the
strength, the median colour, the share over the Thames, and the marks beside the stroke (where a
second pencil drawn along the same section lies, ``_beside_marks``). Deciding is the rebuild
stage's job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import cv2
import numpy as np

from nsvision.game.board import LINE_COLOURS, Colour, GameMap, Point, Section
from nsvision.vision.channels import channel_min, chroma_density
from nsvision.vision.straighten import (
    BANK_EDGE_SHARE,
    BRIGHTER,
    PX_PER_PITCH,
    Straightened,
    sample_at,
    sample_mask,
)

PENCIL_RGB: dict[Colour, tuple[int, int, int]] = {
    "purple": (112, 62, 142),
    "blue": (45, 110, 200),
    "pink": (222, 82, 142),
    "green": (62, 150, 82),
}
"""Typical coloured-pencil hues on white paper; refined per sheet from what is confidently drawn."""

STROKE_MIN = 0.085
"""Chroma density below which a sample of a phone photo is paper (its OD noise is about 0.03)."""
STROKE_MIN_CLEAN = 0.04
"""The same for the cleanest pictures (flatbed scans, whose noise is ten times lower): a light
stroke there is plainly visible at densities a photo's noise reaches."""
CLEAN_FACTOR = 5.0
"""Between the two, the threshold is this many times the noise of the picture's undrawn sections."""
END_GAP = 0.1
"""Lattice units beyond a symbol's printed radius left unmeasured: a blurred ring's halo is blue-grey."""
DISC_EXTRA = 0.15
"""Extra lattice units left unmeasured next to a departure station's coloured disc."""
END_GAP_NEAR = 0.05
DISC_EXTRA_NEAR = 0.05
"""The same two gaps for a second measure of a section nearer its symbols (see ``measure_sections``)."""
SHORT_VALID = 12
"""A section with fewer valid samples than this (one a pixel) between the default gaps, once
dark print is left out, is measured nearer its symbols too, even over the Thames: between a ring
and a departure disc, or beside a big symbol, the default gaps leave a tenth of a pitch or less."""
OUTSIDE_RIVER_MIN = 8
"""Samples outside the Thames zone that suffice to judge a section without the zone's samples."""
CROSSING_INK = 0.5
"""A crossing partner marked at least this much is taken as drawn when measuring its neighbours."""
CROSSING_SKIP = 0.25
"""Lattice units either side of a crossing point with a drawn section that are not counted."""
CIRCLE_SKIP = 0.12
"""Lattice units either side of a pencil circle's radius left out of a section leaving the circled
station: the stroke's width, its wobble and a circle drawn a little out of round."""
NOISE_FACTOR = 2.5
"""Pencil must be this many times denser in colour than what a typical undrawn section shows."""
FAINT_FRACTION = 0.5
"""Share of the stroke threshold above which a pencil-coloured mark counts as faint pencil."""
HUE_MIN_COS = 0.8
"""A mark whose colour is less similar than this to every pencil hue is not pencil."""
HUE_MIN_COS_RIVER = 0.6
"""The same over the Thames: where the band is dark in a channel, pencil adds little density there
(the picture's black floor), so a stroke's colour is skewed towards the channels the band lets through."""


def pencil_hues(rgb: Mapping[Colour, tuple[int, int, int]] = PENCIL_RGB) -> dict[Colour, np.ndarray]:
    """Unit chroma-density direction of each pencil colour."""
    out: dict[Colour, np.ndarray] = {}
    for c, v in rgb.items():
        od = -np.log(np.clip(np.array(v, dtype=np.float64) / 255.0, 0.02, 1.0))
        ch = chroma_density(od)
        out[c] = ch / np.linalg.norm(ch)
    return out


@dataclass(frozen=True)
class SegmentEvidence:
    """Raw pencil measurements on one potential section (fractions are of the measured samples)."""

    section: Section
    samples: int
    """Number of positions measured along the section, between the two symbols."""
    ink: float
    """Fraction of positions carrying pencil-coloured marks well above the print's own level."""
    run: float
    """Longest unbroken run of such positions, as a fraction of the section."""
    strength: float
    """Mean chroma density of the marked positions (OD units)."""
    chroma: tuple[float, float, float]
    """Unit vector: the median colour (chroma density, R G B) of the marked positions; zero when none."""
    over_river: float = 0.0
    """Share of the measured positions that lie over the Thames, where colours are less certain."""
    span: float = 0.0
    """Share of the section between its first and last marked position (a faded stroke keeps its ends)."""
    faint: float = 0.0
    """Fraction of positions carrying pencil-coloured marks at ``FAINT_FRACTION`` of the threshold: a
    light stroke that a photo's noise hides from ``ink`` still shows here, all along the section."""
    hidden: float = 0.0
    """Share of the judged positions in a long stretch where neither the printed guide nor pencil
    shows: something lies over the map there (a pencil, a pen, a finger) or glare washes it out, see
    ``HIDDEN_FRACTION``."""
    short: bool = False
    """Fewer than ``SHORT_VALID`` positions lie between the default gaps (a short section between
    large symbols): measured nearer those symbols as well, where their edges lie, it has too few
    positions of its own to trust a piece cut off from its line, however marked."""
    beside: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)), compare=False, repr=False)
    """(k, 3): the chroma density of each pencil-like mark at or above the stroke threshold lying
    beside the stroke, apart from it across the section (``_beside_marks``), one at most per
    measured position. A second pencil drawn along the same section leaves such marks all along it;
    one pencil leaves lighter ones here and there (its grain, a colour fringe at its edge)."""

    clear_chroma: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Where the reading nearer the symbols is kept (``short``, or more of the section marked there),
    the colour of the marks clear of them, as ``chroma``, if ``CLEAR_COLOUR_MARKS`` lie there; zero
    otherwise. Nearer the symbols their colour is in the measure: `unseen` scan 76077 read a light
    purple stroke running into a blue departure disc as pink, where clear of the disc it is purple."""

    specks: tuple[float, ...] = ()
    """On a clean picture (``SPECK_NOISE_MAX``), per pencil in the order of ``LINE_COLOURS``, the
    share of the section's positions with a speck of that pencil at the picture's own resolution
    (``vision.specks``): a stroke too light to leave a mark at the reader's resolution leaves them.
    Empty where not measured (a photo, a section too short)."""

    median_mark: tuple[float, ...] = ()
    """Per pencil in the order of ``LINE_COLOURS``, the median over the measured positions of the
    mark left once the print is explained away, projected on that pencil's hue (chroma OD). A light
    stroke drawn all along a section raises it even where no single position reaches the faint
    threshold; a blank section, its marks here and there, keeps it near the sheet's noise. Compared
    with the sheet's blank sections by the rebuild. Empty when nothing is measured."""

    def to_dict(self) -> dict[str, object]:
        return {
            "section": self.section.name,
            "samples": self.samples,
            "ink": round(self.ink, 3),
            "run": round(self.run, 3),
            "strength": round(self.strength, 3),
            "chroma": [round(v, 3) for v in self.chroma],
            "over_river": round(self.over_river, 3),
            "span": round(self.span, 3),
            "faint": round(self.faint, 3),
            "hidden": round(self.hidden, 3),
            "short": self.short,
            "beside": len(self.beside),
            "clear_chroma": [round(v, 3) for v in self.clear_chroma],
            **({"specks": [round(v, 3) for v in self.specks]} if self.specks else {}),
            "median_mark": [round(v, 4) for v in self.median_mark],
        }


@dataclass(frozen=True)
class _Profiles:
    """On-line chroma density per section, as (samples, 3) arrays, and which samples count."""

    delta: dict[Section, np.ndarray]
    valid: dict[Section, np.ndarray]
    river: dict[Section, np.ndarray]
    """Per sample: inside the Thames zone, where the print under a section differs from plain paper."""
    along: dict[Section, np.ndarray]
    """Per sample: lattice units from the section's first station."""
    printed: dict[Section, np.ndarray] | None = None
    """Per sample: the calibrated blank's chroma density at the same place, when there is a blank."""
    colour_shift: dict[Section, np.ndarray] | None = None
    """Per sample: what the density lost to a clipped paper channel adds to the mark's chroma."""
    band_colour: dict[Section, np.ndarray] | None = None
    """Per sample deep in the Thames band: the chroma density of what the print there does not
    explain (``_band_guide``), the colour a stroke on the band's printed guide really has; NaN
    elsewhere."""
    presence: dict[Section, np.ndarray] | None = None
    """Per sample: the densest mark of any colour, grey included, across the section, averaged over
    ``HIDDEN_WINDOW`` (the printed guide's dashes, or pencil, show here wherever the map is seen);
    0 where nothing of the map can show, NaN where it is not judged (see ``_hidden_shares``)."""
    band_edge: dict[Section, np.ndarray] | None = None
    """Per sample: in the Thames zone but within ``BAND_DEEP`` of the band's edge, where the guide
    printed on the paper beside the band may still be what is seen."""
    beside: dict[Section, np.ndarray] | None = None
    """Per sample: the mark beside the stroke least like it, apart from it across the section (see
    ``_beside_marks``); zero where there is none."""
    clipped: dict[Section, np.ndarray] | None = None
    """Per sample: on paper clipped in some channel (``Straightened.clipped``)."""
    grey: dict[Section, np.ndarray] | None = None
    """Per sample: the grey part (the least channel) of the density at the densest offset, whose
    chroma ``delta`` holds: a printed guide's dash is far greyer than its gaps."""
    under_dark_guide: dict[Section, np.ndarray] | None = None
    """Per sample whose search across the section lies wholly deep in a Thames band whose blank
    guide is not lighter than the band (``_band_guide``): the chroma density of what that guide
    does not explain; NaN elsewhere. ``None`` on other prints."""
    paper_edge: dict[Section, np.ndarray] | None = None
    """Per sample at the band's edge (``band_edge``): the mark as ``delta`` measures it there, against
    the surround of ``Straightened.paper_side``; NaN elsewhere. ``None`` where that is not known."""
    partial_guide: dict[Section, np.ndarray] | None = None
    """Per section whose search across it, deep in the Thames band, sees the band's light guide
    somewhere: ``delta`` with the part of the guide missing at those samples (a dash's end, a gap)
    added back before the mark is taken (``_partial_guide_added``)."""
    bank_edge: dict[Section, np.ndarray] | None = None
    """Per sample at the band's edge (``band_edge``) whose centre lies in the fringe of the print's
    banks (``Straightened.bank_fringe``); ``None`` on a print without banks."""
    paper_alone: dict[Section, np.ndarray] | None = None
    """Per sample on the paper beside the Thames band: the mark ``delta`` takes (the same offset across
    the section), measured against the paper alone (``Straightened.paper_alone``); NaN elsewhere.
    ``None`` where that is not known."""


def _sample_positions(
    straight: Straightened, game_map: GameMap, radius: float, end_gap: float, disc_extra: float
) -> dict[Section, np.ndarray]:
    """Per section, pixel distances from its first station where it is sampled, a pixel apart,
    clear of the symbols at both ends by ``end_gap`` (and ``disc_extra`` more at a departure
    station: a disc of printed pencil colour, whose blurred edge must not count)."""
    ppp = straight.px_per_pitch
    out: dict[Section, np.ndarray] = {}
    for s in game_map.sections:
        length = float(np.linalg.norm(np.subtract(straight.lattice_to_px(*s.b), straight.lattice_to_px(*s.a))))
        gap_a = (radius + end_gap + (disc_extra if game_map.station(s.a).departure else 0.0)) * ppp
        gap_b = (radius + end_gap + (disc_extra if game_map.station(s.b).departure else 0.0)) * ppp
        t = np.arange(gap_a, length - gap_b, 1.0)
        out[s] = t if len(t) >= 4 else np.linspace(length * 0.4, length * 0.6, 4)
    return out


def _points_across(straight: Straightened, s: Section, t: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(len(t), len(offsets), 2) pixel points of section ``s``: ``t`` pixels along it from its first
    station, each at ``offsets`` (lattice units) across it."""
    a = np.array(straight.lattice_to_px(*s.a))
    b = np.array(straight.lattice_to_px(*s.b))
    d = (b - a) / float(np.linalg.norm(b - a))
    return (a + t[:, None] * d)[:, None, :] + (offsets[:, None] * straight.px_per_pitch) * np.array([-d[1], d[0]])


class _Across(NamedTuple):
    """One section's samples: at each position along it (``n_t``), ``OFFSETS_ACROSS`` across it.

    Images the straightened sheet lacks are ``None``; masks it lacks are all False."""

    density: np.ndarray
    """(n_t, n_off, 3): ``Straightened.density``."""
    skip: np.ndarray
    """(n_t, n_off): masked print (``Straightened.ignore``)."""
    on_band: np.ndarray
    """(n_t, n_off): in the Thames zone."""
    deep: np.ndarray
    """(n_t, n_off): deep in the band (``_deep_in_band``), not masked."""
    on_clipped: np.ndarray
    """(n_t,) at the centre line: on clipped paper (``Straightened.clipped``)."""
    near_bank: np.ndarray
    """(n_t,) at the centre line: in the fringe of the print's banks."""
    unsure: np.ndarray
    """(n_t,) at the centre line: where a blank guide need not show (``Straightened.guide_unsure``)."""
    covered: np.ndarray
    """(n_t,) at the centre line: a surround too dark to be paper (``Straightened.too_dark``)."""
    beyond: np.ndarray
    """(n_t,) at the centre line: beyond the picture (``Straightened.outside``)."""
    blank: np.ndarray | None
    """(n_t, n_off, 3): the calibrated blank's density (``Straightened.print_density``)."""
    paper_side: np.ndarray | None
    """(n_t, n_off, 3): ``Straightened.paper_side``."""
    paper_alone: np.ndarray | None
    """(n_t, n_off, 3): ``Straightened.paper_alone``."""
    lost: np.ndarray | None
    """(n_t, n_off, 3): what a clipped channel lost (``Straightened.clip_extra``)."""


class _OneProfile(NamedTuple):
    """One section's share of ``_Profiles`` (``None``: the section has no entry there)."""

    delta: np.ndarray
    valid: np.ndarray
    river: np.ndarray
    clipped: np.ndarray
    grey: np.ndarray
    presence: np.ndarray
    band_edge: np.ndarray
    bank_edge: np.ndarray
    printed: np.ndarray | None
    colour_shift: np.ndarray | None
    band_colour: np.ndarray | None
    under_dark_guide: np.ndarray | None
    paper_edge: np.ndarray | None
    partial_guide: np.ndarray | None
    paper_alone: np.ndarray | None


OFFSETS_ACROSS = np.linspace(-0.1, 0.1, 9)
"""Lattice units across a section at which each position is sampled: a wobbling stroke is not
always on the centre line, and the densest of these is taken as the mark."""


def _section_profiles(straight: Straightened, positions: Mapping[Section, np.ndarray]) -> _Profiles:
    """The profiles of some sections, sampled at ``positions`` (see ``_sample_positions``)."""
    if not positions:
        return _Profiles({}, {}, {}, {})
    across, guide = _samples_across(straight, positions)
    n_off = len(OFFSETS_ACROSS)
    # The blank guide on the band, at the section's centre line, no lighter than the band in any
    # channel (by more than ``BRIGHTER``): grey dashes printed on a pale band.
    dark_guide = guide is not None and float(guide[n_off // 2].min()) >= BRIGHTER
    one = {s: _profile_one(a, guide, dark_guide) for s, a in across.items()}

    def kept(name: str) -> dict[Section, np.ndarray]:
        """The sections' entries of one field, those without one left out."""
        return {s: getattr(p, name) for s, p in one.items() if getattr(p, name) is not None}

    return _Profiles(
        kept("delta"),
        kept("valid"),
        kept("river"),
        {s: t / straight.px_per_pitch for s, t in positions.items()},
        kept("printed") if straight.print_density is not None else None,
        kept("colour_shift") if straight.clip_extra is not None else None,
        kept("band_colour"),
        kept("presence"),
        kept("band_edge"),
        _beside_marks(straight, positions),
        kept("clipped"),
        kept("grey"),
        kept("under_dark_guide") if dark_guide else None,
        kept("paper_edge") if straight.paper_side is not None else None,
        kept("partial_guide"),
        kept("bank_edge") if straight.bank_fringe is not None else None,
        kept("paper_alone") if straight.paper_alone is not None else None,
    )


def _samples_across(
    straight: Straightened, positions: Mapping[Section, np.ndarray]
) -> tuple[dict[Section, _Across], np.ndarray | None]:
    """Per section, the straightened sheet's images sampled at ``positions`` (pixels along it from its
    first station), each at ``OFFSETS_ACROSS``; every image is sampled at once, all sections together.
    With them, the band's blank guide learnt from all those samples (``_band_guide``)."""
    n_off = len(OFFSETS_ACROSS)
    centre = n_off // 2
    points = [_points_across(straight, s, t, OFFSETS_ACROSS) for s, t in positions.items()]
    xs = np.concatenate([p[..., 0].ravel() for p in points])
    ys = np.concatenate([p[..., 1].ravel() for p in points])

    def image(img: np.ndarray | None) -> np.ndarray | None:
        return sample_at(img, xs, ys) if img is not None else None

    density = sample_at(straight.density, xs, ys)
    blank, paper_side = image(straight.print_density), image(straight.paper_side)
    paper_alone, lost = image(straight.paper_alone), image(straight.clip_extra)
    ignored = sample_mask(straight.ignore, xs, ys)
    masks = {
        "on_band": sample_mask(straight.river, xs, ys),
        "deep": sample_mask(_deep_in_band(straight.river), xs, ys) & ~ignored,
        "on_clipped": sample_mask(straight.clipped, xs, ys),
        "near_bank": sample_mask(straight.bank_fringe, xs, ys),
        "unsure": sample_mask(straight.guide_unsure, xs, ys),
        "covered": sample_mask(straight.too_dark, xs, ys),
        "beyond": sample_mask(straight.outside, xs, ys),
    }
    across_only = {"on_band", "deep"}
    out: dict[Section, _Across] = {}
    pos = 0
    for s, t in positions.items():
        here, shape = slice(pos, pos + len(t) * n_off), (len(t), n_off, 3)
        pos += len(t) * n_off
        cut = {k: m[here].reshape(shape[:2]) for k, m in masks.items()}
        out[s] = _Across(
            density=density[here].reshape(shape),
            skip=ignored[here].reshape(shape[:2]),
            **{k: m if k in across_only else m[:, centre] for k, m in cut.items()},
            blank=None if blank is None else blank[here].reshape(shape),
            paper_side=None if paper_side is None else paper_side[here].reshape(shape),
            paper_alone=None if paper_alone is None else paper_alone[here].reshape(shape),
            lost=None if lost is None else lost[here].reshape(shape),
        )
    return out, _band_guide(density, masks["deep"], n_off)


def _profile_one(a: _Across, guide: np.ndarray | None, dark_guide: bool) -> _OneProfile:
    """One section's profile from its samples across it, ``guide`` the band's blank guide
    (``_band_guide``) and ``dark_guide`` whether it is no lighter than the band."""
    n_t, n_off = a.skip.shape
    centre = n_off // 2
    rows = np.arange(n_t)
    river = a.on_band[:, centre]
    ok = ~a.skip[:, centre]
    lighter = channel_min(a.density) < BRIGHTER
    # A sample on paper does not take its colour from the band beside it: where a section runs
    # close alongside the Thames, the band's edge (teal, blue) is within the stroke search.
    left_out = a.skip | lighter | (a.on_band & ~river[:, None])
    chroma = np.where(left_out[..., None], 0.0, chroma_density(np.clip(a.density, 0.0, None)))
    # The densest offset inside the band: a wobbling stroke is not always on the centre line.
    pick = np.argmax(chroma.sum(axis=2), axis=1)
    picked = chroma[rows, pick]
    if river.any():
        # Over the Thames a guide printed on the band is lighter than the band, mostly in the
        # channels the band absorbs: pencil over the guide loses that part of its colour, pencil
        # beside it keeps it. Across the stroke, each channel's densest sample is the pencil's.
        picked = np.where(river[:, None], chroma_density(_densest_channels(a.density, a.skip)), picked)
    band_edge = river & ~a.deep[:, centre]
    at_pick = np.clip(a.density[rows, pick], 0.0, None)
    densest = np.where(a.skip[rows, pick], 0.0, channel_min(at_pick))
    on_band = _on_band_guide(a, guide, lighter, picked)
    band_colour = under_dark = None
    if on_band is not None:
        picked = on_band.picked
        rest_chroma = chroma_density(np.clip(on_band.rest, 0.0, None))
        colour = _smooth_along(rest_chroma, a.deep[:, centre])
        band_colour = np.where(a.deep[:, centre, None], colour, np.nan)
        if dark_guide:
            # Such a guide is a mark in the densest channels across a section, and the print's
            # level (``_zone_levels``), learnt from dashes and gaps alike, leaves its densest
            # dashes standing as faint pencil; the blank guide, learnt dash and gap together
            # across the sheet's crossings, explains them (``measure_sections``).
            wholly = a.deep.all(axis=1) & ok
            under_dark = np.where(wholly[:, None], _smooth_along(rest_chroma, wholly), np.nan)
    return _OneProfile(
        delta=_smooth_along(picked, ok),
        valid=ok,
        river=river,
        clipped=a.on_clipped & ~river,
        grey=_smooth_along(densest[:, None], ok)[:, 0],
        presence=_presence(a, ok),
        band_edge=band_edge,
        bank_edge=band_edge & a.near_bank,
        printed=(_smooth_along(chroma_density(a.blank)[rows, pick], ok) if a.blank is not None else None),
        colour_shift=_clip_shift(a, pick, picked, river, ok),
        band_colour=band_colour,
        under_dark_guide=under_dark,
        paper_edge=_paper_edge_marks(a, band_edge, ok),
        partial_guide=(
            _smooth_along(on_band.partial, ok) if on_band is not None and on_band.partial is not None else None
        ),
        paper_alone=_paper_alone_marks(a, pick, left_out, river, ok),
    )


class _OnBandGuide(NamedTuple):
    rest: np.ndarray
    """(n_t, 3): what the band's blank guide does not explain, summed across the section."""
    picked: np.ndarray
    """(n_t, 3): the mark taken, where the search across the section sees the band's light guide."""
    partial: np.ndarray | None
    """(n_t, 3): the same with the part of the guide missing at a dash's end added back, where the
    light guide is seen anywhere; ``None`` where it is not."""


def _on_band_guide(
    a: _Across, guide: np.ndarray | None, lighter: np.ndarray, picked: np.ndarray
) -> _OnBandGuide | None:
    """Deep in the Thames band, the marks as the band's blank guide (``_band_guide``) leaves them;
    ``None`` where the section is nowhere deep in the band or the guide is not known."""
    centre = a.skip.shape[1] // 2
    if guide is None or not a.deep[:, centre].any():
        return None
    deep = a.deep
    rest = np.where(deep[..., None], a.density - guide[None], 0.0).sum(axis=1) / BAND_STROKE_WIDTH
    # Where the search across the section, wholly deep in the band, sees something lighter
    # than the band, that is its light guide: pencil on it is what the guide does not
    # explain (left out as lighter, the stroke there went unseen). Not where some channel is
    # lighter than even the blank guide: another guide crosses this one there.
    on_guide = (lighter & ~a.skip).any(axis=1) & deep.all(axis=1)
    crossed = (rest.min(axis=1) < BRIGHTER)[:, None]
    unexplained = np.where(crossed, 0.0, np.clip(rest, 0.0, None))
    picked = np.where(on_guide[:, None], chroma_density(unexplained), picked)
    partial = None
    if on_guide.any():
        # The same with the part of the guide missing at a dash's end added back.
        whole = np.where(deep[..., None], guide[None], 0.0).sum(axis=1) / BAND_STROKE_WIDTH
        fuller = np.where(crossed, 0.0, np.clip(_partial_guide_added(rest, whole), 0.0, None))
        partial = np.where(on_guide[:, None], chroma_density(fuller), picked)
    return _OnBandGuide(rest, picked, partial)


def _paper_edge_marks(a: _Across, band_edge: np.ndarray, ok: np.ndarray) -> np.ndarray | None:
    """At the band's edge, the densest channels across the section against the paper's own surround
    (``Straightened.paper_side``); NaN elsewhere, ``None`` where the section has no such positions."""
    if a.paper_side is None or not band_edge.any():
        return None
    edge_marks = _smooth_along(chroma_density(_densest_channels(a.paper_side, a.skip)), ok)
    return np.where(band_edge[:, None], edge_marks, np.nan)


def _paper_alone_marks(
    a: _Across, pick: np.ndarray, left_out: np.ndarray, river: np.ndarray, ok: np.ndarray
) -> np.ndarray | None:
    """On the paper beside the band, the mark at the offset picked measured against the paper alone
    (the median there takes in the band and its banks: ``paper_alone_density``); NaN elsewhere,
    ``None`` where the section has no such positions."""
    if a.paper_alone is None:
        return None
    rows = np.arange(len(pick))
    alone = a.paper_alone[rows, pick]
    there = ~np.isnan(alone).any(axis=1) & ~river & ok
    if not there.any():
        return None
    dropped = left_out[rows, pick] | ~there
    alone = np.where(dropped[:, None], 0.0, chroma_density(np.clip(np.nan_to_num(alone), 0.0, None)))
    return np.where(there[:, None], _smooth_along(alone, there), np.nan)


def _clip_shift(
    a: _Across, pick: np.ndarray, picked: np.ndarray, river: np.ndarray, ok: np.ndarray
) -> np.ndarray | None:
    """What the density a clipped paper channel lost adds to the picked mark's chroma (zero over the
    river and where nothing is picked); ``None`` where the sheet lost nothing to clipping."""
    if a.lost is None:
        return None
    rows = np.arange(len(pick))
    raw = np.clip(a.density[rows, pick], 0.0, None)
    shift = chroma_density(raw + a.lost[rows, pick]) - chroma_density(raw)
    shift[river | ~picked.any(axis=1)] = 0.0
    return _smooth_along(shift, ok)


def _presence(a: _Across, ok: np.ndarray) -> np.ndarray:
    """``_Profiles.presence`` of one section."""
    # A guide printed on the Thames band is lighter than the band: any departure, either way, is a mark.
    seen = np.abs(a.density).max(axis=(1, 2))[:, None]
    seen_here = _smooth_along(seen, ok, HIDDEN_WINDOW_SAMPLES)[:, 0]
    # Where a blank guide need not show, its absence says nothing: those positions are not judged;
    # where the surround is too dark to be paper, or beyond the picture, nothing of the map shows
    # whatever the marks say. NaN: not judged (masked print, and the above).
    seen_here[a.unsure] = np.nan
    seen_here[a.covered | a.beyond] = 0.0
    seen_here[~ok & ~a.beyond] = np.nan
    return seen_here


PARTIAL_GUIDE_MIN = 0.02
"""Least density (summed across a section, as ``_band_guide``'s rest) by which the band's blank
guide differs from the band in a channel for that channel to tell how much of the guide is missing."""


def _partial_guide_added(rest: np.ndarray, guide: np.ndarray) -> np.ndarray:
    """``rest`` (what the band's blank guide ``guide`` does not explain, per sample, both summed across
    the section) with the part of the guide missing there added back.

    At a dash's end, or in a gap between two dashes, only part of the guide is printed: taken away
    whole, the guide leaves the band's own colour, a mark. Pencil adds density in every channel, so
    where the blank guide is denser than the band in some channel and ``rest`` is lighter there, that
    much of the guide is missing, not pencil: that share (the largest over those channels) is added
    back, and what pencil is there stays. No more than the channels in which the guide is lighter
    than the band show in excess: a missing guide leaves the band in all of them, and where they do
    not show it the deficit is the guide's blur or place on this sheet, not a dash's end."""
    darker = guide >= PARTIAL_GUIDE_MIN
    lighter = guide <= -PARTIAL_GUIDE_MIN
    share = -rest / np.where(darker | lighter, guide, 1.0)  # of the guide missing, as each channel tells
    missing = np.where(darker, share, 0.0).max(axis=1)
    shown = np.where(lighter, share, np.inf).min(axis=1)
    return rest + np.clip(np.minimum(missing, shown), 0.0, 1.0)[:, None] * guide


def _densest_channels(block: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """Per sampled position ((n, offsets, 3) ``block``), each channel's densest value across the
    section, leaving out masked offsets (``skip``) and those lighter than their surround in some
    channel (``BRIGHTER``)."""
    off = skip | (channel_min(block) < BRIGHTER)
    return np.where(off[..., None], 0.0, np.clip(block, 0.0, None)).max(axis=1)


BESIDE_REACH = 0.15
"""Lattice units either side of a section searched for a second stroke beside the first: two
pencils drawn along one section wander apart by up to a stroke's wobble and bow each."""
BESIDE_STEPS = 13
"""Offsets across the section in that search (2 px apart at the canonical resolution)."""
BESIDE_APART = 2
"""Offsets between the densest mark across the section and a mark beside it: nearer, it is the
stroke's own edge (or its colour fringe in a JPEG's halved chroma resolution). Two pencils on one
section mostly lie side by side, touching: the second shows from here."""


def _beside_marks(straight: Straightened, positions: Mapping[Section, np.ndarray]) -> dict[Section, np.ndarray]:
    """Per section and sampled position, the mark beside the stroke least like it: across the
    section, at least ``BESIDE_APART`` offsets from the densest mark there, the one whose colour has
    the most chroma density away from the densest mark's hue (a second pencil's, where there is one;
    otherwise the stroke's own spread or the paper). Zero where there is none, over the Thames band,
    on dark print and where a sample is lighter than its surround (a printed guide's gap)."""
    across = np.linspace(-BESIDE_REACH, BESIDE_REACH, BESIDE_STEPS)
    coords = [_points_across(straight, s, t, across).reshape(-1, 2) for s, t in positions.items()]
    if not coords:
        return {}
    pts = np.concatenate(coords)
    block = sample_at(straight.density, pts[:, 0], pts[:, 1])
    lowest = np.minimum(np.minimum(block[:, 0], block[:, 1]), block[:, 2])
    skip = sample_mask(straight.ignore, pts[:, 0], pts[:, 1]) | sample_mask(straight.river, pts[:, 0], pts[:, 1])
    skip |= lowest < BRIGHTER
    # ``_chroma`` of the clipped density, the grey part taken once for all three channels.
    chroma = np.clip(block, 0.0, None) - np.clip(lowest, 0.0, None)[:, None]
    chroma[skip] = 0.0
    chroma = chroma.reshape(-1, BESIDE_STEPS, 3)
    mag = np.sqrt(np.einsum("noc,noc->no", chroma, chroma))
    rows = np.arange(len(chroma))
    pick = np.argmax(mag, axis=1)
    unit = chroma[rows, pick] / np.maximum(mag[rows, pick], 1e-9)[:, None]
    away = np.linalg.norm(chroma - np.einsum("noc,nc->no", chroma, unit)[..., None] * unit[:, None, :], axis=2)
    apart = np.abs(np.arange(BESIDE_STEPS)[None, :] - pick[:, None]) >= BESIDE_APART
    best = np.argmax(np.where(apart, away, -1.0), axis=1)
    marks = np.where((away[rows, best] > 0)[:, None], chroma[rows, best], 0.0)
    ends = np.cumsum([len(t) for t in positions.values()])
    return dict(zip(positions, np.split(marks, ends[:-1]), strict=True))


BAND_DEEP = 4
"""Pixels inside the Thames band's edge from which a sample is deep in the band: nearer, the
band's blurred edge and its bends leave marks in the surround a mark is measured against."""

BAND_STROKE_WIDTH = 2.5
"""Samples across a section (2 px apart) that a stroke covers: what the guide does not explain,
summed across the section, over this is about the stroke's density."""

BAND_GUIDE_MIN = 200
"""Fewest samples deep in the band, at one offset across the sections, to learn the print there."""


def _deep_in_band(river: np.ndarray) -> np.ndarray:
    """The Thames band found in the picture, less ``BAND_DEEP`` pixels at its edge."""
    size = 2 * BAND_DEEP + 1
    return cv2.erode(river.astype(np.uint8), np.ones((size, size), np.uint8)).astype(bool)


def _band_guide(sampled: np.ndarray, inside: np.ndarray, n_off: int) -> np.ndarray | None:
    """What the print puts under a section deep in the Thames band, at each offset across it.

    A section crosses the band along its printed guide, and the guide is printed over the band:
    lighter than the band in the channels the band absorbs, and sometimes darker in the others. A
    stroke drawn along the section lies on it, so the stroke's colour is the guide's added to the
    pencil's. Most crossings are not drawn: per offset across the section, the median over every
    sample deep in the band is the blank guide seen there, blur and all. Subtracted offset by
    offset and summed across the section, what is left does not depend on where exactly the guide
    falls between two offsets. What is left is a mark's colour there, and where the search across
    a section sees the light guide, it is the mark itself; under a guide darker than the band, the
    mark is no more than what is left. ``None`` when too few samples lie deep in the band (no band
    found).
    """
    block = sampled.reshape(-1, n_off, 3)
    deep = inside.reshape(-1, n_off)
    if (deep.sum(axis=0) < BAND_GUIDE_MIN).any():
        return None
    return np.stack([np.median(block[deep[:, o], o], axis=0) for o in range(n_off)]).astype(np.float32)


SMOOTH = 0.1
"""Lattice units averaged along a section: pencil grain leaves small gaps that are not gaps in the line."""


SMOOTH_SAMPLES = max(3, round(SMOOTH * PX_PER_PITCH) | 1)

HIDDEN_WINDOW = 0.3
"""Lattice units over which marks are averaged to tell whether the map is seen at all: longer than a
guide's dash and the gap after it, so a blank guide always shows."""

HIDDEN_WINDOW_SAMPLES = round(HIDDEN_WINDOW * PX_PER_PITCH) | 1

HIDDEN_FRACTION = 0.15
"""A stretch on paper whose marks stay under this share of the sheet's typical blank guide shows
neither print nor pencil: something opaque lies over the map, or that part is out of the picture.
Light and shadow leave a guide's density (a ratio to its surroundings) as it is, blur lowers it
(the faintest blank guides of blurred photos measured: a fifth of the sheet's typical one); a pen
or a pencil lying on the sheet leaves 0.01–0.07 of it, and nothing of the pencil under it; glare
(light reflected off the sheet) washes both out where it clips the paper white. In the Thames zone a
print may lay its band over the guides (a grey print does): positions there are judged only where
the zone is washed out white."""

HIDDEN_RUN = 0.3
"""Lattice units such a stretch must run for (a section shorter than that: ``HIDDEN_RUN_SHARE`` of it)."""

HIDDEN_RUN_SHARE = 0.8
"""Share of a short section's positions on paper that must be hidden in one stretch."""

HIDDEN_MIN_SAMPLES = 6
"""Fewest positions of such a stretch: fewer (between a district border and a big symbol) are too
few to tell, a single guide dash may fall in a mask there."""

HIDDEN_MIN_LEVEL = 0.03
"""Typical blank-guide density (OD) under which a print's guides are too faint to see the map by them."""


def _smooth_along(values: np.ndarray, ok: np.ndarray, window: int = SMOOTH_SAMPLES) -> np.ndarray:
    """Moving average of ``values`` over the valid samples only (invalid ones neither give nor take)."""
    # np.convolve's "same" output is as long as the longer input: never let the window outgrow the data.
    w = np.ones(max(1, min(window, len(values) - 1 + len(values) % 2)), np.float32)
    weights = np.convolve(ok.astype(np.float32), w, mode="same")
    sums = np.stack([np.convolve(values[:, k] * ok, w, mode="same") for k in range(values.shape[1])], axis=1)
    return (sums / np.maximum(weights, 1.0)[:, None]).astype(np.float32)


def _longest_run(mask: np.ndarray) -> int:
    best = cur = 0
    for v in mask:
        cur = cur + 1 if v else 0
        best = max(best, cur)
    return best


LEVEL_FIT_MIN = 30
"""Fewest undrawn-looking sections on paper to fit the print's level across the sheet."""

LEVEL_OUTLIER = 2.0
"""A section whose level is further than this many typical levels from the sheet's is not print, at
first (the fit's seed; the fit itself then keeps what it explains). A light from one side tints the
guides there well away from the sheet's median: at 1.5 the seed left most of a warm side out, the
fit never learnt its tint, and every blank guide there read as light pencil."""

LEVEL_RESIDUAL = 3.0
"""Refitting drops sections further from the fit than this many median residuals (pencil)."""


def _level_terms(mids: np.ndarray) -> np.ndarray:
    """Quadratic terms of the lattice position (centred, scaled to about ±1) for the level's fit."""
    centre = (mids.max(axis=0) + mids.min(axis=0)) / 2
    half = np.maximum((mids.max(axis=0) - mids.min(axis=0)) / 2, 1e-9)
    x, y = ((mids - centre) / half).T
    return np.column_stack([np.ones(len(mids)), x, y, x * x, y * y, x * y])


def _level_fit(terms: np.ndarray, vals: np.ndarray) -> np.ndarray | None:
    """Per channel, least squares of the level on ``terms`` over the sections that look like print.

    Drawn sections are outliers: first those far from the sheet's median level, then those far
    from the fit. ``None`` when too few sections remain to trust a fit.
    """
    typical = float(np.median(np.linalg.norm(vals, axis=1)))
    keep = np.linalg.norm(vals - np.median(vals, axis=0), axis=1) <= LEVEL_OUTLIER * typical
    coef = None
    for _ in range(3):
        if keep.sum() < LEVEL_FIT_MIN:
            break
        coef, *_ = np.linalg.lstsq(terms[keep], vals[keep], rcond=None)
        resid = np.linalg.norm(vals - terms @ coef, axis=1)
        keep = resid <= max(LEVEL_RESIDUAL * float(np.median(resid[keep])), 1e-6)
    return coef


CLIPPED_ZONE_MIN = 8
"""Fewest sections lying mostly on paper clipped in some channel, and as many mostly on unclipped
paper, for the clipped paper's print to get a level of its own."""


CLIPPED_REACH = 1.0
"""Lattice units (midpoint to midpoint) within which the sections measured on clipped paper tell a
section's print level there, when at least ``CLIPPED_NEAR_MIN`` lie so near..."""
CLIPPED_NEAR_MIN = 3
CLIPPED_NEIGHBOURS = 9
"""... else the ``CLIPPED_NEIGHBOURS`` nearest do."""


def _nearby_level(mids: np.ndarray, at: np.ndarray, vals: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Per section (midpoints ``mids``), the median print level of the sections measured on clipped
    paper near it (midpoints ``at``, levels ``vals``, indices ``own`` into ``mids``; see
    ``CLIPPED_REACH``), itself left out.

    How much of a channel the camera clips grows with the light, so the guides on clipped paper are
    not all alike: the median of them all took a strongly tinted guide away under a light pink
    stroke where the guides beside it are nearly grey (`cream` photo 5015 read its pink 4,4-5,4
    purple, without doubt). Sections whose level is far from that median (``LEVEL_OUTLIER``) are
    pencil, not print, and left out: where several lines meet, most of a section's neighbours are
    drawn."""
    typical = float(np.median(np.linalg.norm(vals, axis=1)))
    keep = np.linalg.norm(vals - np.median(vals, axis=0), axis=1) <= LEVEL_OUTLIER * typical
    if keep.sum() < CLIPPED_NEAR_MIN:
        return np.broadcast_to(np.median(vals, axis=0), (len(mids), vals.shape[1])).copy()
    out = np.empty((len(mids), vals.shape[1]))
    for k, m in enumerate(mids):
        dist = np.where(keep & (own != k), np.linalg.norm(at - m, axis=1), np.inf)
        order = np.argsort(dist)[: int(np.isfinite(dist).sum())]
        close = order[dist[order] <= CLIPPED_REACH]
        out[k] = np.median(vals[close if len(close) >= CLIPPED_NEAR_MIN else order[:CLIPPED_NEIGHBOURS]], axis=0)
    return out


class _ZoneLevel(NamedTuple):
    """One section's print levels (chroma vectors), by where a sample lies (``_zone_levels``)."""

    paper: np.ndarray
    river: np.ndarray
    """In the Thames zone."""
    clipped: np.ndarray
    """On paper the camera clipped in some channel: the clipped paper's median."""
    clipped_nearby: np.ndarray
    """The same from the clipped paper's sections nearest this one (``_nearby_level``): what a
    mark's colour there is measured against."""


def _zone_levels(profiles: _Profiles) -> dict[Section, _ZoneLevel]:
    """Per section, the chroma vector of what is printed under it: on paper, in the Thames zone, and
    on paper the camera clipped in some channel.

    On paper that is the tinted guide dashes; inside the Thames zone it is the guide or banks seen
    against the river, which looks different. Most potential sections are not drawn, so each
    section's upper quartile, over the sections of a zone, tells the print's own mark; it is
    subtracted before pencil is looked for. In the Thames zone the level is the median; on paper
    it is a smooth (quadratic) fit over the sheet: a photo's light and colour cast change across
    it, and a guide in a warm corner looks pinker than the sheet's median guide (the whole corner
    then read as faint pink lines).

    Where a bright light clips the paper in one or two channels over part of the sheet, a grey guide
    there keeps only the others (under a warm light: green and blue, the colour of pink pencil) and
    no smooth fit follows the clip's edge; with enough sections on either side, the clipped part gets
    its own level, the median of its sections' (a fit there, where the guides are as coloured as a
    light stroke, kept strokes in its seed), and, for the colour of a mark, per section the median
    of the nearest of them (``_nearby_level``). Otherwise both are the paper's.
    """
    sections = list(profiles.delta)
    mids = np.array([[(s.a[0] + s.b[0]) / 2, (s.a[1] + s.b[1]) / 2] for s in sections], np.float64)
    terms = _level_terms(mids)
    zone_levels: dict[bool, np.ndarray] = {}
    for in_zone in (False, True):
        idx, vals = [], []
        for i, s in enumerate(sections):
            keep = profiles.valid[s] & (profiles.river[s] == in_zone)
            if keep.sum() >= 3:
                idx.append(i)
                vals.append(np.percentile(profiles.delta[s][keep], 75, axis=0))
        level = np.zeros((len(sections), 3))
        if vals:
            level[:] = np.median(vals, axis=0)
            coef = None if in_zone else _level_fit(terms[idx], np.array(vals))
            if coef is not None:
                level = terms @ coef
        zone_levels[in_zone] = level
    clipped_level = zone_levels[False].copy()
    clipped_nearby = clipped_level
    if profiles.clipped is not None:
        idx, vals, unclipped = [], [], 0
        for i, s in enumerate(sections):
            paper = profiles.valid[s] & ~profiles.river[s]
            on = paper & profiles.clipped[s]
            if on.sum() >= 3 and on.sum() * 2 >= paper.sum():
                idx.append(i)
                vals.append(np.percentile(profiles.delta[s][on], 75, axis=0))
            elif paper.sum() >= 3:
                unclipped += 1
        if len(vals) >= CLIPPED_ZONE_MIN and unclipped >= CLIPPED_ZONE_MIN:
            clipped_level[:] = np.median(vals, axis=0)
            clipped_nearby = _nearby_level(mids, mids[idx], np.array(vals), np.array(idx))
    return {
        s: _ZoneLevel(zone_levels[False][k], zone_levels[True][k], clipped_level[k], clipped_nearby[k])
        for k, s in enumerate(sections)
    }


def _print_levels(
    profiles: _Profiles, zones: Mapping[Section, _ZoneLevel] | None = None, nearby: bool = False
) -> dict[Section, np.ndarray]:
    """Per section and sample of ``profiles``, the chroma vector of what is printed there: its
    section's level (``_zone_levels``; default: estimated from ``profiles`` themselves) on paper,
    in the Thames zone or on clipped paper (``nearby``: the level there a mark's colour is measured
    against, ``_ZoneLevel.clipped_nearby``)."""
    zones = _zone_levels(profiles) if zones is None else zones
    out = {}
    for s in profiles.delta:
        paper = (
            zones[s].paper
            if profiles.clipped is None
            else np.where(
                profiles.clipped[s][:, None], zones[s].clipped_nearby if nearby else zones[s].clipped, zones[s].paper
            )
        )
        out[s] = np.where(profiles.river[s][:, None], zones[s].river, paper)
    return out


def pencil_grey(rgb: Mapping[Colour, tuple[int, int, int]] = PENCIL_RGB) -> np.ndarray:
    """Per pencil (in the order of ``LINE_COLOURS``), the grey density a light stroke of it carries
    against its chroma: pigment sparse on the paper mixes with it as light does, so a light stroke's
    density goes with the pencil's absorptance, whose least channel is its grey (purple 1.32, green
    0.94, blue 0.31, pink 0.20 for ``PENCIL_RGB``)."""
    out = []
    for c in LINE_COLOURS:
        absorbed = 1.0 - np.array(rgb[c], np.float64) / 255.0
        out.append(absorbed.min() / max(float(np.linalg.norm(absorbed - absorbed.min())), 1e-9))
    return np.array(out)


PRINT_EXPLAIN_MAX = 2.0
"""At most this many times the print's own level is explained away as print at one sample."""


def _explain_print(delta: np.ndarray, level: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """Remove from each sample the part that the print's own mark explains (non-negative least squares).

    A sample is modelled as ``a * print + b * pencil`` for each pencil hue in turn (a, b >= 0); the
    best-fitting hue's ``a * print`` is subtracted. A guide dash alone is fully explained; a guide
    under a faint stroke leaves the stroke. ``level`` holds each sample's print chroma vector.
    """
    norm = np.linalg.norm(level, axis=1, keepdims=True)
    if float(norm.max(initial=0.0)) < 1e-6:
        return delta
    g = level / np.maximum(norm, 1e-9)
    gd = (delta * g).sum(axis=1)  # (N,)
    hd = delta @ dirs.T  # (N, K)
    c = g @ dirs.T  # (N, K)
    det = np.maximum(1.0 - c * c, 1e-6)
    a = (gd[:, None] - c * hd) / det
    b = (hd - c * gd[:, None]) / det
    # Clamp to the non-negative quadrant: one coefficient at zero, the other a plain projection.
    a_only = np.maximum(gd, 0.0)[:, None] * np.ones_like(a)
    b_only = np.maximum(hd, 0.0)
    use_a_only = b < 0
    use_b_only = a < 0
    a = np.where(use_a_only, a_only, np.where(use_b_only, 0.0, a))
    b = np.where(use_a_only, 0.0, np.where(use_b_only, b_only, b))
    # The print is only so dark: when its colour resembles a pencil's (a grey guide under warm light
    # is brownish pink), it must not explain away a stroke many times denser than the guide itself.
    a_max = PRINT_EXPLAIN_MAX * norm
    over = a > a_max
    a = np.where(over, a_max, a)
    rest = ((delta[:, None, :] - a[..., None] * g[:, None, :]) * dirs[None, :, :]).sum(axis=2)
    b = np.where(over, np.maximum(rest, 0.0), b)
    fit = a[..., None] * g[:, None, :] + b[..., None] * dirs[None, :, :]
    resid = np.linalg.norm(delta[:, None, :] - fit, axis=2)
    best = np.argmin(resid, axis=1)
    a_best = a[np.arange(len(best)), best]
    return np.clip(delta - a_best[:, None] * g, 0.0, None)


def _lesser(one: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Per sample, whichever of two accounts of the print leaves the smaller mark: what either
    explains is print."""
    less = np.linalg.norm(one, axis=1) < np.linalg.norm(other, axis=1)
    return np.where(less[:, None], one, other)


def _colour_without_print(delta: np.ndarray, grey: np.ndarray, level: np.ndarray, guide_grey: float) -> np.ndarray:
    """Each sample's colour (chroma ``delta``) with the print under it taken away as density: its
    level (``level``, a chroma) scaled by the share of the guide's grey density (``guide_grey``) the
    sample holds (``grey``: a dash all of it, a gap none), and the chroma taken again.

    Chroma is a density less its least channel, so a stroke's chroma over a tinted guide is not the
    sum of the two: a light purple stroke (least dense in blue) over a guide denser in blue than in
    red (least dense in red) measures no red at all. Taken away as a colour and clipped at zero, the
    guide leaves that stroke pink (`unseen` scan 78041, its purple line read pink); taken away as
    density, the least channel taken again, what is left is the stroke's own chroma."""
    if guide_grey <= 0.0:
        return delta
    share = np.clip(grey / guide_grey, 0.0, 1.0)[:, None]
    return chroma_density(delta - share * level)


def _guide_grey(profiles: _Profiles) -> float:
    """The grey density of the printed guide's dashes on paper: over the sections (most are not
    drawn), the median of each one's upper quartile, as ``_zone_levels`` takes the print's colour."""
    if profiles.grey is None:
        return 0.0
    tops = [
        float(np.percentile(profiles.grey[s][keep], 75))
        for s in profiles.delta
        if (keep := profiles.valid[s] & ~profiles.river[s]).sum() >= 3
    ]
    return float(np.median(tops)) if tops else 0.0


def _noise_level(cleaned: dict[Section, np.ndarray], profiles: _Profiles) -> float:
    mags = [
        float(np.percentile(np.linalg.norm(d[profiles.valid[s]], axis=1), 75))
        for s, d in cleaned.items()
        if profiles.valid[s].any()
    ]
    return float(np.median(mags)) if mags else 0.0


def _evidence_one(
    s: Section,
    delta: np.ndarray,
    dirs: np.ndarray,
    stroke_min: float,
    river: np.ndarray | None = None,
    colours: np.ndarray | None = None,
) -> SegmentEvidence:
    """One section's evidence from its samples' chroma ``delta``; ``colours`` (default ``delta``)
    is what the marks' colour is measured on."""
    n = len(delta)
    colours = delta if colours is None else colours
    if n == 0:
        return SegmentEvidence(s, 0, 0.0, 0.0, 0.0, (0.0, 0.0, 0.0))
    mag = np.linalg.norm(delta, axis=1)
    # Only marks of a pencil-like hue count: a yellow border or a black smudge is no pencil.
    min_cos = HUE_MIN_COS if river is None else np.where(river, HUE_MIN_COS_RIVER, HUE_MIN_COS)
    pencil_like = _pencil_like(delta, mag, dirs, min_cos)
    inked = (mag >= stroke_min) & pencil_like
    faint = (mag >= FAINT_FRACTION * stroke_min) & pencil_like
    median_mark = tuple(float(v) for v in np.median(np.clip(delta @ dirs.T, 0.0, None), axis=0))
    if not inked.any():
        if not faint.any():
            return SegmentEvidence(s, n, 0.0, 0.0, 0.0, (0.0, 0.0, 0.0), median_mark=median_mark)
        # No mark reaches the threshold: the colour is that of the faint marks, if any.
        return SegmentEvidence(
            s, n, 0.0, 0.0, 0.0, median_colour(colours[faint]), faint=float(faint.mean()), median_mark=median_mark
        )
    where = np.flatnonzero(inked)
    return SegmentEvidence(
        s,
        n,
        float(inked.mean()),
        _longest_run(inked) / n,
        float(mag[inked].mean()),
        median_colour(colours[inked]),
        span=float(where[-1] - where[0] + 1) / n,
        faint=float(faint.mean()),
        median_mark=median_mark,
    )


def _pencil_like(marks: np.ndarray, mag: np.ndarray, dirs: np.ndarray, min_cos: float | np.ndarray) -> np.ndarray:
    """Which ``marks`` (n, 3; ``mag`` their norms) are at least ``min_cos`` similar to a pencil hue."""
    return (marks @ dirs.T).max(axis=1) >= min_cos * np.maximum(mag, 1e-9)


def _pencil_marks(marks: np.ndarray, dirs: np.ndarray, stroke_min: float) -> np.ndarray:
    """Those ``marks`` (n, 3) that reach ``stroke_min`` and have a pencil's hue."""
    mag = np.linalg.norm(marks, axis=1)
    keep = (mag >= stroke_min) & _pencil_like(marks, mag, dirs, HUE_MIN_COS)
    return marks[keep].astype(np.float32)


def median_colour(marks: np.ndarray) -> tuple[float, float, float]:
    """Unit vector of the median colour of some marks.

    The median resists a neighbouring line's stroke that runs on past a shared station into this one.
    """
    mean = np.median(marks, axis=0)
    unit = mean / max(float(np.linalg.norm(mean)), 1e-9)
    return (float(unit[0]), float(unit[1]), float(unit[2]))


def _crossing_at(s: Section, t: Section) -> float:
    """Lattice units from ``s.a`` to where ``t`` crosses ``s``."""
    (ax, ay), (bx, by) = s.a, s.b
    (cx, cy), (dx, dy) = t.a, t.b
    rx, ry, ux, uy = bx - ax, by - ay, dx - cx, dy - cy
    denom = rx * uy - ry * ux
    k = ((cx - ax) * uy - (cy - ay) * ux) / denom
    return float(k * np.hypot(rx, ry))


def _crossed(
    along: np.ndarray, s: Section, partners: list[Section], circles: Mapping[Point, float] | None = None
) -> np.ndarray | None:
    """Samples of ``s`` (at ``along``) near where drawn ``partners`` cross it, or where a pencil circle
    round one of its stations (``circles``: station -> radius) does; None when nothing crosses it."""
    rings = [(p, r) for p, r in (circles or {}).items() if p in (s.a, s.b)]
    if not partners and not rings:
        return None
    skip = np.zeros(len(along), dtype=bool)
    for t in partners:
        skip |= np.abs(along - _crossing_at(s, t)) < CROSSING_SKIP
    length = float(np.hypot(s.b[0] - s.a[0], s.b[1] - s.a[1]))
    for p, r in rings:
        skip |= np.abs((along if p == s.a else length - along) - r) < CIRCLE_SKIP
    return skip


SPECK_NOISE_MAX = 0.06
"""The noise of the picture's undrawn sections (``_noise_level``) up to which specks of pencil are
measured at the picture's own resolution (``measure_sections``' ``specks``). Our scans' is under
0.01; the fresh prints' scans (``bench/unseen.py``: paper with a grain of its own) reach 0.0475, and
at the old limit of 0.01 a tenth of them went without specks (6 of those 22 not read fully right, against 13
of the 188 others). Photos, which a phone saves as JPEG and so are never measured, reach 0.06; the
40 photos of the robustness set saved as PNG, read at 0.05 rather than 0.01: the same sheets right
and wrong, one right sheet more flagged, none wrong without a flag. Against the same sheet's blank
sections (``rebuild``) the specks a paper's grain makes in a pencil's hue are the print's.

Raised from 0.05 in the sixty-fourth session: a fresh print's scan (`unseen` 88029) at 0.054 missed a
light green stroke along a greenish guide and a light purple one, neither named; with specks both
are in doubt. Of every other picture stored that is not a JPEG (the fresh prints' 300 scans, seed
87000's overlaid among them; the robustness set's PNG photos and scans; `slate`, `mono`, `overlaid`),
read again with the limit at 0.07, one more is measured with specks (a PNG photo, read as before)
and no reading changes. Not higher: a dim photo's grain (0.069 in ``test_specks``) makes specks of
every hue."""
CLEAR_COLOUR_MARKS = 6
"""Marked positions, at the default distance from a section's symbols, from which a section whose
reading nearer its symbols is kept keeps their colour as well (``SegmentEvidence.clear_chroma``)."""


EMPTY_POINT_REACH = 0.15
"""Lattice units either side of a lattice point with no station, along a section that runs through it,
where the print may mark the point (a small asterisk where the guides cross)."""
EMPTY_POINT_SECTIONS = 8
"""Fewest sections running through such points, measured on paper there, for what the print leaves
at them to be learnt from the sheet."""
EMPTY_POINT_SIGNAL = 3.0
"""Least strength of what the print leaves at lattice points with no station, in multiples of the
picture's noise (``_noise_level``), for it to be taken as print: on a clean scan an asterisk leaves
0.05 to 0.08 where the noise is under 0.01; on a photo the excess at those points is of the noise's
size, and taken away there it took the faint marks of a stroke drawn through one (`unseen` photo
80015's purple 2,5-4,3, then read blank without a flag)."""
EMPTY_POINT_EXPLAIN_MAX = 1.5
"""At most this many times the print's level at lattice points with no station is taken away there."""


def _explain_point(marks: np.ndarray, level: np.ndarray) -> np.ndarray:
    """``marks`` less what the print at a lattice point with no station explains: their part along its
    level (``level``, a chroma vector), up to ``EMPTY_POINT_EXPLAIN_MAX`` times it. Not a pencil's
    hue against it (``_explain_print``): the asterisk's colour may be a pencil's (a bluish grey is
    purple's), and there the print's mark is the likelier."""
    norm = float(np.linalg.norm(level))
    if norm < 1e-6:
        return marks
    g = level / norm
    along = np.clip(marks @ g, 0.0, EMPTY_POINT_EXPLAIN_MAX * norm)
    return np.clip(marks - along[:, None] * g, 0.0, None)


def _empty_point_level(
    points: Mapping[Section, np.ndarray], profiles: _Profiles, cleaned: Mapping[Section, np.ndarray]
) -> np.ndarray | None:
    """What the print leaves at lattice points with no station (a chroma vector) beyond what the same
    sections show elsewhere on the paper (a photo's noise leaves as much everywhere): per section
    running through such points (``points``: its samples near one), the upper quartile of its
    cleaned marks there and elsewhere, each taken over the lower half of the sections by strength
    (where drawn lines run through many such points, the median of all took a line's colour:
    `unseen` scan 85053). ``None`` when fewer than ``EMPTY_POINT_SECTIONS`` sections tell it."""
    at_points, elsewhere = [], []
    for s, near_point in points.items():
        paper = profiles.valid[s] & ~profiles.river[s]
        if (paper & near_point).sum() >= 3 and (paper & ~near_point).sum() >= 3:
            at_points.append(np.percentile(cleaned[s][paper & near_point], 75, axis=0))
            elsewhere.append(np.percentile(cleaned[s][paper & ~near_point], 75, axis=0))
    if len(at_points) < EMPTY_POINT_SECTIONS:
        return None
    return np.clip(_lower_median(np.array(at_points)) - _lower_median(np.array(elsewhere)), 0.0, None)


def _lower_median(vals: np.ndarray) -> np.ndarray:
    """The median of the lower half of ``vals`` (rows) by their strength."""
    strength = np.linalg.norm(vals, axis=1)
    return np.median(vals[strength <= np.median(strength)], axis=0)


def _empty_points(along: Mapping[Section, np.ndarray]) -> dict[Section, np.ndarray]:
    """Per section that runs through lattice points (none holds a station), its samples (``along``:
    lattice units from its first station) within ``EMPTY_POINT_REACH`` of one."""
    out: dict[Section, np.ndarray] = {}
    for s, t in along.items():
        points = s.lattice_points_along()
        if points:
            out[s] = np.abs(t[:, None] - np.array(points)[None, :]).min(axis=1) <= EMPTY_POINT_REACH
    return out


def measure_sections(
    straight: Straightened,
    game_map: GameMap,
    station_radius_pitch: float = 0.28,
    circles: Mapping[Point, float] | None = None,
    specks: Callable[[Mapping[Section, list[Section]]], Mapping[Section, tuple[float, ...]]] | None = None,
) -> dict[Section, SegmentEvidence]:
    """Evidence for every potential section (which pencil it is, is decided by ``rebuild``).

    A drawn section that crosses this one leaves a short stretch of pencil on it; where a
    crossing partner is clearly drawn, the stretch around the crossing point is not counted. Nor is
    the stretch that a pencil circle round one of its stations crosses (``circles``: station -> the
    circle's radius in lattice units, see ``vision.circles``), nor, over the Thames band, the
    stretch where another section's guide crosses it, drawn or not (``GUIDE_CROSSING_SKIP``).

    A section on paper, or one where the default gaps leave too little to see a light stroke (next
    to a departure disc, a big symbol), is also measured nearer its symbols, and the stronger
    reading (more of it marked) is kept: the middle is where a stroke is firmest, the ends show one
    that a short middle misses. Taken instead of the default, the ends thin out the faint marks of
    a stroke that stops short of the rings. Not over the Thames: there they see the band's edges
    and knocked-out guides.

    ``specks``, when given, measures the specks of pencil at the picture's own resolution
    (``vision.specks.speck_shares``): it is called only when the picture's noise is a clean
    picture's (``SPECK_NOISE_MAX``), with each section's clearly drawn crossing partners, and what
    it returns is kept as ``SegmentEvidence.specks``.
    """
    profiles = _section_profiles(
        straight, _sample_positions(straight, game_map, station_radius_pitch, END_GAP, DISC_EXTRA)
    )
    short = frozenset(s for s, ok in profiles.valid.items() if ok.sum() < SHORT_VALID)
    nearer = _sample_positions(straight, game_map, station_radius_pitch, END_GAP_NEAR, DISC_EXTRA_NEAR)
    near = _section_profiles(
        straight, {s: nearer[s] for s in profiles.delta if s in short or not profiles.river[s].any()}
    )
    hues = pencil_hues()
    dirs = np.stack([hues[c] for c in LINE_COLOURS])
    # What the print puts under each sample is estimated from the undrawn sections of this sheet,
    # measured at the default positions. A calibrated print's blank says it sample by sample, but
    # as scanned or photographed on another day: a mark either explains is print.
    zones = _zone_levels(profiles)
    paper = {s: z.paper for s, z in zones.items()}
    levels, near_levels = _print_levels(profiles, zones), _print_levels(near, zones)
    cleaned = _cleaned_of(profiles, levels, paper, dirs)
    near_cleaned = _cleaned_of(near, near_levels, paper, dirs)
    # The sheet's noise, which sets the stroke threshold for every section, taken before the band's
    # light guide is added back where part of it is missing: the marks that takes away on a few
    # crossings lowered it, and blank sections elsewhere crossed it (`print` photos 1023 and 230010
    # of the accuracy bench). So too before the paper beside the band is measured against the paper
    # alone (`unseen` photos 78075 and 78076 were put in doubt for sections far from the river).
    noise = _noise_level(cleaned, profiles)
    cleaned = _less_beside_band(profiles, _less_missing_guide(profiles, cleaned, levels, dirs), paper, dirs)
    near_cleaned = _less_beside_band(near, _less_missing_guide(near, near_cleaned, near_levels, dirs), paper, dirs)
    cleaned, near_cleaned = _less_empty_points(profiles, near, cleaned, near_cleaned, noise)
    # The marks' colour, with the print taken away as density (``_colour_without_print``): on clipped
    # paper, the print's level there at each section (the clipped paper's median, taken away as
    # density under a light pink stroke beside nearly grey guides, left it purple).
    sheet = _SheetMeasure(
        profiles=profiles,
        near=near,
        cleaned=cleaned,
        near_cleaned=near_cleaned,
        colour_levels=_print_levels(profiles, zones, nearby=True),
        near_colour_levels=_print_levels(near, zones, nearby=True),
        dirs=dirs,
        stroke_min=max(STROKE_MIN_CLEAN, min(STROKE_MIN, CLEAN_FACTOR * noise), NOISE_FACTOR * noise),
        guide_grey=_guide_grey(profiles),
        stroke_grey=pencil_grey(),
        short=short,
        hidden=_hidden_shares(profiles),
        guide_crossings=_band_guide_crossings(profiles, game_map),
        circles=circles,
    )
    first = {s: sheet.measure(s, []) for s in profiles.delta}
    out = dict(first)
    crossed: dict[Section, list[Section]] = {}
    for s in profiles.delta:
        drawn_partners = [t for t in game_map.crossing_partners[s] if first[t].ink >= CROSSING_INK]
        if drawn_partners:
            crossed[s] = drawn_partners
            out[s] = sheet.measure(s, drawn_partners)
    if specks is not None and noise <= SPECK_NOISE_MAX:
        shares = specks(crossed)
        out = {s: replace(ev, specks=shares[s]) if s in shares else ev for s, ev in out.items()}
    return out


def _cleaned_of(
    p: _Profiles, levels: Mapping[Section, np.ndarray], paper: Mapping[Section, np.ndarray], dirs: np.ndarray
) -> dict[Section, np.ndarray]:
    """Per section of ``p``, its marks with what the print explains taken away: the print's ``levels``
    under each sample, ``paper`` the level of the paper's own print (``_ZoneLevel.paper``)."""
    out = {s: _explain_print(d, levels[s], dirs) for s, d in p.delta.items()}
    # At the band's edge the guide printed on the paper beside it may be what is seen: what the
    # paper's print explains there is print as well (else a blank guide leaving the band reads as
    # a short stretch of pencil, a third of a short crossing).
    for s, edge in (p.band_edge or {}).items():
        if edge.any():
            explained = _explain_print(p.delta[s], np.broadcast_to(paper[s], p.delta[s].shape), dirs)
            out[s] = np.where(edge[:, None], _lesser(explained, out[s]), out[s])
    for s, marks in (p.paper_edge or {}).items():
        # At the band's edge, against a surround of the paper alone: the guide's strip there is
        # painted over from its ends, which may hold the band or a ring (``paper_side_density``).
        here = ~np.isnan(marks[:, 0])
        explained = _explain_print(np.nan_to_num(marks), np.broadcast_to(paper[s], marks.shape), dirs)
        out[s] = np.where(here[:, None], _lesser(explained, out[s]), out[s])
    for s, rest in (p.under_dark_guide or {}).items():
        # Deep in a band whose guide is darker than the band, what that blank guide explains
        # is print as well (a clean scan's blank 4,5-4,6 was faint pencil along its dashes).
        here = ~np.isnan(rest[:, 0])
        out[s] = np.where(here[:, None], _lesser(np.nan_to_num(rest), out[s]), out[s])
    if p.printed is not None:
        # The blank alone took a guide under this picture's light (bluish in a shadow, pinkish
        # in a warm corner) for light pencil, whole lines of it.
        out = {s: _lesser(_explain_print(p.delta[s], p.printed[s], dirs), m) for s, m in out.items()}
    return out


def _less_missing_guide(
    p: _Profiles, cleaned: dict[Section, np.ndarray], levels: Mapping[Section, np.ndarray], dirs: np.ndarray
) -> dict[Section, np.ndarray]:
    """``cleaned`` (``_cleaned_of``) where, on the band's light guide, part of it is missing: the band
    seen there is print as well (``_Profiles.partial_guide``)."""
    out = dict(cleaned)
    for s, marks in (p.partial_guide or {}).items():
        out[s] = _lesser(_explain_print(marks, levels[s], dirs), cleaned[s])
    return out


def _less_beside_band(
    p: _Profiles, cleaned: dict[Section, np.ndarray], paper: Mapping[Section, np.ndarray], dirs: np.ndarray
) -> dict[Section, np.ndarray]:
    """``cleaned`` where, on the paper beside the Thames band, the mark measured against the paper
    alone (``_Profiles.paper_alone``) is smaller: what the paper's print explains there is print."""
    out = dict(cleaned)
    for s, marks in (p.paper_alone or {}).items():
        here = ~np.isnan(marks[:, 0])
        explained = _explain_print(np.nan_to_num(marks), np.broadcast_to(paper[s], marks.shape), dirs)
        out[s] = np.where(here[:, None], _lesser(explained, cleaned[s]), cleaned[s])
    return out


def _less_empty_points(
    profiles: _Profiles,
    near: _Profiles,
    cleaned: dict[Section, np.ndarray],
    near_cleaned: dict[Section, np.ndarray],
    noise: float,
) -> tuple[dict[Section, np.ndarray], dict[Section, np.ndarray]]:
    """``cleaned`` and ``near_cleaned`` (the marks at the default positions and nearer the symbols)
    where the guides cross at a lattice point with no station: the print may mark the point (an
    asterisk, of a colour of its own), and what it leaves there, over the sheet's sections that run
    through such points (most of them blank), is print as well. Taken after the sheet's noise: left
    out of every section instead, the sheet's references moved (history, fifty-second session)."""
    points = _empty_points(profiles.along)
    point_level = _empty_point_level(points, profiles, cleaned)
    if point_level is None or np.linalg.norm(point_level) < EMPTY_POINT_SIGNAL * noise:
        return cleaned, near_cleaned
    out = []
    for p, marks, p_points in ((profiles, cleaned, points), (near, near_cleaned, _empty_points(near.along))):
        less = dict(marks)
        for s, near_point in p_points.items():
            on = (near_point & ~p.river[s])[:, None]
            less[s] = np.where(on, _lesser(_explain_point(marks[s], point_level), marks[s]), marks[s])
        out.append(less)
    return out[0], out[1]


@dataclass(frozen=True)
class _SheetMeasure:
    """What every section of one sheet is measured with (``measure_sections``): its profiles at the
    default gaps and, for some sections, nearer the symbols (``near``), their marks with the print
    explained away (``cleaned``), the print's level for the marks' colour, and the sheet's stroke
    threshold."""

    profiles: _Profiles
    near: _Profiles
    cleaned: dict[Section, np.ndarray]
    near_cleaned: dict[Section, np.ndarray]
    colour_levels: dict[Section, np.ndarray]
    near_colour_levels: dict[Section, np.ndarray]
    dirs: np.ndarray
    stroke_min: float
    guide_grey: float
    stroke_grey: np.ndarray
    short: frozenset[Section]
    hidden: dict[Section, float]
    guide_crossings: dict[Section, np.ndarray]
    circles: Mapping[Point, float] | None

    def measure(self, s: Section, partners: list[Section]) -> SegmentEvidence:
        """Section ``s``'s evidence, the stretches where its drawn crossing ``partners`` cross it
        left out."""
        profiles, near = self.profiles, self.near
        skip = _crossed(profiles.along[s], s, partners, self.circles)
        if s in self.guide_crossings:
            skip = self.guide_crossings[s] if skip is None else skip | self.guide_crossings[s]
        ev = self._measure_in(profiles, self.cleaned[s], self.colour_levels[s], s, skip)
        if s not in near.delta:
            return ev
        closer = self._measure_in(
            near,
            self.near_cleaned[s],
            self.near_colour_levels[s],
            s,
            _crossed(near.along[s], s, partners, self.circles),
        )
        if (closer.ink, closer.faint) <= (ev.ink, ev.faint):
            return ev
        # Nearer the symbols their colour is in what is measured (a departure disc's blurred edge,
        # the surround a disc tints): the colour clear of them is kept beside, where marks enough lie
        # there to tell it.
        if round(ev.ink * ev.samples) >= CLEAR_COLOUR_MARKS:
            return replace(closer, clear_chroma=ev.chroma)
        return closer

    def _measure_in(
        self, p: _Profiles, marks: np.ndarray, level: np.ndarray, s: Section, skip: np.ndarray | None
    ) -> SegmentEvidence:
        use = p.valid[s] if skip is None else p.valid[s] & ~skip
        ev = self._measure_at(p, marks, level, s, use)
        if p.bank_edge is None or not (use & p.bank_edge[s]).any() or not (use & ~p.bank_edge[s]).any():
            return ev
        # Beside a bank, at the band's edge where a mark is measured against the paper, the surround
        # takes some of the bank's and the band's colour, and a blank guide's dash leaving the band
        # there read as pencil: a third of a crossing whose middle another line's stroke covers
        # (`unseen` scans 76005, 86080). Where the marks lie mostly there, those positions are not
        # measured; a stroke crossing the bank shows along the rest of the section as well, and
        # keeps them (left out whatever the rest shows, drawn crossings lost a quarter of their
        # marked share and were put in doubt). A section with no mark either way is measured
        # without them as well: only its count of positions, and what is taken over them, changes.
        clear = self._measure_at(p, marks, level, s, use & ~p.bank_edge[s])
        mostly_there = clear.ink <= BANK_EDGE_SHARE * ev.ink and clear.faint <= BANK_EDGE_SHARE * ev.faint
        return clear if mostly_there else ev

    def _measure_at(
        self, p: _Profiles, marks: np.ndarray, level: np.ndarray, s: Section, use: np.ndarray
    ) -> SegmentEvidence:
        # Over the river the pencil is harder to see; a crossing stroke is continuous, so where the
        # section has enough samples on plain paper those decide.
        if (use & ~p.river[s]).sum() >= OUTSIDE_RIVER_MIN:
            use = use & ~p.river[s]
        shift = p.colour_shift[s][use] if p.colour_shift is not None else None
        # (Marks under the stroke threshold keep the colour measured as before: there the guide's
        # share of the grey is too uncertain, and taken away as density it turns a faint purple blue.)
        light = np.linalg.norm(marks[use], axis=1) < self.stroke_min
        own = np.where((p.river[s][use] | light)[:, None], marks[use], self._colour_of(p, s, marks, level)[use])
        colours = own if shift is None else np.clip(own + shift, 0.0, None)
        band = p.band_colour.get(s) if p.band_colour is not None else None
        if band is not None:
            # Deep in the band, a mark's colour is what the printed guide there does not explain,
            # where that is itself a mark: elsewhere what is seen there is the guide's own.
            here = band[use]
            known = np.linalg.norm(np.nan_to_num(here), axis=1) >= FAINT_FRACTION * self.stroke_min
            colours = np.where(known[:, None], here, marks[use] if colours is None else colours)
        ev = _evidence_one(s, marks[use], self.dirs, self.stroke_min, p.river[s][use], colours)
        share = float(p.river[s][use].mean()) if use.any() else 0.0
        beside = _pencil_marks(p.beside[s][use], self.dirs, self.stroke_min) if p.beside else ev.beside
        return replace(ev, over_river=share, hidden=self.hidden.get(s, 0.0), short=s in self.short, beside=beside)

    def _colour_of(self, p: _Profiles, s: Section, mark: np.ndarray, level: np.ndarray) -> np.ndarray:
        """The colour of section ``s``'s samples in ``p``, whose cleaned marks are ``mark`` and the
        print's level under them ``level``."""
        if p.grey is None:
            return p.delta[s]
        # The stroke's own grey is not the guide's: a stroke in a gap between dashes takes none of it.
        own_grey = self.stroke_grey[np.argmax(mark @ self.dirs.T, axis=1)] * np.linalg.norm(mark, axis=1)
        return _colour_without_print(p.delta[s], p.grey[s] - own_grey, level, self.guide_grey)


GUIDE_CROSSING_SKIP = 0.12
"""Lattice units either side of where another section's guide crosses this one over the Thames band
that are not measured: the two light guides fill much of the surround a mark is measured against
there (``MEDIAN_WIDTH``), which then looks lighter than the band, and the band beside them like pencil."""


def _band_guide_crossings(profiles: _Profiles, game_map: GameMap) -> dict[Section, np.ndarray]:
    """Per section, its samples near where a crossing partner's guide crosses it over the band."""
    out: dict[Section, np.ndarray] = {}
    for s, along in profiles.along.items():
        if not profiles.river[s].any():
            continue
        near = np.zeros(len(along), dtype=bool)
        for t in game_map.crossing_partners.get(s, frozenset()):
            at = _crossing_at(s, t)
            if profiles.river[s][int(np.argmin(np.abs(along - at)))]:
                near |= np.abs(along - at) < GUIDE_CROSSING_SKIP
        if near.any():
            out[s] = near
    return out


def _hidden_shares(profiles: _Profiles) -> dict[Section, float]:
    """Per section, the share of its judged positions in a long stretch showing neither the printed
    guide nor pencil (see ``HIDDEN_FRACTION``); sections without such a stretch are left out.

    Judged are the positions on paper, and those in the Thames zone where it is washed out white.
    The typical blank guide is the median, over sections, of each one's median mark on paper: most
    potential sections are not drawn. A print whose guides barely show tells nothing this way.
    """
    if profiles.presence is None:
        return {}
    judged = {s: ~np.isnan(profiles.presence[s]) for s in profiles.delta}
    on_paper = {s: here & ~profiles.river[s] for s, here in judged.items()}
    typical = [float(np.median(profiles.presence[s][m])) for s, m in on_paper.items() if m.sum() >= 5]
    level = float(np.median(typical)) if typical else 0.0
    if level < HIDDEN_MIN_LEVEL:
        return {}
    longest = round(HIDDEN_RUN * PX_PER_PITCH)
    out: dict[Section, float] = {}
    for s, here in judged.items():
        n = int(here.sum())
        need = min(longest, max(HIDDEN_MIN_SAMPLES, int(np.ceil(HIDDEN_RUN_SHARE * n))))
        if n < need:
            continue
        unseen = here & (profiles.presence[s] < HIDDEN_FRACTION * level)
        # Stretches of consecutive unseen positions (a masked position neither breaks nor extends one).
        idx = np.flatnonzero(here)
        flags = unseen[idx]
        edges = np.flatnonzero(np.diff(np.concatenate([[0], flags.astype(np.int8), [0]])))
        runs = [(b - a) for a, b in zip(edges[::2], edges[1::2], strict=True) if b - a >= need]
        if runs:
            out[s] = sum(runs) / n
    return out
