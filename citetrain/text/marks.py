"""Citation marks in text: ``[1]``, ``[1][2]``, ``[1, 2]``; parsing, positions and removal.

Two parsers live here. :func:`alce_ids` / :func:`alce_remove` reproduce ALCE's ``eval.py`` to the
letter (regex ``\\[(\\d+)``, so ``[1, 2]`` yields only 1). :func:`parse_marks` is the general parser
used by every other metric: ``[1, 2]`` and ``[1][2]`` are one group of two ids.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

ALCE_MARK = re.compile(r"\[(\d+)")
MARK = re.compile(r"\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]")
_GROUP = re.compile(r"(?:\s*\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\])+")


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
    return re.sub(r"\s+", " ", re.sub(r"[ \t]+([.,;:!?])", r"\1", text)).strip()


def parse_marks(sentence: str) -> Statement:
    """Split a sentence into clean text and citation groups (general parser)."""
    clean: list[str] = []
    groups: list[CitationGroup] = []
    pos = 0
    for m in _GROUP.finditer(sentence):
        clean.append(sentence[pos : m.start()])
        prefix = "".join(clean)
        ids = tuple(int(x) for g in MARK.findall(m.group(0)) for x in re.split(r"\s*[,;]\s*", g))
        tidy = _tidy(prefix)
        groups.append(CitationGroup(len(tidy.split()), len(tidy), ids))
        after = sentence[m.end() : m.end() + 1]
        # keep one space between words that the mark separated, none before punctuation
        if prefix and not prefix[-1].isspace() and after and after.isalnum():
            clean.append(" ")
        pos = m.end()
    clean.append(sentence[pos:])
    text = _tidy("".join(clean))
    cites = tuple(i for g in groups for i in g.ids)
    return Statement(text=text, citations=cites, groups=tuple(groups), raw=sentence)


def remove_marks(text: str) -> str:
    """Text with every citation mark removed (general parser)."""
    return parse_marks(text).text


def render_marks(ids: list[int] | tuple[int, ...]) -> str:
    """``[1][3]`` for ids (1, 3)."""
    return "".join(f"[{i}]" for i in ids)


def strip_marks(text: str) -> str:
    """``text`` without its mark groups (and the whitespace before each)."""
    return _GROUP.sub("", text)
