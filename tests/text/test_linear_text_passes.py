"""Text passes made linear give what their original (quadratic) versions gave, on any input.

The originals are kept here as oracles: clause segments, the spaCy splitter's repair of its cuts,
and the ALiiCE authors' parser's nearest matching token.
"""
from __future__ import annotations

import random
import re
import time
from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citetrain.text.claims_authors import nearest_match
from citetrain.text.segments import STRIP, WORD, clause_segments
from citetrain.text.splitter import _repair

_OLD_BREAK = re.compile(r"[,;:]\s+|\s+(?=(?:and|but|while|which|who|whereas|although|where)\s)")
_MARKS = re.compile(r"\[[\d,;\s]*\]")
_WORDY = re.compile(r"\w")
_END = re.compile(r"[.!?…][\"'”’)]*$")


def old_clause_segments(statement: str, min_words: int = 3) -> list[str]:
    spans, start = [], 0
    for m in _OLD_BREAK.finditer(statement):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(statement)))
    merged: list[list[int]] = []
    for a, b in spans:
        n = len(WORD.findall(statement[a:b]))
        if n == 0 and not merged:
            continue
        if merged and (n < min_words or
                       len(WORD.findall(statement[merged[-1][0]:merged[-1][1]])) < min_words):
            merged[-1][1] = b
        else:
            merged.append([a, b])
    segments = [s for s in (statement[a:b].strip(STRIP) for a, b in merged) if s]
    return segments if len(segments) > 1 else [statement]


def old_repair(text: str, spans: list[tuple[int, int]]) -> list[list[int]]:
    merged: list[list[int]] = []
    for start, end in spans:
        piece = text[start:end]
        prev = _MARKS.sub("", text[merged[-1][0]:merged[-1][1]]).rstrip() if merged else ""
        cont = bool(prev) and not _END.search(prev) and "\n" not in text[merged[-1][1]:start]
        if merged and (not _WORDY.search(_MARKS.sub("", piece))
                       or (_MARKS.match(piece) and not _END.search(prev)) or cont):
            merged[-1][1] = end
        else:
            merged.append([start, end])
    return merged


SEGMENT_WORDS = ["and", "but", "while", "which", "who", "where", "x", "word", "sandy", "1932",
                 " ", "  ", "\t", "\n", ", ", "; ", ": ", ",", ".", " and ", " \t and\t", "é"]
REPAIR_CHARS = "ab [1] [2,3] [ ] [x] ]. ! ? … \" ' ” ’ ) \n \t , ; 7"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(SEGMENT_WORDS), max_size=40).map("".join), st.integers(1, 4))
def test_clause_segments_match_the_original(statement: str, min_words: int) -> None:
    assert clause_segments(statement, min_words) == old_clause_segments(statement, min_words)


def _random_spans(rng: random.Random, n: int) -> list[tuple[int, int]]:
    cuts = sorted(rng.sample(range(n + 1), min(n + 1, rng.randint(0, 12))))
    spans = [(a, b) for a, b in pairwise(cuts) if rng.random() < 0.85]
    if spans and rng.random() < 0.1:  # overlapping or shrinking spans, which spaCy never gives
        a, b = spans[-1]
        spans.append((max(0, a - 2), max(0, b - 1)))
    return spans


def test_splitter_repair_matches_the_original() -> None:
    rng = random.Random(76)
    pieces = REPAIR_CHARS.split(" ") + [" ", "  ", "[", "]", "1", "\u2003", "٣"]
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        spans = _random_spans(rng, len(text))
        assert _repair(text, spans) == old_repair(text, spans), (text, spans)


def test_nearest_match_is_the_nearest_matching_token() -> None:
    rng = random.Random(7)
    texts_pool = ["a", "b", "ab", "", "ba", ",", "abc", "c", " "]
    for _ in range(5000):
        texts = [rng.choice(texts_pool) for _ in range(rng.randint(0, 9))]
        word, w = rng.choice(texts_pool), rng.randint(0, 14)
        hits = [i for i, t in enumerate(texts) if word in t or t in word]
        want = min(hits, key=lambda i: abs(i - w)) if hits else None
        assert nearest_match(texts, word, w) == want, (texts, word, w)


def _best(fn, arg, repeats: int = 3) -> float:
    out = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn(arg)
        out = min(out, time.perf_counter() - t)
    return out


def test_whitespace_runs_and_many_pieces_cost_their_length() -> None:
    """8× the input costs about 8× (a quadratic pass would cost 64×)."""
    def pieces(n: int) -> tuple[str, list[tuple[int, int]]]:
        text = "Foo bar. " + "[1] " * n
        return text, [(0, 8)] + [(9 + 4 * k, 12 + 4 * k) for k in range(n)]

    small, large = pieces(2000), pieces(16000)
    assert _best(lambda a: _repair(*a), large) / _best(lambda a: _repair(*a), small) < 20
    small_ws, large_ws = "a" + " " * 20_000 + "b", "a" + " " * 160_000 + "b"
    assert _best(clause_segments, large_ws) / _best(clause_segments, small_ws) < 20
