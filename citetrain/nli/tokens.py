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


MEMORY_BYTES = 64 << 20  # the texts whose counts are remembered, by their characters


_ENTRY = 120  # a remembered count's own bytes beside its text (dict slot, int, str header)


class TokenCounts:
    """``TokenCounts(tokenizer, max_bytes=64 MiB)(texts)``: :func:`token_lengths` of ``texts``,
    each distinct text tokenized once (the new ones in one batched call) and its count
    remembered. The memory holds texts of at most ``max_bytes`` (their characters, plus an
    entry's own size) and starts over when full, so a long-running server stays bounded;
    :meth:`clear` empties it (``NLIEngine.forget``).

    A pair's length is additive: the tokenizer encodes a (premise, hypothesis) pair as the two
    texts apart plus its template, so :meth:`pair_lengths` is the length the pair is read at.
    """

    def __init__(self, tokenizer: Any, max_bytes: int = MEMORY_BYTES) -> None:
        self.tokenizer = tokenizer
        self.max_bytes = max_bytes
        self.bytes = 0
        self.seen: dict[str, int] = {}

    def __call__(self, texts: Sequence[str]) -> list[int]:
        new = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if new:
            size = sum(_ENTRY + len(t) for t in new)
            if self.bytes + size > self.max_bytes:  # start over with this call's texts
                self.clear()
                new = list(dict.fromkeys(texts))
                size = sum(_ENTRY + len(t) for t in new)
            counts = dict(zip(new, token_lengths(self.tokenizer, new)))
            if size <= self.max_bytes:
                self.seen.update(counts)
                self.bytes += size
            else:  # this call alone passes the cap: answered, not remembered
                return [counts[t] if t in counts else self.seen[t] for t in texts]
        return [self.seen[t] for t in texts]

    def clear(self) -> None:
        """Forget every count."""
        self.seen.clear()
        self.bytes = 0

    def pair_lengths(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Tokens of each (premise, hypothesis) pair with the pair's special tokens (a single
        text's where the hypothesis is empty: transformers then encodes the premise alone)."""
        pair, single = (self.tokenizer.num_special_tokens_to_add(pair=b) for b in (True, False))
        counts = self(list(premises) + list(hypotheses))
        n = len(premises)
        return [p + h + (pair if hyp else single)
                for p, h, hyp in zip(counts[:n], counts[n:], hypotheses)]
