"""Citations against reference (human) citations: ``gold_citations``. No NLI model.

No paper defines this metric: it is the micro-averaged precision / recall / F1 of retrieval,
applied to (statement, passage id) pairs. Its references come from human-cited data sets such as
QuoteSum (Schuster et al. 2024, "SEMQA: Semi-Extractive Multi-Source Question Answering") and WiCE
(Kamoi et al. 2023, "WiCE: Real-World Entailment for Claims in Wikipedia").

A record's reference is its ``gold`` field: one list of 1-based passage ids per statement of
``output``, in statement order (the convention of :mod:`citetrain.synth.records`; QuoteSum's human
marks, :func:`citetrain.refine.inputs.gold_from_marks`; WiCE's annotated evidence,
:mod:`citetrain.io.formats.wice_evidence`). Statements are the output's sentences over all lines
(:func:`~citetrain.text.statements.statements` with ``first_line_only=False``, as the refiners
split them); statement k cites ``C_k`` = the distinct ids of its marks, and its reference is
``G_k = set(gold[k])``. Over the scored statements S:

* precision ``P = Σ|C_k ∩ G_k| / Σ|C_k|`` (0 when nothing is cited),
* recall ``R = Σ|C_k ∩ G_k| / Σ|G_k|``,
* ``F1 = 2PR / (P + R)`` (micro: (statement, id) pairs pooled over the whole dataset),
* ``exact`` = share of statements with ``C_k = G_k``,

all × 100, keyed ``gold_prec``, ``gold_rec``, ``gold_f1``, ``gold_exact``.

A statement with an empty reference (``G_k = ∅``: the annotator cited nothing, e.g. a QuoteSum
connective sentence) is left out of all four scores: no id it cites can be right or wrong against
a reference that never looked for evidence. Such statements are counted in
``info["empty_gold_statements"]``, and the ids cited on them in ``info["empty_gold_cited"]``.
Records without ``gold`` (``skipped_no_gold``), whose ``gold`` length differs from their number
of statements (``skipped_misaligned``: a splitter that cut the text otherwise than the one that
wrote ``gold``) or with an empty output (``skipped_empty_output``) are left out and listed by id.
A ``gold`` that is not a list of id lists raises :class:`~citetrain.errors.CitetrainError`.
"""
from __future__ import annotations

from typing import Any, Sequence

from citetrain.errors import CitetrainError
from citetrain.metrics.base import MetricResult, f1
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record
from citetrain.text.statements import statements

NAME = "gold_citations"


def reference_ids(record: Record) -> list[list[int]] | None:
    """The record's ``gold`` as id lists (``None`` when it has none); one line on a bad value."""
    gold = (record.model_extra or {}).get("gold")
    if gold is None:
        return None
    ok = isinstance(gold, list) and all(
        isinstance(g, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in g)
        for g in gold)
    if not ok:
        raise CitetrainError(f"record {record.id}: field 'gold' must be a list of 1-based id "
                             f"lists, one per statement (got {str(gold)[:60]})")
    return gold


def cited_ids(record: Record) -> list[set[int]]:
    """``C_k`` for each statement of the output (all lines, the refiners' split)."""
    return [set(st.citations) for st in statements(record.output, first_line_only=False)]


def _percent(num: int, den: int) -> float:
    return 100.0 * num / den if den else 0.0


def gold_citations(records: Sequence[Record], engine: NLIEngine | None = None) -> MetricResult:
    """Micro precision / recall / F1 and exact-set accuracy of the cited ids against ``gold``
    (see the module docstring; ``engine`` is unused: the metric reads marks only)."""
    tp = n_cited = n_gold = n_exact = n_scored = 0
    rows: list[dict[str, Any]] = []
    per_statement: list[dict[str, Any]] = []
    skipped: dict[str, list[str]] = {"no_gold": [], "misaligned": [], "empty_output": []}
    empty_gold = empty_cited = 0
    for rec in records:
        gold = reference_ids(rec)
        if gold is None:
            skipped["no_gold"].append(rec.id)
            continue
        cited = cited_ids(rec)
        if not cited:
            skipped["empty_output"].append(rec.id)
            continue
        if len(cited) != len(gold):
            skipped["misaligned"].append(rec.id)
            continue
        row = {"id": rec.id, "statements": 0, "tp": 0, "cited": 0, "gold": 0}
        for k, (c, g) in enumerate(zip(cited, map(set, gold))):
            hit = len(c & g)
            per_statement.append({"id": rec.id, "statement": k, "cited": sorted(c),
                                  "gold": sorted(g), "tp": hit, "exact": c == g if g else None})
            if not g:
                empty_gold += 1
                empty_cited += len(c)
                continue
            row["statements"] += 1
            row["tp"] += hit
            row["cited"] += len(c)
            row["gold"] += len(g)
            n_exact += c == g
        rows.append(row)
        tp += row["tp"]
        n_cited += row["cited"]
        n_gold += row["gold"]
        n_scored += row["statements"]
    p, r = _percent(tp, n_cited), _percent(tp, n_gold)
    scores = {"gold_prec": p, "gold_rec": r, "gold_f1": f1(p, r),
              "gold_exact": _percent(n_exact, n_scored)}
    info: dict[str, Any] = {"records": len(rows), "statements": n_scored, "exact": n_exact, "tp": tp,
                            "cited": n_cited, "gold": n_gold,
                            "empty_gold_statements": empty_gold, "empty_gold_cited": empty_cited}
    for why, ids in skipped.items():
        info[f"skipped_{why}"] = len(ids)
        info[f"skipped_{why}_ids"] = ids
    return MetricResult(NAME, scores, rows, per_statement, info)
