"""Premises made of parts, read without joining them again.

A judge reads the same passages in many premises: each alone, the union of all, the union less
one, pairs and triples; and each statement of a response against all the statements before it.
Joining those texts anew for every premise, and reading each joined text again, costs the square
of a record's size. A :class:`Parts` holds a record's texts once (its passages, or its
statements); a :class:`Joined` premise names which of them it joins, by index, and costs O(1) to
make. Its text is built only when a reader needs the text itself (:func:`str`); a reader that
can combine per-part readings (the lexical judge: a premise's words are the union of its parts'
words) keeps whatever it computes per part on the :class:`Parts`, once for all premises over it
(:meth:`Parts.memo`), and never reads a joined text.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence


class Parts:
    """A record's texts, joined by ``sep`` into :class:`Joined` premises.

    ``Parts(texts, sep)``; ``parts.join(ids)`` is the premise of ``texts[i]`` for ``i`` in
    ``ids`` (0-based, in that order), ``parts.prefix(n)`` that of the first ``n`` texts.
    """

    __slots__ = ("texts", "sep", "_memo", "__weakref__")

    def __init__(self, texts: Sequence[str], sep: str) -> None:
        self.texts = tuple(texts)
        self.sep = sep
        self._memo: dict[str, Any] = {}

    def __len__(self) -> int:
        return len(self.texts)

    def join(self, ids: Sequence[int]) -> Joined:
        """The premise of the texts ``ids`` (0-based), in that order."""
        return Joined(self, tuple(ids))

    def prefix(self, n: int) -> Joined:
        """The premise of the first ``n`` texts (a statement's earlier statements)."""
        return Joined(self, range(n))

    def memo(self, name: str, build: Callable[[Parts], Any]) -> Any:
        """``build(self)``, computed once per :class:`Parts` under ``name`` (a reader's index of
        the parts); it lives as long as the parts do, so nothing outlives the record."""
        if name not in self._memo:
            self._memo[name] = build(self)
        return self._memo[name]

    @property
    def chars(self) -> int:
        """Characters of all the texts (what reading each once costs)."""
        return sum(len(t) for t in self.texts)


class Joined:
    """A premise: the texts ``ids`` of ``parts`` joined by ``parts.sep``, built lazily.

    Equal premises (the same :class:`Parts` object and ids) are equal and hash alike, in O(1)
    for a prefix and O(len(ids)) otherwise, so an engine deduplicates them without their text.
    """

    __slots__ = ("parts", "ids", "_hash")

    def __init__(self, parts: Parts, ids: tuple[int, ...] | range) -> None:
        self.parts = parts
        self.ids = ids
        self._hash = hash((id(parts), ids))

    def __str__(self) -> str:
        texts = self.parts.texts
        return self.parts.sep.join(texts[i] for i in self.ids)

    def __repr__(self) -> str:
        return f"Joined({len(self.ids)} of {len(self.parts)} parts)"

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Joined) and other.parts is self.parts
                and other._hash == self._hash and other.ids == self.ids)

    def __len__(self) -> int:
        """Characters of the joined text, without building it (O(1) for a prefix)."""
        if not self.ids:
            return 0
        gaps = len(self.parts.sep) * (len(self.ids) - 1)
        if self.is_prefix:
            return self.parts.memo("starts", _starts)[len(self.ids)] + gaps
        texts = self.parts.texts
        return sum(len(texts[i]) for i in self.ids) + gaps

    @property
    def blank(self) -> bool:
        """Whether the joined text is empty or whitespace (O(1) for a prefix)."""
        if self.is_prefix:
            return self.parts.memo("first_word", _first_word) >= len(self.ids)
        return not any(self.parts.texts[i].strip() for i in self.ids)

    @property
    def is_prefix(self) -> bool:
        """Whether the premise is the first ``len(ids)`` parts (:meth:`Parts.prefix`)."""
        return isinstance(self.ids, range) and self.ids.start == 0 and self.ids.step == 1


def _starts(parts: Parts) -> list[int]:
    """Characters of the first ``n`` texts, for every ``n`` (prefix sums)."""
    out = [0]
    for t in parts.texts:
        out.append(out[-1] + len(t))
    return out


def _first_word(parts: Parts) -> int:
    """The index of the first text that is not blank (``len(parts)`` when none)."""
    return next((i for i, t in enumerate(parts.texts) if t.strip()), len(parts.texts))


def text_of(premise: str | Joined) -> str:
    """A premise's text: a string as it is, a :class:`Joined` premise joined."""
    return premise if isinstance(premise, str) else str(premise)


def is_blank(premise: str | Joined) -> bool:
    """Whether a premise has no text but whitespace."""
    return premise.blank if isinstance(premise, Joined) else not premise.strip()
