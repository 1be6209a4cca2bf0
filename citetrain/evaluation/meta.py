"""Agreement of a scorer (an NLI engine, or a judge seen as one) with human support labels:
what ``citetrain meta-eval`` prints for each engine and ``citetrain eval`` of a judge writes."""
from __future__ import annotations

import math
from typing import Any, Literal, Sequence

from citetrain.io.labelled import LabelledPair
from citetrain.metrics.meta import meta_evaluate
from citetrain.nli.engine import NLIEngine

Score = Literal["expected", "entail"]


def scores_of(engine: NLIEngine, pairs: Sequence[LabelledPair], score: Score = "expected") -> list[float]:
    """The engine's score of each pair: ``expected`` (P(full) + P(partial)/2 for a three-way
    model, P(entailment) for others) or ``entail`` (P(entailment))."""
    results = engine.results([(p.premise, p.hypothesis) for p in pairs])
    return [r.expected if score == "expected" else r.prob for r in results]


def agreement_of(scores: Sequence[float], pairs: Sequence[LabelledPair]) -> dict[str, Any]:
    """:func:`~citetrain.metrics.meta.meta_evaluate` of one score per pair ranked against the
    pairs' labels, grouped by claim."""
    return meta_evaluate(scores, [p.label for p in pairs], [p.group for p in pairs])


def agreement(engine: NLIEngine, pairs: Sequence[LabelledPair], score: Score = "expected") -> dict[str, Any]:
    """:func:`agreement_of` the engine's scores on the pairs (:func:`scores_of`)."""
    return agreement_of(scores_of(engine, pairs, score), pairs)


def difference_rows(scores: Sequence[float], baseline: Sequence[float],
                    pairs: Sequence[LabelledPair], resamples: int, seed: int = 0) -> dict[str, float]:
    """``roc_auc_diff`` (this scorer's ROC-AUC minus the baseline's) with its bootstrap ``_sd``
    and 95 % ``_low`` / ``_high`` over the claims
    (:func:`~citetrain.metrics.meta.bootstrap_auc_difference`): rows of the agreement table."""
    from citetrain.errors import CitetrainError
    from citetrain.metrics.meta import bootstrap_auc_difference

    try:
        res = bootstrap_auc_difference([scores], baseline, [p.label for p in pairs],
                                       [p.group for p in pairs], resamples=resamples, seed=seed)
    except ValueError as exc:
        raise CitetrainError(f"--bootstrap: {exc}") from None
    return {"roc_auc_diff": res["difference"], "roc_auc_diff_sd": res["sd"],
            "roc_auc_diff_low": res["low"], "roc_auc_diff_high": res["high"]}


def cut_notice(engine: NLIEngine) -> str | None:
    """A line when the engine read statements cut to its model's max_length."""
    cut = getattr(getattr(engine, "backend", None), "cut_statements", 0)
    return (f"{engine.name}: {cut} statements longer than the model's max_length were read cut"
            if cut else None)


def _fmt(v: float | None) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


def agreement_table(table: dict[str, dict[str, Any]]) -> str:
    """One row per measure, one column per scorer (``table``: scorer name -> its agreement)."""
    rows = list(dict.fromkeys(k for res in table.values() for k, v in res.items()
                              if isinstance(v, (int, float))))
    width = max(len(r) for r in rows)
    cols = list(table)
    lines = [f"{'measure':<{width}}  " + "  ".join(f"{c:>{max(10, len(c))}}" for c in cols)]
    for r in rows:
        lines.append(f"{r:<{width}}  " + "  ".join(f"{_fmt(table[c].get(r)):>{max(10, len(c))}}"
                                                  for c in cols))
    return "\n".join(lines)
