"""Refiners scored against human citations: what ``citetrain refine-eval`` runs.

Records whose reference citations are known (a ``gold`` field, or human marks read into one by
:func:`~citetrain.refine.inputs.gold_from_marks`: QuoteSum) are turned into each input variant of
:mod:`citetrain.refine.inputs` (``removed``, ``wrong``, ``half``); every refiner
(:func:`~citetrain.refine.load.load_refiner`: a checkpoint, ``lexical`` or ``baseline:NAME``)
refines each variant, and the result is scored by
:func:`~citetrain.metrics.gold_citations.gold_citations` (micro P / R / F1 over (statement, id)
pairs, exact-set accuracy). The variant as given, before any refiner, is the ``(input)`` row. A
row's time is the wall time of its ``refine`` call over its records, in seconds per answer
(loading a checkpoint is not counted).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from citetrain.errors import CitetrainError
from citetrain.metrics.gold_citations import gold_citations
from citetrain.records import Record
from citetrain.refine.inputs import gold_from_marks, make_inputs
from citetrain.refine.load import Refiner, load_refiner

DEFAULT_REFINERS = ("baseline:trivial", "lexical", "baseline:cover", "baseline:spans")
INPUT_ROW = "(input)"
_INFO = ("records", "statements", "empty_gold_statements", "skipped_misaligned")


@dataclass
class Row:
    """One refiner on one input variant: scores (× 100) and seconds per answer."""

    refiner: str
    input: str
    prec: float
    rec: float
    f1: float
    exact: float
    seconds_per_answer: float | None
    scored: dict[str, int] = field(default_factory=dict)  # gold_citations' counts
    counts: dict[str, int] = field(default_factory=dict)  # the refiner's replacement counts


def read_gold_records(path: str, fmt: str = "auto", limit: int | None = None
                      ) -> tuple[list[Record], dict[str, Any]]:
    """The file's first ``limit`` records with their ``gold``, and what was read: lines, records,
    and the lines that gave no record (WiCE's ``not_supported`` claims)."""
    from citetrain.io.readers import read_records

    res = read_records(path, fmt)
    records = [gold_from_marks(r) for r in res.records[:limit]]
    if not records:
        raise CitetrainError(f"{path}: no records to refine")
    lines = {line for _, line in res.origins}
    info = {"path": str(path), "format": res.format, "lines": res.n_items,
            "lines_without_record": res.n_items - len(lines) - len(res.skipped),
            "records": len(records)}
    return records, info


def split_records(records: Sequence[Record], split: str, fraction: float = 0.3, seed: int = 0
                  ) -> list[Record]:
    """The records on ``split``'s side (``train`` / ``validation``) of the judge recipes' split
    (:func:`~citetrain.builders.sets.split_of` of the output without marks, lower-cased, spaces
    collapsed: for a WiCE claim, the key of its labelled pair, so a judge trained on the claims
    of one side is scored on the other's)."""
    from citetrain.builders.sets import split_of
    from citetrain.io.labelled import text_key
    from citetrain.text.marks import strip_marks

    if split not in ("train", "validation"):
        raise CitetrainError(f"--split: {split!r} is not train or validation")
    return [r for r in records
            if split_of(text_key(strip_marks(r.output)), fraction, seed) == split]


def score_row(refiner: str, variant: str, records: Sequence[Record], seconds: float | None,
              counts: dict[str, int] | None = None) -> Row:
    """``records`` scored against their ``gold``."""
    res = gold_citations(records)
    s = res.scores
    return Row(refiner, variant, s["gold_prec"], s["gold_rec"], s["gold_f1"], s["gold_exact"],
               seconds, {k: res.info[k] for k in _INFO}, dict(counts or {}))


def run_benchmark(records: Sequence[Record], refiners: Sequence[str], variants: Sequence[str],
                  seed: int = 0, load: Callable[[str], Refiner] = load_refiner,
                  log: Callable[[str], None] = lambda _: None) -> tuple[list[Row], dict[str, Any]]:
    """Rows for ``(input)`` and every refiner on every variant, and the inputs' counts."""
    loaded = [load(name) for name in dict.fromkeys(refiners)]
    rows: list[Row] = []
    made: dict[str, dict[str, int]] = {}
    for variant in variants:
        made[variant] = {}
        inputs = make_inputs(records, variant, seed, made[variant])
        rows.append(score_row(INPUT_ROW, variant, inputs, None))
        for refiner in loaded:
            counts: dict[str, int] = {}
            start = time.perf_counter()
            refined, _ = refiner.refine(inputs, counts)
            per_answer = (time.perf_counter() - start) / max(len(inputs), 1)
            rows.append(score_row(refiner.name, variant, refined, per_answer, counts))
            log(format_row(rows[-1]))
    return rows, made


HEADER = ("| refiner | input | P | R | F1 | exact | s/answer |\n"
          "|---|---|---:|---:|---:|---:|---:|")


def format_row(row: Row) -> str:
    """One markdown table line."""
    secs = "" if row.seconds_per_answer is None else f"{row.seconds_per_answer:.4f}"
    return (f"| {row.refiner} | {row.input} | {row.prec:.1f} | {row.rec:.1f} | {row.f1:.1f} | "
            f"{row.exact:.1f} | {secs} |")


def format_table(rows: Sequence[Row]) -> str:
    """The rows as a markdown table."""
    return "\n".join([HEADER, *map(format_row, rows)])


def format_notes(rows: Sequence[Row], made: dict[str, dict[str, int]]) -> list[str]:
    """One line per variant: what its ``(input)`` row scored and what making it counted."""
    out = []
    for row in rows:
        if row.refiner == INPUT_ROW:
            s, c = row.scored, made[row.input]
            out.append(f"{row.input}: scored {s['statements']} statements of {s['records']} "
                       f"records ({s['empty_gold_statements']} with no reference left out, "
                       f"{s['skipped_misaligned']} records split otherwise than their gold); "
                       f"{c['short_of_wrong']} statements short of wrong ids, "
                       f"{c['records_dropped']} records dropped (text not re-assembled)")
    return out
