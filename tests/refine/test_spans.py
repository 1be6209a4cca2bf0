"""The quote cover (``baseline:spans``) on hand-written passages: positions quoted as two-word
runs, the greedy cover over them, and the given ids kept as a prior when they quote as much."""
import pytest

from citetrain.records import Doc, Record
from citetrain.refine.baselines import cover_ids, words
from citetrain.refine.load import load_refiner
from citetrain.refine.spans import (SpanOptions, content_positions, quote_cover_ids,
                                    quoted_positions, spans_refine, tokens)
from citetrain.text.marks import strip_marks

STATEMENT = "The bridge opened in 1932 and cost four million dollars"
# tokens: the(0) bridge(1) opened(2) in(3) 1932(4) and(5) cost(6) four(7) million(8) dollars(9);
# content positions (the lexical NLI's content words; "four" is a stop word): 1 2 4 6 8 9
PASSAGES = ["The bridge opened in 1932.",               # bigrams the-bridge .. in-1932: 0-4
            "Building it cost four million dollars.",   # cost-four .. million-dollars: 6-9
            "cost 1932 dollars opened million bridge"]  # every content word, no two in a row


def toks():
    return [tokens(p) for p in PASSAGES]


def test_tokens_and_content_positions():
    assert tokens("It's the nor'easter, 20 May!") == ["it's", "the", "nor'easter", "20", "may"]
    assert content_positions(tokens(STATEMENT)) == {1, 2, 4, 6, 8, 9}


def test_quoted_positions_are_inside_shared_ngrams():
    s = tokens("the red fox jumps over the lazy dog")
    p = tokens("a red fox ran over the hill")
    assert quoted_positions(s, p, 2) == {1, 2, 4, 5}  # "red fox", "over the"
    assert quoted_positions(s, p, 3) == set()
    assert quoted_positions(s, p, 1) == {1, 2, 4, 5, 0}  # "the" (0 and 5) and "over" too


def test_the_cover_counts_quotes_not_shared_words():
    # passage 3 holds all six content words, so the bag-of-words cover cites it alone; it quotes
    # none of them, so the quote cover cites 1 ({1, 2, 4}) and 2 ({6, 8, 9}) instead
    assert cover_ids(words(STATEMENT), [words(p) for p in PASSAGES]) == [3]
    assert quote_cover_ids(STATEMENT, toks()) == [1, 2]


def test_min_new_and_max_ids():
    two = ["Crowds cheered as the bridge opened.", "cost four million dollars"]
    # 2 quotes {6, 8, 9}; then 1 adds only "bridge opened" = {1, 2}: 2 new positions, enough
    assert quote_cover_ids(STATEMENT, [tokens(p) for p in two]) == [1, 2]
    assert quote_cover_ids(STATEMENT, [tokens(p) for p in two], opts=SpanOptions(min_new=3)) == [2]
    assert quote_cover_ids(STATEMENT, toks(), opts=SpanOptions(max_ids=1)) == [1]  # tie: lower id
    with pytest.raises(ValueError):
        SpanOptions(n=0)


def test_given_ids_are_kept_when_they_quote_as_much():
    copy = toks() + [tokens("The bridge opened in 1932 to traffic.")]  # 4 quotes what 1 does
    three = SpanOptions(min_given=3)  # 1, 2 and 4 each quote three content positions
    assert quote_cover_ids(STATEMENT, copy) == [1, 2]
    assert quote_cover_ids(STATEMENT, copy, given=[4, 2], opts=three) == [2, 4]  # same positions
    assert quote_cover_ids(STATEMENT, copy, given=[2], opts=three) == [1, 2]     # misses 1, 2, 4
    assert quote_cover_ids(STATEMENT, copy, given=[1, 2, 3], opts=three) == [1, 2]  # 3 quotes none
    assert quote_cover_ids(STATEMENT, copy, given=[1, 2, 9], opts=three) == [1, 2]  # 9 out of range
    off = SpanOptions(use_given=False, min_given=3)
    assert quote_cover_ids(STATEMENT, copy, given=[4, 2], opts=off) == [1, 2]


def test_given_ids_must_each_quote_min_given_positions():
    whole = "Reports say the bridge opened in 1932 and cost four million dollars."
    ps = toks() + [tokens("The bridge opened in 1932 to traffic."), tokens(whole), tokens(whole)]
    # 5 and 6 quote all six content positions; the cover takes the lower id, the prior keeps 6
    assert quote_cover_ids(STATEMENT, ps) == [5]
    assert quote_cover_ids(STATEMENT, ps, given=[6]) == [6]
    # 4 and 2 quote three positions each (|Cov| = 3 < min_given = 4): not kept by default
    assert [len(quoted_positions(tokens(STATEMENT), p, 2) & {1, 2, 4, 6, 8, 9})
            for p in ps] == [3, 3, 0, 3, 6, 6]
    assert quote_cover_ids(STATEMENT, ps, given=[4, 2]) == [5]
    assert quote_cover_ids(STATEMENT, ps, given=[4, 2], opts=SpanOptions(min_given=3)) == [2, 4]
    with pytest.raises(ValueError):
        SpanOptions(min_given=0)


def test_refine_replaces_marks_only():
    rec = Record(id="r", question="q", docs=[Doc(title="", text=t) for t in PASSAGES],
                 output=f"{STATEMENT} [3]. Nothing here is quoted [1].")
    counts = {}
    (out,), got = spans_refine([rec], counts=counts)
    assert out.output == f"{STATEMENT} [1][2]. Nothing here is quoted."
    assert strip_marks(out.output) == strip_marks(rec.output)
    assert got is counts and counts["statements"] == 2
    (named,), _ = load_refiner("baseline:spans").refine([rec], {})
    assert named.output == out.output
