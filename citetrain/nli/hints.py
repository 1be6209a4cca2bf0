"""Coverage hints for a cross-encoder: the statement followed by its content words that the
premise lacks.

A small encoder reading a long page cut to ``max_length`` tokens sees only part of it; whether
each word of the statement occurs *anywhere* in the page is what the lexical baseline measures, and
it is a strong cue for full / partial / no support (WiCE). With ``data.hint: uncovered`` a
``kind: crossencoder`` judge reads ``"{statement} | not in the passage: {words}"`` (``none`` when
every content word is found), the words computed on the **whole** premise before it is cut, so the
model learns from both the lexical cue and the text it reads. The mode is saved in the model's
config (``citetrain_hint``) and the ``classifier:`` NLI backend and the pair refiner read pairs the
same way.
"""
from __future__ import annotations

from typing import Sequence

from citetrain.nli.base import Pair

HINT_MODES = ("none", "uncovered")
SEPARATOR = " | not in the passage: "


def uncovered_words(premise: str, hypothesis: str) -> list[str]:
    """The hypothesis's content words (as :mod:`citetrain.nli.lexical` counts them: stemmed, stop
    words left out, numbers kept) that the premise lacks, in their order, as written, once each."""
    from citetrain.nli.lexical import content_tokens, content_words

    have = content_words(premise)[0]
    out: list[str] = []
    for tok, key, _ in content_tokens(hypothesis):
        if key not in have and tok not in out:
            out.append(tok)
    return out


def hinted(pairs: Sequence[Pair], mode: str | None) -> list[str]:
    """The hypotheses of ``pairs`` as a model trained with ``data.hint: mode`` reads them."""
    if mode in (None, "none"):
        return [h for _, h in pairs]
    if mode != "uncovered":
        raise ValueError(f"hint must be one of {', '.join(HINT_MODES)}, not {mode!r}")
    return [h + SEPARATOR + (" ".join(uncovered_words(p, h)) or "none") for p, h in pairs]
