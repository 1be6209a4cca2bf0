"""Every passage's sentences, searchable by shared content words: where ``other_passage``,
``unrelated`` and ``add_fact`` draw sentences of *other* passages (other records or pages).

Built once from all passages of a build (in passage order), so what a window draws depends on
the whole input only, never on shards or processes. The pool is a handful of flat numpy arrays
(the sentences' UTF-8 bytes, their passages, their content words as ids, an inverted index), so
that a build's processes share one copy: :meth:`SentencePool.save` writes them to a folder and
:meth:`SentencePool.open` maps them read-only, where a pickled pool would be a copy per process.
A word's id is its place among the 64-bit BLAKE2b hashes of the pool's words, sorted.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
from itertools import chain
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from citetrain.errors import CitetrainError
from citetrain.nli.lexical import content_words

MAX_POSTINGS = 500  # a word in more sentences than this is not indexed, whatever the pool's size
_ARRAYS = ("text", "text_off", "owner", "group", "vocab", "words", "words_off", "post",
           "post_off")
_FORMAT = 1


def word_hash(word: str) -> int:
    """The 64-bit BLAKE2b hash of a word (the same in every process and run)."""
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")


def _offsets(lengths: Sequence[int]) -> np.ndarray:
    """Where each of consecutive rows of these lengths starts, and where the last ends."""
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=off[1:])
    return off


class SentencePool:
    """Sentences with their passage and group (record / page); ``related`` ranks them by the
    number of content words they share with a set of words, ``random`` draws one."""

    def __init__(self, sentences: Sequence[Sequence[str]], groups: Sequence[str],
                 top: int = 64, max_postings: int = MAX_POSTINGS) -> None:
        """``sentences[p]``: passage ``p``'s sentences; ``groups[p]``: the record or page it
        belongs to (sentences of the same group are never drawn for it)."""
        strs = [s for sents in sentences for s in sents]
        owner = [p for p, sents in enumerate(sentences) for _ in sents]
        names: dict[str, int] = {}
        group = [names.setdefault(g, len(names)) for g in groups]
        words = [content_words(t)[0] for t in strs]
        distinct = list(set().union(*words))
        hashes = np.fromiter(map(word_hash, distinct), dtype=np.uint64, count=len(distinct))
        vocab = np.unique(hashes)
        ids = dict(zip(distinct, np.searchsorted(vocab, hashes).tolist()))
        flat = list(chain.from_iterable(words))
        word_ids = np.fromiter(map(ids.__getitem__, flat), dtype=np.int32, count=len(flat))
        words_off = _offsets(list(map(len, words)))
        df = np.bincount(word_ids, minlength=len(vocab))
        cap = min(max(20, len(strs) // 200), max_postings)  # common words find too much
        sent = np.repeat(np.arange(len(strs), dtype=np.int32), np.diff(words_off))
        keep = df[word_ids] <= cap
        order = np.lexsort((sent[keep], word_ids[keep]))  # by word, then sentence
        post_off = _offsets(np.bincount(word_ids[keep], minlength=len(vocab)))
        texts = [t.encode("utf-8") for t in strs]
        text, text_off = np.frombuffer(b"".join(texts), dtype=np.uint8), _offsets(
            list(map(len, texts)))
        self._set(dict(text=text, text_off=text_off, owner=np.array(owner, dtype=np.int32),
                       group=np.array(group, dtype=np.int32), vocab=vocab, words=word_ids,
                       words_off=words_off, post=sent[keep][order], post_off=post_off), top)

    def _set(self, arrays: dict[str, np.ndarray], top: int, folder: Path | None = None) -> None:
        self.folder = folder  # where the arrays are mapped from (None: in memory)
        for name, a in arrays.items():
            setattr(self, f"_{name}", a)
        self.top = top

    @property
    def arrays(self) -> dict[str, np.ndarray]:
        """The pool's arrays by name (what :meth:`save` writes)."""
        return {name: getattr(self, f"_{name}") for name in _ARRAYS}

    def save(self, folder: str | Path) -> Path:
        """Write the pool's arrays to ``folder`` (made if missing; ``pool.json`` last)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        for name in _ARRAYS:
            np.save(folder / f"{name}.npy", self.arrays[name])
        tmp = folder / f"pool.json.{os.getpid()}.tmp"
        tmp.write_text(json.dumps({"format": _FORMAT, "sentences": len(self), "top": self.top}))
        os.replace(tmp, folder / "pool.json")
        return folder

    @classmethod
    def open(cls, folder: str | Path) -> "SentencePool":
        """The pool that :meth:`save` wrote to ``folder``, its arrays mapped read-only (every
        process that opens it shares the pages)."""
        folder = Path(folder)
        meta = json.loads((folder / "pool.json").read_text())
        if meta.get("format") != _FORMAT:
            raise CitetrainError(f"{folder}: a sentence pool of format {meta.get('format')}, "
                                 f"not {_FORMAT} (build again with --fresh)")
        pool = cls.__new__(cls)
        pool._set({n: np.load(folder / f"{n}.npy", mmap_mode="r") for n in _ARRAYS}, meta["top"],
                  folder)
        return pool

    def __len__(self) -> int:
        return len(self._owner)

    def text(self, k: int) -> str:
        """Sentence ``k``."""
        return bytes(self._text[self._text_off[k]:self._text_off[k + 1]]).decode("utf-8")

    def _ids(self, words: set[str]) -> np.ndarray:
        """The pool's ids of those of ``words`` that some sentence holds."""
        h = np.fromiter(map(word_hash, words), dtype=np.uint64, count=len(words))
        at = np.searchsorted(self._vocab, h)
        ok = at < len(self._vocab)
        ok[ok] = self._vocab[at[ok]] == h[ok]
        return at[ok]

    def _others(self, ks: np.ndarray, passage: int) -> np.ndarray:
        """Which of sentences ``ks`` belong to another passage and (for ``passage`` >= 0)
        another group than ``passage``'s."""
        p = self._owner[ks]
        if passage < 0:
            return p != passage
        return (p != passage) & (self._group[p] != self._group[passage])

    def related(self, words: set[str], passage: int) -> Iterator[tuple[int, str]]:
        """``(sentence index, text)`` of other groups' sentences, most shared content words
        first (ties: input order); candidates are the ``top`` sentences that share the most
        not-too-common words (ties: input order)."""
        ids = self._ids(words)
        parts = [self._post[self._post_off[i]:self._post_off[i + 1]] for i in ids.tolist()]
        if not parts:
            return
        ks, hits = np.unique(np.concatenate(parts), return_counts=True)
        mine = self._others(ks, passage)
        ks, hits = ks[mine], hits[mine]
        best = ks[np.lexsort((ks, -hits))[:self.top]]
        for _, k in sorted(zip((-self._shared(best, ids)).tolist(), best.tolist())):
            yield k, self.text(k)

    def _shared(self, ks: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """How many of the word ids ``ids`` each sentence of ``ks`` holds."""
        start = self._words_off[ks]
        lens = self._words_off[ks + 1] - start
        at = np.repeat(start - np.cumsum(lens) + lens, lens) + np.arange(lens.sum())
        held = np.isin(self._words[at], ids).astype(np.int64)
        return np.bincount(np.repeat(np.arange(len(ks)), lens), weights=held,
                           minlength=len(ks)).astype(np.int64)

    def random(self, rng: random.Random, passage: int) -> tuple[int, str] | None:
        """A random sentence of another group (``None`` when there is none)."""
        if not len(self):
            return None
        for _ in range(20):
            k = rng.randrange(len(self))
            if self._others(np.array([k]), passage)[0]:
                return k, self.text(k)
        return None
