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

**Premises of parts.** A :class:`~citetrain.text.joined.Joined` premise (a subset of a record's
passages, or a statement's earlier statements) is read without joining it: the content tokens of
a joined text are the union of its parts' (a token never spans the separator), so each part is
tokenized once per record and an index (key -> the parts holding it) answers every premise over
those parts in O(words of the hypothesis). The scores are those of the joined text exactly: a
premise with a CJK part reads its other parts as inside CJK text (NFKC), as the joined text does.

Memory: the per-text memories (stems, tokens, content words) are capped in bytes
(:class:`~citetrain.text.memo.TextMemo`), and a premise's index lives on its parts, so nothing
outlives the record it was built for.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Sequence

from citetrain.nli.base import NLIResult, Pair
from citetrain.text.joined import Joined, Parts
from citetrain.text.languages import cjk_runs, has_cjk
from citetrain.text.memo import TextMemo

# byte caps of the per-text memories (a judge reads each passage and statement against many
# others); their sum bounds what lexical reading keeps between requests
STEM_BYTES = 16 << 20
TOKEN_BYTES = 64 << 20
WORDS_BYTES = 64 << 20

_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


def _stem_word(word: str) -> str:
    return _stemmer().stem(word)


# upper bounds of an entry's bytes (sys.getsizeof of the strings, tuples and sets it holds)
_stem = TextMemo(_stem_word, STEM_BYTES, "lexical stems", lambda w, s: 2 * len(w) + 160)


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


def _read_tokens(text: str, in_cjk: bool = False) -> tuple[tuple[str, str, bool], ...]:
    """The content tokens of ``text``; ``in_cjk``: read as part of a text with CJK characters
    (its Latin runs NFKC-normalized) even when it has none itself."""
    out: list[tuple[str, str, bool]] = []
    if not has_cjk(text):
        _word_tokens(unicodedata.normalize("NFKC", text) if in_cjk else text, out)
        return tuple(out)
    for piece, cjk in cjk_runs(text):
        if cjk:
            out.extend((tok, tok, False) for tok in cjk_tokens(piece))
        else:
            _word_tokens(unicodedata.normalize("NFKC", piece), out)
    return tuple(out)


_content_tokens = TextMemo(_read_tokens, TOKEN_BYTES, "lexical tokens",
                          lambda text, toks: 4 * len(text) + 200 * len(toks) + 120)


def _words_of(text: str) -> tuple[frozenset[str], frozenset[str]]:
    toks = _content_tokens(text)
    return frozenset(key for _, key, _ in toks), frozenset(key for _, key, num in toks if num)


_content_words = TextMemo(_words_of, WORDS_BYTES, "lexical words",
                         lambda text, w: 4 * len(text) + 120 * (len(w[0]) + len(w[1])) + 600)


def content_words(text: str | Joined) -> tuple[frozenset[str], frozenset[str]]:
    """(stemmed content words, numbers) of a text; remembered per text (frozen sets, so that no
    caller changes another's). A :class:`~citetrain.text.joined.Joined` premise is read from
    its parts' index (module docstring) instead of its joined text."""
    if isinstance(text, Joined):
        index = _index(text)
        words = frozenset(index.union(text.ids))
        return words, frozenset(k for k in words if k in index.numbers)
    return _content_words(text)


def read_parts(parts: Parts, ids: Sequence[int]) -> None:
    """Tokenize the parts ``ids`` ahead of any premise over them: the reading the parts' index
    (:func:`_index`) would do at its first premise, in pieces that a caller spreads over several
    batches (the judge server reads a record's passages so, a batch of bounded work each)."""
    read = parts.memo("lexical part tokens", _unread)
    for i in ids:
        if read[i] is None:
            read[i] = _read_tokens(parts.texts[i])


def _unread(parts: Parts) -> list[tuple[tuple[str, str, bool], ...] | None]:
    return [None] * len(parts)


class _PartsIndex:
    """Where each content key of a :class:`Parts` is: the parts holding it (one reading)."""

    def __init__(self, parts: Parts, in_cjk: bool = False) -> None:
        self.where: dict[str, frozenset[int]] = {}
        self.first: dict[str, int] = {}
        self.numbers: set[str] = set()
        found: dict[str, list[int]] = {}
        read = parts.memo("lexical part tokens", _unread)  # parts tokenized ahead, if any
        for i, text in enumerate(parts.texts):
            # read once here (or ahead, by read_parts): the index is the memory
            toks = read[i] if read[i] is not None and not in_cjk else _read_tokens(text, in_cjk)
            for _, key, num in toks:
                at = found.setdefault(key, [])
                if not at or at[-1] != i:
                    at.append(i)
                if num:
                    self.numbers.add(key)
        for key, at in found.items():
            self.where[key] = frozenset(at)
            self.first[key] = at[0]

    def covered(self, keys: frozenset[str], ids: tuple[int, ...] | range) -> int:
        """How many of ``keys`` some part of ``ids`` holds."""
        if isinstance(ids, range) and ids.start == 0 and ids.step == 1:
            end, first = ids.stop, self.first
            return sum(1 for k in keys if first.get(k, end) < end)
        chosen = frozenset(ids)
        where = self.where
        return sum(1 for k in keys if k in where and not where[k].isdisjoint(chosen))

    def union(self, ids: tuple[int, ...] | range) -> list[str]:
        """Every key some part of ``ids`` holds."""
        chosen = frozenset(ids)
        return [k for k, at in self.where.items() if not at.isdisjoint(chosen)]


def _index(premise: Joined) -> _PartsIndex:
    """The index that reads ``premise`` as its joined text would be read: parts as inside CJK
    text when one of the premise's parts has CJK characters."""
    parts = premise.parts
    cjk, first, every = parts.memo("lexical cjk", _cjk_parts)
    if first < len(cjk) and not every:  # some parts have CJK characters, others not
        in_cjk = (first < len(premise.ids) if premise.is_prefix
                  else any(cjk[i] for i in premise.ids))
        if in_cjk:
            return parts.memo("lexical index cjk", _index_in_cjk)
    return parts.memo("lexical index", _PartsIndex)


def _cjk_parts(parts: Parts) -> tuple[list[bool], int, bool]:
    """(whether each part has CJK characters, the first that does, whether all do)."""
    cjk = [has_cjk(t) for t in parts.texts]
    return cjk, next((i for i, c in enumerate(cjk) if c), len(cjk)), all(cjk)


def _index_in_cjk(parts: Parts) -> _PartsIndex:
    return _PartsIndex(parts, True)


def recall_in(hypothesis: str, premise: str | Joined) -> tuple[float, bool]:
    """(recall of the hypothesis's content words in the premise, whether every number of the
    hypothesis is in the premise); a hypothesis without content words: (0.0, False)."""
    hw, hn = _content_words(hypothesis)
    if not hw:
        return 0.0, False
    if isinstance(premise, Joined):
        index = _index(premise)
        found = index.covered(hw, premise.ids)
        return found / len(hw), not hn or index.covered(hn, premise.ids) == len(hn)
    pw, pn = _content_words(premise)
    return recall(hw, pw), hn <= pn


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

    # the engine hands Joined premises over as they are (module docstring: read from parts)
    reads_parts = True
    read_parts = staticmethod(read_parts)

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        out = []
        for premise, hypothesis in pairs:
            prob, numbers = recall_in(hypothesis, premise)
            out.append(NLIResult(prob, prob >= self.threshold and numbers))
        return out
