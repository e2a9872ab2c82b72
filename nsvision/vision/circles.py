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

import numpy as np

from nsvision.game.board import LINE_COLOURS, Colour, GameMap, Point, station_name
from nsvision.game.network import Network
from nsvision.vision.detect import (
    DISC_EXTRA,
    FAINT_FRACTION,
    HUE_MIN_COS,
    STROKE_MIN,
    Straightened,
    _chroma,
    _sample,
    _sample_mask,
    pencil_hues,
)

RAY_STEP = 3.0
"""Degrees between two rays from a station."""
RAY_AWAY = 12.0
"""Degrees a ray keeps from the eight lattice directions, where sections and guides leave a station."""
INNER_GAP = 0.03
"""Lattice units beyond the symbol's radius where the search starts (``DISC_EXTRA`` more at a
departure disc, whose blurred edge is printed colour)."""
OUTER = 2.0
"""Times the symbol's radius where the search ends: a hand-drawn circle round a symbol stays inside."""
MARK = FAINT_FRACTION * STROKE_MIN
"""Chroma density from which a ray counts as marked: a circle is one stroke, often a light one."""
MIN_RAYS = 10
"""Rays clear of masked print and of the Thames that a station needs before a circle is looked for."""
CIRCLED = 0.7
"""Share of the clear rays marked from which a station is circled. Over the development sets (four
prints and 60 random ones), no station that is not circled reaches it (the most: 0.63 of 10,515
plain stations), and 34 of 45 circled stations do. Below it nothing is said: flagging lower shares
for review costs sheets flagged for marks that are not circles (from 0.55: 5 more of the 45 circled
stations, for one sheet in 60 of the accuracy set flagged for nothing)."""
CIRCLED_TOURIST = 0.8
"""The same at a tourist site, whose spikes' blurred tips look like pencil on some rays (up to 0.75
of them, on one unseen print; 4 of 14 circled tourist sites reach it)."""


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


def find_circles(straight: Straightened, game_map: GameMap, station_radius: float) -> tuple[StationCircle, ...]:
    """Stations with a pencil circle round them (``CIRCLED`` of their clear rays marked and more).

    ``station_radius`` is the printed symbol's radius in lattice units.
    """
    ppp = straight.px_per_pitch
    angles = np.arange(0.0, 360.0, RAY_STEP)
    within = angles % 45.0
    angles = np.radians(angles[(within > RAY_AWAY) & (within < 45.0 - RAY_AWAY)])
    dirs = np.stack([pencil_hues()[c] for c in LINE_COLOURS])
    found: list[StationCircle] = []
    for st in game_map.stations:
        inner = station_radius + INNER_GAP + (DISC_EXTRA if st.departure else 0.0)
        radii = np.arange(inner * ppp, OUTER * station_radius * ppp, 1.0)
        cx, cy = straight.lattice_to_px(*st.point)
        xs = (cx + np.outer(np.cos(angles), radii)).ravel()
        ys = (cy + np.outer(np.sin(angles), radii)).ravel()
        shape = (len(angles), len(radii))
        chroma = _chroma(np.clip(_sample(straight.density, xs, ys), 0.0, None)).reshape(*shape, 3)
        masked = (_sample_mask(straight.ignore, xs, ys) | _sample_mask(straight.river, xs, ys)).reshape(shape)
        mag = np.linalg.norm(chroma, axis=2)
        pencil_like = (chroma @ dirs.T).max(axis=2) >= HUE_MIN_COS * np.maximum(mag, 1e-9)
        level = np.where(masked | ~pencil_like, 0.0, mag)
        clear = (~masked).sum(axis=1) >= len(radii) // 2
        if clear.sum() < MIN_RAYS:
            continue
        peak = level.argmax(axis=1)
        marked = clear & (level[np.arange(len(angles)), peak] >= MARK)
        share = float(marked.sum() / clear.sum())
        if share < (CIRCLED_TOURIST if st.tourist_site else CIRCLED):
            continue
        marks = chroma[np.flatnonzero(marked), peak[marked]]
        median = np.median(marks, axis=0)
        unit = median / max(float(np.linalg.norm(median)), 1e-9)
        found.append(
            StationCircle(
                st.point,
                share,
                float(np.median(radii[peak[marked]]) / ppp),
                (float(unit[0]), float(unit[1]), float(unit[2])),
                st.tourist_site,
            )
        )
    return tuple(found)


def doubled_stations(
    circles: tuple[StationCircle, ...], network: Network, hues: Mapping[Colour, tuple[float, float, float]]
) -> tuple[dict[Colour, Point], tuple[str, ...]]:
    """The stations read as doubled (per line), and why a person should look at the other circles.

    A circle counts for the line whose pencil it is nearest (``hues``, the sheet's own) when that
    line serves the station and no other circle is of its colour; anything else is left to a
    person, counted for no line.
    """
    by_colour: dict[Colour, list[StationCircle]] = {}
    reasons: list[str] = []
    for c in circles:
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
