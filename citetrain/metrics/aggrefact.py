"""LLM-AggreFact's protocol (Tang et al. 2024, "MiniCheck: Efficient Fact-Checking of LLMs on
Grounding Documents"): the balanced accuracy that MiniCheck, FactCG, Granite Guardian and HHEM
report on the benchmark.

For each dataset (``AggreFact-CNN``, ``Wice``, ``RAGTruth``, ...): a claim counts as supported
when its score is above a threshold; the threshold is the one of ``0.01, 0.02, ..., 0.99`` that
maximises the balanced accuracy ``BAcc = (TPR + TNR) / 2`` (scikit-learn
``balanced_accuracy_score``) on that dataset's dev split, the smallest of equals, as the
benchmark's evaluation scripts tune it; a dataset with no dev split takes 0.5 (said so in the
result). The threshold is applied to the dataset's test split, and the benchmark's figure is the
unweighted mean of the datasets' test BAcc.

Pure functions of (dataset, score, label) rows; labels are 1 / truthy supported, 0 not.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np

THRESHOLDS: tuple[float, ...] = tuple(k / 100 for k in range(1, 100))
DEFAULT_THRESHOLD = 0.5
Row = tuple[str, float, Any]  # (dataset, score, label)


def balanced_accuracy(scores: Sequence[float], labels: Sequence[Any], threshold: float) -> float:
    """BAcc of "supported iff score > threshold" against binary labels (a split with one class
    present: that class's recall, scikit-learn's reading)."""
    from sklearn.metrics import balanced_accuracy_score

    y = np.asarray([bool(v) for v in labels])
    s = np.asarray(scores, dtype=float)
    if s.shape != y.shape or s.ndim != 1 or s.size == 0:
        raise ValueError(f"{s.size} scores but {y.size} labels")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    with warnings.catch_warnings():  # one class in y_true: sklearn warns, then averages the rest
        warnings.simplefilter("ignore")
        return float(balanced_accuracy_score(y, s > threshold))


def tune_threshold(scores: Sequence[float], labels: Sequence[Any],
                   grid: Sequence[float] = THRESHOLDS) -> tuple[float, float]:
    """``(threshold, BAcc)``: the grid's threshold of the highest BAcc, the first (smallest) of
    equals."""
    best_t, best = grid[0], -1.0
    for t in grid:
        bacc = balanced_accuracy(scores, labels, t)
        if bacc > best:
            best_t, best = t, bacc
    return best_t, best


def _by_dataset(rows: Sequence[Row]) -> dict[str, tuple[list[float], list[Any]]]:
    out: dict[str, tuple[list[float], list[Any]]] = {}
    for name, score, label in rows:
        scores, labels = out.setdefault(name, ([], []))
        scores.append(float(score))
        labels.append(label)
    return out


def aggrefact_protocol(test: Sequence[Row], dev: Sequence[Row] = (),
                       grid: Sequence[float] = THRESHOLDS) -> dict[str, Any]:
    """The benchmark's result for one scorer: per test dataset (in order of first appearance)
    ``dataset``, ``threshold``, ``tuned`` (False: no dev rows, threshold 0.5), ``dev_bacc`` and
    ``dev_n`` (None / 0 untuned), ``test_bacc`` and ``n``; ``average`` (the unweighted mean of
    the test BAcc, the benchmark's figure), ``average_dev`` (the mean dev BAcc of the tuned
    datasets, NaN when none is) and ``notes`` (untuned datasets, dev datasets without test rows).
    """
    if not test:
        raise ValueError("no test rows")
    dev_sets = _by_dataset(dev)
    datasets: list[dict[str, Any]] = []
    notes: list[str] = []
    for name, (scores, labels) in _by_dataset(test).items():
        if name in dev_sets:
            threshold, dev_bacc = tune_threshold(*dev_sets[name], grid=grid)
            tuned, dev_n = True, len(dev_sets[name][0])
        else:
            threshold, dev_bacc, tuned, dev_n = DEFAULT_THRESHOLD, None, False, 0
        datasets.append({"dataset": name, "threshold": threshold, "tuned": tuned,
                         "dev_bacc": dev_bacc, "dev_n": dev_n,
                         "test_bacc": balanced_accuracy(scores, labels, threshold),
                         "n": len(scores)})
    untuned = [d["dataset"] for d in datasets if not d["tuned"]]
    if untuned:
        notes.append(f"no dev split, threshold {DEFAULT_THRESHOLD}: {', '.join(untuned)}")
    unused = [n for n in dev_sets if n not in {d["dataset"] for d in datasets}]
    if unused:
        notes.append(f"dev datasets without test rows, left out: {', '.join(unused)}")
    tuned_dev = [d["dev_bacc"] for d in datasets if d["tuned"]]
    return {"datasets": datasets,
            "average": float(np.mean([d["test_bacc"] for d in datasets])),
            "average_dev": float(np.mean(tuned_dev)) if tuned_dev else math.nan,
            "n": sum(d["n"] for d in datasets), "dev_n": sum(d["dev_n"] for d in datasets),
            "notes": notes}


def _pct(v: float | None) -> str:
    return "-" if v is None or math.isnan(v) else f"{100 * v:.1f}"


def aggrefact_table(result: dict[str, Any]) -> str:
    """The result as the benchmark prints it: one row per dataset (BAcc in %), then the average;
    a threshold marked ``*`` was not tuned (no dev split: 0.5)."""
    rows = [(d["dataset"], f"{d['threshold']:.2f}" + ("" if d["tuned"] else "*"),
             _pct(d["dev_bacc"]), _pct(d["test_bacc"]), str(d["n"])) for d in result["datasets"]]
    rows.append(("Average", "", _pct(result["average_dev"]), _pct(result["average"]),
                 str(result["n"])))
    head = ("dataset", "threshold", "dev BAcc", "test BAcc", "n")
    width = max(len(r[0]) for r in [head, *rows])
    cols = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(1, 5)]

    def line(r: Sequence[str]) -> str:
        return f"{r[0]:<{width}}  " + "  ".join(f"{v:>{w}}" for v, w in zip(r[1:], cols))

    out = [line(head), *(line(r) for r in rows)]
    if any(not d["tuned"] for d in result["datasets"]):
        out.append(f"* no dev split: threshold {DEFAULT_THRESHOLD}")
    return "\n".join(out)
