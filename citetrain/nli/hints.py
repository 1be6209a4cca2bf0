"""Coverage hints for a cross-encoder: the statement followed by its content words that the
premise lacks.

A small encoder reading a long page cut to ``max_length`` tokens sees only part of it; whether
each word of the statement occurs *anywhere* in the page is what the lexical baseline measures, and
it is a strong cue for full / partial / no support (WiCE). With ``crossencoder.hint: uncovered`` a
``kind: crossencoder`` judge reads ``"{statement} | not in the passage: {words}"`` (``none`` when
every content word is found), the words computed on the **whole** premise before it is cut, so the
model learns from both the lexical cue and the text it reads. The mode is saved in the model's
config (``citetrain_hint``) and the ``classifier:`` NLI backend and the pair refiner read pairs the
same way.

``crossencoder.hint: coverage`` also states how much of the statement the page holds, as a whole
number of tenths: ``"{statement} | covered: {k}/10 | not in the passage: {words}"`` with
``k = round(10·r)`` and ``r`` the lexical baseline's recall (the share of the statement's content words found in the
whole premise). With the uncovered words alone the model has to count them to tell "nothing here"
from "part of it here", and the judges trained with them rank partially supported above not
supported WiCE claims far worse than recall itself does. Handed the share, three seeds of the
human recipe did no better (experiments/studies/partial-vs-no-support.md); the mode stays an option.
"""
from __future__ import annotations

from typing import Sequence

from citetrain.nli.base import Pair

HINT_MODES = ("none", "uncovered", "coverage")
SEPARATOR = " | not in the passage: "
COVERED = " | covered: {}/10"


def uncovered_words(premise: str, hypothesis: str) -> list[str]:
    """The hypothesis's content words (as :mod:`citetrain.nli.lexical` counts them: stemmed, stop
    words left out, numbers kept) that the premise lacks, in their order, as written, once each."""
    return _coverage(premise, hypothesis)[0]


def covered_tenths(premise: str, hypothesis: str) -> int:
    """``round(10·r)`` (halves up): the lexical baseline's recall ``r`` of the hypothesis in the
    premise (:class:`~citetrain.nli.lexical.LexicalNLI`'s score, the share of its distinct content
    words found), in whole tenths; 0 for a hypothesis without content words."""
    return _coverage(premise, hypothesis)[1]


def _coverage(premise: str, hypothesis: str) -> tuple[list[str], int]:
    from citetrain.nli.lexical import content_tokens, content_words, recall

    have = content_words(premise)[0]
    tokens = content_tokens(hypothesis)
    out: list[str] = []
    for tok, key, _ in tokens:
        if key not in have and tok not in out:
            out.append(tok)
    return out, int(10 * recall({key for _, key, _ in tokens}, have) + 0.5)


def hinted(pairs: Sequence[Pair], mode: str | None) -> list[str]:
    """The hypotheses of ``pairs`` as a model trained with ``crossencoder.hint: mode`` reads them."""
    if mode in (None, "none"):
        return [h for _, h in pairs]
    if mode not in HINT_MODES:
        raise ValueError(f"hint must be one of {', '.join(HINT_MODES)}, not {mode!r}")
    out = []
    for p, h in pairs:
        missing, tenths = _coverage(p, h)
        covered = COVERED.format(tenths) if mode == "coverage" else ""
        out.append(h + covered + SEPARATOR + (" ".join(missing) or "none"))
    return out
