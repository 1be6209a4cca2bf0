"""The evaluation report: scores, per-statement details, and where they are written."""
from __future__ import annotations

__all__ = ["Report"]

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citetrain.io.writers import atomic_write_text
from citetrain.metrics.base import MetricResult


@dataclass
class Report:
    """What :func:`citetrain.metrics.evaluate` returns.

    ``scores[metric][key]`` are dataset-level numbers; ``results`` keeps every metric's full output;
    ``info`` records the NLI model, the sentence splitter, counts and timings.
    """

    results: dict[str, MetricResult]
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def scores(self) -> dict[str, dict[str, float]]:
        return {name: dict(r.scores) for name, r in self.results.items()}

    def flat_scores(self) -> dict[str, float]:
        """``{"alce/citation_rec": ..., ...}``."""
        return {f"{m}/{k}": v for m, s in self.scores.items() for k, v in s.items()}

    def statements(self) -> list[dict[str, Any]]:
        """Per-statement rows of every metric, each tagged with its metric."""
        return [{"metric": n, **row} for n, r in self.results.items() for row in r.per_statement]

    def to_dict(self) -> dict[str, Any]:
        return {
            "scores": self.scores,
            "info": {**self.info, "metrics": {n: r.info for n, r in self.results.items()}},
            "per_record": {n: r.per_record for n, r in self.results.items()},
        }

    def table(self) -> str:
        """A readable fixed-width table of the dataset-level scores."""
        rows = [(m, k, v) for m, s in self.scores.items() for k, v in s.items()]
        w1 = max([len("metric")] + [len(m) for m, _, _ in rows])
        w2 = max([len("score")] + [len(k) for _, k, _ in rows])
        lines = [f"{'metric':<{w1}}  {'score':<{w2}}  {'value':>8}", f"{'-' * w1}  {'-' * w2}  {'-' * 8}"]
        for m, k, v in rows:
            val = "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:8.2f}"
            lines.append(f"{m:<{w1}}  {k:<{w2}}  {val:>8}")
        for r in self.results.values():  # LongBench-Cite's dataset rows
            if "dataset_sums" in r.info:
                from citetrain.metrics.longbench_cite import dataset_table

                lines += ["", dataset_table(r.info)]
        nli = self.info.get("nli")
        foot = [f"NLI: {nli}" if nli else "", f"splitter: {self.info.get('splitter', '?')}",
                f"records: {self.info.get('n_records', '?')}"]
        return "\n".join(lines + ["", "  ".join(x for x in foot if x)])

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        """Write ``statements.jsonl``, ``table.txt`` and, last, ``report.json`` (each atomically:
        a failed or killed write leaves the previous file in place, and a ``report.json`` newer
        than the other two marks a finished write)."""
        out = Path(out_dir)
        paths = {"report": out / "report.json", "statements": out / "statements.jsonl",
                 "table": out / "table.txt"}
        atomic_write_text(
            paths["statements"],
            "".join(json.dumps(row, ensure_ascii=False, default=str) + "\n" for row in self.statements()),
        )
        atomic_write_text(paths["table"], self.table() + "\n")
        atomic_write_text(paths["report"], json.dumps(self.to_dict(), indent=2, default=str) + "\n")
        return paths
