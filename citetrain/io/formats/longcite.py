"""LongCite / LongBench-Cite (Zhang et al. 2024) prediction files.

LongBench-Cite's ``pred_sft.py`` writes ``{idx, dataset, query, answer, prediction, statements:
[{statement, citation: [{start_sentence_idx, end_sentence_idx, start_char_idx, end_char_idx,
cite}]}]}`` where ``cite`` is the cited span of the long context. The context itself is not
stored, so the docs of the record are the cited spans.
"""
from __future__ import annotations

from typing import Any

from citetrain.io.formats._common import attach_marks, check_type, make_record, optional, require
from citetrain.records import Doc, Record
from citetrain.text.marks import render_marks


def convert_longcite(item: dict[str, Any], default_id: str) -> list[Record]:
    """A LongBench-Cite prediction as a :class:`Record`.

    docs = the distinct cited spans in order of first citation (title ``"sentences {s}-{e}"``
    from the sentence indices when given); output = the statements, stripped, each followed by
    its citations' ids (before any trailing punctuation), joined by a space; question = ``query``;
    answer = the gold ``answer``; id = ``idx`` (default: the line number); ``dataset`` is kept.
    """
    question = require(item, "query")
    statements = require(item, "statements", list)
    docs: list[Doc] = []
    index: dict[tuple[Any, Any, str], int] = {}
    parts = []
    for i, st in enumerate(statements):
        where = f"statements[{i}]"
        check_type(st, dict, where)
        text = require(st, "statement", prefix=f"{where}.")
        ids = []
        for j, c in enumerate(optional(st, "citation", list, [], prefix=f"{where}.")):
            cf = f"{where}.citation[{j}]"
            check_type(c, dict, cf)
            cite = require(c, "cite", prefix=f"{cf}.")
            s, e = c.get("start_sentence_idx"), c.get("end_sentence_idx")
            key = (s, e, cite)
            if key not in index:
                title = f"sentences {s}-{e}" if s is not None else ""
                docs.append(Doc(title=title, text=cite))
                index[key] = len(docs)
            ids.append(index[key])
        text = text.strip()
        if text:
            parts.append(attach_marks(text, render_marks(ids)) if ids else text)
    rid = item.get("idx", item.get("id"))
    extra = {"dataset": item["dataset"]} if "dataset" in item else {}
    return [make_record(id=default_id if rid is None else str(rid), question=question, docs=docs,
                        output=" ".join(parts), answer=item.get("answer"), **extra)]
