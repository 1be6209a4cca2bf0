"""A refiner's benchmark inputs, made from records whose reference citations are known.

The reference is the record's ``gold`` (one list of 1-based ids per statement, the convention of
:mod:`citetrain.synth.records`); for human-cited answers (QuoteSum) it is read from the human
marks by :func:`gold_from_marks` before any mark is touched. From such records, deterministically
by ``seed`` (record ``r``'s input depends on ``(seed, variant, r.id)`` only):

* ``removed``: every mark removed;
* ``wrong``: statement k cites ``min(|G_k|, n_wrong)`` ids drawn from the in-range ids outside its
  reference ``G_k`` (``n_wrong = len(docs) - |G_k|``; the statements that get fewer than
  ``|G_k|`` are counted in ``short_of_wrong``); a statement with ``G_k = ∅`` cites nothing;
* ``half``: half of the *statements* with a reference keep it (cite exactly ``G_k``), the others
  get wrong ids as in ``wrong``: per record, ``floor(m/2)`` of its m referenced statements,
  drawn by the seed, plus one more with probability 1/2 when m is odd, so that half are kept in
  expectation over records of any size.

Marks go through :func:`~citetrain.refine.generative.replace_citations`, the refiners' own mark
replacer, so the text outside the marks is byte-identical: ``strip_marks(input.output) ==
strip_marks(record.output)``. A record whose output cannot be re-assembled sentence by sentence is
left out of every variant and counted in ``records_dropped``.
"""
from __future__ import annotations

import random
from typing import Sequence

from citetrain.errors import CitetrainError
from citetrain.records import Record
from citetrain.refine.generative import replace_citations
from citetrain.text.statements import statements

VARIANTS = ("removed", "wrong", "half")


def gold_from_marks(record: Record) -> Record:
    """``record`` with ``gold`` = each statement's distinct mark ids, sorted (kept as it is when
    the record already has a ``gold``)."""
    if (record.model_extra or {}).get("gold") is not None:
        return record
    gold = [sorted(set(st.citations)) for st in statements(record.output, first_line_only=False)]
    return record.model_copy(update={"gold": gold})


def parse_variants(spec: str | Sequence[str]) -> list[str]:
    """``"removed,wrong"`` or a list -> checked variant names, order kept, duplicates removed."""
    names = [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]
    bad = [n for n in names if n not in VARIANTS]
    if bad or not names:
        raise CitetrainError(f"--inputs: unknown input variant(s) {', '.join(bad) or '(none)'}: "
                             f"choose from {', '.join(VARIANTS)}")
    return list(dict.fromkeys(names))


def _wrong(gold: list[int], n_docs: int, rng: random.Random) -> list[int]:
    right = set(gold)
    pool = [i for i in range(1, n_docs + 1) if i not in right]
    return sorted(rng.sample(pool, min(len(gold), len(pool))))


def variant_ids(record: Record, variant: str, seed: int) -> tuple[list[list[int]], int]:
    """The ids each statement of ``record`` cites in ``variant``, and how many statements got
    fewer wrong ids than their reference has."""
    gold = [sorted(set(g)) for g in record.model_extra["gold"]]
    rng = random.Random(f"{seed}:{variant}:{record.id}")
    if variant == "removed":
        return [[] for _ in gold], 0
    keep: set[int] = set()
    if variant == "half":
        cited = [k for k, g in enumerate(gold) if g]
        rng.shuffle(cited)
        n_keep = len(cited) // 2 + (len(cited) % 2 == 1 and rng.random() < 0.5)
        keep = set(cited[:n_keep])
    out, short = [], 0
    for k, g in enumerate(gold):
        ids = g if k in keep else _wrong(g, len(record.docs), rng)
        short += len(ids) < len(g)
        out.append(ids)
    return out, short


def make_inputs(records: Sequence[Record], variant: str, seed: int = 0,
                counts: dict[str, int] | None = None) -> list[Record]:
    """The ``variant`` input of each record (see the module docstring); ``records`` carry
    ``gold`` (:func:`gold_from_marks`). ``counts`` gets ``short_of_wrong`` and
    ``records_dropped``."""
    if variant not in VARIANTS:
        raise CitetrainError(f"unknown input variant {variant!r}: choose from {', '.join(VARIANTS)}")
    counts = counts if counts is not None else {}
    counts.setdefault("short_of_wrong", 0)
    counts.setdefault("records_dropped", 0)
    out = []
    for rec in records:
        if (rec.model_extra or {}).get("gold") is None:
            raise CitetrainError(f"record {rec.id}: no field 'gold' to make a refiner input from")
        ids, short = variant_ids(rec, variant, seed)
        try:
            output = replace_citations(rec.output, ids)
        except ValueError:
            counts["records_dropped"] += 1
            continue
        counts["short_of_wrong"] += short
        out.append(rec.model_copy(update={"output": output}))
    return out
