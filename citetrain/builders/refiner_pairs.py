"""(passage, statement) support pairs from a built refiner set: the ``refiner:`` pairs source.

A refiner build (``kind: refiner``) writes ``records.jsonl`` and ``statements.jsonl`` side by
side; each statement row carries ``gold``, the passages the NLI found supporting it (the union of
its minimal supporting subsets, docs/concepts/support.md). Every (passage, statement) of a
record becomes a pair labelled ``supported`` (2) when the passage is in ``gold``, else
``not_supported`` (0), grouped by statement. A ``kind: crossencoder`` recipe lists the build as
``refiner:BUILD/statements.jsonl`` in ``crossencoder.labelled`` and trains the pair refiner of
:mod:`citetrain.refine.pairs` on it (``recipes/quickstart.yaml``). Passages and statements are
read exactly as the pair refiner reads them at inference (:func:`record_pairs`, which the pair refiner of
:mod:`citetrain.refine.pairs` uses).
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from citetrain.errors import CitetrainError
from citetrain.io.labelled import LabelledPair, LabelledSet
from citetrain.io.readers import json_rows
from citetrain.nli.base import Pair
from citetrain.records import Record, format_doc
from citetrain.text.marks import Statement, strip_marks
from citetrain.text.statements import statements

FORMAT = "refiner"
#: record formats whose ``gold`` gives pairs (``FORMAT:PATH`` in ``crossencoder.labelled``;
#: ``gold`` reads any record file whose records carry a ``gold`` field)
GOLD_FORMATS = {"gold": "auto", "wice_evidence": "wice_evidence"}
SUPPORTED, NOT_SUPPORTED = 2, 0
HARD_NEGATIVES, RANDOM_NEGATIVES = 8, 8


def statement_texts(record: Record, split: Sequence[Statement] | None = None) -> list[str]:
    """The record's statements without their marks (all lines, the order of ``output``);
    ``split``: its :func:`statements` when the caller already has them."""
    split = statements(record.output, first_line_only=False) if split is None else split
    return [strip_marks(st.raw.strip() or st.text).strip() for st in split]


def record_pairs(record: Record, texts: Sequence[str] | None = None
                 ) -> list[tuple[int, int, Pair]]:
    """``(statement index, passage id (1-based), (passage, statement))`` for every statement and
    passage of ``record``; the passage is read as the metrics read it (:func:`format_doc`).
    ``texts``: the record's :func:`statement_texts` when the caller already has them."""
    passages = [format_doc(d) for d in record.docs]
    texts = statement_texts(record) if texts is None else texts
    return [(k, i, (p, text)) for k, text in enumerate(texts) for i, p in enumerate(passages, 1)]


def read_gold_pairs(path: str | Path, fmt: str = "gold", seed: int = 0) -> LabelledSet:
    """Pairs of human-cited records (a ``gold`` id list per statement: WiCE claims read as
    evidence finding, any citetrain record file with ``gold``), read as the pair refiner reads
    them (:func:`record_pairs`): every passage in a statement's gold is ``supported``; of the
    others, the :data:`HARD_NEGATIVES` sharing the most content words with the statement (ties:
    the lower id) and :data:`RANDOM_NEGATIVES` more drawn by ``(seed, record id, statement)`` are
    ``not_supported``. Grouped by statement, split by its text (so a WiCE claim lands on the side
    of the judge recipes' split its labelled pair does); a statement with no gold gives nothing."""
    import random

    from citetrain.io.readers import read_records
    from citetrain.nli.lexical import content_words

    res = read_records(path, GOLD_FORMATS[fmt])
    pairs: list[LabelledPair] = []
    for rec in res.records:
        gold = (rec.model_extra or {}).get("gold")
        if gold is None:
            raise CitetrainError(f"{path}: record {rec.id} has no field 'gold' ({fmt}: pairs "
                                 "come from records whose reference citations are known)")
        texts = statement_texts(rec)
        rows = record_pairs(rec, texts)
        docs = [content_words(format_doc(d))[0] for d in rec.docs]
        for k, ids in enumerate(gold[:len(texts)]):
            if not ids:
                continue
            want, gold_ids = content_words(texts[k])[0], set(ids)
            others = [i for i in range(1, len(docs) + 1) if i not in gold_ids]
            hard = sorted(others, key=lambda i: (-len(want & docs[i - 1]), i))[:HARD_NEGATIVES]
            rest = [i for i in others if i not in hard]
            rng = random.Random(f"{seed}:{rec.id}:{k}")
            keep = {*ids, *hard, *rng.sample(rest, min(RANDOM_NEGATIVES, len(rest)))}
            group = f"{fmt}:{rec.id}:{k}"
            for kk, i, (premise, hypothesis) in rows:
                if kk == k and i in keep:
                    pairs.append(LabelledPair(premise, hypothesis,
                                              SUPPORTED if i in gold_ids else NOT_SUPPORTED,
                                              group, f"{group}#{i}"))
    return LabelledSet(pairs, [], fmt)


def _jsonl(path: Path, parse: Callable[[Any], Any] = dict,
           what: str = "a JSON object") -> Iterator[tuple[int, Any]]:
    """:func:`~citetrain.io.readers.json_rows` of a refiner build's file, which must exist."""
    if not path.is_file():
        raise CitetrainError(f"{path}: not found (refiner: takes a refiner build's "
                             f"statements.jsonl, with records.jsonl beside it)")
    return json_rows(path, parse, what)


def _gold(path: Path) -> dict[str, dict[int, list[int]]]:
    gold: dict[str, dict[int, list[int]]] = defaultdict(dict)
    rows = _jsonl(path, lambda row: (str(row["id"]), int(row["statement"]),
                                     [int(i) for i in row["gold"] or []]),
                  "a refiner statement row (needs id, statement, gold)")
    for _, (rid, k, ids) in rows:
        gold[rid][k] = ids
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
