"""Lexical NLI: content-word and number recall of the hypothesis in the premise.

A baseline, and the offline default for demos and tests; reports always label it as such.
``prob = |content(h) ∩ content(p)| / |content(h)|`` over content tokens; ``label = prob >=
threshold`` and every number of the hypothesis appears in the premise. A hypothesis without
content tokens gets 0.

Content tokens:

* outside CJK text: lower-cased, Porter-stemmed words of two letters or more that are not English
  stop words, and numbers (``1,999`` is ``1999``), as ``[a-z0-9]+`` runs;
* CJK text (Chinese, Japanese, Korean: runs of Han, kana or Hangul characters,
  :func:`~citetrain.text.languages.cjk_runs`), which has no spaces between words: the character
  bigrams of each run (``北京是首都`` -> 北京, 京是, 是首, 首都), and a run of one character
  itself (``在``). No stop words and no stemming there; a bigram across a word boundary is as
  likely in a premise that says the same as in the hypothesis, so recall still measures overlap.

Mixed text works: each run is read by its own rule (``GPT-4是模型`` -> gpt, 4, 是模, 模型). In
a text that has CJK characters, full-width Latin letters and digits (``２０２４``) are read as
ASCII (NFKC). A text without CJK characters gets exactly the tokens it got before CJK support,
so its scores are unchanged; the revision (``v2``) changed because texts with CJK characters,
which used to count only their Latin words and numbers, now score differently.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Sequence

from citetrain.nli.base import NLIResult, Pair
from citetrain.text.languages import cjk_runs, has_cjk

_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer().stem(word)


def content_tokens(text: str) -> list[tuple[str, str, bool]]:
    """``(token, key, is_number)`` for each content token of a text, in order (module
    docstring): numbers (key without commas), words of two letters or more that are not stop
    words (key: the Porter stem), and CJK character bigrams (key: the bigram)."""
    return list(_content_tokens(text))


def cjk_tokens(run: str) -> list[str]:
    """The character bigrams of a CJK run, or the run itself when it is one character."""
    return [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]


def _word_tokens(text: str, out: list[tuple[str, str, bool]]) -> None:
    """Append the number and word tokens of a text without CJK characters."""
    stop = _stop_words()
    for tok in _TOKEN.findall(text.lower()):
        if not tok.isalpha():  # a token of _TOKEN that is not all letters holds a digit
            out.append((tok, tok.replace(",", ""), True))
        elif tok not in stop and len(tok) > 1:
            out.append((tok, _stem(tok), False))


@lru_cache(maxsize=8_192)  # texts of a few batches; whole pages as keys, so not more
def _content_tokens(text: str) -> tuple[tuple[str, str, bool], ...]:
    # cached per text: a judge reads each passage and each statement against many others
    out: list[tuple[str, str, bool]] = []
    if not has_cjk(text):
        _word_tokens(text, out)
        return tuple(out)
    for piece, cjk in cjk_runs(text):
        if cjk:
            out.extend((tok, tok, False) for tok in cjk_tokens(piece))
        else:
            _word_tokens(unicodedata.normalize("NFKC", piece), out)
    return tuple(out)


@lru_cache(maxsize=8_192)
def content_words(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(stemmed content words, numbers) of a text; cached per text (frozen sets, so that no
    caller changes another's)."""
    toks = _content_tokens(text)
    return frozenset(key for _, key, _ in toks), frozenset(key for _, key, num in toks if num)


def recall(hypothesis_words: set[str], premise_words: set[str]) -> float:
    """The share of a hypothesis's content words (:func:`content_words`) found among a premise's;
    0 for a hypothesis without content words."""
    return len(hypothesis_words & premise_words) / len(hypothesis_words) if hypothesis_words else 0.0


class LexicalNLI:
    """Content-token recall as an entailment score (see the module docstring)."""

    is_baseline = True

    def __init__(self, threshold: float = 0.7, batch_size: int = 1024) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"lexical threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.batch_size = batch_size
        self.model_id = "lexical"
        self.revision = f"v2-t{threshold:g}"  # v2: CJK tokens

    def cost(self, pair: Pair) -> int:
        return len(pair[0]) + len(pair[1])

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        out = []
        for premise, hypothesis in pairs:
            hw, hn = content_words(hypothesis)
            if not hw:
                out.append(NLIResult(0.0, False))
                continue
            pw, pn = content_words(premise)
            prob = recall(hw, pw)
            out.append(NLIResult(prob, prob >= self.threshold and hn <= pn))
        return out
