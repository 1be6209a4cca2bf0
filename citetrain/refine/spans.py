"""The quote cover: cite the passages a statement quotes, read as word spans. No model.

Extractive answers (QuoteSum's, and any generator's that copies from its sources) quote their
passages word for word. The bag-of-words cover (:func:`~citetrain.refine.baselines.cover_ids`)
credits a passage for every content word it shares with the statement, wherever the word stands;
the quote cover credits it only for the statement's words that it contains *in the same order
as a run of n words*, so a passage that merely mentions the same names elsewhere does not look
like a source.

With the statement's word tokens ``s_1 .. s_m`` (``\\w+`` runs with inner apostrophes,
lower-cased; marks removed) and passage i's tokens likewise (its
:func:`~citetrain.records.format_doc` text: title and text):

* ``Cov_i = {j : s_j is a content word and some n-gram s_a .. s_{a+n-1} with a <= j < a + n
  occurs in passage i}`` (content word: one the lexical NLI keeps, :func:`content_words`; n = 2
  by default);
* **greedy cover** (Chvátal 1979; :func:`~citetrain.refine.baselines.cover_ids` over positions
  instead of words) of the content positions ``U``: add the passage maximising
  ``|U ∩ Cov_i|`` (ties: the lower id), remove its positions from U, and repeat while the best
  passage adds at least ``min_new`` (2) positions and fewer than ``max_ids`` (no limit) passages are
  chosen; ids in increasing order;
* **the given citations as a prior** (Generate-then-Refine keeps what the generator got right):
  the statement's own in-range ids G are kept instead when every one of them quotes at least
  ``min_given`` (4) positions (``|Cov_g| >= min_given``: more than one coincidental two-word run
  such as a shared name) and together they cover every position the cover's set covers
  (``∪_{i∈C} Cov_i ⊆ ∪_{g∈G} Cov_g``).

n = 2 and min_new = 2, and the prior's rule, were chosen on the judge recipes' train side of
QuoteSum dev (``citetrain refine-eval --split train``, 182 answers); ``min_given`` too, among 1
(any quote) to 12, by the mean F1 over the ``half`` inputs of seeds 0-9 there (1: 98.11, 3: 98.51,
4: 98.61, 5: 98.55, 8: 98.25). experiments/studies/quote-cover.md reports the other side apart.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from citetrain.nli.lexical import content_words
from citetrain.records import Record
from citetrain.refine.baselines import cover_ids, refine_each_statement
from citetrain.text.memo import TextMemo

_TOKEN = re.compile(r"\w+(?:'\w+)*")


@dataclass(frozen=True)
class SpanOptions:
    """The quote cover's settings (see the module docstring)."""

    n: int = 2
    min_new: int = 2
    max_ids: int | None = None
    use_given: bool = True
    min_given: int = 4

    def __post_init__(self) -> None:
        if (self.n < 1 or self.min_new < 1 or self.min_given < 1
                or (self.max_ids is not None and self.max_ids < 1)):
            raise ValueError("n, min_new, min_given and max_ids must be >= 1")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens (``\\w+`` runs, inner apostrophes kept: "it's", "nor'easter")."""
    return _TOKEN.findall(text.lower())


def _token_stems(token: str) -> tuple[str, ...]:
    return tuple(content_words(token)[0])


stems = TextMemo(_token_stems, 16 << 20, "token stems", lambda t, out: 3 * len(t) + 64 * len(out) + 160)
"""The lexical NLI's content-word stems of one token (empty for a stop word), remembered within
a byte cap."""


def content_positions(words: Sequence[str]) -> set[int]:
    """Positions of the tokens the lexical NLI counts as content words."""
    return {j for j, w in enumerate(words) if stems(w)}


def quoted_positions(statement: Sequence[str], passage: Sequence[str], n: int) -> set[int]:
    """Positions of ``statement`` inside an ``n``-gram that also occurs in ``passage``."""
    grams = {tuple(passage[i:i + n]) for i in range(len(passage) - n + 1)}
    out: set[int] = set()
    for a in range(len(statement) - n + 1):
        if tuple(statement[a:a + n]) in grams:
            out.update(range(a, a + n))
    return out


def quote_cover_ids(statement: str, passages: Sequence[Sequence[str]], given: Sequence[int] = (),
                    opts: SpanOptions = SpanOptions()) -> list[int]:
    """1-based ids citing ``statement`` (text without marks) among the tokenised ``passages``:
    the greedy cover, or ``given`` where the prior keeps it (module docstring)."""
    words = tokens(statement)
    content = content_positions(words)
    cov = [quoted_positions(words, p, opts.n) & content for p in passages]
    chosen = cover_ids(content, cov, min_new=opts.min_new,
                       max_ids=len(passages) if opts.max_ids is None else opts.max_ids)
    keep = sorted({g for g in given if 1 <= g <= len(passages)}) if opts.use_given else []
    if keep and all(len(cov[g - 1]) >= opts.min_given for g in keep):
        found = set().union(*(cov[i - 1] for i in chosen))
        if found <= set().union(*(cov[g - 1] for g in keep)):
            return keep
    return chosen


def spans_refine(records: Sequence[Record], opts: SpanOptions = SpanOptions(),
                 counts: dict[str, int] | None = None) -> tuple[list[Record], dict[str, int]]:
    """Refined copies of ``records``, each statement citing :func:`quote_cover_ids` (its own
    marks as the prior), and the counts of
    :func:`~citetrain.refine.generative.apply_refiner_outputs`."""
    return refine_each_statement(records, tokens,
                                 lambda text, ps, given: quote_cover_ids(text, ps, given, opts), counts)
