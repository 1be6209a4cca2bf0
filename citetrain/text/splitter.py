"""Sentence splitting: NLTK punkt where its data is installed (as ALCE and CiteEval did), else spaCy.

The splitter used is recorded in every report (:func:`splitter_name`).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable


_MARKS = re.compile(r"\[[\d,;\s]*\]")
_WORD = re.compile(r"\w")
_END = re.compile(r"[.!?…][\"'”’)]*$")


@lru_cache(maxsize=1)
def _punkt() -> Callable[[str], list[str]] | None:
    try:
        import nltk

        nltk.sent_tokenize("A test. Another one.")
    except (ImportError, LookupError, OSError):
        return None
    return nltk.sent_tokenize


def _spacy_split(text: str) -> list[str]:
    return list(_spacy_split_cached(text))


@lru_cache(maxsize=1 << 16)
def _spacy_split_cached(text: str) -> tuple[str, ...]:
    """The parser's sentences, repaired; cached per process, since one response is split by
    several stages (building, pairing, refining, each metric)."""
    from citetrain.text.spacy_model import load_spacy

    doc = load_spacy()(text)
    spans = [(s.start_char, s.end_char) for s in doc.sents if s.text.strip()]
    merged: list[list[int]] = []
    for start, end in spans:
        # spaCy may cut "... glass [1]." after "glass": a piece without words joins the one before;
        # it also cuts "made in 2016 [1] and sold ..." before "[1]": a piece opening with a mark
        # joins the one before unless that one ends a sentence (".", "!", "?")
        piece = text[start:end]
        prev = _MARKS.sub("", text[merged[-1][0]:merged[-1][1]]).rstrip() if merged else ""
        # and it cuts inside sentences ("north [3]" | ", and the lake ...", "by Sabra" | "Ostmont."):
        # a piece after one that does not end a sentence joins it, unless a line break separates them
        cont = (bool(prev) and not _END.search(prev)
                and "\n" not in text[merged[-1][1]:start])
        if merged and (not _WORD.search(_MARKS.sub("", piece))
                       or (_MARKS.match(piece) and not _END.search(prev)) or cont):
            merged[-1][1] = end
        else:
            merged.append([start, end])
    return tuple(text[a:b].strip() for a, b in merged)


def splitter_name(prefer: str = "auto") -> str:
    """``"nltk-punkt"`` or ``"spacy:<pipeline>"``: what :func:`split_sentences` uses."""
    if prefer in ("auto", "nltk") and _punkt() is not None:
        return "nltk-punkt"
    if prefer == "nltk":
        raise LookupError("NLTK punkt data is not installed (python -m nltk.downloader punkt_tab)")
    from citetrain.text.spacy_model import spacy_model_name

    return f"spacy:{spacy_model_name()}"


def split_sentences(text: str, prefer: str = "auto") -> list[str]:
    """Split ``text`` (citation marks kept) into sentences; empty text gives ``[]``."""
    if not text.strip():
        return []
    punkt = _punkt() if prefer in ("auto", "nltk") else None
    if punkt is not None:
        return [s for s in punkt(text) if s.strip()]
    if prefer == "nltk":
        raise LookupError("NLTK punkt data is not installed (python -m nltk.downloader punkt_tab)")
    return _spacy_split(text)
