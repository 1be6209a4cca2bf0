"""What every judge returns, and the judge protocol."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from citetrain.metrics.base import MetricResult
from citetrain.nli.base import Pair
from citetrain.records import Doc, Record


@dataclass
class JudgeResult:
    """A judge's verdict on a set of records.

    ``result`` is CiteEval-shaped (:func:`~citetrain.metrics.citeeval.citeeval`'s and
    :func:`~citetrain.metrics.citeeval.citeeval_from_judgements`'s output): ``scores``
    ``citeeval_full`` / ``citeeval_cited`` (percentages), ``per_record`` response scores,
    ``per_statement`` rows with ``context``, ``edits``, ``rating``, ``full``, ``cited`` and, for
    judges that generate text, ``status`` / ``reason`` (unparsable outputs are reported per
    statement). ``seconds`` is the wall time of the scoring.
    """

    judge: str
    result: MetricResult
    seconds: float

    @property
    def statements(self) -> int:
        return len(self.result.per_statement)

    @property
    def throughput(self) -> float:
        """Statements per second."""
        return self.statements / self.seconds if self.seconds > 0 else float("inf")

    def summary(self) -> dict[str, Any]:
        """Dataset scores, counts and throughput as one JSON-ready dict."""
        return {"judge": self.judge, **self.result.scores, "statements": self.statements,
                "records": len(self.result.per_record), "seconds": round(self.seconds, 3),
                "statements_per_second": round(self.throughput, 2), "info": self.result.info}


def timed(judge: str, fn: Callable[[], MetricResult]) -> JudgeResult:
    """Run ``fn`` and wrap its result with the time it took."""
    start = time.perf_counter()
    result = fn()
    return JudgeResult(judge, result, time.perf_counter() - start)


@runtime_checkable
class Judge(Protocol):
    """A citation judge: ``score`` rates every statement of every record (CiteEval's scheme)."""

    name: str

    def score(self, records: Sequence[Record], *, progress: bool = True) -> JudgeResult: ...


def pair_records(pairs: Sequence[Pair]) -> list[Record]:
    """One record per (premise, hypothesis): the premise as the only passage, the hypothesis as
    the response citing it (``"<hypothesis> [1]."``: the mark before the final punctuation, so
    Punkt keeps it in the sentence), so any judge can rate human-labelled pairs."""
    from citetrain.io.formats._common import attach_marks

    return [Record(id=f"pair-{i}", question="", docs=[Doc(title="", text=p)],
                   output=attach_marks(h, "[1]")) for i, (p, h) in enumerate(pairs)]


def support_from_result(result: MetricResult, n: int) -> list[float]:
    """Per pair-record support = the mean rating of its cited statements (0 where none rated)."""
    by_id: dict[str, list[float]] = {}
    for row in result.per_statement:
        if row.get("rating") is not None:
            by_id.setdefault(row["id"], []).append(float(row["rating"]))
    return [sum(v) / len(v) if (v := by_id.get(f"pair-{i}")) else 0.0 for i in range(n)]
