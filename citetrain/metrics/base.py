"""What every metric returns, and the helpers metrics share."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TypeVar

from citetrain.metrics.rules import check_at_most_citations
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record


@dataclass
class MetricResult:
    """A metric's output.

    ``scores``: dataset-level numbers (percentages where the paper reports percentages), keyed
    ``"<metric>_<name>"`` e.g. ``citation_rec``; ``per_record``: one dict per scored record with its
    ``id``; ``per_statement``: one dict per statement with ``id`` and ``statement`` (0-based index);
    ``info``: settings and counts (e.g. skipped records) that a report should show.
    """

    name: str
    scores: dict[str, float]
    per_record: list[dict[str, Any]] = field(default_factory=list)
    per_statement: list[dict[str, Any]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)


MetricFn = Callable[..., MetricResult]


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; 0.0 for an empty sequence."""
    return sum(values) / len(values) if values else 0.0


def f1(p: float, r: float) -> float:
    """Harmonic mean of two numbers on the same scale; 0 when both are 0."""
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


T = TypeVar("T")


def prepare_all(records: Sequence[Record], prepare: Callable[[Record], list[T]]
                ) -> tuple[list[list[T]], list[str]]:
    """``prepare`` every record; the non-empty results, and the ids of records that gave none
    (an empty output: every metric skips those and says so in ``info``)."""
    kept: list[list[T]] = []
    skipped: list[str] = []
    for rec in records:
        units = prepare(rec)
        if units:
            kept.append(units)
        else:
            skipped.append(rec.id)
    return kept, skipped


def skipped_info(skipped: list[str]) -> dict[str, Any]:
    """The ``info`` entries every metric reports for the records it skipped."""
    return {"skipped_empty_output": len(skipped), "skipped_ids": skipped}


__all__ = ["MetricResult", "MetricFn", "mean", "f1", "check_at_most_citations", "prepare_all",
           "skipped_info", "NLIEngine", "Record"]
