"""The best reading of a section in doubt, drawn or not, from a model learnt on the bench's stored reads.

The rebuild's rules name the sections they cannot settle (a light stroke beside a line, a colour
between two pencils, a join of a line in pieces) and give each a best reading, drawn or not, from
one or two measures each. Whether such a section was drawn depends on many measures at once: how
much of it is marked and how densely, its faint marks against the sheet's blank sections, whether
the line it would belong to ends at its stations, its colour margin. A small gradient-boosted model
(``bench/train_doubts.py``, scikit-learn's ``HistGradientBoostingClassifier``) learnt from the
doubtful sections of the stored bench reads, with the rules' own best reading as one of its inputs,
gives the probability that such a section is drawn in the pencil it is nearest; where that says
otherwise than the rules, the section takes the model's reading.

Only the best reading of a section already in doubt changes: the section stays in doubt, the sheet
stays flagged for review and the section named, so a model that is wrong on a print it never saw
costs a person's look, never a confident wrong score.

Then a second model of the same kind (``settle_colours``) weighs each section left in doubt read
drawn between the pencil it is read in and the other pencil nearest its colour (purple against pink
or blue, mostly), from measures of both pencils' lines as well as its colour; it too changes only
the best reading of a section that stays in doubt.

The models are JSON files of trees (``calibration/doubt_model.json``, ``colour_model.json``, shipped
as package data), evaluated here with NumPy: nothing of scikit-learn is needed at run time.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from nsvision.game.board import LINE_COLOURS, Colour, Point, Section
from nsvision.game.rules import reached_stations
from nsvision.vision.detect import SegmentEvidence

_CALIBRATION = Path(__file__).resolve().parent.parent.parent / "calibration"
_PACKAGED = Path(__file__).resolve().parent.parent / "data"
DEFAULT_PATH = _CALIBRATION / "doubt_model.json"
COLOUR_PATH = _CALIBRATION / "colour_model.json"
"""The second model (``settle_colours``), shipped beside the first."""

FEATURES = (
    "ink",
    "run",
    "strength",
    "faint",
    "span",
    "log_samples",
    "over_river",
    "margin",
    "short",
    "line_ends",
    "line_touches",
    "blank_faint",
    "blank_faint_p90",
    "drawn_strength",
    "hidden",
    "beside",
    "read_drawn",
    "main_touches",
    "stray_touches",
    "hue_cos",
    "line_sections",
    "line_tips",
    "specks",
    "specks_lead",
    "specks_blank",
)
"""The model's inputs, in order (``features``): the section's evidence; how many of its stations are
an end (``line_ends``) or a station (``line_touches``) of the line of the pencil it would be drawn
in, on the part of that line joined to its departure (``main_touches``) or on a piece apart from it
(``stray_touches``: the section would join it), the section itself left out; the sheet's blank faint
level and drawn strength; the cosine of its colour with that pencil's hue learnt on the sheet; how
many sections that line has (``line_sections``) and how many ends away from the section's two
stations (``line_tips``), the section left out: a line has at most 10 sections (11 with a pencil
power) and, with the one Railroad Switch of a round, at most three ends, so a line near either bound
has little room for one more section, and a short one is more often missing a light one. On a clean
picture (``SegmentEvidence.specks``: a scan), the share of the section with specks of that pencil,
its lead over the most of any other pencil's, and the most of that pencil's on the sheet's
confidently blank sections away from its line (what a tinted guide leaves); -1 (the lead 0) where
specks are not measured (a photo)."""

PENCIL_MEASURES = (
    "hue_cos",
    "touches",
    "ends",
    "main_touches",
    "stray_touches",
    "line_sections",
    "line_tips",
    "beside_share",
    "specks",
)
"""Of one pencil, for a section read drawn in doubt (``colour_features``), the section itself left
out: the cosine of its colour with the pencil's hue learnt on the sheet; how many of its stations
the pencil's line touches and ends at; how many lie on the part of that line joined to its
departure and on a piece apart; how many sections the line has and how many ends away from the
section; the share of the section's positions with a mark beside the stroke nearest that pencil; the
share with specks of that pencil (-1 where specks are not measured, see ``FEATURES``)."""

COLOUR_FEATURES = (
    *FEATURES[:9],  # the section's evidence and colour margin (``_evidence_measures``)
    "hidden",
    "beside",
    "blank_faint",
    "blank_faint_p90",
    "drawn_strength",
    "lead",
    "clear_lead",
    *(f"{who}_{m}" for who in ("read", "other") for m in PENCIL_MEASURES),
)
"""The inputs of the second model (``colour_features``), which tells of a section read drawn in doubt
whether it is drawn in the pencil read or in the other pencil nearest its colour: its evidence as
in ``FEATURES``; the sheet's blank faint level and drawn strength; the lead of the pencil read over
the other on its colour (1: on the pencil read, 0: halfway, below 0: nearer the other) and on the
colour of its marks clear of the symbols (0 where there are none); ``PENCIL_MEASURES`` of each."""

DRAWN_ABOVE = 0.5
"""Probability of "drawn" above which a section in doubt is drawn in the best reading, at or below
which it is not (the more probable reading: measured on two halves of the stored plans, each judged
by the model fitted on the other, at 0.5 the most sections are mended for those broken, against 0.6
and 0.7)."""

OTHER_ABOVE = 0.5
"""Probability of "the other pencil" above which a section read drawn in doubt is read in that pencil
(the more probable reading: on two halves of 12 stored plans, each judged by the model fitted on
the other, it mends 14 of the 1,866 sections in doubt read drawn and breaks none; see the README)."""

BLANK_MIN_SAMPLES = 10
"""Fewest positions for a confidently blank section to count in the sheet's blank faint level."""

Decision = tuple[Colour | None, float, str, float]
"""A section's reading while the rebuild works: colour (or none), confidence, reason, colour margin."""


def line_degrees(decided: Mapping[Section, Decision]) -> Counter[tuple[Colour, Point]]:
    """How many sections of each colour meet at each station (1: that line ends there)."""
    return Counter((d[0], p) for t, d in decided.items() if d[0] is not None for p in (t.a, t.b))


@dataclass(frozen=True)
class TreeModel:
    """Gradient-boosted trees: per tree, per node, the feature it splits on, the threshold (go left
    when the value is at most it), the left and right children and, at a leaf (feature -1), its value.
    The probability of "drawn" is the logistic of ``baseline`` plus the leaves reached."""

    features: tuple[str, ...]
    baseline: float
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    depth: int

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> TreeModel:
        trees, names = data.get("trees"), data.get("features")
        if not isinstance(trees, list) or not isinstance(names, list):
            raise ValueError("a model needs a list of trees and of features")
        feature: list[int] = []
        threshold: list[float] = []
        left: list[int] = []
        right: list[int] = []
        value: list[float] = []
        roots: list[int] = []
        for tree in trees:
            base = len(feature)
            roots.append(base)
            for f, t, lo, hi, v in tree:
                feature.append(int(f))
                threshold.append(float(t))
                left.append(base + int(lo) if f >= 0 else -1)
                right.append(base + int(hi) if f >= 0 else -1)
                value.append(float(v))
        return cls(
            tuple(str(n) for n in names),
            float(data["baseline"]),  # type: ignore[arg-type]
            np.array(feature, np.int64),
            np.array(threshold, np.float64),
            np.array(left, np.int64),
            np.array(right, np.int64),
            np.array(value, np.float64),
            np.array(roots, np.int64),
            int(data["depth"]),  # type: ignore[call-overload]
        )

    def probability(self, x: np.ndarray) -> np.ndarray:
        """P(drawn) for each row of ``x`` (rows of ``features``)."""
        x = np.atleast_2d(np.asarray(x, np.float64))
        node = np.broadcast_to(self.roots, (len(x), len(self.roots))).copy()
        rows = np.arange(len(x))[:, None]
        for _ in range(self.depth + 1):
            f = self.feature[node]
            leaf = f < 0
            go_left = x[rows, np.where(leaf, 0, f)] <= self.threshold[node]
            node = np.where(leaf, node, np.where(go_left, self.left[node], self.right[node]))
        raw = self.baseline + self.value[node].sum(axis=1)
        return 1.0 / (1.0 + np.exp(-raw))


def load_model(path: str | Path | None = None) -> TreeModel | None:
    """The model at ``path`` (default: the one shipped with nsvision); ``None`` when there is none."""
    return _load(path, DEFAULT_PATH, FEATURES)


def load_colour_model(path: str | Path | None = None) -> TreeModel | None:
    """The second model (``settle_colours``) at ``path``, by default the shipped one; ``None`` when none."""
    return _load(path, COLOUR_PATH, COLOUR_FEATURES)


def _load(path: str | Path | None, default: Path, names: tuple[str, ...]) -> TreeModel | None:
    if path is None:
        path = default if default.exists() else _PACKAGED / default.name
    path = Path(path)
    if not path.exists():
        return None
    model = TreeModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
    if model.features != names:
        raise ValueError(f"{path}: the model's features {model.features} are not the reader's {names}")
    return model


@lru_cache(maxsize=1)
def default_model() -> TreeModel | None:
    return load_model()


@lru_cache(maxsize=1)
def default_colour_model() -> TreeModel | None:
    return load_colour_model()


def _sheet_measures(
    decided: Mapping[Section, Decision], evidence: Mapping[Section, SegmentEvidence], confident: float
) -> list[float]:
    """The sheet's blank faint level (median, 90th percentile) and its drawn sections' median strength."""
    blank = [
        evidence[t].faint
        for t, d in decided.items()
        if d[0] is None and d[1] >= confident and evidence[t].samples >= BLANK_MIN_SAMPLES
    ]
    drawn = [evidence[t].strength for t, d in decided.items() if d[0] is not None and d[1] >= confident]
    return [
        float(np.median(blank)) if blank else 0.0,
        float(np.percentile(blank, 90)) if blank else 0.0,
        float(np.median(drawn)) if drawn else 0.0,
    ]


NO_SPECKS = -1.0
"""A speck measure where specks are not measured (a photo, a lossy file, a section too short)."""


def _speck_levels(
    decided: Mapping[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    confident: float,
    degree: Counter[tuple[Colour, Point]],
) -> dict[Colour, float]:
    """Per pencil, the most of its specks on the sheet's confidently blank sections with none of their
    stations on that pencil's line (``degree``: ``line_degrees`` of ``decided``): what the print leaves
    (a tinted guide); none where not measured."""
    blank = [t for t, d in decided.items() if d[0] is None and d[1] >= confident and evidence[t].specks]
    out: dict[Colour, float] = {}
    for k, colour in enumerate(LINE_COLOURS):
        shares = [evidence[t].specks[k] for t in blank if not any(degree[(colour, p)] for p in (t.a, t.b))]
        if shares:
            out[colour] = max(shares)
    return out


def _speck_share(e: SegmentEvidence, pencil: Colour) -> float:
    """The share of the section with specks of ``pencil``; ``NO_SPECKS`` where they are not measured."""
    return e.specks[LINE_COLOURS.index(pencil)] if e.specks else NO_SPECKS


def _speck_measures(e: SegmentEvidence, pencil: Colour, levels: Mapping[Colour, float]) -> list[float]:
    """Of a section and a pencil: its share of specks of that pencil, the lead of that share over the
    most of any other pencil's, and the pencil's blank level (``_speck_levels``); see ``FEATURES``."""
    if not e.specks:
        return [NO_SPECKS, 0.0, NO_SPECKS]
    own = _speck_share(e, pencil)
    rest = max(v for c, v in zip(LINE_COLOURS, e.specks, strict=True) if c != pencil)
    return [own, own - rest, levels.get(pencil, NO_SPECKS)]


def _evidence_measures(e: SegmentEvidence, margin: float) -> list[float]:
    """The first nine measures of both models: the section's own evidence and colour margin."""
    return [
        e.ink,
        e.run,
        e.strength,
        e.faint,
        e.span,
        float(np.log1p(e.samples)),
        e.over_river,
        margin,
        float(e.short),
    ]


def _line_measures(
    s: Section,
    pencil: Colour,
    decided: Mapping[Section, Decision],
    degree: Counter[tuple[Colour, Point]],
    departures: Mapping[Colour, Point],
) -> tuple[int, int, int, int]:
    """Of the line of ``pencil``, the section ``s`` itself left out: how many of its stations lie on
    the part joined to the departure and on a piece apart, how many sections the line has, and how
    many ends away from the section's stations (``degree``: ``line_degrees`` of ``decided``)."""
    line = [t for t, d in decided.items() if d[0] == pencil and t != s]
    main = {departures[pencil], *reached_stations(departures[pencil], line)}
    on_line = {p for t in line for p in (t.a, t.b)}
    return (
        sum(p in main for p in (s.a, s.b)),
        sum(p in on_line and p not in main for p in (s.a, s.b)),
        len(line),
        sum(n == 1 for (k, p), n in degree.items() if k == pencil and p not in (s.a, s.b)),
    )


def features(
    decided: Mapping[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    nearest: Mapping[Section, Colour],
    sections: list[Section],
    confident: float,
    departures: Mapping[Colour, Point],
    hues: Mapping[Colour, np.ndarray],
) -> np.ndarray:
    """One row of ``FEATURES`` per section of ``sections``, from the rebuild's readings ``decided``
    (the pencil a section would be drawn in: its colour, or the nearest when read blank), the lines'
    ``departures`` and the pencil ``hues`` learnt on the sheet."""
    degree = line_degrees(decided)
    sheet = _sheet_measures(decided, evidence, confident)
    levels = _speck_levels(decided, evidence, confident, degree)
    rows = []
    for s in sections:
        c, _f, _r, m = decided[s]
        e = evidence[s]
        pencil = c or nearest[s]
        ends = sum(degree[(pencil, p)] == 1 for p in (s.a, s.b))
        touches = sum(degree[(pencil, p)] > 0 for p in (s.a, s.b))
        in_main, stray, length, tips = _line_measures(s, pencil, decided, degree, departures)
        chroma = np.asarray(e.chroma, np.float64)
        hue = np.asarray(hues[pencil], np.float64)
        cos = float(chroma @ hue / max(float(np.linalg.norm(chroma) * np.linalg.norm(hue)), 1e-9))
        rows.append(
            [
                *_evidence_measures(e, m),
                ends,
                touches,
                *sheet,
                e.hidden,
                len(e.beside) / max(e.samples, 1),
                1.0 if c is not None else 0.0,
                in_main,
                stray,
                cos,
                length,
                tips,
                *_speck_measures(e, pencil, levels),
            ]
        )
    return np.array(rows, np.float64).reshape(len(sections), len(FEATURES))


def in_question(
    decided: Mapping[Section, Decision], twice: Mapping[Section, Colour], confident: float
) -> list[Section]:
    """The sections whose best reading the model may change: in doubt, not drawn in two pencils."""
    return sorted(s for s, d in decided.items() if d[1] < confident and s not in twice)


def settle_doubts(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    nearest: Mapping[Section, Colour],
    twice: Mapping[Section, Colour],
    crossing_partners: Mapping[Section, frozenset[Section]],
    confident: float,
    model: TreeModel | None,
    departures: Mapping[Colour, Point],
    hues: Mapping[Colour, np.ndarray],
) -> None:
    """Give each section in doubt the model's reading, drawn (in its nearest pencil) or not, where
    the model says otherwise than the rules; it stays in doubt, its reason says why. Not drawn where
    a section crossing it is drawn: the game forbids two lines crossing. (``departures``, ``hues``:
    see ``features``.)"""
    if model is None:
        return
    sections = in_question(decided, twice, confident)
    if not sections:
        return
    p = model.probability(features(decided, evidence, nearest, sections, confident, departures, hues))
    for s, drawn in zip(sections, p, strict=True):
        c, f, r, m = decided[s]
        if c is not None and drawn < DRAWN_ABOVE:
            why = f"a model learnt on the bench's sheets reads it as not drawn ({1 - drawn:.0%})"
            decided[s] = (None, f, f"{r}; {why}" if r else why, m)
        elif c is None and drawn > DRAWN_ABOVE and not any(decided[t][0] is not None for t in crossing_partners[s]):
            why = f"a model learnt on the bench's sheets reads it as drawn in {nearest[s]} ({drawn:.0%})"
            decided[s] = (nearest[s], f, f"{r}; {why}" if r else why, m)


def _unit(v: tuple[float, ...] | np.ndarray) -> np.ndarray:
    a = np.asarray(v, np.float64)
    n = float(np.linalg.norm(a))
    return a / n if n > 0 else a


def other_pencil(ev: SegmentEvidence, read: Colour, hues: Mapping[Colour, np.ndarray]) -> Colour:
    """The pencil nearest the section's colour but the one it is read in."""
    v = _unit(ev.chroma)
    return max((k for k in LINE_COLOURS if k != read), key=lambda k: float(v @ _unit(hues[k])))


def hue_lead(v: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Normalised lead of unit hue ``a`` over ``b`` for the colour ``v`` (1: on ``a``, 0: halfway)."""
    return (float(v @ a) - float(v @ b)) / max(1.0 - float(a @ b), 1e-6)


def colour_features(
    decided: Mapping[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    sections: list[Section],
    others: list[Colour],
    confident: float,
    departures: Mapping[Colour, Point],
    hues: Mapping[Colour, np.ndarray],
) -> np.ndarray:
    """One row of ``COLOUR_FEATURES`` per section of ``sections`` (each read drawn), against the pencil
    of ``others`` beside it, from the rebuild's readings ``decided``, the lines' ``departures`` and
    the pencil ``hues`` learnt on the sheet."""
    degree = line_degrees(decided)
    sheet = _sheet_measures(decided, evidence, confident)
    unit = {k: _unit(hues[k]) for k in LINE_COLOURS}
    matrix = np.stack([unit[k] for k in LINE_COLOURS])
    rows = []
    for s, other in zip(sections, others, strict=True):
        read, _f, _r, m = decided[s]
        if read is None:
            raise ValueError(f"{s.name}: the second model reads sections read drawn")
        e = evidence[s]
        v, clear = _unit(e.chroma), _unit(e.clear_chroma)
        beside = np.asarray(e.beside, np.float64).reshape(-1, 3)
        nearest_beside = [LINE_COLOURS[i] for i in np.argmax(beside @ matrix.T, axis=1)] if len(beside) else []
        per_pencil: list[float] = []
        for k in (read, other):
            # The section itself left out: its own stations count only other sections of the line.
            deg = {p: degree[(k, p)] - (read == k) for p in (s.a, s.b)}
            per_pencil += [
                float(v @ unit[k]),
                sum(n > 0 for n in deg.values()),
                sum(n == 1 for n in deg.values()),
                *_line_measures(s, k, decided, degree, departures),
                nearest_beside.count(k) / max(e.samples, 1),
                _speck_share(e, k),
            ]
        rows.append(
            [
                *_evidence_measures(e, m),
                e.hidden,
                len(beside) / max(e.samples, 1),
                *sheet,
                hue_lead(v, unit[read], unit[other]),
                hue_lead(clear, unit[read], unit[other]) if clear.any() else 0.0,
                *per_pencil,
            ]
        )
    return np.array(rows, np.float64).reshape(len(sections), len(COLOUR_FEATURES))


def colour_in_question(
    decided: Mapping[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    twice: Mapping[Section, Colour],
    confident: float,
) -> list[Section]:
    """The sections whose pencil the second model may change: in doubt, read drawn in one pencil,
    with a colour measured on them."""
    return [s for s in in_question(decided, twice, confident) if decided[s][0] is not None and any(evidence[s].chroma)]


def settle_colours(
    decided: dict[Section, Decision],
    evidence: Mapping[Section, SegmentEvidence],
    twice: Mapping[Section, Colour],
    confident: float,
    model: TreeModel | None,
    departures: Mapping[Colour, Point],
    hues: Mapping[Colour, np.ndarray],
) -> None:
    """Read each section in doubt read drawn in the other pencil nearest its colour where the second
    model says that one is the more probable; it stays in doubt, its reason says why. Run after
    ``settle_doubts``: the model learnt what that leaves."""
    if model is None:
        return
    sections = colour_in_question(decided, evidence, twice, confident)
    if not sections:
        return
    others = [other_pencil(evidence[s], read, hues) for s in sections if (read := decided[s][0]) is not None]
    p = model.probability(colour_features(decided, evidence, sections, others, confident, departures, hues))
    for s, other, q in zip(sections, others, p, strict=True):
        if q > OTHER_ABOVE:
            c, f, r, m = decided[s]
            why = f"a model learnt on the bench's sheets reads it as drawn in {other}, not {c} ({q:.0%})"
            decided[s] = (other, f, f"{r}; {why}" if r else why, m)
