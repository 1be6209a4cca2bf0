"""What a batch of a server's requests is scored with: the judge's own computations.

Records of an NLI judge (:func:`is_nli_judge`) come as chunks of their statements
(:mod:`citetrain.serve.cost`): a batch rates them with the judge's own analysis
(:meth:`NLIJudge.rate_statements`, what ``judge.score`` runs), and once all of a record's chunks
are back, :func:`assemble` gives its CiteEval scores and statements' rows, under the client's id:
the same numbers as ``citetrain judge``. Records of other judges go through ``judge.score`` whole,
under ids private to the batch so that equal ids of different clients never mix. Pairs go through
the judge's NLI engine (``classifier:`` models read with their saved preprocessing).
After each batch the engine forgets its in-memory answers (:meth:`NLIEngine.forget`): a server
that runs for weeks keeps a bounded memory, and every request is scored, not remembered.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

from citetrain.nli.base import Pair
from citetrain.records import Doc, Record

LEVELS = ("supported", "partially_supported", "not_supported")


def is_nli_judge(judge: Any) -> bool:
    """Whether ``judge`` rates statements with an NLI engine (``judge.engine``): its records are
    cut into chunks of statements and it scores bare pairs; any other judge (generative, teacher)
    rates whole records, one prompt each."""
    return getattr(judge, "engine", None) is not None


def score_records(judge: Any, records: Sequence[Record]) -> list[dict[str, Any]]:
    """One dict per record, in order: ``{"id", "citeeval_full", "citeeval_cited",
    "n_statements", "statements": [...]}`` (scores None where CiteEval skipped the record, e.g.
    an empty response)."""
    private = [r.model_copy(update={"id": str(k)}) for k, r in enumerate(records)]
    try:
        result = judge.score(private, progress=False).result
    finally:
        _forget(judge)
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in result.per_statement:
        rows[row["id"]].append(row)
    per_record = {row["id"]: row for row in result.per_record}
    out = []
    for k, record in enumerate(records):
        key = str(k)
        scores = {n: v for n, v in per_record.get(key, {}).items() if n != "id"}
        out.append({"id": record.id, "citeeval_full": scores.pop("citeeval_full", None),
                    "citeeval_cited": scores.pop("citeeval_cited", None), **scores,
                    "statements": [{**row, "id": record.id} for row in rows.get(key, [])]})
    return out


def score_chunks(judge: Any, chunks: Sequence[Any]) -> list[list[dict[str, Any]]]:
    """The rows of each chunk's statements (chunks of any records, rated together), after the
    parts the chunks read ahead (their ``reads``, for a judge whose NLI reads parts)."""
    read = getattr(judge.engine.backend, "read_parts", None)
    for chunk in chunks:
        for parts, ids in chunk.reads:
            read(parts, ids)
    flat = [s for chunk in chunks for s in chunk.statements]
    try:
        rows = judge.rate_statements(flat) if flat else []
    finally:
        _forget(judge)
    out, start = [], 0
    for chunk in chunks:
        out.append(rows[start:start + len(chunk.statements)])
        start += len(chunk.statements)
    return out


def assemble(judge: Any, records: Sequence[Record], chunks: Sequence[Any],
             rows: Sequence[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One dict per record, as :func:`score_records` gives it, from its chunks' rows."""
    mine: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for chunk, got in zip(chunks, rows):
        mine[chunk.record].extend(got)
    out = []
    for k, record in enumerate(records):
        if k not in mine:  # no statement: CiteEval leaves the record out
            out.append({"id": record.id, "citeeval_full": None, "citeeval_cited": None,
                        "statements": []})
            continue
        scores = {n: v for n, v in judge.record_scores(record.id, mine[k]).items() if n != "id"}
        out.append({"id": record.id, "citeeval_full": scores.pop("citeeval_full", None),
                    "citeeval_cited": scores.pop("citeeval_cited", None), **scores,
                    "statements": [{**row, "id": record.id} for row in mine[k]]})
    return out


def score_pairs(judge: Any, pairs: Sequence[Pair]) -> list[dict[str, Any]]:
    """One dict per (passage, statement): ``expected`` (P(full) + P(partial)/2), ``entailed``
    and, from a three-way model, ``support`` per level and the most likely ``level``."""
    if not is_nli_judge(judge):
        raise TypeError(f"judge {judge.name} rates records, not bare pairs")
    try:
        results = judge.engine.results(list(pairs))
    finally:
        _forget(judge)
    out = []
    for r in results:
        row: dict[str, Any] = {"expected": r.expected, "entailed": bool(r.label)}
        if r.support is not None:
            row["support"] = dict(zip(LEVELS, r.support))
            row["level"] = LEVELS[max(range(3), key=lambda i: r.support[i])]
        out.append(row)
    return out


def warm_up(judge: Any) -> None:
    """Score one small record with an NLI judge, so that the first client does not wait for the
    libraries its engine imports on first use (nothing is remembered afterwards)."""
    if not is_nli_judge(judge):  # a generative or teacher judge: no free warm-up
        return
    score_records(judge, [Record(id="warm-up", question="Where is Paris?", output="Paris is in "
                                 "France [1].", docs=[Doc(title="Paris", text="Paris is the "
                                                          "capital of France.")])])


def _forget(judge: Any) -> None:
    if is_nli_judge(judge):  # a generative judge has no engine
        judge.engine.forget()
