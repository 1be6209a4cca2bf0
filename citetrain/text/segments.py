"""A statement's clause segments: the parts a judge can rate one by one.

A claim is partially supported when some of its facts are supported and others are not (WiCE's
"partially supported", Kamoi et al. 2023, rates claims by their sub-claims). A cross-encoder that
reads the whole claim against one window of evidence sees each fact only as well as the window
allows; rating the claim's clauses one by one, each against its own best evidence, counts how
much of it is supported. :func:`clause_segments` cuts a statement, without a parser, into
substrings:

1. **Breaks**: after a comma, semicolon or colon, and before the words ``and``, ``but``,
   ``while``, ``which``, ``who``, ``whereas``, ``although`` and ``where`` (lower case, as words).
2. **Merging**: a piece of fewer than ``min_words`` words (``\\w+`` runs) joins the segment
   before it; a piece that follows a segment still under ``min_words`` joins that segment. So no
   segment but a statement's only one is shorter than ``min_words``.
3. Each segment is the statement's own text from its first piece to its last, with spaces and
   ``, ; : .`` stripped from both ends. A statement that yields fewer than two segments is
   returned whole, as ``[statement]``.

Example: "Arnold is the publisher and editorial director of Media Play News, one of five
Hollywood trades." -> ["Arnold is the publisher", "and editorial director of Media Play News",
"one of five Hollywood trades"]. Segments need not be sentences: a judge reads each as a
hypothesis against the same premise (:mod:`citetrain.nli.clauses`).
"""
from __future__ import annotations

import re

# a whitespace break is matched from the start of its run only (a long run costs its length once)
BREAK = re.compile(
    r"[,;:]\s+|(?<!\s)\s+(?=(?:and|but|while|which|who|whereas|although|where)\s)")
WORD = re.compile(r"\w+")
STRIP = " ,;:."


def clause_segments(statement: str, min_words: int = 3) -> list[str]:
    """The clause segments of ``statement`` (module docstring), or ``[statement]`` when it has
    fewer than two."""
    if min_words < 1:
        raise ValueError(f"min_words must be at least 1, got {min_words}")
    spans, start = [], 0
    for m in BREAK.finditer(statement):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(statement)))
    merged: list[list[int]] = []  # [start, end] of each segment in the statement
    words: list[int] = []  # each segment's words: the sum of its pieces' (breaks hold no word)
    for a, b in spans:
        n = len(WORD.findall(statement[a:b]))
        if n == 0 and not merged:
            continue
        if merged and (n < min_words or words[-1] < min_words):
            merged[-1][1] = b
            words[-1] += n
        else:
            merged.append([a, b])
            words.append(n)
    segments = [s for s in (statement[a:b].strip(STRIP) for a, b in merged) if s]
    return segments if len(segments) > 1 else [statement]
