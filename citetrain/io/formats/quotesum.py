"""QuoteSum / SEMQA (Schuster et al., NAACL 2024): answers quote spans as ``[k quoted span]``.

Line: ``{qid, unique_id, question, summary, title1..8, source1..8, short_ans_1..8, ...}``; empty
sources are unused slots.
"""
from __future__ import annotations

import re
from typing import Any

from citetrain.io.formats._common import RecordError, attach_marks, check_type, make_record, require
from citetrain.records import Doc, Record
from citetrain.text.marks import render_marks

#: ``[ 2 Denitrification ]`` or ``[1,2 span]``: ids, then whitespace, then a non-empty span
QUOTE_MARK = re.compile(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s+([^\[\]]*?\S)\s*\]")
_SOURCE = re.compile(r"source(\d+)$")


def quotesum_to_marks(summary: str, remap: dict[int, int] | None = None) -> str:
    """Rewrite ``[k span]`` quotes as ``span [k]`` (the span kept in place, its mark after it,
    before any trailing punctuation: ``[ 1 arise. ]`` -> ``arise [1].``).

    ``remap`` maps QuoteSum source numbers to doc ids; an id it lacks raises a
    :class:`RecordError` on ``summary``. Brackets that are not quotes are left as they are.
    """
    def one(m: re.Match[str]) -> str:
        ids = [int(x) for x in re.split(r"\s*,\s*", m.group(1))]
        if remap is not None:
            missing = [k for k in ids if k not in remap]
            if missing:
                raise RecordError("summary", "mark refers to an empty source",
                                  f"quote [{missing[0]} ...] cites source{missing[0]}, "
                                  "which is empty or absent")
            ids = [remap[k] for k in ids]
        return attach_marks(m.group(2), render_marks(ids))

    return QUOTE_MARK.sub(one, summary)


def convert_quotesum(item: dict[str, Any], default_id: str) -> list[Record]:
    """A QuoteSum line as a :class:`Record`.

    docs = the non-empty ``source{k}`` (title ``title{k}``, extra ``short_answer`` =
    ``short_ans_{k}``) in k order; marks are renumbered to those docs' 1-based positions, so
    ``[3 x]`` becomes ``x [2]`` when source2 is empty. output = :func:`quotesum_to_marks` of
    ``summary``; id = ``unique_id`` (default: the line number); ``qid`` is kept.
    """
    question = require(item, "question")
    summary = require(item, "summary")
    slots = sorted(int(m.group(1)) for k in item if (m := _SOURCE.match(k)))
    docs: list[Doc] = []
    remap: dict[int, int] = {}
    for k in slots:
        text = check_type(item[f"source{k}"] or "", str, f"source{k}")
        if not text.strip():
            continue
        title = check_type(item.get(f"title{k}") or "", str, f"title{k}")
        short = item.get(f"short_ans_{k}") or ""
        docs.append(Doc(title=title, text=text, short_answer=short))
        remap[k] = len(docs)
    if not docs:
        raise RecordError("source1", "no sources", "every source{k} field is empty or absent")
    rid = item.get("unique_id")
    extra = {"qid": item["qid"]} if "qid" in item else {}
    return [make_record(id=default_id if rid is None else str(rid), question=question, docs=docs,
                        output=quotesum_to_marks(summary, remap), **extra)]
