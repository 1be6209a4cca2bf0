"""Positional generator targets: gold citations per atomic claim, placed inside the sentence.

A sentence whose answer already cites in several places (two or more citation groups) is split
into ALiiCE's atomic claims (one per group, from spaCy's dependency parse, the paper's semantics of
:func:`citetrain.text.claims.atomic_claims_many`). Each claim gets its own minimal-subset search,
batched across the shard like the sentence searches, and its gold ids go where its group stood.
Sentences with fewer than two groups, or that the parser falls back on, keep their sentence-level
gold at the end.
"""
from __future__ import annotations

from typing import Any, Sequence

from citetrain.analysis.subsets import SubsetSearch, run_searches
from citetrain.nli.base import NLIResult
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record, join_docs
from citetrain.text.marks import parse_marks


def add_claim_targets(items: Sequence[Any], rows: list[dict[str, Any]], spec: Any,
                      engine: NLIEngine, nlp: Any = None) -> None:
    """Add ``claims`` = ``[[char, gold ids], ...]`` to rows of multi-group sentences (in place).
    ``char`` is where the claim's citation group stands in the mark-free sentence."""
    from citetrain.text.claims import atomic_claims_many

    records: dict[str, Record] = {it.record.id: it.record for it in items}
    todo = [r for r in rows if len(parse_marks(r["raw"]).groups) >= 2]
    if not todo:
        return
    parses = atomic_claims_many([r["raw"] for r in todo], nlp=nlp, semantics="paper")
    jobs: list[tuple[dict[str, Any], int, str, SubsetSearch]] = []
    for row, parse in zip(todo, parses):
        if parse.fallback is not None or len(parse.claims) < 2:
            continue
        n_docs = len(records[row["id"]].docs)
        groups = parse.statement.groups
        for claim in parse.claims:
            char = groups[claim.groups[-1]].char
            jobs.append((row, char, claim.text,
                         SubsetSearch(n_docs, spec.max_subset, spec.exhaustive)))

    def ask(batch: list[tuple[int, tuple[int, ...]]]) -> list[NLIResult]:
        return engine.results([(join_docs(records[jobs[i][0]["id"]].docs, q), jobs[i][2])
                               for i, q in batch])

    run_searches([s for *_, s in jobs], ask)
    for row, char, _, search in jobs:
        row.setdefault("claims", []).append([char, search.gold])
        row["claim_calls"] = row.get("claim_calls", 0) + search.calls
