"""Rebuild the drawn network from the pencil evidence, with a confidence per section.

Decisions use the evidence and the game's structure, never a silent guess:

1. **drawn or not** from the share of the section carrying pencil: at or above ``DRAWN`` it is
   drawn, at or below ``EMPTY`` it is not, in between it is *in doubt*;
2. **which pencil**: pencils differ between boxes, sheets and lights, so the four hues are learnt
   from the sheet itself. Every non-empty line contains its departure station, so one firmly
   marked section at each departure station shows that line's pencil (anchors, chosen jointly so that
   two colours never share one, nor two anchors of one colour: another line passing through a
   departure); then all marked sections are clustered around those hues. A
   section whose colour sits between two hues, or is unlike every pencil of the sheet (a printed
   mark under a cast, two pencils on one section), is in doubt;
3. **structure**: of two crossing sections, a weakly drawn one is in doubt when the other is
   clearly drawn; a section that cannot be reached from its colour's departure station through
   that colour's sections takes the second-nearest colour when that one connects it, and is in
   doubt otherwise unless its evidence is strong (then it is a real rule break). Lightly marked
   pencil of a line's hue that joins two parts of that line is drawn (in doubt when it is barely
   there, another join is marked too, or its colour is unlike the line's pencil: the structure
   vouches for the line going there, not for its pencil being the only one; when it is read
   confidently, the part it joins is no longer in doubt for being cut off); with no join marked
   so, the one join with faint marks of the line's hue (or the hue next to it) is drawn in the best
   reading, in doubt; a line in pieces either side of a Thames band of its own pencil's hue, with
   no join marked, is joined across the band in doubt (a stroke leaves no mark there); over the
   Thames, where the print shifts hues, the lines that reach a section choose between two close
   hues, and of those lines the one pencil that can look like the colour seen on the band (a dark
   band fades its dark channels) takes it; on paper under a coloured light, light strokes drift
   towards the tint the light gives the guides, and the same reasoning applies; faint marks
   leaving a line are in doubt (the one section with faint marks of its hue on half of it and some
   ink, leaving a line's end, is the line going on lightly in the best reading), and so is a line's
   last section when it is lightly marked or far lighter than the rest of its line, as a section
   rubbed out leaves it (nothing else vouches for it); a short, lightly marked section in doubt
   that touches no other section of its colour, away from its departure station, is not drawn in
   the best reading (a symbol's edge or a sharpened guide leaves such marks more often than a
   pencil); a section read in one colour that would join another line's pieces is in doubt (two
   pencils on one section read as one), so is one read in a colour not plainly its pencil's where
   another line ends (two pencils on top of each other mix into one colour), and one with another
   line's pencil beside its stroke along a fifth of it (less when its own colour is pulled away
   from its pencil's), where that line reaches it (and the other sections of its own pencil show
   none such), is drawn in both in the best reading, in doubt;
4. **rules**: when the best reading breaks the construction rules and exactly one section in doubt
   or of a close hue, read in its second hue, would mend them, it takes that hue (in doubt); a rule
   still broken through a section that is not strongly drawn (over the Thames, or marked on part
   of it on paper) is in doubt;
5. **hidden**: a long stretch of a section that shows neither the printed guide nor pencil lies
   under something (a pencil, a pen, a finger) or is washed out by glare: the section is in doubt
   unless it is read as drawn on most of its length;
6. **learnt**: last, each section left in doubt takes the best reading, drawn or not, of a model
   learnt on the bench's stored reads where it says otherwise than the rules (``doubt_model``), and
   each then read drawn the pencil a second model finds the more probable of the one read and the
   other nearest its colour; it stays in doubt.

The best reading counts a section as drawn above the midpoint of the two thresholds; sections
in doubt are named so that a person can check them.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from nsvision.game.board import LINE_COLOURS, Colour, GameMap, Point, Section, station_name
from nsvision.game.network import GameOptions, Network
from nsvision.game.rules import check_network, reached_stations
from nsvision.vision import doubt_model
from nsvision.vision.detect import SegmentEvidence, pencil_hues
from nsvision.vision.doubt_model import Decision, hue_lead
from nsvision.vision.doubt_model import line_degrees as _line_degrees


class ColourDoubt(str):
    """A reason that questions only which pencil drew a section, not whether it is drawn.

    The rules may settle such a doubt (see ``_settle_by_rules``); the reason's type says what kind
    of doubt it is, so that how it is worded never changes what is decided.
    """


class LightDoubt(str):
    """A reason that questions only whether light pencil read in a line's colour is a stroke: too
    little of it marked, a gap in it, far lighter than the rest of its line at its end, a short light
    branch. Specks of that pencil along it at the picture's own resolution may settle such a doubt
    (see ``_specks_confirm_light_strokes``); like ``ColourDoubt``, the type says what kind of doubt
    it is.
    """


DRAWN = 0.5
"""Share of a section marked from which it is drawn without doubt (95 % of rendered strokes mark 80–100 %)."""
EMPTY = 0.3
"""Share up to which a section is surely empty (99 % of undrawn sections stay below once crossings are discounted)."""
WEAK_SURE_INK = 0.7
"""Marked share a section seen mostly over the Thames needs before it is read without doubt."""
FAINT_MIN_SAMPLES = 6
"""Measured positions (a pixel apart) under which faint marks alone, no ink, put no section in doubt
next to a line: on 6,3-7,3, 9,6-9,7 and 0,2-0,3 five are left between the symbols, and faint marks
on four or five of them are as often a speck (64 of the 70 such doubts on the stored bench reads
were on undrawn sections, the six drawn ones on sheets flagged for other sections). Faint marks on
nearly all of them at a line's end are put in doubt all the same, once the models have read the
sheet (``SHORT_END_FAINT``)."""
SHORT_END_FAINT = 0.8
"""Share of a short section (under ``FAINT_MIN_SAMPLES`` positions, no ink) with faint marks from
which, at the end of the line of their hue, it is put in doubt all the same (``_faint_short_ends``).
Over every stored bench read (7,270 sheets, sixty-fifth session) that names 18 sections: 5 drawn
(one on a sheet with no other doubt, `unseen` photo 89018) and 13 blank, 5 of those on sheets
flagged for nothing else; no total changes."""
FAINT_EXTENSION_INK = 0.2
"""Marked share from which faint pencil continuing a line of the same hue is put in doubt."""
FAINT_EXTENSION_SHARE = 0.6
"""The same for marks too light to count as ink but present on this share of the section (``faint``)."""
FAINT_END_SHARE = 0.55
"""The same at a line's end only, where a light hand's stroke most often goes on: marks on a little
less of the section than ``FAINT_EXTENSION_SHARE``, on a sheet whose blank sections are free of them.
Over every stored bench read (3,910 sheets) this puts in doubt a light stroke on one sheet read wrong
without a flag (149016) and flags four read right."""
FAINT_LONG_END_SHARE = 0.25
"""The same for a long section (``LONG_SAMPLES``) at a line's end, in the line's own hue."""
LONG_SAMPLES = 60
"""Measured positions from which a section is long (two lattice units and more)."""
FAINT_EXTENSION_SHARE_RIVER = 0.3
"""The same over the Thames band, where pencil of the band's own hue leaves little more than faint marks."""
FAINT_UNLIKE_BAND_SHARE = 0.25
"""The same for faint marks there in a colour the band itself lacks (a short crossing: 4 of its 14
positions; at 5, a light green stroke on the dark blue band went unflagged)."""
LIGHT_EXTENSION_INK = 0.1
"""Marked share from which pencil of a line's hue leaving one of its stations is put in doubt when
faint marks also cover ``LIGHT_EXTENSION_SHARE`` of it (a light stroke the picture's noise breaks up)."""
LIGHT_EXTENSION_SHARE = 0.35
"""Share of such a section with faint marks that makes its few marked positions a light stroke. 0.4
until the fifty-second session: `print` 9022 of seed 9000's plan, purple 4,4-5,3 marked on 18 %
with faint marks on 39 %, was wrong without a flag. At 0.35, over the 27 stored sets, `slate` and
`mono`, 8 more sections are in doubt (that one drawn) and no other sheet is flagged; at 0.3, 26
(5 drawn), two sheets read right flagged and one total less exact."""
FAINT_ALL_ALONG_RIVER = 0.9
"""Share of a section over the Thames with faint marks from which they are looked at next to any
station of a line of their hue, not only at its ends (a branch drawn on the band in its own hue)."""
FAINT_BLANK_MAX = 0.25
"""Highest ``faint`` share that nine in ten blank sections of a sheet may show for faint marks to count."""
FAINT_EXTENSION_INK_RIVER = 0.05
"""The same over the Thames, where pencil shows less (and next to any line: its hue says little there),
when faint marks cover at least ``FAINT_EXTENSION_SHARE_RIVER`` of it."""
FAINT_CLEAR_END_SHARE = 0.45
"""Share of a section with faint marks from which, on any sheet, they are looked at at the end of a
line of their hue when they are plainly of it (``FAINT_CLEAR_END_MARGIN``), on a section of at least
``FAINT_CLEAR_END_OWN_SAMPLES`` positions, and ``FAINT_CLEAR_END_LEAD`` above what nine in ten of the
sheet's blank sections of ``FAINT_CLEAR_END_SAMPLES`` positions and more show. On the 1,320 reads of
the six development sets (at 89b4360), 22 such sections are drawn and 4 blank; one sheet more is
flagged, and it was wrong without a flag."""
FAINT_CLEAR_END_SAMPLES = 20
"""Fewest measured positions of the sheet's blank sections that the faint marks are compared with:
on shorter ones a few specks of print make a large share."""
FAINT_CLEAR_END_OWN_SAMPLES = 12
"""Fewest measured positions of the section itself: more than the ten or fewer of the shortest
sections, where a district border across the middle leaves two runs of positions, one at each end,
and in photos the print's marks beside the border cover one run, half of many blank ones. A light stroke
on a short section next to a tourist site (14 positions) was read as not drawn without a flag
(111044) at 20."""
FAINT_CLEAR_END_LEAD = 0.25
"""How much more of such a section than of the sheet's blank ones must show faint marks."""
FAINT_CLEAR_END_MARGIN = 0.9
"""Colour margin of such marks (how plainly they are of their hue rather than the next one)."""
FAINT_LINE_INK = 0.08
"""Marked share that, at the departure station of a colour read as empty, puts a section in doubt."""
PARTLY_INK = 0.25
"""Marked share from which a section read as not drawn, with faint marks on ``PARTLY_FAINT`` of it
and more, is put in doubt: just under the share that puts any section in doubt (``EMPTY`` and
``DRAWN`` set it), the faint marks say a light stroke may run on where the ink stops. Over the 4,570
stored bench reads (2026-12-05): 20 sections, 5 of them drawn; two right sheets newly flagged, one
read wrong without a flag (`cream` 146072's purple 0,0-1,1, 29 % marked, faint on 73 %) now
flagged. At 0.2 two more right sheets are flagged, at 0.15 eight, and no wrong one."""
PARTLY_FAINT = 0.5
"""See ``PARTLY_INK`` (at 0.4: three more right sheets flagged, no wrong one)."""
GAPPED_INK = 0.12
"""Marked share from which an undrawn-looking section with marks at both ends is put in doubt."""
GAPPED_SPAN = 0.75
"""Share of the section between its first and last mark that makes those marks 'both ends'."""
LIGHT_STROKE_INK = 0.1
"""Marked share from which a section in doubt leaving a station of its hue's line is read as drawn in
the best reading, when faint marks also cover ``LIGHT_STROKE_FAINT`` of it."""
LIGHT_STROKE_FAINT = 0.45
"""Share of such a section with faint marks (see ``_light_strokes_beside_lines``)."""
LIGHT_STROKE_INK_RIVER = 0.25
"""The same over the Thames band, where a light stroke shows less but the band's own texture leaves
marks too: ink on a quarter of it, faint marks on ``LIGHT_STROKE_FAINT_RIVER``, in a colour unlike
the band's, of a pencil unlike the band's."""
LIGHT_STROKE_FAINT_RIVER = 0.5
"""Share of such a section over the band with faint marks."""
BRIDGE_INK = 0.05
"""Marked share of the line's own hue from which the section joining a line's two parts is read as drawn."""
SURE_BRIDGE_INK = 0.15
"""Marked share of the line's own hue on plain paper from which that join is read as drawn without doubt
(when the other joins carry no pencil)."""
SURE_BRIDGE_INK_RIVER = 0.25
"""The same over the Thames, where a light stroke shows less: the join is read as drawn without doubt
when it is marked on this share of it and the other joins carry no marks at all, not even faint ones."""
WEAK_JOIN_FAINT = 0.2
"""Share of a join carrying faint marks of the line's hue from which, when it is the only join with
that many, it is the join of the best reading (in doubt; the sheet is flagged for the line in pieces)."""
SHORT_SURE_BRIDGE_INK = 0.3
"""Marked share a short section (``SegmentEvidence.short``) needs, on a picture whose specks are not
measured (a photo), to be read without doubt as the join of a line in pieces when it would meet one
of them at a station in its middle (the line branching there): between two large symbols the
strokes of the lines through them end in it. Over every stored read (sixty-third session: the 20
plans, the fresh prints, `slate`, `mono`, `twice`, `overlaid`; 5,830 sheets), the joins read so
without doubt were drawn 842 times of 844 between two pieces' ends, 142 of 149 where they made a
branch, and 14 of 15 where they made a branch on a photo and were short and marked on less than
this (`unseen` photo 86048's purple 2,7-3,7, marked by the strokes ending at its two rings, read for
a section that left nothing, wrong without a flag)."""
SURE_BRIDGE_FAINT = 0.5
"""Share of that join carrying faint marks of the line's hue from which it is read as drawn without
doubt, when the sheet's blank sections are free of faint marks and the other joins carry none."""
LIGHT_END_FAINT = 0.5
"""Share of a section with faint marks of a line's hue from which, leaving that line's end (the one
such section there), it is read as the line going on lightly in the best reading (in doubt)."""
LIGHT_END_FAINT_CLEAR = 0.4
"""The same for faint marks plainly of the line's hue (``FAINT_CLEAR_END_MARGIN``). Over the stored
reads of the 19 plans and six fresh-print sets (5,100 sheets, forty-seventh session) it changes 16
sheets' readings, 15 of them with fewer sections misread (5 more totals exact, 5 more sheets fully
right), one with more (`cream` 142079, its total nearer all the same), and no flag (those sections
are in doubt already). Without the margin, two short sections half marked by a symbol's edge, their
colour between two pencils, were read drawn (`print` 42011, 42066 of seed 42000's plan)."""
LIGHT_END_SPAN = 0.1
"""Share of that section between its first and last mark dark enough to count as ink that it needs
as well: faint marks alone are what a blank guide under a cast shows."""
STRONG = 0.8
"""Share at which a section is trusted even when it breaks the game's structure."""
LIGHT_END_INK = 0.65
"""Marked share under which a line's last section, drawn lightly, is in doubt."""
LIGHT_END_STRENGTH = 0.15
"""Mean density of the marks (OD) under which a line's last section counts as lightly drawn."""
FADED_END = 0.1
"""Share of its line's usual density (the median of its other sections on paper) under which a
line's last section is in doubt however much of it is marked: a section rubbed out leaves a smear of
its pencil, marked all along but a tenth as dense as the line's strokes (``bench/robustness.py``,
"a section rubbed out"). A last section drawn on purpose is rarely so much lighter than its own
line: over the 1,420 reads of the stored development sets, 5 readings, all right, are flagged for
one and for nothing else (12 from 0.15, which finds one smear of 40 more)."""
FADED_END_LINE = 3
"""Fewest other sections of a line on paper to tell its usual density by."""
SHORT_SAMPLES = 12
"""Fewer measured positions than this (a short section between two large symbols) are too few to
trust a section cut off from its line however marked: a compass spike's tip, a disc's edge."""
CONFIDENT = 0.9
"""Sections whose reading is less sure than this are in doubt."""
OVER_BAND = 0.5
"""Share of a section's measured positions over the Thames from which it is judged as lying over the
band (its colour and its faint marks less certain there) rather than on paper."""
ANCHOR_COS = 0.75
"""A departure station's section is taken as a line's pencil only if it is at least this similar to it."""
ANCHORS_APART = 0.97
"""Similarity above which two departure anchors are one pencil: no two pencils of a box are so alike
(purple and pink, the nearest, 0.88 by the renderer's pencils). `print` 7034 of seed 7000's plan
took the pink line running firmly through purple's departure as purple's anchor (its own purple
there too light to anchor): the two anchors measured alike, the clustering gave each line the other's
hue, and nearly every purple and pink section was read in the other pencil (flagged for one
section only). Over every stored set (2,160 reads) the bound changes five reads: that one and a
robustness read (new pencils) become right, three wrong ones stay wrong and flagged."""
ANCHOR_STRENGTH = 0.15
"""Nor when it is lighter than this (mean chroma density of its marks): a light stroke's colour is
the one its pencil shows least reliably (a coloured light, a phone's sharpening turn purple pink)."""
MEND_MARGIN = 0.9
"""Colour margin under which even a confidently read section may take its second hue to mend the rules."""
HUE_CONSISTENT = 0.96
"""A section's colour less similar than this to its pencil's hue learnt on the sheet is in doubt:
drawn sections of one pencil agree far better (99 % above 0.99 on the benchmark's sheets)."""
COLOUR_MARGIN = 0.3
"""Normalised lead of the nearest hue over the next (1 = on the hue, 0 = halfway) below which
the colour is in doubt."""
COLOUR_MARGIN_RIVER = 0.75
"""The same for a section seen mostly over the Thames, where the print under the pencil shifts its hue."""


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
    """Why the section is in doubt (empty when it is not), or what was read where it is set by hand."""
    evidence: SegmentEvidence
    nearest: Colour = "purple"
    """The pencil hue nearest to the marks on it (the colour it would have if drawn)."""
    colour_margin: float = 1.0
    """Normalised lead of the nearest hue over the next (see ``COLOUR_MARGIN``)."""
    set_by_hand: bool = False
    """A person checked the sheet and said what this section is (``settle_by_hand``)."""
    also: Colour | None = None
    """A second pencil drawn along the section as well (the ``drawn_twice`` rule broken): the best
    reading counts it in both lines."""

    @property
    def as_read(self) -> str:
        """The reading in words: its pencil (both, when drawn twice), or "not drawn"."""
        return f"{self.colour} and {self.also}" if self.colour and self.also else self.colour or "not drawn"

    def to_dict(self) -> dict[str, object]:
        return {
            "section": self.section.name,
            "colour": self.colour,
            "also": self.also,
            "confidence": round(self.confidence, 3),
            "doubtful": self.doubtful,
            "reason": self.reason,
            "nearest": self.nearest,
            "colour_margin": round(self.colour_margin, 3),
            "set_by_hand": self.set_by_hand,
            "evidence": self.evidence.to_dict(),
        }


@dataclass(frozen=True)
class Reading:
    """The rebuilt network plus every section's decision and the pencil hues learnt from the sheet."""

    network: Network
    sections: Mapping[Section, SectionReading]
    hues: Mapping[Colour, tuple[float, float, float]]
    second_look: Mapping[Section, str] = field(default_factory=dict)
    """Sections not in doubt that a person reviewing the sheet should look at too, with why: read as
    not drawn where a light stroke may hide (``_second_looks``: a missed light stroke is not always
    in doubt), and those that would explain a tourist track disagreeing with the lines
    (``tourist_second_looks``, added when the sheet is scored)."""

    @property
    def doubtful(self) -> tuple[SectionReading, ...]:
        return tuple(r for r in sorted(self.sections.values(), key=lambda r: r.section) if r.doubtful)

    @property
    def drawn(self) -> tuple[SectionReading, ...]:
        return tuple(r for r in sorted(self.sections.values(), key=lambda r: r.section) if r.colour is not None)

    @property
    def set_by_hand(self) -> tuple[SectionReading, ...]:
        return tuple(r for r in sorted(self.sections.values(), key=lambda r: r.section) if r.set_by_hand)


def settle_by_hand(
    reading: Reading, fixes: Mapping[Section, Colour | None], also: Mapping[Section, Colour] | None = None
) -> Reading:
    """The reading once a person has looked at the sheet: each section in ``fixes`` is what they say
    (a colour, or None: not drawn; and in ``also`` the second pencil drawn along it, if any), sure and
    no longer in doubt. Other sections keep their reading, doubts included: only what a person
    checked is settled."""
    sections = dict(reading.sections)
    for s, colour in fixes.items():
        was = sections[s]
        read = f"read as {was.as_read}" + (", in doubt" if was.doubtful else "")
        sections[s] = SectionReading(
            s,
            colour,
            1.0,
            False,
            f"set by hand ({read})",
            was.evidence,
            colour or was.nearest,
            was.colour_margin,
            True,
            (also or {}).get(s) if colour is not None else None,
        )
    decided = _decisions(sections)
    # What is worth a second look follows the lines as the person has settled them.
    evidence = {s: r.evidence for s, r in sections.items()}
    looks = _second_looks(decided, evidence, {s: r.nearest for s, r in sections.items()})
    second_look = {s: why for s, why in looks.items() if s not in fixes}
    return _reading_with(reading, sections, decided, second_look)


def _decisions(sections: Mapping[Section, SectionReading]) -> dict[Section, Decision]:
    """The rebuild's decisions (colour, confidence, reason, colour margin) behind section readings."""
    return {s: (r.colour, r.confidence, r.reason, r.colour_margin) for s, r in sections.items()}


def _reading_with(
    reading: Reading,
    sections: Mapping[Section, SectionReading],
    decided: Mapping[Section, Decision],
    second_look: Mapping[Section, str],
) -> Reading:
    """``reading`` with some sections read otherwise (``sections``, their ``_decisions``): its lines
    built again from them, under the same options and learnt hues."""
    twice = {s: r.also for s, r in sections.items() if r.also is not None}
    return Reading(_network(decided, reading.network.options, twice), dict(sections), reading.hues, dict(second_look))


def _drawn_confidence(ink: float) -> float:
    """How sure we are of drawn/not drawn, from the marked share alone (linear between the thresholds)."""
    mid = (DRAWN + EMPTY) / 2
    half = (DRAWN - EMPTY) / 2
    return min(1.0, 0.5 + 0.5 * abs(ink - mid) / half)


def _over_band(ev: SegmentEvidence) -> bool:
    """Whether the section is judged as lying over the Thames band (see ``OVER_BAND``)."""
    return ev.over_river > OVER_BAND


def _vec(ev: SegmentEvidence) -> np.ndarray:
    return np.array(ev.chroma, dtype=np.float64)


def _unlike_its_pencil(ev: SegmentEvidence, hue: np.ndarray, cos: float = HUE_CONSISTENT) -> bool:
    """Whether a section's colour is unlike the sheet's pencil of learnt ``hue`` (cosine under
    ``cos``): a printed mark under a cast, or two pencils on one section."""
    return float(_vec(ev) @ hue) < cos


def learn_hues(evidence: Mapping[Section, SegmentEvidence], game_map: GameMap) -> dict[Colour, np.ndarray]:
    """The four pencil hues of this sheet (unit chroma vectors), from departure anchors and clustering."""
    default = pencil_hues()
    # Sections seen over the Thames do not teach a pencil's hue: the print shifts it there.
    marked = [s for s, ev in evidence.items() if ev.ink > EMPTY and not _over_band(ev)]
    options: list[list[Section | None]] = []
    for c in LINE_COLOURS:
        dep = game_map.departure(c)
        cands = [
            s
            for s in marked
            if dep in (s.a, s.b)
            and float(_vec(evidence[s]) @ default[c]) >= ANCHOR_COS
            and evidence[s].strength >= ANCHOR_STRENGTH
        ]
        options.append([None, *cands])
    best_score: float = -1.0
    best_pick: list[Section | None] = [None] * len(LINE_COLOURS)
    for pick in itertools.product(*options):
        chosen = [s for s in pick if s is not None]
        if len(set(chosen)) != len(chosen):
            continue
        if any(
            float(_vec(evidence[a]) @ _vec(evidence[b])) > ANCHORS_APART for a, b in itertools.combinations(chosen, 2)
        ):
            # Two lines' anchors of one colour: one of them is the other line's pencil passing
            # through a departure station.
            continue
        score = sum(float(_vec(evidence[s]) @ default[c]) for c, s in zip(LINE_COLOURS, pick, strict=True) if s)
        if score > best_score:
            best_score, best_pick = score, list(pick)
    hues = {
        c: (_vec(evidence[s]) if s is not None else default[c]) for c, s in zip(LINE_COLOURS, best_pick, strict=True)
    }
    anchored = {c for c, s in zip(LINE_COLOURS, best_pick, strict=True) if s is not None}
    # A few rounds of clustering on the sections that are clearly drawn refine each hue; firm
    # strokes weigh most: light marks (a guide tinted by warm light) must not pull a pencil's hue.
    clear = [s for s in marked if evidence[s].ink >= DRAWN]
    for _ in range(4):
        groups: dict[Colour, list[np.ndarray]] = {c: [] for c in LINE_COLOURS}
        for s in clear:
            v = _vec(evidence[s])
            c = max(LINE_COLOURS, key=lambda k: float(v @ hues[k]))
            groups[c].append(v * evidence[s].ink * evidence[s].strength)
        for c, vs in groups.items():
            if vs and (c in anchored or len(vs) >= 2):
                mean = np.mean(vs, axis=0)
                hues[c] = mean / np.linalg.norm(mean)
    return hues


def _colour_of(v: np.ndarray, hues: Mapping[Colour, np.ndarray]) -> tuple[Colour, Colour, float]:
    """Nearest and second-nearest hue, and the normalised margin between them."""
    ranked = sorted(LINE_COLOURS, key=lambda c: -float(v @ hues[c]))
    first, second = ranked[0], ranked[1]
    return first, second, min(1.0, hue_lead(v, hues[first], hues[second]))


def _decide(ev: SegmentEvidence, hues: Mapping[Colour, np.ndarray]) -> tuple[Decision, Colour, Colour]:
    """One section on its own evidence: (colour, confidence, reason, colour margin), nearest and second hue."""
    first, second, margin = _colour_of(_vec(ev), hues)
    colour: Colour | None = first if ev.ink > (DRAWN + EMPTY) / 2 else None
    conf = _drawn_confidence(ev.ink)
    reason: str = ""
    if conf < CONFIDENT:
        reason = LightDoubt(f"faint or partial pencil ({ev.ink:.0%} of it marked, nearest {first})")
    elif colour is None and ev.ink >= GAPPED_INK and ev.span >= GAPPED_SPAN:
        # Pencil at both ends with a gap between is a faded or rubbed stroke, not a crossing.
        conf = 0.6
        reason = LightDoubt(f"pencil at both ends with a gap ({ev.ink:.0%} of it marked, nearest {first})")
    elif colour is None and ev.ink >= PARTLY_INK and ev.faint >= PARTLY_FAINT:
        # Marked on a quarter of it and more, faint marks on half: not plainly blank.
        conf = 0.6
        reason = LightDoubt(
            f"pencil on part of it ({ev.ink:.0%} marked, faint marks on {ev.faint:.0%}, nearest {first})"
        )
    elif colour is not None and margin < (needed := COLOUR_MARGIN_RIVER if _over_band(ev) else COLOUR_MARGIN):
        # Scaled so that a margin just short of what is needed lands just below CONFIDENT.
        conf = min(conf, 0.5 + (CONFIDENT - 0.5) * max(0.0, margin) / needed - 0.01)
        reason = ColourDoubt(f"colour between {first} and {second}")
    return (colour, conf, reason, margin), first, second


def rebuild(
    evidence: Mapping[Section, SegmentEvidence],
    game_map: GameMap,
    options: GameOptions | None = None,
    band: Sequence[float] | None = None,
) -> Reading:
    """Decide each potential section's colour (or none) with a confidence; see the module doc."""
    hues = learn_hues(evidence, game_map)
    decided: dict[Section, Decision] = {}
    second_choice: dict[Section, Colour] = {}
    nearest: dict[Section, Colour] = {}
    for s in game_map.sections:
        decided[s], nearest[s], second_choice[s] = _decide(evidence[s], hues)
        c, f, r, m = decided[s]
        if c is not None and not _over_band(evidence[s]) and _unlike_its_pencil(evidence[s], hues[c]):
            # Nearest to one pencil but unlike every pencil of this sheet: a printed mark under a
            # cast (grey guides turn pinkish under warm light) or two pencils on one section.
            # (Its reason no longer a doubt of light pencil alone, ``str`` drops the type.)
            decided[s] = (c, min(f, 0.6), str(r) or f"colour unlike this sheet's {c} pencil", m)

    # Over the Thames the print under the pencil shifts its hue, the same way for every section of
    # one sheet: clearly drawn river sections that only one line reaches teach that line's river hue.
    taught = _river_hues(decided, evidence, hues)
    river_hues = {**hues, **taught}
    if taught:
        for s in game_map.sections:
            if decided[s][0] is not None and _over_band(evidence[s]):
                decided[s], nearest[s], second_choice[s] = _decide(evidence[s], river_hues)

    # There, the colour is the one the neighbouring sections on plain paper carry at the section's
    # stations, when they agree.
    _river_colours(decided, evidence, hues, river_hues, second_choice, band, game_map)

    # On paper under a coloured light, a light stroke takes on the tint the light gives the guides
    # (the print's faint marks on blank sections show it): of the lines that reach it, the pencils
    # that can then look like it decide.
    _settle_cast(decided, evidence, hues, game_map)

    _crossings_exclude(decided, evidence, game_map)
    cut_off = _cut_off_sections(decided, evidence, second_choice, game_map)
    _partial_bridges(decided, evidence, nearest, hues, game_map)
    # Faint marks only mean something on a sheet whose blank sections are free of them: where the
    # print's own guides leave faint marks everywhere (warm light, a dark print), they are ignored.
    faint_means_pencil = not _faint_everywhere(decided, evidence)
    named_joins = _join_pieces(decided, evidence, nearest, second_choice, hues, band, game_map, faint_means_pencil)
    _faint_leaving_lines(decided, evidence, nearest, hues, band, faint_means_pencil)
    if faint_means_pencil:
        _light_line_goes_on(decided, evidence, nearest)
    _faint_first_sections(decided, evidence, nearest, game_map)

    if _settle_by_rules(decided, second_choice, evidence, game_map, options):
        # The mended line is whole: the blank sections named as its possible joins are blank again.
        for s, (colour, before, doubt) in named_joins.items():
            if (
                decided[s] == doubt
                and before[1] >= CONFIDENT
                and not _marked(evidence[s])
                and not _parts(colour, decided, game_map)[1]
            ):
                decided[s] = before

    _reconnect(cut_off, decided, game_map)
    _shared_joins(decided, game_map)
    _rule_breaks_through_partial_pencil(decided, evidence, game_map, options)
    _light_line_ends(decided, evidence)
    _short_light_branches(decided, evidence)
    _colour_clear_of_symbols(decided, evidence, hues)
    _light_strokes_beside_lines(decided, evidence, nearest, game_map, hues, band)
    _stray_marks(decided, evidence, game_map)
    twice = _second_pencil(decided, evidence, hues)
    _mixed_where_line_ends(decided, evidence, hues, twice)
    _hidden_sections(decided, evidence)
    _specks_beside_lines(decided, evidence, game_map)
    _specks_confirm_light_strokes(decided, evidence, game_map)
    _light_all_along(decided, evidence, nearest, game_map)
    _join_ends(decided, evidence, game_map)
    # Last, the best reading of each section still in doubt, drawn or not, from the model learnt on
    # the bench's stored reads (``doubt_model``): it stays in doubt either way.
    departures = {k: game_map.departure(k) for k in LINE_COLOURS}
    doubt_model.settle_doubts(
        decided,
        evidence,
        nearest,
        twice,
        game_map.crossing_partners,
        CONFIDENT,
        doubt_model.default_model(),
        departures,
        hues,
    )
    # Then the pencil of each section in doubt read drawn, from a second model (``doubt_model``).
    doubt_model.settle_colours(
        decided, evidence, twice, CONFIDENT, doubt_model.default_colour_model(), departures, hues
    )

    _faint_short_ends(decided, evidence, nearest)

    readings = {
        s: SectionReading(
            s, c, f, f < CONFIDENT, _reason(r, f, c, nearest[s]), evidence[s], c or nearest[s], m, also=twice.get(s)
        )
        for s, (c, f, r, m) in decided.items()
    }
    learnt = {c: (float(v[0]), float(v[1]), float(v[2])) for c, v in hues.items()}
    return Reading(_network(decided, options, twice), readings, learnt, _second_looks(decided, evidence, nearest))


def _river_colours(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    hues: Mapping[Colour, np.ndarray],
    river_hues: Mapping[Colour, np.ndarray],
    second_choice: Mapping[Section, Colour],
    band: Sequence[float] | None,
    game_map: GameMap,
) -> None:
    """Over the Thames, the colour of a section read drawn is the one the neighbouring sections on plain
    paper carry at its stations, when they agree (``_line_support``)."""
    for s in game_map.sections:
        c, f, r, m = decided[s]
        if c is None or not _over_band(evidence[s]):
            continue
        support = _line_support(s, decided, evidence)
        # Plainly of a line's hue that does not reach it (a section of that line next to it missed,
        # or read in another pencil): the structure's choice of another line is then a guess against
        # what is seen, so a person confirms it. Over the 4,570 stored bench reads this puts 11
        # crossings in doubt, 8 of them misread without doubt before, all on sheets flagged already.
        plain_elsewhere = support[c] == 0 and m >= COLOUR_MARGIN_RIVER
        # A colour so near halfway between two hues that even on paper it would be in doubt may be
        # either pencil, whatever the band does to them: what the band explains does not settle it.
        if band is not None and evidence[s].ink >= WEAK_SURE_INK and m >= COLOUR_MARGIN:
            able = _band_explains(_vec(evidence[s]), hues, band)
            reaching = [k for k in LINE_COLOURS if support[k] > 0 and k in able]
            if len(reaching) == 1 and not plain_elsewhere:
                # Of the lines that reach it, one pencil alone can look like this on this band.
                decided[s] = (reaching[0], _drawn_confidence(evidence[s].ink), "", m)
                continue
        # Another line reaching it as well only matters if its pencil could be the one seen: the
        # second-nearest hue, or any when the hue is unclear.
        rivals = [
            k
            for k in LINE_COLOURS
            if k != c and support[k] >= support[c] and (k == second_choice[s] or m < COLOUR_MARGIN_RIVER)
        ]
        if support[c] > 0 and not rivals and evidence[s].ink >= WEAK_SURE_INK:
            if support[second_choice[s]] == 0:
                # Its hue one of two and only this line of the two reaches it: however close the two
                # hues, the other would be a piece cut off from its own line.
                decided[s] = (c, _drawn_confidence(evidence[s].ink), "", m)
            continue
        backed = [k for k in (c, second_choice[s]) if support[k] > 0]
        present = [k for k in LINE_COLOURS if support[k] > 0]
        # The other lines that reach it do not matter when their pencil is far from the one seen,
        # unless it is a pencil of the band's own hue: drawn there, it would leave nothing to see.
        only = len(backed) == 1 and all(
            hue_lead(_vec(evidence[s]), river_hues[backed[0]], river_hues[k]) >= COLOUR_MARGIN_RIVER
            and not _like_band(hues[k], band)
            for k in present
            if k not in backed
        )
        if support[c] == 0 and only and evidence[s].ink >= WEAK_SURE_INK and not plain_elsewhere:
            # Clearly drawn, its hue one of two, and only one of those two lines reaches it at all:
            # the other would be a piece cut off from its own line. The structure decides, however
            # close the two hues.
            decided[s] = (backed[0], _drawn_confidence(evidence[s].ink), "", m)
        elif support[c] == 0 and len(backed) == 1:
            # The structure's best guess, but still a guess: a person confirms it.
            decided[s] = (
                backed[0],
                min(f, 0.8),
                ColourDoubt(f"colour over the Thames taken from the {backed[0]} line"),
                m,
            )
        elif support[c] > 0 and m >= COLOUR_MARGIN_RIVER and evidence[s].ink >= DRAWN and not r:
            # Drawn, plainly of its line's river hue rather than the second one, and that line
            # reaches it: the other lines that reach it do not make the colour unclear (over the
            # six development sets, each of the 38 such crossings marked on half to 70 % was right).
            continue
        else:
            decided[s] = (c, min(f, 0.6), r or ColourDoubt(f"colour over the Thames unclear (nearest {c})"), m)


def _crossings_exclude(
    decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence], game_map: GameMap
) -> None:
    """Crossing sections exclude each other: a weak one under a clear one is suspect, and not drawn
    in the best reading. A player who crossed two lines is rarer than print or a stray mark read as
    pencil: over every stored bench read (4,810), 22 of the 27 sections left with this doubt were
    not drawn, and reading them so makes 9 sheets right and one wrong (a player who did cross)."""
    for pair in game_map.crossing_pairs:
        s, t = sorted(pair)
        if decided[s][0] is None or decided[t][0] is None:
            continue
        weak, strong = (s, t) if evidence[s].ink < evidence[t].ink else (t, s)
        if evidence[weak].ink < STRONG:
            _c, f, _, m = decided[weak]
            decided[weak] = (None, min(f, 0.6), f"crosses {strong.name}, which is drawn more clearly", m)


def _cut_off_sections(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    second_choice: Mapping[Section, Colour],
    game_map: GameMap,
) -> dict[Section, tuple[Colour, Decision]]:
    """Lines grow from their departure stations: a section cut off from its colour's tree may be
    the other pencil it resembles (when its colour is unclear anyway); otherwise it is suspect
    unless clearly drawn along enough of its length to trust.

    Returns those left in doubt so, with their line and their reading before (see ``_reconnect``).
    """
    cut_off: dict[Section, tuple[Colour, Decision]] = {}
    for colour in LINE_COLOURS:
        reached = _reachable(game_map.departure(colour), [s for s, d in decided.items() if d[0] == colour])
        for s, (c, f, r, m) in list(decided.items()):
            if c != colour or s.a in reached:
                continue
            alt = second_choice[s]
            alt_reached = _reachable(game_map.departure(alt), [t for t, d in decided.items() if d[0] == alt])
            if m < COLOUR_MARGIN and (s.a in alt_reached or s.b in alt_reached):
                decided[s] = (alt, min(f, 0.8), ColourDoubt(f"colour between {colour} and {alt}; {alt} connects it"), m)
            elif evidence[s].ink < STRONG or evidence[s].samples < SHORT_SAMPLES or evidence[s].short:
                cut_off[s] = (colour, decided[s])
                decided[s] = (c, min(f, 0.6), str(r) or f"not connected to the {colour} departure station", m)
    return cut_off


def _partial_bridges(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    nearest: Mapping[Section, Colour],
    hues: Mapping[Colour, np.ndarray],
    game_map: GameMap,
) -> None:
    """A partly marked section of a line's own hue that holds two parts of that line together is drawn
    without doubt: a section cut off from its line (``_cut_off_sections``) seen from the other side,
    the structure confirming what the faint pencil suggests."""
    for s, (c, f, _r, m) in list(decided.items()):
        if c is None or f >= CONFIDENT or _over_band(evidence[s]) or m < COLOUR_MARGIN:
            continue
        if evidence[s].ink < SURE_BRIDGE_INK or nearest[s] != c:
            continue
        if _unlike_its_pencil(evidence[s], hues[c]):
            # The structure says the line goes there, not that its pencil alone does.
            continue
        if any(decided[t][0] is not None for t in game_map.crossing_partners[s]):
            continue
        others = [t for t, d in decided.items() if d[0] == c and t != s]
        reached = _reachable(game_map.departure(c), others)
        far = s.b if s.a in reached else s.a if s.b in reached else None
        if far is not None and far not in reached and any(far in (t.a, t.b) for t in others):
            decided[s] = (c, CONFIDENT, "", m)


def _join_pieces(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    nearest: Mapping[Section, Colour],
    second_choice: Mapping[Section, Colour],
    hues: Mapping[Colour, np.ndarray],
    band: Sequence[float] | None,
    game_map: GameMap,
    faint_means_pencil: bool,
) -> dict[Section, tuple[Colour, Decision, Decision]]:
    """A line in pieces is more often a faint section missed than a rule broken: name the sections
    that would join the pieces, so a person looks before the sheet is scored as illegal.

    The most likely join, when it carries marks of the line's own hue (a little ink, or faint marks
    along most of it), is read as drawn (still in doubt): a missed faint section is far more common
    than a line broken on purpose. When those marks are plain on paper (ink, or faint marks along
    half of it on a sheet whose blank sections show none: ``faint_means_pencil``), clearly of that
    hue, and no other join has any pencil, it is read as drawn without doubt: a lightly drawn
    section, not a puzzle.

    Returns, per section named, the line, its reading before, and the reading in doubt it was given.
    """
    named_joins: dict[Section, tuple[Colour, Decision, Decision]] = {}
    # A clean picture (a scan) shows what a short section holds.
    clean = _clean_picture(evidence)
    for colour in LINE_COLOURS:
        for _ in range(3):
            joins = _bridges(colour, decided, evidence, hues, game_map)
            best = next((s for s in joins if nearest[s] == colour and _marked(evidence[s])), None)
            rival_marks = [evidence[t] for t in joins if t != best]
            # On a photo a short join's few positions hold the ends of the strokes through its symbols:
            # a little pencil there does not make the line branch without doubt.
            trusted = clean or best is None or not evidence[best].short or evidence[best].ink >= SHORT_SURE_BRIDGE_INK
            if not trusted and best is not None:
                degree = _line_degrees(decided)
                trusted = all(degree[(colour, p)] < 2 for p in (best.a, best.b))
            if (
                best is not None
                and trusted
                and (
                    # Over the Thames a light stroke shows less, but a line in pieces is joined somewhere:
                    # the one join with pencil of the line's hue on a quarter of it, when no other has any mark.
                    (
                        _over_band(evidence[best])
                        and evidence[best].ink >= SURE_BRIDGE_INK_RIVER
                        and all(ev.ink == 0 and ev.faint == 0 for ev in rival_marks)
                    )
                    or (
                        not _over_band(evidence[best])
                        and decided[best][3] >= COLOUR_MARGIN
                        and all(ev.ink < BRIDGE_INK for ev in rival_marks)
                        and (
                            evidence[best].ink >= SURE_BRIDGE_INK
                            # Marks too light for ink, on a sheet whose blank sections are free of them.
                            or (
                                faint_means_pencil
                                and evidence[best].faint >= SURE_BRIDGE_FAINT
                                and all(ev.faint <= FAINT_BLANK_MAX for ev in rival_marks)
                            )
                        )
                    )
                )
            ):
                _c, f, _r, m = decided[best]
                decided[best] = (colour, max(f, CONFIDENT), "", m)
                continue
            for s in joins:
                c, f, r, m = decided[s]
                doubt = (c, min(f, 0.6), f"would connect the two parts of the {colour} line", m)
                named_joins.setdefault(s, (colour, decided[s], doubt))
                decided[s] = doubt
            if best is None:
                # Too little pencil on any join to call it drawn, but a line in pieces is joined
                # somewhere: a join with faint marks of the line's hue, or of the hue next to it
                # (faint purple often looks pink), the only one with such marks, is where (in the
                # best reading, still in doubt).
                traced = [t for t in joins if evidence[t].faint >= WEAK_JOIN_FAINT]
                if len(traced) == 1 and colour in (nearest[traced[0]], second_choice[traced[0]]):
                    best = traced[0]
            if best is None:
                # No join shows the line's pencil. On a band of that pencil's own hue (blue on a blue
                # or teal band) a stroke leaves no mark: the one join across it is the likeliest,
                # read as drawn in the best reading, still in doubt.
                hides = _like_band(hues[colour], band)
                across = [s for s in joins if _over_band(evidence[s])]
                if hides and len(across) == 1:
                    _c, f, r, m = decided[across[0]]
                    decided[across[0]] = (colour, f, f"{r}; the Thames band hides {colour} pencil", m)
                    continue
                break
            _c, f, _r, m = decided[best]
            decided[best] = (colour, f, f"faint {colour} pencil that joins the two parts of the {colour} line", m)
    return named_joins


def _faint_leaving_lines(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    nearest: Mapping[Section, Colour],
    hues: Mapping[Colour, np.ndarray],
    band: Sequence[float] | None,
    faint_means_pencil: bool,
) -> None:
    """Faint pencil of a line's own hue leaving one of that line's stations may be its last section
    or a branch, drawn lightly: a person should look. Over the Thames the hue of faint pencil says
    little, so faint pencil there leaving any line's station is looked at."""
    on_line, line_ends = _line_stations(decided)
    blank_level = _faint_level(decided, evidence, FAINT_CLEAR_END_SAMPLES)
    for s, (c, f, _r, m) in list(decided.items()):
        ev = evidence[s]
        river = _over_band(ev)
        if c is not None or f < CONFIDENT:
            continue
        if _faint_on_a_handful(ev):
            # Measured positions lie a pixel apart: a handful of them is one spot between two large
            # symbols, and faint marks there a speck, not a stroke along the section.
            continue
        if river:
            # On the band a pencil of a hue near the band's own barely shows: faint marks along a
            # good part of it are looked at on any sheet (a few specks are the band's edges), next
            # to any line's station when some reach the stroke threshold or they run all along it,
            # else at the end of a line whose pencil they are nearest or whose pencil can look like
            # them on this band (marks of another colour there are the band's own texture).
            # Marks in a colour the band itself does not have (its edges' specks have) are pencil
            # from a little less of it, and from a fifth of it when they reach the stroke threshold
            # there: a stroke the band mostly hides.
            own = band is None or _like_band(_vec(ev), band)
            if ev.faint < (FAINT_EXTENSION_SHARE_RIVER if own else FAINT_UNLIKE_BAND_SHARE) and (
                ev.ink < FAINT_EXTENSION_INK or own
            ):
                continue
            steady = ev.ink >= FAINT_EXTENSION_INK_RIVER or ev.faint >= FAINT_ALL_ALONG_RIVER
            reach = on_line if steady else line_ends
        elif ev.ink >= FAINT_EXTENSION_INK or (
            faint_means_pencil and ev.ink >= LIGHT_EXTENSION_INK and ev.faint >= LIGHT_EXTENSION_SHARE
        ):
            reach = on_line
        elif faint_means_pencil and ev.faint >= FAINT_END_SHARE:
            # Marks too light to count as ink only matter next to a line: it may go on lightly from
            # an end, or branch lightly from any of its stations (a Railroad Switch); on a little
            # less of it, from an end.
            reach = on_line if ev.faint >= FAINT_EXTENSION_SHARE else line_ends
        elif faint_means_pencil and ev.faint >= FAINT_LONG_END_SHARE and ev.samples >= LONG_SAMPLES:
            # A long section lightly drawn shows its faint marks on only part of its length; of the
            # line's own hue at the line's end, that is more than a blank guide shows.
            reach = line_ends
        elif (
            ev.faint >= max(FAINT_CLEAR_END_SHARE, blank_level + FAINT_CLEAR_END_LEAD)
            and ev.samples >= FAINT_CLEAR_END_OWN_SAMPLES
            and m >= FAINT_CLEAR_END_MARGIN
        ):
            # Even where the print leaves faint marks on many blank guides, faint marks on a section
            # that is not short, over well more of it than on the sheet's blank sections of its
            # kind and plainly of the hue of the line ending there, are that line going on lightly
            # as often as not.
            reach = line_ends
        else:
            continue
        cand: Sequence[Colour] = (nearest[s],)
        if river:
            # The pencils that can look like the marks, on paper or on this band.
            explains = set() if band is None else _band_explains(_vec(ev), hues, band)
            if ev.ink >= FAINT_EXTENSION_INK_RIVER and (band is None or explains):
                # With some ink, next to any line: the hue says little on the band. Not where no
                # pencil can take it: where a station's ring meets the band, or the band bends, its
                # printed banks and the guides converging on the station leave a few marks of a
                # colour no pencil takes (yellowish or reddish on some `unseen` prints), not a light
                # stroke next to whatever line serves the station; as for fainter marks, only the
                # line of the nearest pencil is looked at then.
                cand = LINE_COLOURS
            elif band is not None:
                cand = sorted({nearest[s]} | explains)
        near = [k for k in cand if s.a in reach[k] or s.b in reach[k]]
        if near:
            k = nearest[s] if nearest[s] in near else near[0]
            share = max(ev.ink, ev.faint)
            decided[s] = (c, min(f, 0.65), f"faint pencil ({share:.0%} of it) next to the {k} line", m)


def _faint_on_a_handful(ev: SegmentEvidence) -> bool:
    """No ink on a section measured at fewer than ``FAINT_MIN_SAMPLES`` positions: its faint marks
    alone put it in no doubt next to a line (``_faint_leaving_lines``), save at a line's end
    (``_faint_short_ends``)."""
    return ev.ink == 0 and ev.samples < FAINT_MIN_SAMPLES


def _faint_short_ends(
    decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence], nearest: Mapping[Section, Colour]
) -> None:
    """Faint marks on nearly all of a short section on paper (``SHORT_END_FAINT``), in the hue of a
    line that ends at one of its stations and does not pass through the other, put it in doubt, read
    as not drawn: ``_faint_leaving_lines`` leaves faint marks on so few positions out of doubt, as a
    speck more often than not, but a light stroke at a line's end leaves no more (`unseen` photo
    89018's purple 0,2-0,3: 8 points, no other doubt on the sheet). Taken after the models have
    read the sheet: they learnt no such doubt, and drew three of the thirteen blank ones on the
    stored sets."""
    on_line, line_ends = _line_stations(decided)
    for s, (c, f, _r, m) in list(decided.items()):
        ev = evidence[s]
        if c is not None or f < CONFIDENT or not _faint_on_a_handful(ev):
            continue
        if ev.faint < SHORT_END_FAINT or _over_band(ev):
            continue
        k = nearest[s]
        ends = {s.a, s.b} & line_ends[k]
        if ends and not ({s.a, s.b} & on_line[k]) - line_ends[k]:
            decided[s] = (c, min(f, 0.65), f"faint pencil ({ev.faint:.0%} of it) at the end of the {k} line", m)


def _faint_first_sections(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    nearest: Mapping[Section, Colour],
    game_map: GameMap,
) -> None:
    """Every round draws a line, so a colour read as not drawn at all, with faint marks of its hue
    leaving its departure station, is more likely a light pencil than an empty round."""
    for colour in LINE_COLOURS:
        if any(d[0] == colour for d in decided.values()):
            continue
        dep = game_map.departure(colour)
        for s, (c, f, _r, m) in list(decided.items()):
            if c is None and dep in (s.a, s.b) and evidence[s].ink >= FAINT_LINE_INK and nearest[s] == colour:
                decided[s] = (c, min(f, 0.6), f"the {colour} line may be drawn faintly here", m)


def _stray_marks(
    decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence], game_map: GameMap
) -> None:
    """A section in doubt that touches no other section of its colour and is cut off from that
    colour's departure station, short (under ``LONG_SAMPLES``) and lightly marked (under
    ``LIGHT_END_STRENGTH``), is not drawn in the best reading, still in doubt.

    A light short mark on its own is what the print leaves more often than a pencil does: a tourist
    site's spike, a disc's or a ring's edge, a guide darkened by a phone's sharpening, the band's
    edge. A line a player left in pieces is drawn as firmly as the rest of it.
    """
    degree = _line_degrees(decided)
    for colour in LINE_COLOURS:
        mine = [s for s, d in decided.items() if d[0] == colour]
        reached = _reachable(game_map.departure(colour), mine)
        for s in mine:
            _c, f, r, m = decided[s]
            ev = evidence[s]
            alone = degree[(colour, s.a)] == 1 and degree[(colour, s.b)] == 1
            if (
                f < CONFIDENT
                and alone
                and s.a not in reached
                and ev.samples < LONG_SAMPLES
                and ev.strength < LIGHT_END_STRENGTH
            ):
                why = r or f"a light {colour} mark"
                decided[s] = (None, f, f"{why}; light and on its own, more often the print than pencil", m)


def _light_line_goes_on(
    decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence], nearest: Mapping[Section, Colour]
) -> None:
    """A line's end from which one section, and only one, carries faint marks of the line's hue on
    half of it and more (``LIGHT_END_FAINT``; 40 % when plainly of that hue), with some ink among
    them: the line goes on there, drawn lightly, in the best reading, still in doubt. A light stroke
    is far more common than faint marks of a pencil's own hue leaving exactly where its line ends by
    chance. Two such sections at one end are left to a person. Repeated from the new end: a light
    hand draws the last few sections alike. Not over the Thames, where faint marks are the band's own
    texture as often as pencil."""
    while True:  # every round draws a section more, or stops
        on_line, line_ends = _line_stations(decided)
        found: dict[tuple[Colour, Point], list[Section]] = {}
        for s, (c, _f, _r, m) in decided.items():
            ev, k = evidence[s], nearest[s]
            if (
                c is None
                and not _over_band(ev)
                and ev.faint >= (LIGHT_END_FAINT if m < FAINT_CLEAR_END_MARGIN else LIGHT_END_FAINT_CLEAR)
                and ev.span >= LIGHT_END_SPAN
                and (s.a in line_ends[k]) != (s.b in line_ends[k])
                and not (s.a in on_line[k] and s.b in on_line[k])
            ):
                found.setdefault((k, s.a if s.a in line_ends[k] else s.b), []).append(s)
        grown = False
        for (k, _end), ss in found.items():
            if len(ss) == 1:
                _c, f, r, m = decided[ss[0]]
                share = max(evidence[ss[0]].ink, evidence[ss[0]].faint)
                why = str(r) or f"faint pencil ({share:.0%} of it) next to the {k} line"
                decided[ss[0]] = (k, min(f, 0.65), why, m)
                grown = True
        if not grown:
            return


def _light_strokes_beside_lines(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    nearest: Mapping[Section, Colour],
    game_map: GameMap,
    hues: Mapping[Colour, np.ndarray],
    band: Sequence[float] | None,
) -> None:
    """A section in doubt, read as not drawn, that leaves a station of the line whose hue its marks
    are nearest, with ink on ``LIGHT_STROKE_INK`` of it and faint marks on ``LIGHT_STROKE_FAINT``,
    is that line drawn lightly in the best reading (still in doubt): the line going on, or a branch
    (a Railroad Switch). Over the Thames band only with ink on a quarter of it and faint marks on
    half (``LIGHT_STROKE_INK_RIVER``), neither the marks nor the pencil of the band's own hue (marks
    of that hue there are the band's texture). Not on a short section (a few positions between large
    symbols, where their edges show), not where it would close a loop of its line or cross a drawn
    section, and not where two such sections leave one station of the line: which, if either, is
    left to a person (as in ``_light_line_goes_on``).

    Only the best reading changes, so the total is more often right; the flag and the sections named
    stay. On paper, over the accuracy set and another 240 sheets of its plan (seed 3000), this reads
    10 sections as drawn: 9 drawn in that pencil, 1 in the next hue (purple read pink), none blank;
    the blank sections in doubt beside a line there have their marks on a short section, over the
    band, on under a tenth of it, or faint on under 45 % of it. Over the band, on every stored
    development set and the seed-3000 sheets (1,680 reads), it reads 13 sections as drawn (the
    short crossings 2,3-2,4 and 4,5-4,6 among them), all rightly; the blank ones in doubt there are
    nearest blue (the band's hue), marked on under a quarter, faint on under half, or away from any
    line of their hue.
    """
    on_line, _ends = _line_stations(decided)
    found: dict[tuple[Colour, Point], list[Section]] = {}
    for s, (c, f, _r, _m) in decided.items():
        ev, k = evidence[s], nearest[s]
        if c is not None or f >= CONFIDENT or ev.short:
            continue
        if _over_band(ev):
            if ev.ink < LIGHT_STROKE_INK_RIVER or ev.faint < LIGHT_STROKE_FAINT_RIVER:
                continue
            if _like_band(_vec(ev), band) or _like_band(hues[k], band):
                continue
        elif ev.ink < LIGHT_STROKE_INK or ev.faint < LIGHT_STROKE_FAINT:
            continue
        if (s.a in on_line[k]) == (s.b in on_line[k]):
            continue
        if any(decided[t][0] is not None for t in game_map.crossing_partners[s]):
            continue
        found.setdefault((k, s.a if s.a in on_line[k] else s.b), []).append(s)
    for (k, _station), ss in found.items():
        if len(ss) == 1:
            # The confidence was that of "not drawn": the reading turned round is a guess that leans.
            _c, f, r, m = decided[ss[0]]
            decided[ss[0]] = (k, min(f, 0.6), str(r), m)  # (a guess: no longer a doubt of light pencil alone)


def _reconnect(
    cut_off: Mapping[Section, tuple[Colour, Decision]], decided: dict[Section, Decision], game_map: GameMap
) -> None:
    """Sections put in doubt as cut off from their line that are now joined to it by confidently read
    sections (a faint section found to join them) are as sure as before."""
    changed = True
    while changed:
        changed = False
        reached: dict[Colour, set[Point]] = {}
        for s, (colour, before) in cut_off.items():
            c, _f, r, _m = decided[s]
            if c != colour or r != f"not connected to the {colour} departure station":
                continue
            if colour not in reached:
                sure = [t for t, d in decided.items() if d[0] == colour and d[1] >= CONFIDENT]
                reached[colour] = _reachable(game_map.departure(colour), sure)
            if s.a in reached[colour] or s.b in reached[colour]:
                decided[s] = before
                changed = True


def _rule_breaks_through_partial_pencil(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    game_map: GameMap,
    options: GameOptions | None,
) -> None:
    """A rule the best reading breaks through a section marked on less than ``STRONG`` of it is
    checked by a person. Over the Thames the colour is the least certain, and one section read in
    the wrong pencil makes a loop, a branch or a crossing that the player never drew. On paper, a
    short section marked on half of it may be the print (a symbol's edge, a tourist site's spike)
    seen as light pencil: `print` 1023 read with its EXIF orientation dropped took a blue 2,7-3,7
    (10 positions, 5 marked) that closed a loop, and reported the loop without a flag. On the stored
    development sets this puts more sections in doubt on sheets already flagged, and flags none more.

    A line that breaks a rule is checked, too, where it holds a section drawn lightly (under
    ``LIGHT_END_STRENGTH``) in a colour not plainly its pencil's (margin under ``MEND_MARGIN``), the
    bounds of ``_short_light_branches``: a light stroke of one pencil can take the next one's hue, and
    read so it lengthens the other line. `print` photo 7013 of seed 7000's plan (strength 0.17) read
    three light purple sections leaving 0,5 as pink, which made the pink line branch four ways at 0,2,
    and reported a legal sheet as breaking three rules, without a flag. Over every stored set (2,160
    reads) this puts 117 sections in doubt on 77 sheets (32 of the sections misread); without it,
    every one of those sheets but 7013 is flagged all the same."""
    by_name = {s.name: s for s in game_map.sections}
    for v in check_network(_network(decided, options), game_map):
        for name in v.sections:
            s = by_name.get(name)
            if s is None or evidence[s].ink >= STRONG:
                continue
            c, f, _r, m = decided[s]
            if c is not None and f >= CONFIDENT:
                where = "over the Thames" if _over_band(evidence[s]) else "marked on part of it"
                decided[s] = (c, min(f, 0.6), f"read {c} {where}, which breaks a rule ({v.code})", m)
        for s, (c, f, _r, m) in list(decided.items()):
            if c is None or c != v.colour or f < CONFIDENT:
                continue
            if evidence[s].strength < LIGHT_END_STRENGTH and m < MEND_MARGIN:
                why = f"light and not plainly {c}, on the {c} line that breaks a rule ({v.code}): another line's?"
                decided[s] = (c, min(f, 0.6), why, m)


def _light_line_ends(decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence]) -> None:
    """A line's last section on paper, marked lightly along under two thirds of it, or far lighter
    than the rest of its line (``FADED_END``), is checked by a person.

    Nothing else on the sheet vouches for the last section of a line: a section inside a line joins
    its neighbours, but a light mark beyond a line's end (a guide tinted by the light, the edge of a
    district border, a stroke run on past its station, a section rubbed out) lengthens the line on
    its own.
    """
    degree = _line_degrees(decided)
    on_paper: dict[Colour, list[tuple[Section, float]]] = {}
    for s, (c, _f, _r, _m) in decided.items():
        if c is not None and not _over_band(evidence[s]):
            on_paper.setdefault(c, []).append((s, evidence[s].strength))
    for s, (c, f, _r, m) in list(decided.items()):
        if c is None or f < CONFIDENT:
            continue
        ev = evidence[s]
        at_end = degree[(c, s.a)] == 1 or degree[(c, s.b)] == 1
        if not at_end or _over_band(ev):
            continue
        if ev.ink < LIGHT_END_INK and ev.strength < LIGHT_END_STRENGTH:
            light = LightDoubt(f"light pencil ({ev.ink:.0%} of it marked) at the end of the {c} line")
            decided[s] = (c, min(f, 0.7), light, m)
            continue
        others = [strength for t, strength in on_paper[c] if t != s]
        usual = float(np.median(others)) if len(others) >= FADED_END_LINE else 0.0
        if ev.strength < FADED_END * usual:
            why = f"pencil {ev.strength / usual:.0%} as dense as the rest of the {c} line, at its end: rubbed out?"
            decided[s] = (c, min(f, 0.7), why, m)


def _short_light_branches(decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence]) -> None:
    """A short section on paper (``SegmentEvidence.short``), lightly marked (under
    ``LIGHT_END_STRENGTH``), read as a branch of its line (the line's last section, from a station
    where it branches), is checked by a person. A branch needs a Railroad Switch, and on a short
    section, between two large symbols, a few measured positions tell little of what the marks are.

    In a colour not plainly its line's (margin under ``MEND_MARGIN``), ending where another line
    ends, it is as likely the other line's last section, drawn lightly, mixed in its few measured
    positions with the first line's strokes, which run on into the ring they meet at. `print` scan
    13029 (seed 3000's plan) read a light pink 9,6-9,7 as a purple branch that way (0.07 dense,
    margin 0.74), without a flag. Over the accuracy set and that plan, 12 short sections read with
    confidence are such a branch: that one, and 11 right ones, none both that light and that unclear
    (one at 0.14 with margin 1).

    Plainly in its line's colour, it may be no pencil at all: on `print` 71016 (seed 71000's plan,
    wrong without a flag) the blurred edge of a tourist site's spikes, in the navy print's hue and
    marked on all five measured positions of a blank 9,6-9,7, read as a blue branch from the blue
    line's station (0.106 dense, a tenth of its line, just over ``FADED_END``). Over every stored set
    (3,440 reads) this flags 10 sheets more, 8 of them read right; the other, `print` 41061 of seed
    41000's plan, is wrong without a flag (a light purple section missed beyond the branch's
    station). Asked of every light, short last section of a line, not only a branch's, it would flag
    75 more, 68 of them read right."""
    degree = _line_degrees(decided)
    for s, (c, f, _r, m) in list(decided.items()):
        ev = evidence[s]
        if c is None or f < CONFIDENT or not ev.short or _over_band(ev) or ev.strength >= LIGHT_END_STRENGTH:
            continue
        for branch, end in ((s.a, s.b), (s.b, s.a)):
            if degree[(c, branch)] < 3 or degree[(c, end)] != 1:
                continue
            other = next((k for k in LINE_COLOURS if k != c and degree[(k, end)] == 1), None)
            if other is not None and m < MEND_MARGIN:
                why = f"a short light {c} branch ending where the {other} line ends: the {other} line's last section?"
            else:
                why = LightDoubt(
                    f"light pencil on a short branch of the {c} line: drawn, or the edge of a printed symbol?"
                )
            decided[s] = (c, min(f, 0.7), why, m)
            break


def _colour_clear_of_symbols(
    decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence], hues: Mapping[Colour, np.ndarray]
) -> None:
    """A section read in a colour that its marks clear of the symbols do not have
    (``SegmentEvidence.clear_chroma``: measured nearer the symbols as well, it was read there) is
    checked by a person. Nearer the symbols their own colour is in the measure: a departure disc's
    blurred edge adds its pencil colour, and the surround the disc tints takes that colour out of a
    stroke. `unseen` scan 76077 (a print drawn afresh, `bench/unseen.py --seed 76000`) read a light
    purple stroke running into the blue departure disc of 5,7 as pink, sure of it (margin 0.94),
    without a flag: clear of the disc its marks are purple.

    Only a doubt, not another reading: the positions clear of the symbols hold fewer marks, and on
    light strokes their colour was the worse of the two (taken instead, it misread three sections
    of seed 42000's plan that the nearer colour read right, two of them leaving the purple
    departure disc, and made two sheets wrong, both flagged already). Over fourteen stored sets
    measured with it (3,290 reads: the accuracy set and six plans from other seeds, `sharpened`,
    `unseen` and the 90 prints drawn afresh, `mono`, `slate`, `twice`, `robustness`), 3,030
    sections carry a clear colour; it puts three in doubt, 76077's and two read right on sheets
    flagged already, and changes no other outcome."""
    for s, (c, f, r, m) in list(decided.items()):
        ev = evidence[s]
        if c is None or f < CONFIDENT or not any(ev.clear_chroma):
            continue
        clear, _second, _margin = _colour_of(np.array(ev.clear_chroma, dtype=np.float64), hues)
        if clear != c:
            why = f"read {c} nearer its symbols, {clear} clear of them: the symbols' colour?"
            decided[s] = (c, min(f, 0.7), f"{r}; {why}" if r else why, m)


SECOND_LOOK_SHARE = 0.3
"""Share of a section with pencil-coloured marks (ink or faint) from which, next to a line of their
hue, it is worth a look when the sheet is reviewed anyway."""
SECOND_LOOK_END_SHARE = 0.2
"""The same where the section leaves an end of that line, where a light stroke most often goes on:
over every stored bench read, on sheets reviewed anyway, one such section in eight marked on 0.2 to
0.3 of it at a line's end is drawn (28 of 225), as often as those from 0.3 next to a line (70 of 725)."""


def _second_looks(
    decided: Mapping[Section, Decision], evidence: Mapping[Section, SegmentEvidence], nearest: Mapping[Section, Colour]
) -> dict[Section, str]:
    """Sections read as not drawn, without doubt, that a person reviewing the sheet should look at too.

    A light stroke the picture's noise hides, or pencil over the Thames, is not always put in
    doubt: that would flag too many sheets. On a sheet a person checks anyway, these are where such
    a stroke most often hides: pencil-coloured marks on a good share of a section next to a line of
    their hue (on a little less at its end), and a crossing of the Thames at a line's end.
    """
    degree = _line_degrees(decided)
    out: dict[Section, str] = {}
    for s, (c, f, _r, _m) in decided.items():
        if c is not None or f < CONFIDENT:
            continue
        ev = evidence[s]
        share = max(ev.ink, ev.faint)
        k = nearest[s]
        if _over_band(ev):
            ends = [line for line in LINE_COLOURS if 1 in (degree[(line, s.a)], degree[(line, s.b)])]
            if ends:
                out[s] = f"over the Thames at the end of the {ends[0]} line, where pencil shows little"
        elif (share >= SECOND_LOOK_SHARE and (degree[(k, s.a)] or degree[(k, s.b)])) or (
            share >= SECOND_LOOK_END_SHARE and 1 in (degree[(k, s.a)], degree[(k, s.b)])
        ):
            out[s] = f"{k}-coloured marks on {share:.0%} of it, next to the {k} line"
    return out


TOURIST_SECOND_LOOKS = 3
"""Most sections named where the tourist track disagrees with the lines (``tourist_second_looks``).
Over every stored bench read (3,100 sheets) the track disagrees on 30, 29 of them read wrong. Once
``read_to_tourist_track`` has drawn the section it points at (on 10), 23 stay wrong: the sections
already named (in doubt, or a second look) hold a misread section on 16 of those; with the first
three of these on 19 (two, 18; four, 20; all of them, 21). Before that rule: 23 of 29, and 27."""


TRACK_SHARE = 0.2
"""Share of a section read as not drawn with marks of a pencil (ink, or faint marks) from which,
where the player's tourist track counts one site more than the lines as read and it is the one
section that would take that pencil's line there, it is drawn in the best reading (see
``read_to_tourist_track``)."""


def _track_counts(crossed: int, earned: int) -> str:
    """How the tourist track and the lines as read disagree, in plain English."""
    return f"the tourist track counts {crossed} site{'s' if crossed != 1 else ''}, the lines as read {earned}"


def read_to_tourist_track(reading: Reading, game_map: GameMap, crossed: int, earned: int) -> Reading:
    """The best reading where the player crossed out one circle more on the tourist track
    (``crossed``) than the lines as read earn (``earned``), and exactly one section read as not drawn
    would earn it: between a tourist site and a station of a line that does not reach the site, with
    marks nearest that line's pencil along ``TRACK_SHARE`` of it, crossing no drawn section, not set
    by hand. That section is drawn in that pencil, in doubt, saying why (a person confirms it); any
    other case leaves the reading as it is.

    The player's own record is evidence the picture may have lost: a light stroke to a tourist site,
    which the player counted on the track after that round. Over every stored bench read (3,100
    sheets) the track disagrees on 30; on the 10 where this applies the section it draws was missed
    on each, in the right pencil on 9, and 9 totals are then exact (the tenth sheet has more sections
    misread), with no other outcome changed.
    """
    if crossed != earned + 1:
        return reading
    drawn = {s for s, r in reading.sections.items() if r.colour is not None}
    reached = {c: reading.network.stations(c) for c in LINE_COLOURS}
    found: list[tuple[Section, Colour, Point]] = []
    for s, r in reading.sections.items():
        if r.colour is not None or r.set_by_hand or max(r.evidence.ink, r.evidence.faint) < TRACK_SHARE:
            continue
        if any(t in drawn for t in game_map.crossing_partners[s]):
            continue
        c = r.nearest
        site = next(
            (
                t
                for t, o in ((s.a, s.b), (s.b, s.a))
                if t in game_map.tourist_sites and t not in reached[c] and o in reached[c]
            ),
            None,
        )
        if site is not None:
            found.append((s, c, site))
    if len(found) != 1:
        return reading
    s, c, site = found[0]
    was = reading.sections[s]
    why = (
        f"{_track_counts(crossed, earned)}: drawn in {c} in the best reading, which takes the {c} line to "
        f"tourist site {station_name(site)} (its pencil on {max(was.evidence.ink, was.evidence.faint):.0%} of it)"
    )
    sections = {
        **reading.sections,
        s: replace(was, colour=c, confidence=min(was.confidence, 0.6), doubtful=True, reason=why),
    }
    second_look = {t: why for t, why in reading.second_look.items() if t != s}
    return _reading_with(reading, sections, _decisions(sections), second_look)


def tourist_second_looks(reading: Reading, game_map: GameMap, crossed: int, earned: int) -> dict[Section, str]:
    """Sections a person should look at where the player crossed out ``crossed`` circles on the
    tourist track and the lines as read earn ``earned``, with why: at most ``TOURIST_SECOND_LOOKS``,
    none already in doubt, set by hand or given a second look.

    More crossed out than earned: a section between a tourist site and a station of a line that
    does not reach that site is likely drawn in that line's pencil; first those read as not drawn,
    the most marked first (a light stroke), then those read in another pencil, the least sure first
    (a section drawn twice). Fewer crossed out: a section read as taking a line to a tourist site
    is likely not drawn in that pencil; the least sure first, a line's last section first among
    equals. The player may also have slipped: the person checks the score zone too.
    """
    if crossed == earned:
        return {}
    reached = {c: reading.network.stations(c) for c in LINE_COLOURS}
    ends = Counter((c, p) for c, s in reading.network.all_sections() for p in (s.a, s.b))
    counted = _track_counts(crossed, earned)
    found: list[tuple[tuple[float, float, float], Section, str]] = []
    for s, r in reading.sections.items():
        if r.doubtful or r.set_by_hand or s in reading.second_look:
            continue
        drawn = [c for c in (r.colour, r.also) if c is not None]
        for site, other in ((s.a, s.b), (s.b, s.a)):
            if site not in game_map.tourist_sites:
                continue
            if crossed > earned:
                lines = [c for c in LINE_COLOURS if c not in drawn and site not in reached[c] and other in reached[c]]
                if not lines:
                    continue
                share = max(r.evidence.ink, r.evidence.faint)
                key = (1.0, r.confidence, r.colour_margin) if drawn else (0.0, -share, float(r.nearest not in lines))
                to = f"the {' or '.join(lines)} line to tourist site {station_name(site)}"
                why = f"{counted}: a stroke here would take {to}"
            else:
                if not drawn:
                    continue
                key = (r.confidence, float(all(ends[(c, site)] > 1 for c in drawn)), r.colour_margin)
                why = f"{counted}: read here, the {' and '.join(drawn)} line reaches tourist site {station_name(site)}"
            found.append((key, s, why))
    out: dict[Section, str] = {}
    for _key, s, why in sorted(found, key=lambda f: (f[0], f[1])):
        if s not in out and len(out) < TOURIST_SECOND_LOOKS:
            out[s] = why
    return out


SECOND_PENCIL_SHARE = 0.2
"""Share of a drawn section's positions with another pencil's mark beside its stroke from which it
is read as drawn twice (see ``_second_pencil``). On the development sets, sections drawn twice where
the second pencil shows measured 0.11 to 0.56 (17 reads of 21 from 0.2), sections drawn once 0.17 at
most but one (0.27, sharpened 0.41: a pink stroke bowed far off its guide, beside a bluish mark)."""
SECOND_PENCIL_MIXED_COS = 0.97
"""Similarity to its own pencil's learnt hue under which a section's colour is pulled towards another
pencil, as where two strokes lie partly on top of each other. Over every stored development set,
of the sections with 0.1 to 0.2 of a reaching line's pencil beside them, the three drawn twice in
the ``twice`` set measured 0.87 to 0.963 (three more, whose second stroke does not show in the
colour, 1.0), the 52 drawn once 0.975 and more (0.997 and more from 0.15 beside them)."""
SECOND_PENCIL_SHARE_MIXED = 0.15
"""``SECOND_PENCIL_SHARE`` for a section whose colour is so pulled: the pull and the marks beside it
are two signs of the second pencil. Anywhere from 0.1 to 0.15, and 0.97 to 0.99 for
``SECOND_PENCIL_MIXED_COS``, reads every stored set the same."""
SECOND_PENCIL_SAMPLES = 15
"""Fewest measured positions on which that share is judged: on a short section between two rings
a neighbouring line's stroke leaving a station is within the search..."""
SECOND_PENCIL_SHARE_FEW = 0.5
"""... unless the other pencil lies beside the stroke on this share of it or more, from
``SECOND_PENCIL_SAMPLES_FEW`` positions: a neighbouring stroke leaving a station reaches a few
positions at the section's ends, not half of it. Of the sections read in one pencil on fewer than
15 positions where another line ends (fifty-second session: the plans' photos, every read of the
fresh prints, `slate` and `mono`), two had that line's pencil beside them on a fifth or more:
`print` 94002 of seed 74000's plan (0.6 on 10 positions, drawn twice, wrong without a flag before)
and one drawn once (0.29 on 7). Decided both ways, every stored sheet but 94002 reads the same; on
the ``twice`` set, stored after it was chosen, `print` 60010's 4,3-5,3 is read in both blue and pink,
as drawn (one sheet more fully right), and nothing else changes."""
SECOND_PENCIL_SAMPLES_FEW = 8
SECOND_PENCIL_DENSITY = 0.15
"""Chroma density from which a mark beside a stroke counts as another pencil's stroke: a pencil's
grain and the colour fringe at its edge stay lighter (on flatbed scans, a pink stroke's edge
measures bluish at 0.05 to 0.15)."""
SECOND_PENCIL_COS = 0.9
"""A mark beside the stroke is of a pencil whose learnt hue it is at least this similar to..."""
SECOND_PENCIL_LEAD = 0.1
"""... and more similar, by this, than to the section's own pencil."""
SECOND_PENCIL_ELSEWHERE = 0.05
"""Share of the same kind of marks beside the other sections of that pencil up to which they count as
clean: beside every drawn-twice section read on the development sets the others had 0.02 at most;
under a warm or cool light, or underexposed, a pencil's edge takes another's hue on many sections
(0.08 to 0.44 beside some other section of it, for 13 of the 16 sections read as drawn twice that
were not, before this was asked)."""


def _second_pencil(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    hues: Mapping[Colour, np.ndarray],
) -> dict[Section, Colour]:
    """Sections drawn in a second pencil too, in the best reading, with that pencil: a section read
    in one pencil, with another line's pencil beside its stroke on ``SECOND_PENCIL_SHARE`` of it or
    more (``SECOND_PENCIL_SHARE_MIXED`` when its own colour is pulled away from its pencil), where
    that line reaches one of its stations, while the other sections of its pencil have
    next to none beside them (``SECOND_PENCIL_ELSEWHERE``). Two pencils drawn along one section lie
    side by side or wander apart (a rule broken, ``drawn_twice``, that one colour read hides). Each
    is in doubt: a person confirms it.

    On 40 photos each with one section drawn twice (``bench/reread.py``'s ``twice`` set), 10 were
    read wrong without a review flag before this; beside a pencil drawn once, the marks are its
    grain and the colour fringe at its edge, lighter and here and there, except where a coloured
    light or a dark exposure turns one pencil's edge towards another's hue: then it does so all
    over the sheet, along every section of that pencil.
    """
    degree = _line_degrees(decided)
    matrix = np.stack([hues[k] for k in LINE_COLOURS])
    twice: dict[Section, Colour] = {}
    for s, (c, f, r, m) in list(decided.items()):
        if c is None or evidence[s].samples < SECOND_PENCIL_SAMPLES_FEW:
            continue
        if evidence[s].samples < SECOND_PENCIL_SAMPLES:
            needed = SECOND_PENCIL_SHARE_FEW
        elif _unlike_its_pencil(evidence[s], hues[c], SECOND_PENCIL_MIXED_COS):
            needed = SECOND_PENCIL_SHARE_MIXED
        else:
            needed = SECOND_PENCIL_SHARE
        for other in LINE_COLOURS:
            if other == c or not (degree[(other, s.a)] or degree[(other, s.b)]):
                continue
            share = _beside_share(evidence[s], matrix, c, other)
            if share < needed:
                continue
            elsewhere = [
                _beside_share(evidence[t], matrix, c, other)
                for t, d in decided.items()
                if d[0] == c and t != s and evidence[t].samples >= SECOND_PENCIL_SAMPLES
            ]
            if max(elsewhere, default=0.0) > SECOND_PENCIL_ELSEWHERE:
                continue
            reason = f"{other} pencil beside the {c} on {share:.0%} of it: drawn in both?"
            decided[s] = (c, min(f, 0.6), f"{r}; {reason}" if r else reason, m)
            twice[s] = other
            break
    return twice


MIXED_MARGIN = 0.5
"""Colour margin under which a confidently read section where another line ends is in doubt (see
``_mixed_where_line_ends``). 0.4 until the thirty-second session: two sheets drawn twice, wrong
without a flag, measured 0.42 (`cream` 191002 of seed 71000's plan: blue over purple on 8,4-8,7)
and 0.48 (`cream` 131006 of seed 11000's: blue over purple on 2,5-3,6). At 0.5, over every stored
set (3,440 reads), both are flagged, with 8 more read right (3 sheets of the plans, 5 robustness
reads of two sheets); at 0.45, 191002 and 4 read right."""
MIXED_MARGIN_SHORT = 0.6
"""The same for a short section (``SegmentEvidence.short``): on its few measured positions the two
strokes' ends, where one pencil shows alone, weigh more, and its colour stays nearer one pencil."""


def _mixed_where_line_ends(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    hues: Mapping[Colour, np.ndarray],
    twice: Mapping[Section, Colour],
) -> None:
    """A section read with confidence in a colour not plainly its pencil's (margin under
    ``MIXED_MARGIN``), pulled towards the pencil of a line that ends at one of its stations, is in
    doubt: a second pencil drawn on top of the first mixes with it into one colour between two, and
    the line it belongs to then seems to stop there (the ``drawn_twice`` rule broken, read as one
    pencil). Over the Thames band, where the print shifts every hue, only the hue next to its own
    counts, and never between purple and pink (``SURE_MENDS``: the band makes them alike, and the
    lines that reach the section decide).

    Found on three sheets drawn twice that were wrong without a flag: 23002 of seed 3000's plan,
    25006 and 125006 (on the band) of seed 5000's. Over every stored set (2,160 reads, seed 7000's
    plan, stored before the rule was written, among them), with 0.4 (its first bound) on every section, it puts 18
    sections in doubt, 7 misread and 11 right; it alone flags 8 sheets, those three and five read
    right (two of them at seed 7000). At 0.35 it misses 25006 and 125006; at 0.45 it alone flags
    four more sheets, all read right.

    On short sections (``MIXED_MARGIN_SHORT``) it finds, too, `cream` 123002 of seed 3000's plan
    (green and purple on 3,9-4,9, 9 positions, margin 0.55) and `print` 60006 of the ``twice`` set
    (purple and blue on 0,0-1,0, 10 positions, 0.56), both wrong without a flag, and flags two sheets
    read right more (at 0.5 neither of the two; at 0.7 no other sheet more). In all (with the
    anchors of ``ANCHORS_APART``) it puts 24 sections in doubt, 9 misread, and alone flags 12
    sheets, 5 of them read wrong."""
    degree = _line_degrees(decided)
    for s, other in twice.items():
        degree[(other, s.a)] += 1
        degree[(other, s.b)] += 1
    for s, (c, f, r, m) in list(decided.items()):
        if c is None or f < CONFIDENT or s in twice or m >= (MIXED_MARGIN_SHORT if evidence[s].short else MIXED_MARGIN):
            continue
        v = _vec(evidence[s])  # a unit vector already (SegmentEvidence.chroma)
        river = _over_band(evidence[s])
        second = max((k for k in LINE_COLOURS if k != c), key=lambda k: float(v @ hues[k]))
        ends = next(
            (
                k
                for k in LINE_COLOURS
                if k != c
                and 1 in (degree[(k, s.a)], degree[(k, s.b)])
                and not (river and ({c, k} in SURE_MENDS or k != second))
                # pulled from its pencil's hue towards that line's
                and float(v @ hues[k]) > float(hues[c] @ hues[k])
            ),
            None,
        )
        if ends is not None:
            why = f"colour not plainly {c} where the {ends} line ends: drawn in both?"
            decided[s] = (c, min(f, 0.7), f"{r}; {why}" if r else why, m)


def _beside_share(ev: SegmentEvidence, matrix: np.ndarray, own: Colour, other: Colour) -> float:
    """Share of a section's positions with a mark of ``other``'s pencil beside its stroke of ``own``'s:
    of ``SECOND_PENCIL_DENSITY`` or more, nearest ``other``'s learnt hue (``matrix``: one row per
    colour), similar to it and more similar to it than to ``own``'s by ``SECOND_PENCIL_LEAD``."""
    marks = np.asarray(ev.beside, dtype=np.float64)
    if not len(marks) or not ev.samples:
        return 0.0
    marks = marks[np.linalg.norm(marks, axis=1) >= SECOND_PENCIL_DENSITY]
    sims = (marks / np.linalg.norm(marks, axis=1, keepdims=True)) @ matrix.T
    i, mine = LINE_COLOURS.index(other), sims[:, LINE_COLOURS.index(own)]
    near = (sims.argmax(axis=1) == i) & (sims[:, i] >= SECOND_PENCIL_COS) & (sims[:, i] > mine + SECOND_PENCIL_LEAD)
    return float(near.sum()) / ev.samples


HIDDEN_DRAWN = 0.5
"""Hidden share from which even a section read as drawn is in doubt (what shows may be the edge of
whatever lies on it)."""


def _hidden_sections(decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence]) -> None:
    """A section partly hidden by something lying on the map is checked by a person when what is
    hidden could change it: read as not drawn (its pencil may lie under the object), or mostly hidden."""
    for s, (c, f, _r, m) in list(decided.items()):
        share = evidence[s].hidden
        if share > 0 and (c is None or share >= HIDDEN_DRAWN):
            reason = (
                f"{share:.0%} of it shows neither the printed guide nor pencil: something may lie over it, "
                "or glare washes it out"
            )
            decided[s] = (c, min(f, 0.6), reason, m)


SPECK_SHARE = 0.1
"""Share of a section's positions with specks of a pencil (``SegmentEvidence.specks``) from which,
read as not drawn next to that pencil's line, it is in doubt (see ``_specks_beside_lines``)."""
SPECK_OVER_BLANK = 2.0
"""How many times the most specks of that pencil on the same sheet's blank sections away from its
line a section must show as well: a print's tinted guides leave specks of their own."""
SPECK_DRAWN = 0.2
"""Share of specks from which such a section, leaving the line at one station only, is that line
going on in the best reading (still in doubt), unless another such section leaves the same station."""


def _clean_picture(evidence: Mapping[Section, SegmentEvidence]) -> bool:
    """Whether specks were measured on the sheet (``SegmentEvidence.specks``): a clean, lossless
    picture, a scan, whose noise lets a stroke's pigment be seen at its own resolution."""
    return any(ev.specks for ev in evidence.values())


def _specks_beside_lines(
    decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence], game_map: GameMap
) -> None:
    """On a clean picture (specks measured at its own resolution), a section read as not drawn with
    confidence, where a line reaches one of its stations and no drawn section crosses it, with specks
    of that line's pencil on ``SPECK_SHARE`` of it and ``SPECK_OVER_BLANK`` times the most on the
    sheet's blank sections away from that line (none reached by it, none crossed by a drawn one), is
    in doubt: a stroke too light to leave a mark at the reader's resolution leaves specks of pigment
    (``vision.specks``). Such a section (in doubt already or not) with specks on ``SPECK_DRAWN`` of
    it, leaving the line at one of its stations (not closing a loop), and the only such section
    there, is that line going on in the best reading, still in doubt (as
    ``_light_strokes_beside_lines`` reads faint marks).

    On the 120 scans of seeds 41000 and 42000 (``bench/reread.py``), the sections put in doubt so are
    the five drawn sections missed on four scans, three of those scans wrong without a flag before,
    and no other, and four of them are drawn (with `cream` 151024's purple 0,2-0,3, in doubt already);
    no drawn section crossing them, their blank sections show specks of a pencil on at most 3 % of
    them (the print's grey, navy and yellow, the band and the marks where guides cross are not
    measured as specks).
    """
    if not _clean_picture(evidence):
        return
    on_line, _ends = _line_stations(decided)
    # (No colour is decided below until every pencil has been looked at, so the sections read as
    # not drawn, and the blank level, hold for all four.)
    plain = _plain_blank(decided, evidence, game_map)
    blank_level = _blank_level(plain, on_line, evidence, game_map)
    found: dict[tuple[Colour, Point], list[Section]] = {}
    for k, colour in enumerate(LINE_COLOURS):
        if colour not in blank_level:
            continue
        least = max(SPECK_SHARE, SPECK_OVER_BLANK * blank_level[colour])
        for s in plain:
            c, f, _r, m = decided[s]
            share = evidence[s].specks[k] if {s.a, s.b} & on_line[colour] else 0.0
            if share < least:
                continue
            if f >= CONFIDENT:
                reason = f"specks of {colour} pencil on {share:.0%} of it, next to the {colour} line"
                decided[s] = (c, min(f, 0.65), reason, m)
            if share >= SPECK_DRAWN and (s.a in on_line[colour]) != (s.b in on_line[colour]):
                found.setdefault((colour, s.a if s.a in on_line[colour] else s.b), []).append(s)
    for (colour, _station), ss in found.items():
        # (A section with specks of two such pencils is left to the first.)
        if len(ss) == 1 and decided[ss[0]][0] is None:
            _c, f, r, m = decided[ss[0]]
            decided[ss[0]] = (colour, min(f, 0.6), str(r), m)  # (a guess, as above)


PerPencil = Callable[[SegmentEvidence], tuple[float, ...]]
"""A measure a section holds per pencil, in the order of ``LINE_COLOURS`` (empty where not measured)."""


def _specks(ev: SegmentEvidence) -> tuple[float, ...]:
    return ev.specks


def _median_mark(ev: SegmentEvidence) -> tuple[float, ...]:
    return ev.median_mark


def _plain_blank(
    decided: Mapping[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    game_map: GameMap,
    measure: PerPencil = _specks,
) -> list[Section]:
    """Sections read as not drawn, with ``measure`` measured, and no drawn section across them."""
    return [
        s
        for s in game_map.sections
        if decided[s][0] is None
        and measure(evidence[s])
        and not any(decided[t][0] is not None for t in game_map.crossing_partners[s])
    ]


def _blank_level(
    plain: Sequence[Section],
    on_line: Mapping[Colour, set[Point]],
    evidence: Mapping[Section, SegmentEvidence],
    game_map: GameMap,
    measure: PerPencil = _specks,
    fewest: int = 1,
) -> dict[Colour, float]:
    """Per pencil, the most of ``measure`` (default its specks) on the sheet's blank sections
    (``plain``: ``_plain_blank``) away from its line (none of their stations ``on_line`` of it or its
    departure station): what the print itself leaves (a tinted guide). A pencil with fewer than
    ``fewest`` such sections is left out."""
    out: dict[Colour, float] = {}
    for k, colour in enumerate(LINE_COLOURS):
        reaches = on_line[colour] | {game_map.departure(colour)}
        blank = [measure(evidence[s])[k] for s in plain if not {s.a, s.b} & reaches]
        if len(blank) >= fewest:
            out[colour] = max(blank)
    return out


SPECK_CONFIRM = 0.3
"""Share of a section's positions with specks of the pencil it is read in from which a doubt only
about its light pencil (``LightDoubt``) is settled: the stroke is there (see
``_specks_confirm_light_strokes``)."""


def _specks_confirm_light_strokes(
    decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence], game_map: GameMap
) -> None:
    """On a clean picture (specks measured at its own resolution), a section read as drawn in a
    pencil, in doubt only because that pencil is light (``LightDoubt``), in a colour plainly that
    pencil's (``COLOUR_MARGIN``), is drawn without doubt where specks of that pencil, more than of any
    other, lie along ``SPECK_CONFIRM`` of it and ``SPECK_OVER_BLANK`` times the most on the sheet's
    blank sections away from its line: a light stroke whose pigment the reader's resolution averages
    away, not a tinted guide or a symbol's edge (the print's colours are not measured as specks).

    A section rubbed out at a line's end is no light doubt (``_light_line_ends`` asks "rubbed out?"
    of a stroke far lighter than its line), and stays in doubt.
    """
    if not _clean_picture(evidence):
        return
    on_line, _ends = _line_stations(decided)
    blank_level = _blank_level(_plain_blank(decided, evidence, game_map), on_line, evidence, game_map)
    for s, (c, f, r, m) in list(decided.items()):
        ev = evidence[s]
        if c is None or f >= CONFIDENT or not isinstance(r, LightDoubt) or not ev.specks or m < COLOUR_MARGIN:
            continue
        if _over_band(ev):
            continue
        share = ev.specks[LINE_COLOURS.index(c)]
        if share < max(ev.specks) or c not in blank_level:
            continue
        if share >= max(SPECK_CONFIRM, SPECK_OVER_BLANK * blank_level[c]):
            decided[s] = (c, CONFIDENT, "", m)


ALONG_OVER_BLANK = 1.5
"""How many times the largest median mark of a pencil's hue on the sheet's blank sections away from
its line (``SegmentEvidence.median_mark``) a section read as not drawn at that line's end must show
to be in doubt (see ``_light_all_along``)."""
ALONG_MIN = 0.01
"""Least median mark (chroma OD) that puts a section in doubt so, however clean the sheet."""
ALONG_BLANKS = 10
"""Fewest blank sections away from a pencil's line that its level is learnt from."""
ALONG_FAINT = 0.3
"""Least share of the section with faint marks (``SegmentEvidence.faint``) for that doubt: over the
sets stored with the median, of the sections it named without this, those with faint marks on under
0.3 of them were drawn once in 54; with it, 27 sheets fewer were flagged and none more read wrong."""


def _light_all_along(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    nearest: dict[Section, Colour],
    game_map: GameMap,
) -> None:
    """A section read as not drawn with confidence, off the Thames band and crossed by no drawn
    section, leaving a line's end (or its departure station), with faint marks on ``ALONG_FAINT`` of
    it or more, whose median mark of that line's hue (``SegmentEvidence.median_mark``) is
    ``ALONG_OVER_BLANK`` times the largest on the sheet's blank sections away from that line, and at
    least ``ALONG_MIN``, is in doubt: a stroke so light that few of its positions reach the faint
    threshold still raises the median all along the section, where the print's own marks lie here
    and there. The pencil it would be drawn in (``nearest``) is that line's; the doubt model gives
    its best reading.

    Chosen on four sets stored with the median (forty-ninth session; plans 42000 and 72000, fresh
    prints 80000 and 85000): from a line's end rather than any station of the line, 19 sheets fewer
    flagged for one fewer caught wrong without a flag; at 1.7 times, 10 fewer flagged and one fewer
    caught. On 72000's plan, of 16 sections drawn that the rules read as blank with confidence at a
    line's end, 3 stand out so (two of them the sheets wrong without a flag, `cream` 172008 and
    172019, whose light green 0,0-1,0 leaves faint marks on half of it and a median 1.9 and 1.7
    times the blank sections'); most measure no more than the blank guides. Over every set stored
    with the median: docs/accuracy-history.md, forty-ninth session.
    """
    if not any(ev.median_mark for ev in evidence.values()):
        return
    on_line, line_ends = _line_stations(decided)
    plain = [
        s
        for s in _plain_blank(decided, evidence, game_map, _median_mark)
        if decided[s][1] >= CONFIDENT and not _over_band(evidence[s])
    ]
    blank_level = _blank_level(plain, on_line, evidence, game_map, _median_mark, ALONG_BLANKS)
    for k, colour in enumerate(LINE_COLOURS):
        if colour not in blank_level:
            continue
        top = blank_level[colour]
        least = max(ALONG_MIN, ALONG_OVER_BLANK * top)
        ends = line_ends[colour] | {game_map.departure(colour)}
        for s in plain:
            level = evidence[s].median_mark[k]
            c, f, _r, m = decided[s]
            # (``f``: a section put in doubt here for an earlier pencil is not named twice.)
            if f < CONFIDENT or not {s.a, s.b} & ends or level < least or evidence[s].faint < ALONG_FAINT:
                continue
            against = (
                f"{level / top:.1f} times the sheet's blank sections'" if top > 0 else "none on its blank sections"
            )
            decided[s] = (c, min(f, 0.65), f"light {colour} marks all along it ({against})", m)
            # The pencil it would be drawn in is that line's, whatever hue its few marks are nearest.
            nearest[s] = colour


def _line_stations(decided: Mapping[Section, Decision]) -> tuple[dict[Colour, set[Point]], dict[Colour, set[Point]]]:
    """Each colour's stations, and those where its line ends (one section of it meets there)."""
    degree = _line_degrees(decided)
    on_line = {k: {p for (c, p) in degree if c == k} for k in LINE_COLOURS}
    line_ends = {k: {p for (c, p), n in degree.items() if c == k and n == 1} for k in LINE_COLOURS}
    return on_line, line_ends


def _shared_joins(decided: dict[Section, Decision], game_map: GameMap) -> None:
    """A line still in pieces where a section drawn in another colour would join them: that section
    may be drawn twice (both pencils on it read as one colour), a rule broken that the pencil hides."""
    for colour in LINE_COLOURS:
        main, stray = _parts(colour, decided, game_map)
        if not stray:
            continue
        for s, (c, f, _r, m) in list(decided.items()):
            if c is not None and c != colour and _joins(s, main, stray) and f >= CONFIDENT:
                reason = f"drawn in {c}; it would connect the two parts of the {colour} line: drawn in both?"
                decided[s] = (c, min(f, 0.6), reason, m)


def _network(
    decided: Mapping[Section, Decision], options: GameOptions | None, twice: Mapping[Section, Colour] | None = None
) -> Network:
    """The network the decisions draw; a section in ``twice`` is in that line too (drawn twice)."""
    also = twice or {}
    return Network.build(
        {k: sorted(s for s, d in decided.items() if d[0] == k or also.get(s) == k) for k in LINE_COLOURS}, options
    )


SURE_MENDS = ({"purple", "pink"},)
"""Pairs of pencils whose mend by the rules is sure over the Thames (see ``_settle_by_rules``).
Purple and pink differ mostly in red, which the band hides: there the pencil cannot tell them
apart and the rules can, and they were right every time on the bench sets (26 mends of 26 over the
accuracy, unseen, `slate`, `mono`, sharpened and robustness reads; those on sheets read wrong
elsewhere all had other sections in doubt). On paper, where the pencil shows its red, a hue between
the two is also what two pencils on one section leave (a rule broken that a sure mend would hide):
those mends (7 of 7 right) stay in doubt. Between other pairs the rules were wrong 4 times of 7
(blue and purple, blue and green): a second pencil on the section, or a mark of the print."""


def _settle_by_rules(
    decided: dict[Section, Decision],
    second_choice: Mapping[Section, Colour],
    evidence: Mapping[Section, SegmentEvidence],
    game_map: GameMap,
    options: GameOptions | None,
) -> bool:
    """A drawn section in doubt or of a close hue (colour margin under ``MEND_MARGIN``) whose colour
    breaks the rules takes the other hue when that mends them.

    Between two close hues the pencil cannot choose; the construction rules can: read in one
    colour the lines break (a line in pieces, a second branch), read in the other they do not. The
    section is put in doubt (a person confirms it) but the best reading, and the score, follow the
    legal one; between purple and pink over the Thames (``SURE_MENDS``) it is not in doubt when the
    section is clearly drawn and only its colour was in question. Nothing changes when the rules are kept
    already, or when more than one section's change would mend them (the rules do not say which).
    Returns whether a section was changed.
    """
    if not check_network(_network(decided, options), game_map):
        return False
    mends: list[tuple[Section, Colour]] = []
    for s, (c, f, _r, m) in decided.items():
        if c is None or (f >= CONFIDENT and m >= MEND_MARGIN) or second_choice[s] == c:
            continue
        trial = {**decided, s: (second_choice[s], f, "", m)}
        if not check_network(_network(trial, options), game_map):
            mends.append((s, second_choice[s]))
    if len(mends) != 1:
        return False
    s, other = mends[0]
    c, f, r, m = decided[s]
    only_colour = not r or isinstance(r, ColourDoubt)
    ev = evidence[s]
    if {c, other} in SURE_MENDS and only_colour and _over_band(ev) and _drawn_confidence(ev.ink) >= CONFIDENT:
        decided[s] = (other, CONFIDENT, "", m)
    else:
        reason = ColourDoubt(f"colour between {c} and {other}; in {c} the lines would break the rules")
        decided[s] = (other, min(f, 0.8), reason, m)
    return True


def _parts(colour: Colour, decided: Mapping[Section, Decision], game_map: GameMap) -> tuple[set[Point], set[Point]]:
    """A line's stations reached from its departure station, and its other stations (its stray pieces)."""
    drawn = [s for s, d in decided.items() if d[0] == colour]
    main = _reachable(game_map.departure(colour), drawn)
    return main, {p for s in drawn for p in (s.a, s.b)} - main


def _reason(reason: str, confidence: float, colour: Colour | None, nearest: Colour) -> str:
    """What a person is told about a section in doubt (never nothing); empty when it is not in doubt."""
    if confidence >= CONFIDENT:
        return ""
    return str(reason) or f"uncertain reading ({'drawn in ' + colour if colour else 'not drawn'}, nearest {nearest})"


def _marked(ev: SegmentEvidence) -> bool:
    """Some pencil on a section: a little ink, or faint marks along most of it."""
    return ev.ink >= BRIDGE_INK or ev.faint >= FAINT_EXTENSION_SHARE


LOOKS_ALIKE = 0.95
"""Similarity from which a pencil, as a band or a light shifts it, looks like the colour seen."""
BAND_FLOORS = (0.02, 0.05, 0.1, 0.2, 0.5)
"""Light a picture records even where nothing is reflected (flare, black level), as a share of the
paper's: how far a dark band hides the density pencil adds in its dark channels."""
BAND_NEUTRAL = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
"""Grey part of a pencil's density, as a share of its colour part: lost on paper, kept on a band."""
CAST_STRENGTH = 0.3
"""Strokes lighter than this (mean chroma density) take on a coloured light's tint noticeably."""
CAST_SHIFTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
"""How much of the light's tint a light stroke may take on, as a share of its own colour."""
CAST_MIN_BLANKS = 10
"""Blank sections with faint marks needed to measure the light's tint."""


def _looks_like(v: np.ndarray, raws: list[np.ndarray]) -> bool:
    """Whether one of the densities ``raws`` (R, G, B), seen as colour, is close to the colour ``v``."""
    for raw in raws:
        chroma = raw - raw.min()
        norm = float(np.linalg.norm(chroma))
        if norm > 1e-9 and float(chroma @ v) / norm >= LOOKS_ALIKE:
            return True
    return False


def _like_band(v: np.ndarray, band: Sequence[float] | None) -> bool:
    """Whether the colour ``v`` looks like the Thames band's own (a pencil of that hue leaves no mark
    on it; marks of that hue there are the band's); False when no band was found."""
    return band is not None and _looks_like(v, [np.asarray(band, dtype=np.float64)])


def _band_explains(v: np.ndarray, hues: Mapping[Colour, np.ndarray], band: Sequence[float]) -> set[Colour]:
    """The pencils that could look like the colour ``v`` when drawn on the Thames band.

    On the band a pencil adds its density to the band's. Where the band is dark in a channel the
    picture barely records more (a floor of flare and black level), so that part of the pencil's
    colour fades, and its grey part, invisible in colour on paper, is left in the other channels
    (purple on a blue band reads pink). Each pencil's paper hue is shifted this way for a range of
    floors and grey parts; it explains ``v`` if one of the shifts comes close.
    """
    dark = np.exp(-np.asarray(band, dtype=np.float64))
    kept = [dark / (dark + floor) for floor in BAND_FLOORS]
    return {
        k
        for k in LINE_COLOURS
        if _looks_like(v, [hues[k], *((hues[k] + grey) * (f / f.max()) for f in kept for grey in BAND_NEUTRAL)])
    }


def _faint_everywhere(decided: Mapping[Section, Decision], evidence: Mapping[Section, SegmentEvidence]) -> bool:
    """Whether faint marks are common on the sheet's blank sections (a tinting light, a dark print):
    their 90th percentile share is above ``FAINT_BLANK_MAX``. True when no section is blank."""
    return _faint_level(decided, evidence) > FAINT_BLANK_MAX


def _faint_level(
    decided: Mapping[Section, Decision], evidence: Mapping[Section, SegmentEvidence], samples: int = 0
) -> float:
    """The 90th percentile share of faint marks on the sheet's blank sections of at least ``samples``
    measured positions; 1 when there are none."""
    blank = [ev.faint for t, ev in evidence.items() if ev.ink == 0 and decided[t][0] is None and ev.samples >= samples]
    return float(np.percentile(blank, 90)) if blank else 1.0


def _cast_explains(v: np.ndarray, hues: Mapping[Colour, np.ndarray], tint: np.ndarray) -> set[Colour]:
    """The pencils whose light strokes could look like the colour ``v`` under a light of this ``tint``."""
    return {k for k in LINE_COLOURS if _looks_like(v, [hues[k] + t * tint for t in CAST_SHIFTS])}


def _settle_cast(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    hues: Mapping[Colour, np.ndarray],
    game_map: GameMap,
) -> None:
    """Light strokes on paper under a coloured light: their colour drifts towards the light's tint.

    Only on a sheet whose blank guides show faint marks nearly everywhere (the light tints them);
    their median colour is the tint. A light, confidently read section that the pencil of another
    line reaching it could also produce under that tint is in doubt; when only one reaching line's
    pencil can look like it, that line takes it (in doubt: a guess from the light).
    """
    if not _faint_everywhere(decided, evidence):
        return
    marked = [
        ev
        for t, ev in evidence.items()
        if ev.ink == 0 and decided[t][0] is None and ev.faint > 0 and not _over_band(ev)
    ]
    if len(marked) < CAST_MIN_BLANKS:
        return
    tint = np.median(np.array([_vec(ev) for ev in marked]), axis=0)
    tint = tint / max(float(np.linalg.norm(tint)), 1e-9)
    for s in game_map.sections:
        c, f, _r, m = decided[s]
        ev = evidence[s]
        if c is None or _over_band(ev) or f < CONFIDENT or ev.strength >= CAST_STRENGTH:
            continue
        able = _cast_explains(_vec(ev), hues, tint)
        if c not in able:
            continue
        support = _line_support(s, decided, evidence)
        reaching = [k for k in LINE_COLOURS if support[k] > 0 and k in able]
        if reaching == [c] or not reaching:
            continue
        if len(reaching) == 1:
            k = reaching[0]
            decided[s] = (k, min(f, 0.8), f"light stroke read {k}: of the lines reaching it only {k} can look so", m)
        else:
            other = next(k for k in reaching if k != c)
            decided[s] = (c, min(f, 0.6), f"light stroke: under this light {other} can look {c} too", m)


def _line_support(
    s: Section,
    decided: Mapping[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
) -> dict[Colour, int]:
    """Per colour, how many of ``s``'s two stations that colour's line reaches from plain paper.

    A station counts when a section of that colour on plain paper ends there, or a chain of that
    colour's river sections (not through ``s``) leads there from one: where the Thames runs along
    several sections, a line can follow it for more than one.
    """
    out: dict[Colour, int] = {}
    for k in LINE_COLOURS:
        mine = [t for t, d in decided.items() if d[0] == k and t != s]
        paper = {p for t in mine if not _over_band(evidence[t]) for p in (t.a, t.b)}
        river = [t for t in mine if _over_band(evidence[t])]
        reached = set(paper)
        for _ in range(len(river)):
            grown = {p for t in river if t.a in reached or t.b in reached for p in (t.a, t.b)}
            if grown <= reached:
                break
            reached |= grown
        out[k] = sum(1 for end in (s.a, s.b) if end in reached)
    return out


def _river_hues(
    decided: Mapping[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    hues: Mapping[Colour, np.ndarray],
) -> dict[Colour, np.ndarray]:
    """Each line's hue over the Thames on this sheet, for the lines a clearly drawn river section shows.

    A teacher is drawn (ink at least ``WEAK_SURE_INK``), reached by exactly one line from plain paper
    (see ``_line_support``), and at least ``ANCHOR_COS`` similar to that line's paper hue (shifted,
    not another pencil). Lines without a teacher keep their paper hue (they are left out here).
    """
    out: dict[Colour, np.ndarray] = {}
    taught: dict[Colour, list[np.ndarray]] = {}
    for s, (c, _f, _r, _m) in decided.items():
        ev = evidence[s]
        if c is None or not _over_band(ev) or ev.ink < WEAK_SURE_INK:
            continue
        support = _line_support(s, decided, evidence)
        present = [k for k in LINE_COLOURS if support[k] > 0]
        if len(present) == 1 and float(_vec(ev) @ hues[present[0]]) >= ANCHOR_COS:
            taught.setdefault(present[0], []).append(_vec(ev))
    for k, vs in taught.items():
        mean = np.mean(vs, axis=0)
        out[k] = mean / np.linalg.norm(mean)
    return out


def _bridges(
    colour: Colour,
    decided: Mapping[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    hues: Mapping[Colour, np.ndarray],
    game_map: GameMap,
) -> list[Section]:
    """Undrawn sections that would join the departure's part of a line to another part of it."""
    main, stray = _parts(colour, decided, game_map)
    if not stray:
        return []
    joins = [s for s, d in decided.items() if d[0] is None and _joins(s, main, stray)]
    # Most likely first: the most marked, in a colour nearest this line's.
    joins.sort(key=lambda s: -(evidence[s].ink + float(_vec(evidence[s]) @ hues[colour])))
    return joins[:3]


def _join_ends(
    decided: dict[Section, Decision], evidence: Mapping[Section, SegmentEvidence], game_map: GameMap
) -> None:
    """A line still in pieces once everything else is read, where one section alone joins an end of
    its departure's part (or the departure station) to an end of a stray piece, crossing nothing
    drawn, on paper: that section is drawn in the best reading, in doubt. A line grows from its
    ends, so the piece was joined somewhere, and there is nowhere else; no pencil shows there (a join
    with any is decided earlier, see the rebuild's joins), so a person confirms it. Over the Thames a
    pencil unlike the band would show, and one like it is seen to (the joins across a band that
    hides it): there the line stays in pieces.

    Over every stored bench read (3,100 sheets, all such sheets flagged already) this reads 47 more
    sheets fully right (their best reading no longer breaks a rule for a line in pieces) and 4 more
    totals exact; it reads wrong 5 sheets whose player did leave a line in pieces, and one total
    (the join drawn where another section was missed); no flag changes."""
    for colour in LINE_COLOURS:
        for _ in range(3):
            only = _end_to_end_join(colour, decided, evidence, game_map)
            if only is None:
                break
            _c, f, _r, m = decided[only]
            why = f"would connect the two parts of the {colour} line: the one section joining their ends"
            decided[only] = (colour, min(f, 0.6), why, m)


def _end_to_end_join(
    colour: Colour, decided: Mapping[Section, Decision], evidence: Mapping[Section, SegmentEvidence], game_map: GameMap
) -> Section | None:
    """The one undrawn section, if exactly one, that joins an end of a line's departure part (or its
    departure station) to an end of one of its stray pieces, crossing no drawn section; None as well
    when that section lies over the Thames band."""
    main, stray = _parts(colour, decided, game_map)
    degree = _line_degrees(decided)
    found = []
    for s, d in decided.items():
        if d[0] is not None or not _joins(s, main, stray):
            continue
        here, there = (s.a, s.b) if s.a in main else (s.b, s.a)
        if degree[(colour, there)] != 1 or (degree[(colour, here)] != 1 and here != game_map.departure(colour)):
            continue
        if any(decided[t][0] is not None for t in game_map.crossing_partners[s]):
            continue
        found.append(s)
    return found[0] if len(found) == 1 and not _over_band(evidence[found[0]]) else None


def _joins(s: Section, main: set[Point], stray: set[Point]) -> bool:
    """Whether section ``s`` runs from a line's main part to one of its stray pieces."""
    return (s.a in main and s.b in stray) or (s.b in main and s.a in stray)


def _reachable(start: Point, sections: list[Section]) -> set[Point]:
    """``start`` and the stations ``sections`` reach from it."""
    return {start, *reached_stations(start, sections)}
