"""Cross-encoder training pairs from ``citetrain synth`` records (invented facts, known support).

Each statement of a record's answer gives, over the record's passages (``title: text``):

* all passages joined -> ``supported`` when the statement has gold passages, else
  ``not_supported`` (the judge reads a long premise and must find the evidence in it);
* each gold passage alone -> ``supported``, or ``partially_supported`` when the statement needs
  two passages together (a ``multi`` case) and this one holds only part of it;
* the first non-gold passage that shares the record's topic -> ``not_supported``.

The support of each pair follows from how the records are built (:mod:`citetrain.synth.records`), so
the pairs are a cheap warm-up in reading a premise for the statement's facts. The recipe lists a
synth JSONL file as ``synth:PATH`` (``citetrain synth --n 200 --out PATH``); pairs are split by
the statement's text like every other source.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from citetrain.io.labelled import LabelledPair, LabelledSet

FORMAT = "synth"


def _passage(doc: dict[str, Any]) -> str:
    return f"{doc.get('title', '')}: {doc.get('text', '')}".strip(": ")


def record_pairs(rec: dict[str, Any]) -> list[LabelledPair]:
    """The pairs of one synth record (see the module docstring); a record whose statements do
    not line up with its ``gold`` lists gives none."""
    from citetrain.text.statements import statements

    docs = [_passage(d) for d in rec.get("docs", [])]
    stmts = statements(rec.get("output", ""))
    gold, cases = rec.get("gold", []), rec.get("case", [])
    if not docs or len(stmts) != len(gold) or len(cases) != len(gold):
        return []
    pairs: list[LabelledPair] = []
    for k, (st, ids, case) in enumerate(zip(stmts, gold, cases)):
        group = f"{rec['id']}:{k}"
        text = st.text.strip()
        pairs.append(LabelledPair("\n".join(docs), text, 2 if ids else 0, group, f"{group}#all"))
        for i in ids:
            level = 1 if str(case).startswith("multi") else 2
            pairs.append(LabelledPair(docs[i - 1], text, level, group, f"{group}#{i}"))
        others = [j for j in range(1, len(docs) + 1) if j not in ids]
        if others:
            pairs.append(LabelledPair(docs[others[0] - 1], text, 0, group, f"{group}#not"))
    return pairs


def read_synth(path: str | Path) -> LabelledSet:
    """All pairs of a synth JSONL file."""
    from citetrain.io.readers import json_rows

    pairs: list[LabelledPair] = []
    for _, rows in json_rows(path, record_pairs, "a synth record"):
        pairs += rows
    return LabelledSet(pairs, [], FORMAT)
