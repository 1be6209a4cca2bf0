"""LongCite's tagged answers (Zhang et al. 2024, "LongCite: Enabling LLMs to Generate Fine-grained
Citations in Long-context QA").

A LongCite model reads its document cut into numbered sentences ``<C0>...<C1>...`` and answers
``<statement>{S}<cite>[s1-e1][s2-e2]</cite></statement>``: each cited range names sentences
``s..e`` of the document. :func:`parse_tagged_answer` turns such an answer into the statement
list that LongBench-Cite scores, the way LongCite's own post-processing reads it:

* text between statements with more than 5 characters (stripped) is a statement without
  citations; shorter text (spaces, "\\n\\n") is kept out;
* a statement's ``<cite>`` blocks are removed from its text; its ranges are read in order; a range
  that starts past the last sentence or ends before it starts is dropped, an end past the last
  sentence is cut to it; a range starting right after the previous kept one is merged into it;
  at most the first 3 (merged) citations are kept; an empty statement (spaces only) is dropped;
* a citation's ``cite`` is the cited sentences joined as they stand in the document (each
  sentence runs up to the start of the next one, so the spaces between them are kept).

The document's sentences (:func:`context_sentences`) are LongCite's numbering: NLTK's Punkt
trained on the document itself, each piece further cut after ``。；！？``; a document that gives one
piece is cut at blank lines instead. A context that already carries ``<Ck>`` marks is cut at them.

Stricter than LongCite on one point: an unclosed or unopened ``<statement>`` or ``<cite>`` tag,
a nested ``<statement>``, or a ``<cite>`` block holding anything but ``[a-b]`` ranges raises
:class:`TagError` (LongCite silently drops or ignores such text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

MAX_CITATIONS = 3  # LongCite keeps the first three merged citations of a statement
MIN_FREE_TEXT = 5  # text between statements is a statement when longer than this (stripped)

_TAG = re.compile(r"</?statement>|</?cite>")
_RANGE = re.compile(r"\[(\d+)-(\d+)\]")
_CITE_BODY = re.compile(r"(?:\s*\[\d+-\d+\])*\s*")
_CJK_END = re.compile(r"(?<=[。；！？])")
_CHUNK_MARK = re.compile(r"<C(\d+)>")


class TagError(ValueError):
    """A malformed tag in a LongCite answer; the message names the tag and its position."""


@dataclass(frozen=True)
class Sentence:
    """One numbered sentence of the document: its text and where it starts and ends."""

    text: str
    start: int
    end: int


def _pieces(text: str) -> list[str]:
    """LongCite's sentence pieces: Punkt trained on ``text``, then cut after CJK full stops."""
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    pieces = [p for s in PunktSentenceTokenizer(text).tokenize(text) for p in _CJK_END.split(s)]
    pieces = [p for p in pieces if p != ""]
    if len(pieces) == 1:
        pieces = text.split("\n\n")
    return [p.strip() for p in pieces if p.strip()]


def context_sentences(context: str) -> list[Sentence]:
    """The document's numbered sentences (see the module docstring); sentence ``k`` spans from
    its own start to the start of sentence ``k + 1`` (the last one to the end of the document)."""
    marks = list(_CHUNK_MARK.finditer(context))
    if marks and marks[0].start() == 0 and [int(m.group(1)) for m in marks] == list(range(len(marks))):
        bounds = [m.end() for m in marks] + [len(context)]
        return [Sentence(context[bounds[i]:marks[i + 1].start() if i + 1 < len(marks) else None],
                         bounds[i], marks[i + 1].start() if i + 1 < len(marks) else len(context))
                for i in range(len(marks))]
    starts, pos = [], 0
    for piece in _pieces(context):
        at = context.find(piece, pos)
        if at < 0:  # Punkt returns slices of its input; this only guards against a library change
            raise TagError(f"cannot locate sentence {len(starts)} in the context")
        starts.append(at)
        pos = at + len(piece)
    ends = starts[1:] + [len(context)]
    return [Sentence(context[s:e], s, e) for s, e in zip(starts, ends)]


def sentences_from_list(texts: Sequence[str]) -> list[Sentence]:
    """Numbered sentences given as a list of texts (joined as they stand)."""
    out, pos = [], 0
    for t in texts:
        out.append(Sentence(t, pos, pos + len(t)))
        pos += len(t)
    return out


def _citations(body: str, sents: Sequence[Sentence]) -> list[dict[str, Any]]:
    """The merged, range-checked citations of one statement's ``<cite>`` ranges."""
    merged: list[dict[str, Any]] = []
    last = len(sents) - 1
    for m in _RANGE.finditer(body):
        st, ed = int(m.group(1)), int(m.group(2))
        if st > last or ed < st:
            continue
        ed = min(ed, last)
        if merged and st == merged[-1]["end_sentence_idx"] + 1:
            st = merged.pop()["start_sentence_idx"]
        merged.append({"start_sentence_idx": st, "end_sentence_idx": ed,
                       "start_char_idx": sents[st].start, "end_char_idx": sents[ed].end,
                       "cite": "".join(s.text for s in sents[st:ed + 1])})
    return merged[:MAX_CITATIONS]


def _statement(inner: str, offset: int, sents: Sequence[Sentence]) -> dict[str, Any]:
    """One ``<statement>`` body: its text without ``<cite>`` blocks and its citations."""
    text, ranges, pos = [], [], 0
    for m in re.finditer(r"<cite>(.*?)</cite>", inner, re.DOTALL):
        if not _CITE_BODY.fullmatch(m.group(1)):
            raise TagError(f"<cite> at character {offset + m.start()} holds "
                           f"{m.group(1)[:40]!r}, not [a-b] ranges")
        text.append(inner[pos:m.start()])
        ranges.append(m.group(1))
        pos = m.end()
    text.append(inner[pos:])
    rest = "".join(text)
    stray = re.search(r"</?cite>", rest)
    if stray:
        raise TagError(f"{stray.group(0)} in the statement at character {offset} is not "
                       "closed or not opened")
    return {"statement": rest, "citation": _citations("".join(ranges), sents)}


def parse_tagged_answer(answer: str, sentences: Sequence[Sentence]) -> list[dict[str, Any]]:
    """The statements of a tagged answer: ``[{statement, citation: [{start_sentence_idx,
    end_sentence_idx, start_char_idx, end_char_idx, cite}]}]`` in order (module docstring)."""
    out: list[dict[str, Any]] = []
    pos = 0
    while pos <= len(answer):
        st = answer.find("<statement>", pos)
        free = answer[pos:] if st < 0 else answer[pos:st]
        stray = _TAG.search(free)
        if stray:
            raise TagError(f"{stray.group(0)} at character {pos + stray.start()} "
                           "stands outside a <statement>...</statement> pair")
        if len(free.strip()) > MIN_FREE_TEXT:
            out.append({"statement": free, "citation": []})
        if st < 0:
            break
        body = st + len("<statement>")
        ed = answer.find("</statement>", body)
        if ed < 0:
            raise TagError(f"<statement> at character {st} is never closed")
        inner = answer[body:ed]
        if "<statement>" in inner:
            raise TagError(f"<statement> at character {st} is not closed before the next one")
        if inner.strip():
            out.append(_statement(inner, body, sentences))
        pos = ed + len("</statement>")
    return out


__all__ = ["MAX_CITATIONS", "Sentence", "TagError", "context_sentences", "parse_tagged_answer",
           "sentences_from_list"]
