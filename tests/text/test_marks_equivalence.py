"""The linear mark parser gives exactly what the original quadratic one gave, on any input.

The original implementation (a prefix rebuilt and re-tidied for every mark group) is kept here as
the oracle; :func:`parse_marks`, :func:`strip_marks` and ``_tidy`` must agree with it everywhere.
"""
from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citetrain.text.marks import (
    MARK,
    CitationGroup,
    Statement,
    _tidy,
    parse_marks,
    strip_marks,
)

_OLD_GROUP = re.compile(r"(?:\s*\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\])+")


def old_tidy(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[ \t]+([.,;:!?])", r"\1", text)).strip()


def old_parse_marks(sentence: str) -> Statement:
    """The original parser, verbatim but for names."""
    clean: list[str] = []
    groups: list[CitationGroup] = []
    pos = 0
    for m in _OLD_GROUP.finditer(sentence):
        clean.append(sentence[pos : m.start()])
        prefix = "".join(clean)
        ids = tuple(int(x) for g in MARK.findall(m.group(0)) for x in re.split(r"\s*[,;]\s*", g))
        tidy = old_tidy(prefix)
        groups.append(CitationGroup(len(tidy.split()), len(tidy), ids))
        after = sentence[m.end() : m.end() + 1]
        if prefix and not prefix[-1].isspace() and after and after.isalnum():
            clean.append(" ")
        pos = m.end()
    clean.append(sentence[pos:])
    text = old_tidy("".join(clean))
    cites = tuple(i for g in groups for i in g.ids)
    return Statement(text=text, citations=cites, groups=tuple(groups), raw=sentence)


PIECES = [
    "word", "Paris", "1837", "x", "é", "日本", "a-b", "(", ")", "'", '"',
    " ", " ", "  ", "\t", " \t ", "\n", "\r\n", "\u00a0", "\u2003", "\x1c", "\u3000",
    ".", ",", ";", ":", "!", "?", "…", "-",
    "[1]", "[2]", "[12]", "[1][2]", "[1, 2]", "[3;4]", "[ 5 ]", "[1 ,2 ; 3]", "[1]\t[2]",
    "[1] [2]", "[1]\n[2]", "[\t7\t]", "[0]",
    "[", "]", "[x]", "[1,", "[1,]", "[,1]", "[]", "[1 2]", "[[1]]", "[1]]", "[-1]",
]

pieces = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
texts = st.one_of(pieces, st.text(alphabet=" \t\n.,;:!?[]0123456789ab,\u00a0", max_size=40))


def _same(s: str) -> None:
    assert parse_marks(s) == old_parse_marks(s), repr(s)
    assert strip_marks(s) == _OLD_GROUP.sub("", s), repr(s)
    assert _tidy(s) == old_tidy(s), repr(s)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_parse_marks_matches_the_original(s: str) -> None:
    _same(s)


def test_parse_marks_matches_the_original_on_seeded_sentences() -> None:
    rng = random.Random(76)
    for _ in range(1500):
        _same("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40))))


def test_parse_marks_examples_match_the_original() -> None:
    for s in ["", " ", "[1]", " [1] ", "[1].", "a [1]b", "a[1]b", "a [1] .", "a \t[1]\t.",
              "a\n[1]\n.", "a , [1] b", "Paris , [1] is nice [2].", "[2] Foo bar.",
              "a [1][2] [3] b [4 ; 5].", "a.[1]b", "a [1]\u00a0. b", "x" + " " * 50 + "y",
              "word [1] " * 40, "a \n \t.[1]", "  [1]  [2]  ", "a [1], [2]; b"]:
        _same(s)
