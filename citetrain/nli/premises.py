"""How a cross-encoder reads a premise too long for its window (``premise="select"``) and its
statement's coverage hint: the sentences of the premise that best cover the statement's content
words, in page order (:func:`select_evidence`). The trainer (:mod:`citetrain.judge_training.trainer`),
the classifier backend (:mod:`citetrain.nli.classifier`) and the refiner's pair scoring read pairs
through :func:`read_pairs`, so a judge is read as it was trained.
"""
from __future__ import annotations

import re
from functools import partial
from typing import Any, Callable, Sequence

from citetrain.nli.base import Pair
from citetrain.nli.tokens import token_lengths

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str, max_words: int = 64) -> list[str]:
    """``text`` split at sentence ends and newlines; pieces longer than ``max_words`` words are
    cut into runs of ``max_words`` so that one list item never fills a whole window."""
    out = []
    for piece in _SENTENCE.split(text):
        words = piece.split()
        out += [" ".join(words[i:i + max_words]) for i in range(0, len(words), max_words)]
    return out


def select_evidence(premise: str, hypothesis: str, room: int,
                    count: Callable[[list[str]], list[int]],
                    split: tuple[list[str], list[int]] | None = None) -> str:
    """The sentences of ``premise`` that best cover ``hypothesis``'s content words, at most
    ``room`` tokens (``count`` gives each sentence's token count), joined in page order;
    ``split``: the premise's sentences and their token counts, when known already.

    Greedy: the sentence adding the most uncovered content words, ties broken by its total
    overlap and then by position, while it fits; a premise that fits is returned unchanged.
    """
    from citetrain.nli.lexical import content_words

    parts, lengths = split if split is not None else split_premises([premise], count)[premise]
    if sum(lengths) <= room:
        return premise
    want = content_words(hypothesis)[0]
    overlap = [content_words(s)[0] & want for s in parts]
    chosen: set[int] = set()
    covered: set[str] = set()
    used = 0
    while True:
        fits = [i for i in range(len(parts)) if i not in chosen and used + lengths[i] <= room]
        if not fits:
            break
        best = max(fits, key=lambda i: (len(overlap[i] - covered), len(overlap[i]), -i))
        chosen.add(best)
        covered |= overlap[best]
        used += lengths[best]
    return " ".join(parts[i] for i in sorted(chosen)) if chosen else premise


def split_premises(premises: Sequence[str], count: Callable[[list[str]], list[int]]
                   ) -> dict[str, tuple[list[str], list[int]]]:
    """Each distinct premise's sentences and their token counts, all counted in one ``count``
    call (a passage read against many statements is split and counted once)."""
    parts = {p: sentences(p) for p in dict.fromkeys(premises)}
    flat = [s for ss in parts.values() for s in ss]
    lengths = iter(count(flat) if flat else [])
    return {p: (ss, [next(lengths) for _ in ss]) for p, ss in parts.items()}


def select_premises(pairs: Sequence[Pair], tokenizer: Any, max_length: int,
                    read_as: Sequence[str] | None = None,
                    count: Callable[[list[str]], list[int]] | None = None) -> list[str]:
    """:func:`select_evidence` for each pair, the room being ``max_length`` less the statement
    and the pair's special tokens (as the tokenizer counts them); ``read_as``: the statements as
    the model reads them (with a coverage hint), whose length counts instead; ``count``: token
    counts of texts (default :func:`token_lengths`; a backend passes its :class:`~citetrain.nli.tokens.TokenCounts`)."""
    extra = tokenizer.num_special_tokens_to_add(pair=True)
    hyps = list(read_as) if read_as is not None else [h for _, h in pairs]
    count = count or partial(token_lengths, tokenizer)
    hyp_lengths = count(hyps) if hyps else []
    splits = split_premises([p for p, _ in pairs], count)
    return [select_evidence(p, h, max_length - n - extra, count, splits[p])
            for (p, h), n in zip(pairs, hyp_lengths)]


def read_pairs(pairs: Sequence[Pair], tokenizer: Any, max_length: int, premise: str | None,
               hint: str | None, count: Callable[[list[str]], list[int]] | None = None
               ) -> tuple[list[str], list[str]]:
    """``(premises, statements)`` as a model trained with ``crossencoder.premise`` /
    ``crossencoder.hint`` (its config's ``citetrain_premise`` / ``citetrain_hint``) reads them:
    each statement with its coverage hint, each premise cut to its best-covering sentences under
    ``select`` (``count`` as in :func:`select_premises`)."""
    from citetrain.nli.hints import hinted

    hyps = hinted(pairs, hint)
    if premise == "select":
        return select_premises(pairs, tokenizer, max_length, hyps, count), hyps
    return [p for p, _ in pairs], hyps
