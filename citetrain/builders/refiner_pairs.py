"""(passage, statement) support pairs from a built refiner set: the ``refiner:`` pairs source.

A refiner build (``kind: refiner``) writes ``records.jsonl`` and ``statements.jsonl`` side by
side; each statement row carries ``gold``, the passages the NLI found supporting it (the union of
its minimal supporting subsets, DESIGN §6). Every (passage, statement) of a record becomes a pair
labelled ``supported`` (2) when the passage is in ``gold``, else ``not_supported`` (0), grouped by
statement. A ``kind: crossencoder`` recipe lists the build as
``refiner:BUILD/statements.jsonl`` in ``data.labelled`` and trains the pair refiner of
:mod:`citetrain.refine_pairs` on it (``recipes/quickstart.yaml``). Passages and statements are
read exactly as the pair refiner reads them at inference (:func:`~citetrain.refine_pairs.record_pairs`).
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.io.labelled import LabelledPair, LabelledSet
from citetrain.records import Record
from citetrain.refine_pairs import record_pairs

FORMAT = "refiner"
SUPPORTED, NOT_SUPPORTED = 2, 0


def _jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise CitetrainError(f"{path}: not found (refiner: takes a refiner build's "
                             f"statements.jsonl, with records.jsonl beside it)")
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line, text in enumerate(fh, 1):
            if text.strip():
                try:
                    rows.append((line, json.loads(text)))
                except ValueError as exc:
                    raise CitetrainError(f"{path}:{line}: not JSON ({exc})") from None
    return rows


def _gold(path: Path) -> dict[str, dict[int, list[int]]]:
    gold: dict[str, dict[int, list[int]]] = defaultdict(dict)
    for line, row in _jsonl(path):
        try:
            gold[str(row["id"])][int(row["statement"])] = [int(i) for i in row["gold"] or []]
        except (KeyError, TypeError, ValueError) as exc:
            raise CitetrainError(f"{path}:{line}: field {exc}: not a refiner statement row "
                                 f"(needs id, statement, gold)") from None
    return gold


def read_refiner_pairs(statements_path: str | Path) -> LabelledSet:
    """All pairs of a refiner build; a record whose statements do not line up with the build's
    rows is left out and counted in ``skipped``."""
    from citetrain.io.readers import Skip

    statements_path = Path(statements_path)
    records_path = statements_path.parent / "records.jsonl"
    gold = _gold(statements_path)
    pairs: list[LabelledPair] = []
    skipped: list[Skip] = []
    for line, row in _jsonl(records_path):
        rec = Record.model_validate(row)
        rows = record_pairs(rec)
        n = len({k for k, _, _ in rows})
        if sorted(gold.get(rec.id, {})) != list(range(n)):
            skipped.append(Skip(str(records_path), line, "output",
                                "statements differ from the build's", rec.id))
            continue
        for k, i, (premise, hypothesis) in rows:
            label = SUPPORTED if i in gold[rec.id][k] else NOT_SUPPORTED
            pairs.append(LabelledPair(premise, hypothesis, label, f"{rec.id}:{k}",
                                      f"{rec.id}:{k}#{i}"))
    return LabelledSet(pairs, skipped, FORMAT)
