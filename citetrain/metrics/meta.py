"""Meta-evaluation of a metric or judge against human labels (Zhang et al., "Towards Fine-Grained
Citation Evaluation in Generated Text: A Comparative Analysis of Faithfulness Metrics", §3.2, §5.2).

Pure functions of (metric scores, human labels). Support levels are numbers: full 2, partial 1,
no 0 (:func:`support_levels` also reads common names such as ``"partially_supported"``).

* correlation: Pearson, Spearman, Kendall (tau-b) with scipy;
* classification: one-vs-one ROC-AUC — full vs no, full vs partial, partial vs no — each on the
  items of its two classes only, and their mean (scikit-learn ``roc_auc_score``); a pair whose
  two classes are not both present is NaN, left out of the mean and noted. Binary labels get one
  ROC-AUC;
* uncertainty: a paired cluster bootstrap of a ROC-AUC difference (scipy ``bootstrap``,
  percentile interval; :func:`bootstrap_auc_difference`);
* retrieval: NDCG@5/10/20 of the scores ranking each statement's candidate passages with the
  support levels as gains (scikit-learn ``ndcg_score``, ties averaged), mean over statements;
  statements with a single candidate are skipped; a statement whose candidates all have level 0
  scores 0 (scikit-learn's convention).
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Hashable, Sequence

import numpy as np

SUPPORT_LEVELS: dict[str, int] = {
    "full": 2, "fs": 2, "full_support": 2, "supported": 2,
    "partial": 1, "ps": 1, "partial_support": 1, "partially_supported": 1,
    "no": 0, "ns": 0, "no_support": 0, "not_supported": 0,
}
OVO_PAIRS: dict[str, tuple[int, int]] = {"fs_vs_ns": (2, 0), "fs_vs_ps": (2, 1), "ps_vs_ns": (1, 0)}
_NAMES = {2: "full", 1: "partial", 0: "no"}


def support_levels(labels: Sequence[Any]) -> np.ndarray:
    """Numeric labels: numbers kept, names mapped by :data:`SUPPORT_LEVELS` (case-insensitive)."""
    out = []
    for x in labels:
        if isinstance(x, str):
            key = x.strip().lower()
            if key not in SUPPORT_LEVELS:
                raise ValueError(f"unknown support label {x!r}: use {sorted(SUPPORT_LEVELS)}")
            out.append(SUPPORT_LEVELS[key])
        else:
            out.append(float(x))
    return np.asarray(out, dtype=float)


def _arrays(scores: Sequence[float], labels: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=float)
    y = support_levels(labels)
    if s.shape != y.shape or s.ndim != 1:
        raise ValueError(f"{s.size} scores but {y.size} labels")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    return s, y


def correlations(scores: Sequence[float], labels: Sequence[Any]) -> dict[str, float]:
    """Pearson, Spearman and Kendall tau-b of scores against labels (NaN when undefined)."""
    from scipy.stats import kendalltau, pearsonr, spearmanr

    s, y = _arrays(scores, labels)
    if s.size < 2 or np.ptp(s) == 0 or np.ptp(y) == 0:
        return {"pearson": math.nan, "spearman": math.nan, "kendall": math.nan}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"pearson": float(pearsonr(s, y).statistic),
                "spearman": float(spearmanr(s, y).statistic),
                "kendall": float(kendalltau(s, y).statistic)}


def binary_roc_auc(scores: Sequence[float], labels: Sequence[Any]) -> float:
    """ROC-AUC for binary labels (1 / truthy = positive); NaN when only one class is present."""
    from sklearn.metrics import roc_auc_score

    s, y = _arrays(scores, labels)
    pos = y > 0
    if pos.all() or not pos.any():
        return math.nan
    return float(roc_auc_score(pos, s))


def _ovo(scores: Sequence[float], labels: Sequence[Any]) -> tuple[dict[str, float], list[str]]:
    from sklearn.metrics import roc_auc_score

    s, y = _arrays(scores, labels)
    out: dict[str, float] = {}
    notes: list[str] = []
    for key, (hi, lo) in OVO_PAIRS.items():
        absent = [_NAMES[c] for c in (hi, lo) if not (y == c).any()]
        if absent:
            out[key] = math.nan
            notes.append(f"{key}: no '{' / '.join(absent)}' support items, left out of the mean")
            continue
        mask = (y == hi) | (y == lo)
        out[key] = float(roc_auc_score(y[mask] == hi, s[mask]))
    done = [v for v in out.values() if not math.isnan(v)]
    out["mean"] = sum(done) / len(done) if done else math.nan
    return out, notes


def ovo_roc_auc(scores: Sequence[float], labels3: Sequence[Any]) -> dict[str, float]:
    """One-vs-one ROC-AUC: ``fs_vs_ns``, ``fs_vs_ps``, ``ps_vs_ns`` and their ``mean``."""
    return _ovo(scores, labels3)[0]


def is_support_levels(levels: set) -> bool:
    """Labels read as support levels (one-vs-one ROC-AUC): within {0, 1, 2}, full support present."""
    return levels <= {0, 1, 2} and 2 in levels


def support_auc(scores: Sequence[float], labels: Sequence[Any]) -> float:
    """The ROC-AUC that :func:`meta_evaluate` reports, alone (no correlations, no NDCG): the
    one-vs-one mean on support levels, else the binary ROC-AUC; NaN where it has none."""
    s, y = _arrays(scores, labels)
    levels = set(np.unique(y).tolist())
    if is_support_levels(levels):
        return _ovo(s, y)[0]["mean"]
    return binary_roc_auc(s, y) if levels <= {0, 1} else math.nan


def bootstrap_auc_difference(scores: Sequence[Sequence[float]], baseline: Sequence[float],
                             labels: Sequence[Any], groups: Sequence[Hashable], *,
                             resamples: int = 1000, seed: int = 0,
                             confidence: float = 0.95) -> dict[str, Any]:
    """How sure a ROC-AUC difference is: the mean over ``scores`` (one list per scorer, e.g. the
    seeds of a judge) of :func:`support_auc` minus the ``baseline``'s, with a paired cluster
    bootstrap over the claims: each resample draws the distinct ``groups`` with replacement, every
    item of a drawn group with it, the same draw for every scorer and the baseline (Efron &
    Tibshirani 1993; ``scipy.stats.bootstrap``, percentile interval). Returns ``difference``
    (observed), ``sd`` (the bootstrap standard error), ``low`` / ``high`` (the ``confidence``
    interval), ``resamples``, ``seed`` and ``distribution`` (the resampled differences, numpy;
    a resample left with one level has none and is NaN)."""
    import inspect

    from scipy.stats import bootstrap

    if not scores or any(len(s) != len(labels) for s in [*scores, baseline]) or \
            len(groups) != len(labels):
        raise ValueError("bootstrap_auc_difference: every score list, the baseline, the labels "
                         "and the groups must have one value per item")
    members = [np.asarray(m) for m in _groups(groups)]
    if len(members) < 2:
        raise ValueError("bootstrap_auc_difference: needs two or more claims (groups) to resample")
    y = support_levels(labels)
    cols = [np.asarray(s, dtype=float) for s in scores]
    base = np.asarray(baseline, dtype=float)

    def difference(drawn: np.ndarray) -> float:
        idx = np.concatenate([members[int(c)] for c in drawn])
        return float(np.mean([support_auc(c[idx], y[idx]) for c in cols])
                     - support_auc(base[idx], y[idx]))

    rng = np.random.default_rng(seed)
    seeded = {"rng" if "rng" in inspect.signature(bootstrap).parameters else "random_state": rng}
    with warnings.catch_warnings():  # resamples with one level: NaN, counted out by scipy
        warnings.simplefilter("ignore")
        res = bootstrap((np.arange(len(members)),), difference, n_resamples=resamples,
                        vectorized=False, method="percentile", confidence_level=confidence,
                        **seeded)
    return {"difference": difference(np.arange(len(members))), "sd": float(res.standard_error),
            "low": float(res.confidence_interval.low), "high": float(res.confidence_interval.high),
            "resamples": resamples, "seed": seed, "distribution": res.bootstrap_distribution}


def _groups(groups: Sequence[Hashable]) -> list[list[int]]:
    """Item indices per group, groups in order of first appearance."""
    index: dict[Hashable, list[int]] = {}
    for i, g in enumerate(groups):
        index.setdefault(g, []).append(i)
    return list(index.values())


def ndcg_at(
    scores: Sequence[float],
    labels: Sequence[Any],
    groups: Sequence[Hashable],
    ks: Sequence[int] = (5, 10, 20),
) -> dict[str, float]:
    """Mean NDCG@k over groups (statements) of at least two candidates: ``{"ndcg@5": ...}``."""
    from sklearn.metrics import ndcg_score

    s, y = _arrays(scores, labels)
    if len(groups) != s.size:
        raise ValueError(f"{s.size} scores but {len(groups)} group ids")
    if (y < 0).any():
        raise ValueError("NDCG needs non-negative labels")
    members = [m for m in _groups(groups) if len(m) > 1]
    out = {}
    for k in ks:
        vals = [ndcg_score([y[m]], [s[m]], k=k) for m in members]
        out[f"ndcg@{k}"] = float(np.mean(vals)) if vals else math.nan
    return out


def meta_evaluate(
    scores: Sequence[float],
    labels: Sequence[Any],
    groups: Sequence[Hashable] | None = None,
    *,
    three_way: bool | None = None,
) -> dict[str, Any]:
    """Every applicable meta-evaluation of ``scores`` against ``labels``, in one flat dict.

    Always ``n`` and the correlations. ROC-AUC: binary (``roc_auc``) when the labels are 0/1,
    one-vs-one (``fs_vs_ns``, ``fs_vs_ps``, ``ps_vs_ns``, ``roc_auc_mean``) when they are support
    levels 0/1/2 — ``three_way`` forces the choice (e.g. three-way data lacking the full class);
    none for other scales such as 1-5 ratings. With ``groups``: NDCG@5/10/20 and how many groups
    counted. ``notes`` lists what was left out and why.
    """
    s, y = _arrays(scores, labels)
    out: dict[str, Any] = {"n": int(s.size), **correlations(s, y)}
    notes: list[str] = []
    levels = set(np.unique(y).tolist())
    if three_way is None:
        three_way = is_support_levels(levels)
    if three_way:
        if not levels <= {0, 1, 2}:
            raise ValueError(f"three-way labels must be 0, 1 or 2, got {sorted(levels)}")
        ovo, notes = _ovo(s, y)
        out.update({k: v for k, v in ovo.items() if k != "mean"}, roc_auc_mean=ovo["mean"])
    elif levels <= {0, 1}:
        out["roc_auc"] = binary_roc_auc(s, y)
        if math.isnan(out["roc_auc"]):
            notes.append("roc_auc: only one class present")
    else:
        notes.append(f"roc_auc: labels {sorted(levels)} are neither binary nor support levels")
    if groups is not None:
        out.update(ndcg_at(s, y, groups))
        sizes = [len(m) for m in _groups(groups)]
        out["ndcg_groups"] = sum(n > 1 for n in sizes)
        if any(n == 1 for n in sizes):
            notes.append(f"ndcg: {sum(n == 1 for n in sizes)} groups of one candidate skipped")
    out["notes"] = notes
    return out
