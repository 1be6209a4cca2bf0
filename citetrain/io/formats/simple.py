"""Converters for the formats that map field by field: ALCE, WebGLM-QA and CiteEval."""
from __future__ import annotations

from typing import Any

from citetrain.io.formats._common import check_type, make_docs, make_record, optional, require
from citetrain.records import Doc, Record


def convert_alce(item: dict[str, Any], default_id: str) -> list[Record]:
    """ALCE (Gao et al. 2023): ``{id?, question, docs: [{title, text, ...}], output?, answer?,
    qa_pairs?, claims?, annotations?, ...}``; other keys are kept on the record.

    ``output`` may be absent (ALCE's eval-data files hold no response yet); ``id`` defaults to
    the line (JSONL) or item (JSON list) number.
    """
    question = require(item, "question")
    docs = make_docs(require(item, "docs", list))
    output = optional(item, "output", str, "")
    rid = item.get("id")
    extra = {k: v for k, v in item.items() if k not in ("id", "question", "docs", "output")}
    return [make_record(**extra, id=default_id if rid is None else str(rid), question=question,
                        docs=docs, output=output)]


def convert_webglm(item: dict[str, Any], default_id: str) -> list[Record]:
    """WebGLM-QA (Liu et al. 2023): ``{question, answer, references: [str]}``.

    Each reference becomes a doc with an empty title; ``answer`` already carries ``[1]`` marks
    and becomes ``output``. ``id`` defaults to the line / item number.
    """
    question = require(item, "question")
    answer = require(item, "answer")
    refs = require(item, "references", list)
    docs = [Doc(title="", text=check_type(r, str, f"references[{i}]")) for i, r in enumerate(refs)]
    rid = item.get("id")
    return [make_record(id=default_id if rid is None else str(rid), question=question, docs=docs,
                        output=answer)]


def convert_citeeval(item: dict[str, Any], default_id: str) -> list[Record]:
    """CiteEval (Xu et al.) system-output format: ``{id, query, passages: [{title, text}], pred}``
    -> question = query, docs = passages, output = pred."""
    question = require(item, "query")
    docs = make_docs(require(item, "passages", list), field="passages")
    pred = require(item, "pred")
    rid = item.get("id")
    return [make_record(id=default_id if rid is None else str(rid), question=question, docs=docs,
                        output=pred)]


def to_citeeval(record: Record) -> dict[str, Any]:
    """The inverse of :func:`convert_citeeval` (for handing records to CiteEval's own tools)."""
    return {"id": record.id, "query": record.question,
            "passages": [{"title": d.title, "text": d.text} for d in record.docs],
            "pred": record.output}
