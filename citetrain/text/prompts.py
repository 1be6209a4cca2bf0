"""The refiner's and the generator's prompts and the parsers that read their outputs back, in one
core module that builders, rewards, the in-loop scorer, refiners and evaluation all import.

The refiner (Generate-then-Refine §4.1) sees the question, the numbered documents and a statement
with its original citations, and answers with the ids the statement should cite (``[1][3]``, or
``[]`` for none). The generator sees the question and documents (ALCE's instruction) and writes
the answer with citations; SelfCite's context ablation (:mod:`citetrain.rewards.selfcite`) is the
same generator prompt over the kept passages, each with its original number (``ids``). The judge
prompt is CiteEval's F.3 (:mod:`citetrain.metrics.itercoe`, the paper's text beside its parser).
"""
from __future__ import annotations

__all__ = ["generator_prompt"]

import re
from typing import Sequence

from citetrain.records import Doc

REFINER_INSTRUCTION = (
    "Instruction: Below are a question, numbered documents and a statement from an answer to the "
    "question, with the statement's current citations. Write the ids of all documents that support "
    "the statement, each in brackets, e.g. [1][3]. Write [] if no document supports it."
)
REFINER_RESPONSE_INSTRUCTION = (
    "Instruction: Below are a question, numbered documents and the numbered statements of an "
    "answer, with their current citations. For each statement write its number and the ids of "
    "all documents that support it, each in brackets, one statement per line, e.g. 1: [1][3]. "
    "Write [] for a statement that no document supports."
)
GENERATOR_INSTRUCTION = (
    "Instruction: Write an accurate, engaging, and concise answer for the given question using "
    "only the provided search results (some of which might be irrelevant) and cite them properly. "
    "Use an unbiased and journalistic tone. Always cite for any factual claim. When citing "
    "several search results, use [1][2][3]. Cite at least one document and at most three "
    "documents in each sentence. If multiple documents support the sentence, only cite a minimum "
    "sufficient subset of the documents."
)

_IDS = re.compile(r"\[(\d+)\]")
_LINE = re.compile(r"^\s*(\d+)\s*[:.)]\s*(.*)$")


def truncate_words(text: str, max_words: int | None) -> str:
    """The first ``max_words`` whitespace-separated words of ``text`` (all when ``None``)."""
    if max_words is None:
        return text
    words = text.split()
    return text if len(words) <= max_words else " ".join(words[:max_words])


def render_docs(docs: Sequence[Doc], max_words: int | None = None,
                ids: Sequence[int] | None = None) -> str:
    """ALCE's document list: ``Document [k](Title: t): text`` per doc, numbered ``1..n``, or
    ``ids`` (one number per doc: a subset of passages keeping their original numbers)."""
    numbers = range(1, len(docs) + 1) if ids is None else ids
    return "\n".join(f"Document [{k}](Title: {d.title}): {truncate_words(d.text, max_words)}"
                     for k, d in zip(numbers, docs, strict=True))


def render_ids(ids: Sequence[int]) -> str:
    """``[1][3]`` for ``[1, 3]``; ``[]`` for none."""
    return "".join(f"[{i}]" for i in ids) or "[]"


def parse_ids(text: str) -> list[int]:
    """Distinct ids of ``[k]`` marks in the first line of ``text``, in order (``[]`` -> none)."""
    first = text.strip().split("\n", 1)[0] if text.strip() else ""
    return list(dict.fromkeys(int(m) for m in _IDS.findall(first)))


def parse_ids_strict(text: str) -> list[int] | None:
    """As :func:`parse_ids`, but ``None`` when the first line holds no ``[k]`` mark and is not
    ``[]`` (the output is not ids at all)."""
    first = text.strip().split("\n", 1)[0] if text.strip() else ""
    ids = parse_ids(first)
    return ids if ids or "[]" in first else None


def parse_response_ids(text: str, n_statements: int) -> list[list[int] | None]:
    """Per statement ``1..n`` the ids of its ``k: [..]`` line; ``None`` where no line names it."""
    out: list[list[int] | None] = [None] * n_statements
    for line in text.splitlines():
        m = _LINE.match(line)
        if m and 1 <= int(m.group(1)) <= n_statements and out[int(m.group(1)) - 1] is None:
            out[int(m.group(1)) - 1] = list(dict.fromkeys(int(i) for i in _IDS.findall(m.group(2))))
    return out


def refiner_prompt(question: str, docs: Sequence[Doc], statement: str,
                   max_words: int | None = None) -> str:
    """Refiner input for one statement (``statement`` carries its current marks)."""
    return (f"{REFINER_INSTRUCTION}\n\nQuestion: {question}\n\n{render_docs(docs, max_words)}\n\n"
            f"Statement: {statement}\nCitations:")


def refiner_response_prompt(question: str, docs: Sequence[Doc], statements: Sequence[str],
                            max_words: int | None = None) -> str:
    """Refiner input for a whole response: statements numbered from 1, with their marks."""
    lines = "\n".join(f"{k}. {s}" for k, s in enumerate(statements, 1))
    return (f"{REFINER_RESPONSE_INSTRUCTION}\n\nQuestion: {question}\n\n"
            f"{render_docs(docs, max_words)}\n\nStatements:\n{lines}\nCitations:")


def refiner_response_completion(gold: Sequence[Sequence[int]]) -> str:
    """``1: [1][3]`` lines, one per statement."""
    return "\n".join(f"{k}: {render_ids(ids)}" for k, ids in enumerate(gold, 1))


def generator_prompt(question: str, docs: Sequence[Doc], max_words: int | None = None,
                     ids: Sequence[int] | None = None) -> str:
    """Generator input (ALCE's instruction, question, documents); ``ids`` numbers the documents
    (default ``1..n``), as :func:`render_docs`."""
    return (f"{GENERATOR_INSTRUCTION}\n\nQuestion: {question}\n\n"
            f"{render_docs(docs, max_words, ids)}\n\nAnswer:")
