"""The Python API: ``citetrain.metrics.evaluate(records, metrics=..., nli=...) -> Report``."""
from __future__ import annotations

__all__ = ["evaluate"]

import time
from pathlib import Path
from typing import Any, Iterable, Mapping

from citetrain.metrics.options import check_metric_options
from citetrain.metrics.registry import DEFAULT_METRICS, get_metric, parse_metric_list
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record
from citetrain.metrics.report import Report
from citetrain.text.splitter import splitter_name


def as_records(records: Iterable[Record | Mapping[str, Any]] | str | Path) -> list[Record]:
    """Records from Record objects, plain dicts (ALCE fields), or a file path (any known format)."""
    if isinstance(records, (str, Path)):
        from citetrain.io.readers import read_records

        return read_records(records).records
    out = []
    for i, r in enumerate(records):
        if isinstance(r, Record):
            out.append(r)
        else:
            data = dict(r)
            data.setdefault("id", str(i))
            out.append(Record.model_validate(data))
    return out


def evaluate(
    records: Iterable[Record | Mapping[str, Any]] | str | Path,
    metrics: str | list[str] | tuple[str, ...] = DEFAULT_METRICS,
    nli: str | NLIEngine = "lexical",
    options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: bool = True,
) -> Report:
    """Score records with the named metrics through one shared NLI engine.

    ``nli`` is an engine or a name for :func:`citetrain.nli.registry.make_engine` (``"lexical"``,
    ``"seq2seq:PATH"``, ``"classifier:PATH"``, ``"llm:MODEL"``); ``options`` maps a metric name to
    its keyword options, e.g. ``{"alce": {"at_most_citations": 5}}``, checked against each
    metric's signature and ranges before any record is read (a
    :class:`~citetrain.config.ConfigError` lists every problem).
    """
    options = check_metric_options(options, "evaluate()")
    recs = as_records(records)
    names = parse_metric_list(metrics)
    if isinstance(nli, str):
        from citetrain.nli.registry import make_engine

        engine = make_engine(nli, progress=progress)
    else:
        engine = nli
    results, timings = {}, {}
    for name in names:
        t0 = time.perf_counter()
        results[name] = get_metric(name)(recs, engine, **dict(options.get(name, {})))
        timings[name] = round(time.perf_counter() - t0, 3)
    info = {
        "nli": engine.name,
        "nli_baseline": bool(engine.backend.is_baseline),
        "splitter": splitter_name(),
        "n_records": len(recs),
        "seconds": timings,
        "engine": vars(engine.stats).copy(),
    }
    return Report(results=results, info=info)
