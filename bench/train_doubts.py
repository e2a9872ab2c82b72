"""Learn the best reading of a section in doubt from stored bench reads: ``calibration/doubt_model.json``,
and with ``--colours`` the second model, ``calibration/colour_model.json``.

The rebuild names the sections it cannot settle and gives each a best reading, drawn or not
(``nsvision/vision/doubt_model.py``). This script decides every stored read of the given files with
the rules alone, takes each section in doubt whose truth is either blank or the pencil it would be
drawn in (a section whose truth is another pencil is wrong either way), with the reader's own
features (``doubt_model.features``), and fits scikit-learn's ``HistGradientBoostingClassifier`` to
tell which. The trees are written as JSON and evaluated by the reader with NumPy; the script checks
that both give the same probabilities before writing.

The second model (``doubt_model.settle_colours``) tells of a section left in doubt read drawn
whether it is drawn in the pencil read or in the other nearest its colour: with ``--colours`` every
stored read is decided by the rules and the shipped first model (or ``--doubt-model PATH``), and
the sections in doubt read drawn whose truth is one of those two pencils are its examples. Fit it
again whenever the first model changes: it learns what that one leaves.

    python3 bench/train_doubts.py bench/out/measured-accuracy*.pkl          # the shipped model
    python3 bench/train_doubts.py FILES... --halves bench/out/doubt-half     # two models, each
        # fitted on every other file and judged on the rest (section counts printed); compare a
        # stored set with one: python3 bench/reread.py compare accuracy --doubt-model PATH
    python3 bench/train_doubts.py bench/out/measured-accuracy*.pkl --colours     # the second model
    python3 bench/train_doubts.py FILES... --colours --halves bench/out/colour-half --doubt-model
        bench/out/doubt-half    # its halves, each half decided by the first model's half fitted on it

Needs scikit-learn, a development tool here (``pip install scikit-learn``): the reader needs none of it.
The files are ``bench/reread.py store accuracy`` outputs (about 9 minutes a plan on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
import reread  # bench/reread.py, beside this script

from nsvision.calibration import load_calibration
from nsvision.game.board import LINE_COLOURS
from nsvision.vision import doubt_model
from nsvision.vision.rebuild import CONFIDENT
from nsvision.vision.rebuild import _decisions as rebuild_decisions

DEPTH, ITERATIONS, RATE = 3, 200, 0.05
"""The model's size: trees of depth 3, 200 of them, learning rate 0.05 (measured on two halves of
the stored plans against depth 2 and 4, 60 to 200 trees: the most sections mended for those
broken)."""


def dataset(
    paths: list[Path], colours: bool = False, first: doubt_model.TreeModel | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, truth and the rules' reading of every section the model learns, from the stored
    reads in ``paths``. The first model (``colours`` false): the sections in doubt read by the rules
    alone; truth 1 where drawn in the pencil they would be drawn in, the reading 1 where read drawn.
    The second: the sections in doubt read drawn by the rules and the ``first`` model; truth 1
    where drawn in the other pencil nearest their colour, the reading 0."""
    cal = load_calibration()
    departures = {k: cal.map.departure(k) for k in LINE_COLOURS}
    xs, ys, rs = [], [], []
    saved = doubt_model.default_model, doubt_model.default_colour_model
    doubt_model.default_model = (lambda: first) if colours else (lambda: None)  # type: ignore[assignment]
    doubt_model.default_colour_model = lambda: None  # type: ignore[assignment]
    try:
        for path in paths:
            with path.open("rb") as f:
                rows: list[dict[str, Any]] = pickle.load(f)
            for row in rows:
                if "measurements" not in row or row.get("variant", ""):
                    continue
                report = reread.decide_stored(row, cal)
                if report.reading is None:
                    continue
                hues = {k: np.asarray(v, np.float64) for k, v in report.reading.hues.items()}
                examples = _colour_examples if colours else _examples
                x, y, r = examples(report.reading.sections, row["expected"], departures, hues)
                xs.append(x)
                ys += y
                rs += r
    finally:
        doubt_model.default_model, doubt_model.default_colour_model = saved  # type: ignore[assignment]
    names = doubt_model.COLOUR_FEATURES if colours else doubt_model.FEATURES
    x = np.concatenate(xs) if xs else np.zeros((0, len(names)))
    return x, np.array(ys, np.int64), np.array(rs, np.int64)


def _decisions(sections: Any) -> tuple[dict[Any, Any], dict[Any, Any], dict[Any, Any], dict[Any, Any]]:
    decided = rebuild_decisions(sections)  # the decisions behind the readings, as the rebuild keeps them
    nearest = {s: r.nearest for s, r in sections.items()}
    twice = {s: r.also for s, r in sections.items() if r.also}
    evidence = {s: r.evidence for s, r in sections.items()}
    return decided, nearest, twice, evidence


def _examples(
    sections: Any, expected: dict[str, Any], departures: dict[str, Any], hues: dict[str, np.ndarray]
) -> tuple[np.ndarray, list[int], list[int]]:
    truth = reread.drawn_in(expected)
    decided, nearest, twice, evidence = _decisions(sections)
    keep, ys, rs = [], [], []
    for s in doubt_model.in_question(decided, twice, CONFIDENT):
        drawn = truth.get(frozenset(s.to_list()), set())
        pencil = decided[s][0] or nearest[s]
        if drawn and drawn != {pencil}:
            continue
        keep.append(s)
        ys.append(1 if drawn else 0)
        rs.append(1 if decided[s][0] is not None else 0)
    return doubt_model.features(decided, evidence, nearest, keep, CONFIDENT, departures, hues), ys, rs


def _colour_examples(
    sections: Any, expected: dict[str, Any], departures: dict[str, Any], hues: dict[str, np.ndarray]
) -> tuple[np.ndarray, list[int], list[int]]:
    truth = reread.drawn_in(expected)
    decided, _nearest, twice, evidence = _decisions(sections)
    keep, others, ys = [], [], []
    for s in doubt_model.colour_in_question(decided, evidence, twice, CONFIDENT):
        other = doubt_model.other_pencil(evidence[s], decided[s][0], hues)
        drawn = truth.get(frozenset(s.to_list()), set())
        if drawn not in ({decided[s][0]}, {other}):
            continue
        keep.append(s)
        others.append(other)
        ys.append(1 if drawn == {other} else 0)
    x = doubt_model.colour_features(decided, evidence, keep, others, CONFIDENT, departures, hues)
    return x, ys, [0] * len(ys)


def fit(x: np.ndarray, y: np.ndarray, names: tuple[str, ...] = doubt_model.FEATURES) -> dict[str, Any]:
    """The fitted model as the reader's JSON (``doubt_model.TreeModel.from_dict``), checked against
    scikit-learn's own probabilities on ``x``."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # a development tool only

    model = HistGradientBoostingClassifier(max_depth=DEPTH, max_iter=ITERATIONS, learning_rate=RATE, random_state=0)
    model.fit(x, y)
    trees = []
    for (predictor,) in model._predictors:
        nodes = predictor.nodes
        trees.append(
            [
                [-1, 0.0, 0, 0, float(n["value"])]
                if n["is_leaf"]
                else [int(n["feature_idx"]), float(n["num_threshold"]), int(n["left"]), int(n["right"]), 0.0]
                for n in nodes
            ]
        )
    data = {
        "about": "nsvision: P(drawn) of a section in doubt; bench/train_doubts.py wrote it"
        if names == doubt_model.FEATURES
        else "nsvision: P(the other pencil) of a section in doubt read drawn; bench/train_doubts.py wrote it",
        "features": list(names),
        "baseline": float(np.ravel(model._baseline_prediction)[0]),
        "depth": DEPTH,
        "examples": len(y),
        "trees": trees,
    }
    ours = doubt_model.TreeModel.from_dict(data).probability(x)
    theirs = model.predict_proba(x)[:, 1]
    worst = float(np.abs(ours - theirs).max(initial=0.0))
    if worst > 1e-6:
        raise SystemExit(f"the JSON trees give probabilities up to {worst:.2g} away from scikit-learn's")
    return data


def judged(data: dict[str, Any], x: np.ndarray, y: np.ndarray, r: np.ndarray) -> str:
    """How the model's reading of held-out sections compares with the rules'."""
    p = doubt_model.TreeModel.from_dict(data).probability(x) > 0.5
    mended = int(((p == y) & (r != y)).sum())
    broken = int(((p != y) & (r == y)).sum())
    right = f"rules right on {int((r == y).sum())}, model on {int((p == y).sum())}"
    return f"{len(y)} sections in doubt: {right} ({mended} mended, {broken} broken)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", type=Path, nargs="+", help="stored reads (bench/reread.py store accuracy ...)")
    ap.add_argument("--out", type=Path, help="where the model goes (default: the shipped one's place)")
    ap.add_argument("--halves", help="instead: PREFIX-a.json and PREFIX-b.json, each fitted on every other file")
    ap.add_argument("--colours", action="store_true", help="the second model: the pencil of a section read drawn")
    ap.add_argument(
        "--doubt-model",
        metavar="PATH",
        help="--colours: decide the reads with this first model instead of the shipped one; with --halves "
        "a prefix, PATH-a.json deciding the files the a half is fitted on, PATH-b.json the others",
    )
    args = ap.parse_args(argv)
    if args.doubt_model and not args.colours:
        ap.error("--doubt-model is for --colours")
    files = sorted(args.files)
    names = doubt_model.COLOUR_FEATURES if args.colours else doubt_model.FEATURES

    def first(tag: str) -> doubt_model.TreeModel | None:
        if not args.colours:
            return None
        path = f"{args.doubt_model}-{tag}.json" if args.doubt_model and args.halves else args.doubt_model
        model = doubt_model.load_model(path)
        if model is None:
            ap.error(f"--doubt-model {path}: no such file")
        return model

    if args.halves:
        halves = (files[0::2], files[1::2])
        for tag, mine, other in (("a", *halves), ("b", *reversed(halves))):
            x, y, _r = dataset(mine, args.colours, first(tag))
            data = fit(x, y, names)
            out = Path(f"{args.halves}-{tag}.json")
            out.write_text(json.dumps(data, separators=(",", ":")))
            print(f"{out}: fitted on {', '.join(p.name for p in mine)}")
            held_out = dataset(other, args.colours, first(tag))
            print(f"  judged on {', '.join(p.name for p in other)}: {judged(data, *held_out)}")
        return 0
    x, y, _r = dataset(files, args.colours, first(""))
    data = fit(x, y, names)
    out = args.out or (doubt_model.COLOUR_PATH if args.colours else doubt_model.DEFAULT_PATH)
    out.write_text(json.dumps(data, separators=(",", ":")))
    print(f"{out}: {len(y)} sections in doubt from {len(files)} files, {len(data['trees'])} trees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
