"""Token counts of texts under a tokenizer, remembered across calls.

A judge asks the same passages and statements again and again: a passage against every statement
that cites it, a statement in every round of the subset search, the union of a statement's docs
once to see whether its premise is cut and once to read it. :class:`TokenCounts` tokenizes each
distinct text once and keeps its count, so only new texts reach the tokenizer.
"""
from __future__ import annotations

from typing import Any, Sequence


def token_lengths(tokenizer: Any, texts: Sequence[str]) -> list[int]:
    """Tokens per text without special tokens; only measured, so transformers' warning about
    sequences longer than the model's maximum is off."""
    return [len(ids) for ids in tokenizer(list(texts), add_special_tokens=False,
                                          verbose=False)["input_ids"]]


class TokenCounts:
    """``TokenCounts(tokenizer, size=65536)(texts)``: :func:`token_lengths` of ``texts``, each
    distinct text tokenized once (the new ones in one batched call) and its count remembered.
    The memory holds at most ``size`` texts and starts over when full, so a long-running server
    stays bounded.

    A pair's length is additive: the tokenizer encodes a (premise, hypothesis) pair as the two
    texts apart plus its template, so :meth:`pair_lengths` is the length the pair is read at.
    """

    def __init__(self, tokenizer: Any, size: int = 1 << 16) -> None:
        self.tokenizer = tokenizer
        self.size = size
        self.seen: dict[str, int] = {}

    def __call__(self, texts: Sequence[str]) -> list[int]:
        new = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if new:
            if len(self.seen) + len(new) > self.size:  # start over with this call's texts
                self.seen.clear()
                new = list(dict.fromkeys(texts))
            self.seen.update(zip(new, token_lengths(self.tokenizer, new)))
        return [self.seen[t] for t in texts]

    def pair_lengths(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Tokens of each (premise, hypothesis) pair with the pair's special tokens (a single
        text's where the hypothesis is empty: transformers then encodes the premise alone)."""
        pair, single = (self.tokenizer.num_special_tokens_to_add(pair=b) for b in (True, False))
        counts = self(list(premises) + list(hypotheses))
        n = len(premises)
        return [p + h + (pair if hyp else single)
                for p, h, hyp in zip(counts[:n], counts[n:], hypotheses)]
