"""Stations circled in pencil: the double-station pencil power (RULES.md §7, advanced modules).

A player who uses it circles one station of the line in that line's pencil; the station then
counts twice in its district. The circle runs round the station's printed symbol, so it is looked
for in a ring just outside it: along rays from the station, in the directions between the eight
lattice directions (where sections and guides run, a line's own stroke would look like part of a
circle). A circle marks nearly every such ray at about one radius; a tourist site's spiky ring, a
departure disc's blurred edge or a stroke's end mark a few. The circle's pencil also crosses the
first stretch of every section leaving the station: ``measure_sections`` leaves that stretch out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from nsvision.game.board import LINE_COLOURS, Colour, GameMap, Point, station_name
from nsvision.game.network import Network
from nsvision.vision.channels import channel_max, chroma_density
from nsvision.vision.detect import (
    FAINT_FRACTION,
    HUE_MIN_COS,
    STROKE_MIN,
    median_colour,
    pencil_hues,
)
from nsvision.vision.straighten import Straightened, sample_at, sample_mask

RAY_STEP = 3.0
"""Degrees between two rays from a station."""
RAY_AWAY = 12.0
"""Degrees a ray keeps from the eight lattice directions, where sections and guides leave a station."""
INNER_GAP = 0.03
"""Lattice units beyond the symbol's radius where the search starts (a departure disc's too: its
blurred edge is printed colour, left out as a halo, see ``EDGE``)."""
EDGE = 2
"""Positions (pixels) after the search's inner end and after any masked print along a ray where a
mark does not count: a blurred picture spreads the printed ring's navy a little beyond the ring and
its mask, densest there and fading outwards, all round the station (and further out on one side
when the ring is not quite where the lattice puts it), and so past every other piece of print the
ray crosses (a tourist site's second ring, its spikes); a circle's stroke is densest further out.
At a departure disc, which is not dark enough to be masked, a ray's marks from the inner end
onwards are left out until they first fade under ``MARK``: the disc's blurred or shaken colour,
not a circle (a circle drawn touching the disc is lost with it)."""
OUTER = 2.0
"""Times the symbol's radius where the search ends: a hand-drawn circle round a symbol stays inside."""
MARK = FAINT_FRACTION * STROKE_MIN
"""Chroma density from which a ray counts as marked: a circle is one stroke, often a light one."""
RIVER_CLEARANCE = 0.12
"""Lattice units a ray's samples keep from the Thames zone: a blurred or shaken picture spreads the
band's colour a little past the zone's edge, where it would mark the rays beside the band."""
MIN_RAYS = 10
"""Rays clear of masked print and of the Thames that a station needs before a circle is looked for."""
CIRCLED = 0.7
"""Share of the clear rays marked from which a station is circled. Fitted with every ray's densest
mark counted (no ``EDGE``): over the development sets (four prints and 60 random ones) no station
that is not circled reached it (the most: 0.63 of 10,515 plain stations) and 34 of 45 circled ones
did; but blurred photos then showed the printed ring's halo as circles, hence ``EDGE``, which costs
circles drawn close to the ring. As it stands, 36 of 60 circles are read on 40 rendered sheets and
none where there is none; on 180 reads of plain photos (accuracy and unseen prints, sharp, blurred
by 2 px and shaken by 9 px) the most marked station reached 0.59 (a tourist site), 0.57 (a ring),
0.48 (a departure disc)."""
CIRCLED_TOURIST = 0.8
"""The same at a tourist site, whose spikes' blurred tips look like pencil on some rays (up to 0.75
of them, on one unseen print, without ``EDGE``; 0.79 on a print with a second ring, when ``EDGE``
followed only the first masked run)."""
PERHAPS = 0.45
"""Share from which a station may be circled: it is named for a person to check, not counted (a
missed circle is a double station unscored, without a flag). Once the halo after every printed
mark was left out (``EDGE``), no station that is not circled reached 0.4 on the 40 development
sheets with circles (0.25 the most) nor on 90 reads of accuracy-set photos, sharp, blurred by
2 px or shaken by 9 px (0.396); of 90 such reads of unseen prints, 7 reached 0.45 somewhere, all
blurred or shaken (0.59 the most), and 2 of the robustness bench's 720 (0.5, 0.58). Of the circles
missed on the development sheets, those round a departure disc or a plain station mostly reach it."""


@dataclass(frozen=True)
class StationCircle:
    """A pencil mark round a station: how much of a circle, where, and of what colour."""

    station: Point
    share: float
    """Share of the station's clear rays that cross pencil."""
    radius: float
    """Lattice units from the station's centre to the marks (median over the marked rays)."""
    colour: tuple[float, float, float]
    """Unit chroma vector of the marks (median)."""
    tourist_site: bool

    @property
    def sure(self) -> bool:
        """Circled (``CIRCLED``, or ``CIRCLED_TOURIST`` at a tourist site), not merely perhaps."""
        return self.share >= (CIRCLED_TOURIST if self.tourist_site else CIRCLED)


def find_circles(straight: Straightened, game_map: GameMap, station_radius: float) -> tuple[StationCircle, ...]:
    """Stations with a pencil circle round them, or perhaps one (``PERHAPS`` of their clear rays
    marked and more; ``StationCircle.sure`` tells which).

    ``station_radius`` is the printed symbol's radius in lattice units.
    """
    ppp = straight.px_per_pitch
    angles = np.arange(0.0, 360.0, RAY_STEP)
    within = angles % 45.0
    angles = np.radians(angles[(within > RAY_AWAY) & (within < 45.0 - RAY_AWAY)])
    dirs = np.stack([pencil_hues()[c] for c in LINE_COLOURS])
    reach = 2 * round(RIVER_CLEARANCE * ppp) + 1
    near_river = cv2.dilate(
        straight.river.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
    ).astype(bool)
    found: list[StationCircle] = []
    for st in game_map.stations:
        inner = station_radius + INNER_GAP
        radii = np.arange(inner * ppp, OUTER * station_radius * ppp, 1.0)
        cx, cy = straight.lattice_to_px(*st.point)
        xs = (cx + np.outer(np.cos(angles), radii)).ravel()
        ys = (cy + np.outer(np.sin(angles), radii)).ravel()
        shape = (len(angles), len(radii))
        chroma = chroma_density(np.clip(sample_at(straight.density, xs, ys), 0.0, None)).reshape(*shape, 3)
        masked = (sample_mask(straight.ignore, xs, ys) | sample_mask(near_river, xs, ys)).reshape(shape)
        mag = np.linalg.norm(chroma, axis=2)
        pencil_like = channel_max(chroma @ dirs.T) >= HUE_MIN_COS * np.maximum(mag, 1e-9)
        level = np.where(masked | ~pencil_like, 0.0, mag)
        clear = (~masked).sum(axis=1) >= len(radii) // 2
        if clear.sum() < MIN_RAYS:
            continue
        # Positions since the last masked print along each ray (the symbol just before the search).
        at = np.arange(len(radii))
        since = at - np.maximum.accumulate(np.where(masked, at, -1), axis=1)
        counted = since > EDGE
        if st.departure:
            faint = level < MARK
            counted &= at >= np.where(faint.any(axis=1), faint.argmax(axis=1), len(radii))[:, None]
        level = np.where(counted, level, 0.0)
        peak = level.argmax(axis=1)
        marked = clear & (level[np.arange(len(angles)), peak] >= MARK)
        share = float(marked.sum() / clear.sum())
        if share < PERHAPS:
            continue
        marks = chroma[np.flatnonzero(marked), peak[marked]]
        radius = float(np.median(radii[peak[marked]]) / ppp)
        found.append(StationCircle(st.point, share, radius, median_colour(marks), st.tourist_site))
    return tuple(found)


def doubled_stations(
    circles: tuple[StationCircle, ...], network: Network, hues: Mapping[Colour, tuple[float, float, float]]
) -> tuple[dict[Colour, Point], tuple[str, ...]]:
    """The stations read as doubled (per line), and why a person should look at the other circles.

    A sure circle counts for the line whose pencil it is nearest (``hues``, the sheet's own) when
    that line serves the station and no other sure circle is of its colour; anything else is left to
    a person, counted for no line. Circles that are only perhaps are named.
    """
    by_colour: dict[Colour, list[StationCircle]] = {}
    sure = [c for c in circles if c.sure]
    reasons = [
        f"station {station_name(c.station)} may be circled (the double-station pencil power): not counted"
        for c in circles
        if not c.sure
    ]
    for c in sure:
        v = np.asarray(c.colour)
        k = max(LINE_COLOURS, key=lambda colour: float(v @ np.asarray(hues[colour])))
        if c.station in network.stations(k):
            by_colour.setdefault(k, []).append(c)
        else:
            reasons.append(
                f"station {station_name(c.station)} is circled in {k}, but the {k} line does not serve it: "
                "not counted as a double station"
            )
    doubled: dict[Colour, Point] = {}
    for k, cs in by_colour.items():
        if len(cs) == 1:
            doubled[k] = cs[0].station
        else:
            names = ", ".join(station_name(c.station) for c in cs)
            reasons.append(f"stations {names} are all circled in {k}; a line doubles one station: none counted")
    return doubled, tuple(reasons)
