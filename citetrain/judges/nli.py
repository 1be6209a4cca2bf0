"""The NLI judge: any NLI engine — a fine-tuned cross-encoder (``classifier:PATH``), an MNLI
classifier, TRUE, or the lexical baseline — turned into CiteEval ratings by the builders' rules.

Per statement: its context (query / response / retrieval / model), the minimal supporting subsets
of the record's passages, the silver edits (:func:`~citetrain.analysis.support.silver_edits`) and
their EDITDIST rating; per response the Full and Cited means. It is exactly the ``citeeval``
metric with this engine (:func:`~citetrain.metrics.citeeval.citeeval`), so a judge's numbers and
the metric's are one computation.
"""
from __future__ import annotations

from typing import Sequence

from citetrain.judges.base import JudgeResult, timed
from typing import Any

from citetrain.metrics.citeeval import Scenario, citeeval, record_entry, silver_row
from citetrain.analysis.editdist import PUBLISHED_WEIGHTS, Weights
from citetrain.analysis.support import (
    QUERY_RECALL, RESPONSE_RECALL, StatementAnalysis, Subsets, analyse,
)
from citetrain.nli.base import Pair
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record


class NLIJudge:
    """``NLIJudge(engine, scenario="both", weights=PUBLISHED_WEIGHTS, max_subset_size=3,
    union_first=False, subsets="all", query_recall=QUERY_RECALL, response_recall=RESPONSE_RECALL)``:
    ``union_first`` asks a statement's cited docs alone, then the union of its docs unless one of
    them entails, before the other docs alone (:class:`~citetrain.analysis.subsets.SubsetSearch`):
    on answers whose statements are mostly unsupported it saves most single-doc calls, with the
    same ratings under a monotone model (a
    cross-encoder is not quite one, so it is off by default: the judge then is the ``citeeval``
    metric exactly); ``subsets="needed"`` stops each statement's subset search once its edits
    are settled (the same ratings as ``"all"`` under any model, fewer calls; its rows list only the
    subsets found); ``query_recall`` / ``response_recall`` as in the metric (a
    statement is asked against the question / the earlier statements only if that premise holds
    this share of its content words; 0: φ alone)."""

    def __init__(self, engine: NLIEngine, *, scenario: Scenario = "both",
                 weights: Weights = PUBLISHED_WEIGHTS, max_subset_size: int = 3,
                 union_first: bool = False, subsets: Subsets = "all",
                 query_recall: float = QUERY_RECALL,
                 response_recall: float = RESPONSE_RECALL) -> None:
        self.engine = engine
        self.union_first = union_first
        self.subsets = subsets
        self.query_recall = query_recall
        self.response_recall = response_recall
        self.scenario = scenario
        self.weights = weights
        self.max_subset_size = max_subset_size
        self.name = f"nli:{engine.name}"

    def __repr__(self) -> str:
        return f"NLIJudge({self.engine.name!r})"

    def score(self, records: Sequence[Record], *, progress: bool = True) -> JudgeResult:
        """CiteEval ratings of every statement (the engine's own progress bar shows the calls)."""
        self.engine.progress = progress
        return timed(self.name, lambda: citeeval(
            records, self.engine, scenario=self.scenario, weights=self.weights,
            max_subset_size=self.max_subset_size, union_first=self.union_first, subsets=self.subsets,
            query_recall=self.query_recall, response_recall=self.response_recall))

    def rate_statements(self, stmts: Sequence[StatementAnalysis]) -> list[dict[str, Any]]:
        """The rows :meth:`score` gives these statements (of any records, analysed together: a
        statement's analysis reads only its own record), for a caller that splits records into
        groups of statements (the server: batches of bounded work)."""
        analyse(stmts, self.engine, max_size=self.max_subset_size, search_all=False,
                weights=self.weights, union_first=self.union_first,
                query_recall=self.query_recall, response_recall=self.response_recall,
                subsets=self.subsets)
        return [silver_row(s) for s in stmts]

    def record_scores(self, rid: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """A response's scores from its statements' rows, as :meth:`score` reports them."""
        return record_entry(rid, rows, self.scenario)

    def support(self, pairs: Sequence[Pair]) -> list[float]:
        """P(support) of each (premise, hypothesis): the engine's own score."""
        return self.engine.score(pairs)
