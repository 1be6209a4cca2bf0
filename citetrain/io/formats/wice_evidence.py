"""WiCE (Kamoi et al., EMNLP 2023) as evidence-finding records: ``wice_evidence``.

Line of ``entailment_retrieval_claim/{train,dev}.jsonl``: ``{label, claim, evidence: [sentence,
...], supporting_sentences: [[0-based sentence index, ...], ...], meta: {id, ...}}``; each inner
list of ``supporting_sentences`` is one minimal set of sentences that (with the others of the
set) supports the claim, and sets overlap.

A ``supported`` or ``partially_supported`` line becomes one record whose single statement is the
claim: question ``""``, output = the claim (no marks), docs = the ``evidence`` sentences in order
(text only), ``gold = [sorted union of the supporting sets, as 1-based ids]`` (so that a refiner
citing the sentences it finds is scored by :mod:`citetrain.metrics.gold_citations`); ``label`` is
kept, id = ``meta.id`` (default: the line number). A ``not_supported`` line gives no record (its
claim has no evidence to find); callers count such lines as ``ReadResult.n_items`` minus the lines
that gave a record. The format is read only when named (``--format wice_evidence``): a WiCE file
read with ``auto`` stays a labelled pair file (:mod:`citetrain.io.labelled`).
"""
from __future__ import annotations

from typing import Any

from citetrain.io.formats._common import RecordError, check_type, make_record, optional, require
from citetrain.records import Doc, Record

LABELS = ("supported", "partially_supported", "not_supported")


def supporting_ids(sets: Any, n_sentences: int) -> list[int]:
    """Sorted union of the 0-based index sets, as 1-based ids; a bad or out-of-range index
    raises a :class:`RecordError` on ``supporting_sentences``."""
    out: set[int] = set()
    for k, group in enumerate(check_type(sets, list, "supporting_sentences")):
        for i in check_type(group, list, f"supporting_sentences[{k}]"):
            check_type(i, int, f"supporting_sentences[{k}]")
            if not 0 <= i < n_sentences:
                raise RecordError(f"supporting_sentences[{k}]", "sentence index out of range",
                                  f"index {i} is not in 0..{n_sentences - 1} (evidence has "
                                  f"{n_sentences} sentences)")
            out.add(i + 1)
    return sorted(out)


def convert_wice_evidence(item: dict[str, Any], default_id: str) -> list[Record]:
    """A WiCE claim line as an evidence-finding :class:`Record` (see the module docstring);
    ``[]`` for a ``not_supported`` line."""
    label = require(item, "label")
    if label not in LABELS:
        raise RecordError("label", "unknown label", f"{label!r} is not one of {', '.join(LABELS)}")
    if label == "not_supported":
        return []
    claim = require(item, "claim")
    evidence = require(item, "evidence", list)
    docs = [Doc(text=check_type(s, str, f"evidence[{i}]")) for i, s in enumerate(evidence)]
    gold = supporting_ids(require(item, "supporting_sentences", list), len(docs))
    if not gold:
        raise RecordError("supporting_sentences", "supported claim without evidence",
                          f"a {label} claim with no supporting sentence index")
    meta = optional(item, "meta", dict, {})
    rid = meta.get("id")
    return [make_record(id=default_id if rid is None else str(rid), question="", docs=docs,
                        output=claim, gold=[gold], label=label)]
