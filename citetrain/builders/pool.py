"""Every passage's sentences, searchable by shared content words: where ``other_passage``,
``unrelated`` and ``add_fact`` draw sentences of *other* passages (other records or pages).

Built once from all passages of a build (in passage order), so what a window draws depends on
the whole input only, never on shards or processes.
"""
from __future__ import annotations

import heapq
import random
from collections import Counter
from typing import Iterator, Sequence

from citetrain.nli.lexical import content_words

MAX_POSTINGS = 500  # a word in more sentences than this is not indexed, whatever the pool's size


class SentencePool:
    """Sentences with their passage and group (record / page); ``related`` ranks them by the
    number of content words they share with a set of words, ``random`` draws one."""

    def __init__(self, sentences: Sequence[Sequence[str]], groups: Sequence[str],
                 top: int = 64, max_postings: int = MAX_POSTINGS) -> None:
        """``sentences[p]``: passage ``p``'s sentences; ``groups[p]``: the record or page it
        belongs to (sentences of the same group are never drawn for it)."""
        self.texts: list[str] = []
        self.owner: list[int] = []
        self.groups = list(groups)
        self.words: list[frozenset[str]] = []
        for p, sents in enumerate(sentences):
            for s in sents:
                self.texts.append(s)
                self.owner.append(p)
                self.words.append(frozenset(content_words(s)[0]))
        df = Counter(w for ws in self.words for w in ws)
        cap = min(max(20, len(self.texts) // 200), max_postings)  # common words find too much
        self.index: dict[str, list[int]] = {}
        for k, ws in enumerate(self.words):
            for w in ws:
                if df[w] <= cap:
                    self.index.setdefault(w, []).append(k)
        self.top = top

    def __len__(self) -> int:
        return len(self.texts)

    def _other(self, k: int, passage: int) -> bool:
        p = self.owner[k]
        return p != passage and (passage < 0 or self.groups[p] != self.groups[passage])

    def related(self, words: set[str], passage: int) -> Iterator[tuple[int, str]]:
        """``(sentence index, text)`` of other groups' sentences, most shared content words
        first (ties: input order); candidates are those sharing a not-too-common word."""
        hits: Counter[int] = Counter()
        for w in words:
            for k in self.index.get(w, ()):
                hits[k] += 1
        best = heapq.nlargest(self.top, ((n, -k) for k, n in hits.items()
                                         if self._other(k, passage)))
        ranked = sorted((-len(self.words[-k] & words), -k) for _, k in best)
        for _, k in ranked:
            yield k, self.texts[k]

    def random(self, rng: random.Random, passage: int) -> tuple[int, str] | None:
        """A random sentence of another group (``None`` when there is none)."""
        if not self.texts:
            return None
        for _ in range(20):
            k = rng.randrange(len(self.texts))
            if self._other(k, passage):
                return k, self.texts[k]
        return None
