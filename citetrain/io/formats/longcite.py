"""LongCite / LongBench-Cite (Zhang et al. 2024) prediction files.

LongBench-Cite's ``pred_sft.py`` writes ``{idx, dataset, query, answer, prediction, statements:
[{statement, citation: [{start_sentence_idx, end_sentence_idx, start_char_idx, end_char_idx,
cite}]}]}`` where ``cite`` is the cited span of the long context. The context itself is not
stored, so the docs of the record are the cited spans.

A raw LongCite generation (``prediction`` with ``<statement>...<cite>[a-b]</cite></statement>``
tags and no ``statements``) is read with the document's numbered sentences, from ``sentences`` (a
list of texts) or ``context`` (numbered as LongCite numbers it,
:func:`~citetrain.text.longcite_tags.context_sentences`).

Besides the ALCE view (docs, output with ``[k]`` marks) the record keeps what LongBench-Cite
scores: ``dataset`` and ``longcite = {"prediction", "statements": [{"statement", "citation":
[{"start_sentence_idx", "end_sentence_idx", "cite"}]}]}`` (statements as given, unstripped).
"""
from __future__ import annotations

from typing import Any

from citetrain.io.formats._common import (
    RecordError, attach_marks, check_type, make_record, optional, require,
)
from citetrain.records import Doc, Record
from citetrain.text.longcite_tags import (
    TagError, context_sentences, parse_tagged_answer, sentences_from_list,
)
from citetrain.text.marks import render_marks

_KEPT = ("start_sentence_idx", "end_sentence_idx", "cite")


def _checked_statements(statements: list[Any]) -> list[dict[str, Any]]:
    """The parsed statements, type-checked, as the record keeps them."""
    out = []
    for i, st in enumerate(statements):
        where = f"statements[{i}]"
        check_type(st, dict, where)
        text = require(st, "statement", prefix=f"{where}.")
        cites = []
        for j, c in enumerate(optional(st, "citation", list, [], prefix=f"{where}.")):
            cf = f"{where}.citation[{j}]"
            check_type(c, dict, cf)
            require(c, "cite", prefix=f"{cf}.")
            cites.append({k: c[k] for k in _KEPT if k in c})
        out.append({"statement": text, "citation": cites})
    return out


def _tagged_statements(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The statements of a raw tagged generation, read against the document's sentences."""
    prediction = require(item, "prediction")
    if item.get("sentences") is not None:
        texts = check_type(item["sentences"], list, "sentences")
        for k, t in enumerate(texts):
            check_type(t, str, f"sentences[{k}]")
        sents = sentences_from_list(texts)
    elif item.get("context") is not None:
        sents = context_sentences(check_type(item["context"], str, "context"))
    else:
        raise RecordError("statements", "no statements, sentences or context",
                          "needs 'statements', or a tagged 'prediction' with 'sentences' or "
                          "'context'")
    try:
        statements = parse_tagged_answer(prediction, sents)
    except TagError as err:
        raise RecordError("prediction", "malformed LongCite tag", str(err)) from None
    return [{"statement": s["statement"], "citation": [{k: c[k] for k in _KEPT}
                                                       for c in s["citation"]]}
            for s in statements]


def _alce_view(statements: list[dict[str, Any]]) -> tuple[list[Doc], str]:
    """docs = distinct cited spans in order of first citation; output with ``[k]`` marks."""
    docs: list[Doc] = []
    index: dict[tuple[Any, Any, str], int] = {}
    parts = []
    for st in statements:
        ids = []
        for c in st["citation"]:
            s, e = c.get("start_sentence_idx"), c.get("end_sentence_idx")
            key = (s, e, c["cite"])
            if key not in index:
                docs.append(Doc(title=f"sentences {s}-{e}" if s is not None else "", text=c["cite"]))
                index[key] = len(docs)
            ids.append(index[key])
        text = st["statement"].strip()
        if text:
            parts.append(attach_marks(text, render_marks(ids)) if ids else text)
    return docs, " ".join(parts)


def convert_longcite(item: dict[str, Any], default_id: str) -> list[Record]:
    """A LongBench-Cite prediction (parsed, or a raw tagged generation) as a :class:`Record`.

    docs = the distinct cited spans in order of first citation (title ``"sentences {s}-{e}"``
    from the sentence indices when given); output = the statements, stripped, each followed by
    its citations' ids (before any trailing punctuation), joined by a space; question = ``query``;
    answer = the gold ``answer``; id = ``idx`` (default: the line number); ``dataset`` is kept,
    and ``longcite`` holds the prediction and the statements with their citations, and the
    output they are (a record whose output was replaced, refined or generated anew, is scored from
    its new output).
    """
    question = require(item, "query")
    if item.get("statements") is not None:
        statements = _checked_statements(require(item, "statements", list))
    else:
        statements = _tagged_statements(item)
    prediction = optional(item, "prediction", str, "")
    docs, output = _alce_view(statements)
    rid = item.get("idx", item.get("id"))
    dataset = optional(item, "dataset", str)
    extra = {"dataset": dataset} if dataset is not None else {}
    return [make_record(id=default_id if rid is None else str(rid), question=question, docs=docs,
                        output=output, answer=item.get("answer"), **extra,
                        longcite={"prediction": prediction, "statements": statements,
                                  "output": output})]
