"""Iterative citation improvement (CiteEval §5): a judge proposes edits A(t) and ratings r(t) for
citations C(t); executing the edits gives C(t+1) = A(t)(C(t)); repeat T times and report r(t)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from citetrain.judges.base import Judge, JudgeResult
from citetrain.records import Record
from citetrain.refine.generative import replace_citations


def execute_edits(citations: Sequence[int], edits: Sequence[Sequence[Any]], n_docs: int) -> list[int]:
    """C(t+1): ``delete-*`` removes the id, ``add-*`` appends it (ids outside 1..n_docs and
    repeats are ignored); the order of the remaining ids is kept."""
    out = [c for c in dict.fromkeys(citations) if 1 <= c <= n_docs]
    for action, cid in edits:
        if str(action).startswith("delete") and cid in out:
            out.remove(cid)
        elif str(action).startswith("add") and 1 <= cid <= n_docs and cid not in out:
            out.append(cid)
    return out


def apply_judgement(records: Sequence[Record], rows: Sequence[dict[str, Any]]) -> tuple[list[Record], int]:
    """Records with every judged statement's edits executed (text unchanged outside the marks)
    and the number of edits executed."""
    by_record: dict[str, dict[int, dict[str, Any]]] = {}
    for row in rows:
        by_record.setdefault(row["id"], {})[row["statement"]] = row
    out, executed = [], 0
    for rec in records:
        mine = by_record.get(rec.id, {})
        if not any(r["edits"] for r in mine.values()):
            out.append(rec)
            continue
        ids: list[list[int] | None] = [None] * (max(mine) + 1)
        for i, row in mine.items():
            if row["edits"]:
                ids[i] = execute_edits(row["citations"], row["edits"], len(rec.docs))
                executed += len(row["edits"])
        try:
            out.append(rec.model_copy(update={"output": replace_citations(rec.output, ids)}))
        except ValueError:  # the splitter normalised the text: leave this record as it is
            out.append(rec)
    return out, executed


@dataclass
class Improvement:
    """Ratings at each iteration (``history[t]``: scores of C(t)) and the final records."""

    history: list[dict[str, Any]] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)


def improve(judge: Judge, records: Sequence[Record], iterations: int, *,
            progress: bool = True, first: JudgeResult | None = None) -> Improvement:
    """Score, execute the judge's edits, and repeat ``iterations`` times (T + 1 scorings in all;
    it stops early when no edit is left to execute). ``first``: the judge's result on
    ``records`` when the caller already has it (iteration 0 is then not scored again)."""
    if iterations < 0:
        raise ValueError(f"iterations must be >= 0, got {iterations}")
    result = Improvement(records=list(records))
    for t in range(iterations + 1):
        judged = first if t == 0 and first is not None else judge.score(result.records, progress=progress)
        step = {"iteration": t, **judged.result.scores, "statements": judged.statements}
        result.history.append(step)
        if t == iterations:
            break
        result.records, step["edits_executed"] = apply_judgement(result.records,
                                                                 judged.result.per_statement)
        if not step["edits_executed"]:
            break
    return result
