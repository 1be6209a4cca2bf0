"""Coverage hints for a cross-encoder: the statement followed by its content words that the
premise lacks.

A small encoder reading a long page cut to ``max_length`` tokens sees only part of it; whether
each word of the statement occurs *anywhere* in the page is what the lexical baseline measures, and
it is a strong cue for full / partial / no support (WiCE). With ``data.hint: uncovered`` a
``kind: crossencoder`` judge reads ``"{statement} | not in the passage: {words}"`` (``none`` when
every content word is found), the words computed on the **whole** premise before it is cut, so the
model learns from both the lexical cue and the text it reads. ``data.hint: coverage`` also names the
share of the statement's content words the premise has, in five words a small encoder learns at
once: ``"{statement} | covered: {level} | not in the passage: {words}"`` with level ``all`` (1),
``most`` (≥ 3/4), ``half`` (≥ 1/2), ``some`` (> 0) or ``none`` (the lexical NLI's recall, bucketed). The mode is saved in the model's
config (``citetrain_hint``) and the ``classifier:`` NLI backend and the pair refiner read pairs the
same way.
"""
from __future__ import annotations

from typing import Sequence

from citetrain.nli.base import Pair

HINT_MODES = ("none", "uncovered", "coverage")
SEPARATOR = " | not in the passage: "
LEVELS = ((1.0, "all"), (0.75, "most"), (0.5, "half"), (1e-9, "some"), (0.0, "none"))


def coverage_level(recall: float) -> str:
    """The word for a recall: the first of :data:`LEVELS` whose bound it reaches."""
    return next(word for bound, word in LEVELS if recall >= bound)


def coverage(premise: str, hypothesis: str) -> tuple[list[str], float]:
    """The hypothesis's content words (as :mod:`citetrain.nli.lexical` counts them: stemmed, stop
    words left out, numbers kept) that the premise lacks, in their order, as written, once each;
    and the share of its distinct content words the premise has (the lexical NLI's ``prob``; 1.0
    for a hypothesis without content words)."""
    from citetrain.nli.lexical import content_tokens, content_words

    have = content_words(premise)[0]
    tokens = content_tokens(hypothesis)
    missing: list[str] = []
    for tok, key, _ in tokens:
        if key not in have and tok not in missing:
            missing.append(tok)
    keys = {key for _, key, _ in tokens}
    return missing, (len(keys & have) / len(keys) if keys else 1.0)


def uncovered_words(premise: str, hypothesis: str) -> list[str]:
    """The hypothesis's content words that the premise lacks (see :func:`coverage`)."""
    return coverage(premise, hypothesis)[0]


def hinted(pairs: Sequence[Pair], mode: str | None) -> list[str]:
    """The hypotheses of ``pairs`` as a model trained with ``data.hint: mode`` reads them."""
    if mode in (None, "none"):
        return [h for _, h in pairs]
    if mode not in HINT_MODES:
        raise ValueError(f"hint must be one of {', '.join(HINT_MODES)}, not {mode!r}")
    out = []
    for p, h in pairs:
        missing, recall = coverage(p, h)
        level = f" | covered: {coverage_level(recall)}" if mode == "coverage" else ""
        out.append(h + level + SEPARATOR + (" ".join(missing) or "none"))
    return out
