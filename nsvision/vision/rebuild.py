"""Rebuild the drawn network from the pencil evidence, with a confidence per section.

Decisions use the evidence and the game's structure, never a silent guess:

- a section carries at most one colour: the hue with the largest coverage;
- coverage at or above ``DRAWN`` is drawn, at or below ``EMPTY`` is not; in between is *in doubt*;
- a second hue with real coverage on a drawn section puts it in doubt (two pencils, or a misread);
- of two sections that cross, a weakly drawn one is in doubt when the other is clearly drawn;
- a drawn section that cannot be reached from its colour's departure station through that colour's
  drawn sections is in doubt unless its evidence is strong (then it is a real rule break).

The best reading counts a section as drawn when its coverage is above the midpoint; sections in
doubt are named so that a person can check them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nsvision.game.board import LINE_COLOURS, Colour, GameMap, Point, Section
from nsvision.game.network import GameOptions, Network
from nsvision.vision.detect import SegmentEvidence

DRAWN = 0.55
"""Coverage from which a section is drawn without doubt (a real pencil stroke covers 70–100 %)."""
EMPTY = 0.22
"""Coverage up to which a section is surely empty (crossing strokes and stray marks stay below)."""
MIXED = 0.25
"""Coverage of a second hue that makes a drawn section's colour doubtful."""
STRONG = 0.8
"""Coverage at which a section is trusted even when it breaks the game's structure."""
CONFIDENT = 0.9
"""Sections whose reading is less sure than this are in doubt."""


@dataclass(frozen=True)
class SectionReading:
    """The decision on one potential section."""

    section: Section
    colour: Colour | None
    """The best reading: the colour drawn, or None."""
    confidence: float
    """0.5 = a coin toss, 1 = certain."""
    doubtful: bool
    reason: str
    """Why the section is in doubt (empty when it is not)."""
    evidence: SegmentEvidence

    def to_dict(self) -> dict[str, object]:
        return {
            "section": self.section.name,
            "colour": self.colour,
            "confidence": round(self.confidence, 3),
            "doubtful": self.doubtful,
            "reason": self.reason,
            "coverage": {c: round(v, 3) for c, v in self.evidence.coverage.items()},
        }


@dataclass(frozen=True)
class Reading:
    """The rebuilt network plus every section's decision."""

    network: Network
    sections: Mapping[Section, SectionReading]

    @property
    def doubtful(self) -> tuple[SectionReading, ...]:
        return tuple(r for r in sorted(self.sections.values(), key=lambda r: r.section) if r.doubtful)

    @property
    def drawn(self) -> tuple[SectionReading, ...]:
        return tuple(r for r in sorted(self.sections.values(), key=lambda r: r.section) if r.colour is not None)


def _drawn_confidence(coverage: float) -> float:
    """How sure we are of drawn/not drawn, from the coverage alone (linear between the thresholds)."""
    mid = (DRAWN + EMPTY) / 2
    half = (DRAWN - EMPTY) / 2
    return min(1.0, 0.5 + 0.5 * abs(coverage - mid) / half) if half > 0 else 1.0


def rebuild(
    evidence: Mapping[Section, SegmentEvidence], game_map: GameMap, options: GameOptions | None = None
) -> Reading:
    """Decide each potential section's colour (or none) with a confidence; see the module doc."""
    first: dict[Section, tuple[Colour | None, float, str]] = {}
    for s in game_map.sections:
        ev = evidence[s]
        ranked = sorted(LINE_COLOURS, key=lambda c: -ev.coverage.get(c, 0.0))
        best, second = ranked[0], ranked[1]
        cov, cov2 = ev.coverage[best], ev.coverage[second]
        colour: Colour | None = best if cov > (DRAWN + EMPTY) / 2 else None
        conf = _drawn_confidence(cov)
        reason = ""
        if conf < CONFIDENT:
            reason = f"faint or partial pencil ({cov:.0%} {best})"
        elif colour is not None and cov2 >= MIXED:
            conf = min(conf, 0.5 + 0.5 * (cov - cov2))
            reason = f"two colours on one section ({cov:.0%} {best}, {cov2:.0%} {second})"
        first[s] = (colour, conf, reason)

    decided = dict(first)
    # Crossing sections exclude each other: a weak one under a clear one is suspect.
    for pair in game_map.crossing_pairs:
        s, t = sorted(pair)
        if first[s][0] is None or first[t][0] is None:
            continue
        weak, strong = (s, t) if evidence[s].best()[1] < evidence[t].best()[1] else (t, s)
        if evidence[weak].best()[1] < STRONG:
            c, f, _ = decided[weak]
            decided[weak] = (c, min(f, 0.6), f"crosses {strong.name}, which is drawn more clearly")

    # Lines grow from their departure stations.
    for colour in LINE_COLOURS:
        reached = _reachable(game_map.departure(colour), [s for s, d in decided.items() if d[0] == colour])
        for s, (c, f, r) in decided.items():
            if c == colour and s.a not in reached and evidence[s].best()[1] < STRONG:
                decided[s] = (c, min(f, 0.6), r or f"not connected to the {colour} departure station")

    readings = {
        s: SectionReading(s, c, f, f < CONFIDENT, r if f < CONFIDENT else "", evidence[s])
        for s, (c, f, r) in decided.items()
    }
    lines = {c: [s for s, r in sorted(readings.items()) if r.colour == c] for c in LINE_COLOURS}
    return Reading(Network.build(lines, options), readings)


def _reachable(start: Point, sections: list[Section]) -> set[Point]:
    adj: dict[Point, list[Point]] = {}
    for s in sections:
        adj.setdefault(s.a, []).append(s.b)
        adj.setdefault(s.b, []).append(s.a)
    seen = {start}
    todo = [start]
    while todo:
        p = todo.pop()
        for q in adj.get(p, []):
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return seen
