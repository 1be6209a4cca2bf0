"""A statement's clause segments (citetrain/text/segments.py), on hand-written statements."""
from __future__ import annotations

import pytest

from citetrain.text.segments import clause_segments


def test_breaks_at_commas_and_before_clause_words():
    s = "Arnold is the publisher and editorial director of Media Play News, one of five trades."
    assert clause_segments(s) == ["Arnold is the publisher", "and editorial director of Media Play News",
                                  "one of five trades"]
    s = "The bridge opened in 1932; it carries six lanes, which were widened later."
    assert clause_segments(s) == ["The bridge opened in 1932", "it carries six lanes",
                                  "which were widened later"]
    s = "She won the race while her team lost but nobody minded."
    assert clause_segments(s) == ["She won the race", "while her team lost", "but nobody minded"]


def test_short_pieces_join_their_neighbour():
    # "In 2010" (2 words) is too short alone: the next piece joins it, commas kept
    assert clause_segments("In 2010, he moved to Paris, where he met his wife.") == [
        "In 2010, he moved to Paris", "where he met his wife"]
    # "profits fell" (2 words) joins the segment before it: one segment, the statement whole
    assert clause_segments("Sales rose by 5%; profits fell.") == ["Sales rose by 5%; profits fell."]
    assert clause_segments("Sales rose by 5%; profits fell.", min_words=2) == [
        "Sales rose by 5%", "profits fell"]


def test_one_segment_gives_the_statement_whole():
    for s in ("He was born in 1950.", "Apples and pears", "", "Rome, Italy."):
        assert clause_segments(s) == [s]


def test_breaks_only_on_lower_case_words():
    # "And" opening a sentence and "Anderson" are not breaks
    s = "And Anderson sang the songs with Whoopi Goldberg."
    assert clause_segments(s) == [s]


def test_segments_are_the_statements_own_text():
    s = "The film, which premiered at Tribeca, follows his journey and centers on his father."
    parts = clause_segments(s)
    # "The film" (2 words) takes the relative clause after it
    assert parts == ["The film, which premiered at Tribeca", "follows his journey",
                     "and centers on his father"]
    assert all(p in s for p in parts)


def test_min_words_must_be_positive():
    with pytest.raises(ValueError, match="min_words"):
        clause_segments("a, b", min_words=0)
