"""Citation marks in text: ``[1]``, ``[1][2]``, ``[1, 2]``; parsing, positions and removal.

Two parsers live here. :func:`alce_ids` / :func:`alce_remove` reproduce ALCE's ``eval.py`` to the
letter (regex ``\\[(\\d+)``, so ``[1, 2]`` yields only 1). :func:`parse_marks` is the general parser
used by every other metric: ``[1, 2]`` and ``[1][2]`` are one group of two ids.
"""
from __future__ import annotations

__all__ = ["parse_marks", "Statement", "CitationGroup", "attach_marks", "remove_marks"]

import re
from dataclasses import dataclass, field
from typing import Iterator, Sequence

ALCE_MARK = re.compile(r"\[(\d+)")
MARK = re.compile(r"\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]")
_ONE = r"\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]"
# a group of adjacent marks from its first "[": the leading whitespace is added by _group_spans
_RUN = re.compile(_ONE + r"(?:\s*" + _ONE + r")*")
_SEP = re.compile(r"\s*[,;]\s*")
# whitespace before punctuation, matched only from the start of its run (linear, not quadratic)
_SPACE_PUNCT = re.compile(r"(?<![ \t])[ \t]+(?=[.,;:!?])")
_SPACES = re.compile(r"\s+")
# the end of a sentence that its marks go before: punctuation, then closing quotes or brackets
_TRAIL = re.compile(r"([.!?;:,]*[\"')\]]*)\s*$")


def alce_ids(sentence: str) -> list[int]:
    """1-based ids as ALCE reads them: every ``[<digits>``, in order, duplicates kept."""
    return [int(m) for m in ALCE_MARK.findall(sentence)]


def alce_remove(sentence: str) -> str:
    """ALCE's ``remove_citations``: the hypothesis text of a sentence."""
    out = re.sub(r"\[\d+", "", re.sub(r" \[\d+", "", sentence))
    return out.replace(" |", "").replace("]", "")


@dataclass(frozen=True)
class CitationGroup:
    """Adjacent marks: the ids and where they stand in the mark-free text.

    ``word_index`` is the number of words before the group (the group attaches to word
    ``word_index - 1``, or to the first word when it is 0); ``char`` is the offset in the clean text.
    """

    word_index: int
    char: int
    ids: tuple[int, ...]


@dataclass(frozen=True)
class Statement:
    """A sentence: its text without marks, its citations in order and its citation groups."""

    text: str
    citations: tuple[int, ...] = ()
    groups: tuple[CitationGroup, ...] = field(default_factory=tuple)
    raw: str = ""

    @property
    def n_words(self) -> int:
        return len(self.text.split())


def _tidy(text: str) -> str:
    """No space before punctuation, single spaces, stripped: the clean text's form."""
    return _SPACES.sub(" ", _SPACE_PUNCT.sub("", text)).strip()


def _group_spans(sentence: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each mark group with the whitespace before it, in order: the matches
    of ``(?:\\s*MARK)+``, found in one pass (the leading whitespace is walked back over, not
    retried from every position of a long run)."""
    pos = 0
    for m in _RUN.finditer(sentence):
        start = m.start()
        while start > pos and sentence[start - 1].isspace():
            start -= 1
        yield start, m.end()
        pos = m.end()


def _group_ids(group: str) -> tuple[int, ...]:
    """The ids of one group's marks, in order."""
    return tuple(int(x) for g in MARK.findall(group) for x in _SEP.split(g))


def _positions(text: str, counts: list[int]) -> list[tuple[int, int]]:
    """``(words, chars)`` of the tidy prefix of ``text`` holding its first ``k`` non-space
    characters, for each ``k`` of ``counts`` (ascending); ``text`` is tidy (single spaces)."""
    out: list[tuple[int, int]] = []
    words = text.split(" ") if text else []
    j = start = seen = 0  # word j starts at ``start``; ``seen`` characters in the words before it
    for k in counts:
        if k == 0:
            out.append((0, 0))
            continue
        while seen + len(words[j]) < k:
            seen += len(words[j])
            start += len(words[j]) + 1
            j += 1
        out.append((j + 1, start + k - seen))
    return out


def parse_marks(sentence: str) -> Statement:
    """Split a sentence into clean text and citation groups (general parser).

    A group's position is that of the tidy text before it, which is a prefix of the tidy whole
    (tidying only drops or collapses whitespace): it is found from the count of non-space
    characters before the group, in one pass over the clean text.
    """
    clean: list[str] = []
    ids: list[tuple[int, ...]] = []
    counts: list[int] = []  # non-space characters of the clean text before each group
    pos = seen = 0
    last = ""  # the clean text's last character so far
    for start, end in _group_spans(sentence):
        piece = sentence[pos:start]
        clean.append(piece)
        if piece:
            last = piece[-1]
            seen += len("".join(piece.split()))
        counts.append(seen)
        ids.append(_group_ids(sentence[start:end]))
        after = sentence[end : end + 1]
        # keep one space between words that the mark separated, none before punctuation
        if last and not last.isspace() and after and after.isalnum():
            clean.append(" ")
            last = " "
        pos = end
    clean.append(sentence[pos:])
    text = _tidy("".join(clean))
    groups = tuple(CitationGroup(w, c, g) for (w, c), g in zip(_positions(text, counts), ids))
    cites = tuple(i for g in groups for i in g.ids)
    return Statement(text=text, citations=cites, groups=groups, raw=sentence)


def remove_marks(text: str) -> str:
    """Text with every citation mark removed (general parser)."""
    return parse_marks(text).text


def render_marks(ids: list[int] | tuple[int, ...]) -> str:
    """``[1][3]`` for ids (1, 3)."""
    return "".join(f"[{i}]" for i in ids)


def attach_marks(text: str, ids: Sequence[int]) -> str:
    """``text`` with ``[i]`` marks before its final punctuation (ALCE style: ``... fact [1][2].``);
    ``text`` unchanged when ``ids`` is empty."""
    if not ids:
        return text
    m = _TRAIL.search(text)
    head, tail = text[: m.start()], text[m.start():].strip()
    return f"{head.rstrip()} {render_marks(ids)}{tail}"


def strip_marks(text: str) -> str:
    """``text`` without its mark groups (and the whitespace before each)."""
    out, pos = [], 0
    for start, end in _group_spans(text):
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return "".join(out)
