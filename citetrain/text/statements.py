"""Responses to statements: first line (ALCE), sentences, citation groups."""
from __future__ import annotations

from citetrain.text.languages import AUTO
from citetrain.text.marks import Statement, parse_marks
from citetrain.text.splitter import split_sentences


def first_line(output: str) -> str:
    """ALCE's answer preprocessing: strip, keep up to the first newline, drop ``<|im_end|>``."""
    return output.strip().split("\n")[0].replace("<|im_end|>", "")


def sentences(output: str, first_line_only: bool = True, language: str | None = AUTO
              ) -> list[str]:
    """Sentences of a response with their marks; ALCE cuts at the first newline. ``language``:
    :func:`~citetrain.text.splitter.split_sentences`'s (``"auto"`` detects Chinese and
    Japanese)."""
    text = first_line(output) if first_line_only else output.strip()
    return split_sentences(text, language=language)


def statements(output: str, first_line_only: bool = True, language: str | None = AUTO
               ) -> list[Statement]:
    """The response as :class:`Statement` objects (general mark parser)."""
    return [parse_marks(s) for s in sentences(output, first_line_only, language)]
