"""Extra cross-encoder training pairs from WiCE's ``non_supported_tokens`` files.

Each row is a sub-claim that annotators judged ``partially_supported`` by its cited page, with the
page's sentences, the sets of ``supporting_sentences`` and the claim tokens they found unsupported
(``non_supported_spans``). One row gives three pairs over the page, one per support level:

* ``partially_supported``: the sub-claim as written (the human label);
* ``supported``: the sub-claim without its unsupported tokens (what the annotators found
  supported, WiCE's own reading of the spans);
* ``not_supported``: the sub-claim against the page without any of its supporting sentences.

The derived labels follow from the annotation but were not judged as such; the recipe lists the
file as ``wice_tokens:PATH`` to train on them. All three pairs share the sub-claim's group and
are split by the sub-claim's text, so they stay on one side of the split.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.io.labelled import LabelledPair, LabelledSet

FORMAT = "wice_tokens"
_NO_SPACE_BEFORE = {".", ",", ";", ":", "!", "?", ")", "'s", "%", "n't", "-"}
_NO_SPACE_AFTER = {"(", "$", "-"}


def detokenize(tokens: list[str]) -> str:
    """WiCE claim tokens back to text (no space before punctuation, around hyphens)."""
    out = ""
    for tok in tokens:
        if out and tok not in _NO_SPACE_BEFORE and out[-1] not in _NO_SPACE_AFTER:
            out += " "
        out += tok
    return out


def derived_pairs(item: dict[str, Any], line: int) -> list[LabelledPair]:
    """The three pairs of one ``non_supported_tokens`` row (see the module docstring)."""
    try:
        claim, evidence = item["claim"], item["evidence"]
        tokens, spans = item["claim_tokens"], item["non_supported_spans"]
        support_sets = item["supporting_sentences"]
    except KeyError as exc:
        raise CitetrainError(f"{FORMAT} line {line}: missing field {exc}") from None
    if len(tokens) != len(spans):
        raise CitetrainError(f"{FORMAT} line {line}: claim_tokens and non_supported_spans differ")
    group = f"wice-tokens:{(item.get('meta') or {}).get('id', line)}"
    pairs = [LabelledPair(" ".join(evidence), claim, 1, group, f"{group}#partial")]
    kept = detokenize([t for t, unsupported in zip(tokens, spans) if not unsupported])
    if any(spans) and kept.strip(" .") and kept != claim:
        pairs.append(LabelledPair(" ".join(evidence), kept, 2, group, f"{group}#supported",
                                  {"split_text": claim}))
    used = {i for s in support_sets for i in s}
    rest = [s for i, s in enumerate(evidence) if i not in used]
    if used and rest:
        pairs.append(LabelledPair(" ".join(rest), claim, 0, group, f"{group}#none"))
    return pairs


def read_wice_tokens(path: str | Path) -> LabelledSet:
    """All derived pairs of a ``non_supported_tokens`` JSONL file."""
    from citetrain.io.readers import json_rows

    pairs: list[LabelledPair] = []
    for line, item in json_rows(path, dict, "a JSON object"):
        pairs += derived_pairs(item, line)
    return LabelledSet(pairs, [], FORMAT)
