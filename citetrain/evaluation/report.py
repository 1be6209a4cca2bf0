"""Score records with a suite's metrics and NLI, and write the report (``report.json``,
``statements.jsonl``, ``table.txt``) to the output folder."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from citetrain.evaluation.inputs import RunOptions
from citetrain.metrics.report import Report
from citetrain.metrics.suites import Suite
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record


def suite_engine(suite: Suite, opts: RunOptions) -> NLIEngine:
    """The suite's NLI engine (cache: the command line's, else the suite's)."""
    from citetrain.nli.registry import make_engine

    cache = suite.cache if opts.cache is None else opts.cache
    return make_engine(suite.nli, cache=cache, progress=opts.progress, **suite.nli_options)


def score(records: Sequence[Record], suite: Suite, opts: RunOptions,
          engine: NLIEngine | None = None) -> Report:
    """The suite's metrics on ``records`` through ``engine`` (default: the suite's)."""
    from citetrain.metrics.evaluate import evaluate

    engine = engine or suite_engine(suite, opts)
    return evaluate(list(records), suite.metrics, engine, options=suite.options,
                    progress=opts.progress)


def write_report(report: Report, out: Path, suite: Suite, notes: list[str], *,
                 show: bool = True, **info: Any) -> dict[str, Path]:
    """Add the suite's name, inputs and ``info`` to the report and write it to ``out``; print
    the table and the paths unless ``show`` is false."""
    report.info.update(suite=suite.name, inputs=[d.path for d in suite.data], input_notes=notes,
                       **info)
    paths = report.write(out)
    if show:
        print(report.table())
        print(f"\nwrote {paths['report']}, {paths['statements']}, {paths['table']}")
    return paths


def change_table(before: Report, after: Report) -> str:
    """Every score before and after, with the change (a refiner's effect)."""
    lines = [f"{'score':<22}{'before':>9}{'after':>9}{'change':>9}"]
    for metric, group in after.scores.items():
        for key, value in group.items():
            old = before.scores.get(metric, {}).get(key)
            if value is None or old is None:
                continue
            lines.append(f"{key:<22}{old:9.2f}{value:9.2f}{value - old:+9.2f}")
    return "\n".join(lines)
