"""Metric names -> functions ``fn(records, engine, **options) -> MetricResult`` (imported lazily)."""
from __future__ import annotations

from importlib import import_module

from citetrain.errors import CitetrainError
from citetrain.metrics.base import MetricFn

METRICS: dict[str, str] = {
    "alce": "citetrain.metrics.alce:alce",
    "lenient": "citetrain.metrics.lenient:lenient",
    "aliice": "citetrain.metrics.aliice:aliice",
    "citeeval": "citetrain.metrics.citeeval:citeeval",
    "correctness": "citetrain.metrics.correctness:correctness",
    "gold_citations": "citetrain.metrics.gold_citations:gold_citations",
}
DEFAULT_METRICS = ("alce", "lenient", "aliice")


def get_metric(name: str) -> MetricFn:
    """The metric function called ``name``."""
    if name not in METRICS:
        raise CitetrainError(f"unknown metric '{name}': choose from {', '.join(METRICS)}")
    module, _, attr = METRICS[name].partition(":")
    return getattr(import_module(module), attr)


def parse_metric_list(spec: str | list[str] | tuple[str, ...]) -> list[str]:
    """``"alce,lenient"`` or a list -> validated names, order kept, duplicates removed."""
    names = [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]
    if not names:
        raise CitetrainError("no metrics given")
    bad = [n for n in names if n not in METRICS]
    if bad:
        raise CitetrainError(f"unknown metric(s) {', '.join(bad)}: choose from {', '.join(METRICS)}")
    return list(dict.fromkeys(names))
