"""The canonical ALCE-style record (docs/concepts/records.md).

A record is ``{"id", "question", "docs": [{"title", "text"}], "output", ...}`` plus optional gold
fields. Passage ids in ``output`` are 1-based and refer to the order of ``docs``.
"""
from __future__ import annotations

__all__ = ["Doc", "Record", "format_doc", "join_docs"]

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from citetrain.text.joined import Joined, Parts


class Doc(BaseModel):
    """One retrieved passage."""

    model_config = ConfigDict(extra="allow")

    title: str = ""
    text: str = ""


class Record(BaseModel):
    """One question, its passages and a response with citation marks."""

    model_config = ConfigDict(extra="allow")

    id: str
    question: str = ""
    docs: list[Doc] = Field(default_factory=list)
    output: str = ""
    answer: Any = None
    qa_pairs: list[dict[str, Any]] | None = None
    claims: list[str] | None = None
    annotations: Any = None

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-ready data, without unset optional gold fields."""
        return self.model_dump(exclude_none=True)


def format_doc(doc: Doc) -> str:
    """ALCE's passage format: ``"Title: {title}\\n{text}"``, with ``sent`` instead of ``text`` when
    the doc carries ALCE's QA-extracted ``sent`` field (as ALCE's ``_format_document`` does)."""
    sent = (doc.model_extra or {}).get("sent")
    return f"Title: {doc.title}\n{sent if isinstance(sent, str) else doc.text}"


def join_docs(docs: list[Doc], ids: list[int] | tuple[int, ...]) -> str:
    """Premise for 1-based ``ids``: formatted docs joined with a newline, in citation order."""
    return "\n".join(format_doc(docs[i - 1]) for i in ids)


def doc_parts(docs: list[Doc]) -> Parts:
    """A record's formatted docs as :class:`~citetrain.text.joined.Parts`: ``docs_premise(parts,
    ids)`` is :func:`join_docs`'s premise without joining (each doc formatted once)."""
    return Parts([format_doc(d) for d in docs], "\n")


def docs_premise(parts: Parts, ids: list[int] | tuple[int, ...]) -> Joined:
    """:func:`join_docs` of 1-based ``ids`` over :func:`doc_parts`, as a lazy premise."""
    return parts.join([i - 1 for i in ids])
