"""Token edits of a spaCy-parsed sentence, rendered back to tidy text (the claims of
:mod:`citetrain.builders.transforms` are made with these)."""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

Doc = Any  # spacy.tokens.Doc (spaCy is imported only where sentences are parsed)
Token = Any

_WORD = re.compile(r"\w+")
_END = re.compile(r"[.!?][\"'”’)]*$")


def n_words(text: str) -> int:
    """Word count (runs of letters and digits)."""
    return len(_WORD.findall(text))


def norm(text: str) -> str:
    """Lower-cased, spaces collapsed, final punctuation dropped: what "the same claim" compares."""
    return " ".join(text.lower().split()).rstrip(" .!?;:,")


def parsed(doc: Doc) -> bool:
    """Whether the sentence carries a dependency parse and one sentence root (remembered in
    the doc's ``user_data``)."""
    got = doc.user_data.get("citetrain.parsed")
    if got is None:
        got = bool(len(doc)) and doc.has_annotation("DEP") \
            and sum(t.dep_ == "ROOT" for t in doc) == 1
        doc.user_data["citetrain.parsed"] = got
    return got


def root(doc: Doc) -> Token:
    return next(t for t in doc if t.dep_ == "ROOT")


def subtree(tok: Token) -> set[int]:
    """Token indices of ``tok``'s subtree."""
    return {t.i for t in tok.subtree}


def keep_case(tok: Token) -> bool:
    """Whether a word keeps its capital away from the sentence start (names, "I", acronyms)."""
    return tok.pos_ == "PROPN" or tok.text == "I" or (len(tok.text) > 1 and tok.text.isupper()) \
        or (tok.ent_type_ in ("PERSON", "ORG", "GPE", "NORP", "LOC", "FAC", "EVENT")
            and tok.pos_ in ("NOUN", "ADJ", "X"))


def decap(text: str, tok: Token | None = None) -> str:
    """``text`` with its first letter lower-cased unless ``tok`` keeps its case."""
    if not text or (tok is not None and keep_case(tok)):
        return text
    return text[0].lower() + text[1:]


_CLEAN_START = re.compile(r"^[\"“'(]?[A-Z0-9]")
_NOISE = re.compile(r"[|#@<>{}\[\]_=*~^§]|https?:|www\.|\.com\b")


def is_clean(text: str) -> bool:
    """Whether ``text`` reads as one prose sentence: a capital (or digit) first, final
    punctuation, no markup or urls, and words made of letters for the most part (web pages
    give menus, tables and cut-off text, which make poor claims)."""
    words = text.split()
    if not words or not _CLEAN_START.match(text) or not _END.search(text) or _NOISE.search(text) \
            or text.count("(") != text.count(")") or text.count('"') % 2:
        return False
    return sum(any(c.isalpha() for c in w) for w in words) >= 0.75 * len(words)


def fix_articles(text: str) -> str:
    """"a" / "an" agreeing with the next word's first letter (after words were dropped)."""
    def pick(m: re.Match) -> str:
        art, word = m.group(1), m.group(2)
        vowel = word[0].lower() in "aeiou" and \
            not word.lower().startswith(("uni", "use", "one", "eu"))
        new = "an" if vowel else "a"
        return (new.capitalize() if art[0].isupper() else new) + " " + word
    return re.sub(r"\b([Aa]n?) ([A-Za-z][a-z]+)", pick, text)


def tidy(text: str, end: str = ".") -> str:
    """Spaces and punctuation repaired after edits, first letter capitalised, ``end`` added when
    the text does not end a sentence."""
    t = " ".join(text.split())
    t = re.sub(r"\(\s*\)", "", t)
    t = re.sub(r"\s+([,.;:!?)\]])", r"\1", t)
    t = re.sub(r"([(\[])\s+", r"\1", t)
    for _ in range(3):
        t = re.sub(r"([,;:])\s*([,;:.!?])", r"\2", t)
    t = re.sub(r"^[\s,;:.)\]-]+", "", t)
    t = re.sub(r"[\s,;:(\[-]+$", "", t)
    t = " ".join(t.split())
    if not t:
        return ""
    t = t[0].upper() + t[1:]
    return t if _END.search(t) else t + end


def render(doc: Doc | Iterable[Token], drop: Iterable[int] = (), replace: Mapping[int, str] = {},
           before: Mapping[int, str] = {}, after: Mapping[int, str] = {}) -> str:
    """The sentence's tokens without ``drop``, with ``replace``d texts and words inserted
    ``before`` / ``after`` tokens (raw: :func:`tidy` it)."""
    gone = set(drop)
    parts = []
    for t in doc:
        if t.i in before:
            parts.append(before[t.i] + " ")
        if t.i not in gone:
            parts.append(replace.get(t.i, t.text))
            if t.i in after:
                parts.append(" " + after[t.i])
        parts.append(t.whitespace_)
    return "".join(parts)


def body(text: str) -> str:
    """A sentence without its final punctuation (to join it with another)."""
    return re.sub(r"[\s.!?;:,]+$", "", text.strip())


def join(first: str, second: Doc | str, style: str) -> str:
    """Two sentences as one claim: ``"A, and b."`` (``style`` ``"and"``) or ``"A; b."``
    (``"semicolon"``); ``second``'s first word is lower-cased unless it is a name."""
    if isinstance(second, str):
        rest = body(second)
        first_word = rest.split(" ", 1)[0].strip(",;:") if rest else ""
        if first_word.lower() in _function_words() and first_word != "I":
            rest = decap(rest)
    else:
        rest = decap(body(second.text), second[0]) if len(second) else ""
    if not rest:
        return ""
    glue = ", and " if style == "and" else "; "
    return tidy(body(first) + glue + rest)


def _function_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return ENGLISH_STOP_WORDS
