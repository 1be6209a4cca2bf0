"""Agreement of a scorer (an NLI engine, or a judge seen as one) with human support labels:
what ``citetrain meta-eval`` prints for each engine and ``citetrain eval`` of a judge writes."""
from __future__ import annotations

import math
from typing import Any, Literal, Sequence

from citetrain.io.labelled import LabelledPair
from citetrain.metrics.meta import meta_evaluate
from citetrain.nli.engine import NLIEngine

Score = Literal["expected", "entail"]


def agreement(engine: NLIEngine, pairs: Sequence[LabelledPair], score: Score = "expected") -> dict[str, Any]:
    """:func:`~citetrain.metrics.meta.meta_evaluate` of the engine's scores on the pairs:
    ``expected`` (P(full) + P(partial)/2 for a three-way model, P(entailment) for others) or
    ``entail`` (P(entailment)) ranked against the labels, grouped by claim."""
    results = engine.results([(p.premise, p.hypothesis) for p in pairs])
    scores = [r.expected if score == "expected" else r.prob for r in results]
    return meta_evaluate(scores, [p.label for p in pairs], [p.group for p in pairs])


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
