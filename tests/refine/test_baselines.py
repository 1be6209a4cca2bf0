"""No-model refiners on hand-written passages: trivial (any shared content word), cover (greedy
cover of the statement's content words), and lexical (the pair refiner over content-word recall),
all loaded by name and all replacing marks through the refiners' own replacer."""
import pytest

from citetrain.records import Doc, Record
from citetrain.refine.baselines import cover_ids, trivial_ids, words
from citetrain.refine.generative import COUNT_KEYS
from citetrain.refine.load import load_refiner
from citetrain.text.marks import strip_marks

DOCS = [
    Doc(title="Bridge", text="The bridge opened to traffic in 1932."),      # 1932 bridg open
    Doc(title="Works", text="Its construction cost four million dollars."),  # cost dollar million
    Doc(title="River", text="The river floods in spring."),                 # flood river spring
    Doc(title="Money", text="Dollars are a currency."),                     # dollar
]
RECORD = Record(id="b", question="When did the bridge open?", docs=DOCS,
                output="The bridge opened in 1932 and cost four million dollars [3]. "
                       "The river floods in spring [4].")
# W("The bridge opened in 1932 and cost four million dollars") =
#   {bridg, open, 1932, cost, million, dollar} ("four" is an English stop word)


def test_words_are_the_lexical_nli_content_words():
    assert words("The bridge opened in 1932 and cost four million dollars.") == {
        "bridg", "open", "1932", "cost", "million", "dollar"}


def test_trivial_cites_every_passage_sharing_a_word():
    statement = {"bridg", "open", "1932", "cost", "million", "dollar"}
    passages = [words(f"{d.title} {d.text}") for d in DOCS]
    assert trivial_ids(statement, passages) == [1, 2, 4]


def test_cover_adds_the_passage_covering_most_new_words():
    # 1 and 2 cover 3 words each (tie: the lower id first); then 2 adds its 3 words; then nothing
    # is left, so 4 (which only repeats "dollar") is not added
    statement = {"bridg", "open", "1932", "cost", "million", "dollar"}
    assert cover_ids(statement, [words(f"{d.title} {d.text}") for d in DOCS]) == [1, 2]


def test_cover_stops_below_two_new_words_and_at_three_passages():
    statement = {"a1", "a2", "a3", "b1", "b2", "c1", "c2", "d1", "d2", "e1"}
    passages = [{"e1", "a1"}, {"a1", "a2", "a3"}, {"b1", "b2"}, {"c1", "c2"}, {"d1", "d2"}]
    # 2 adds 3 words; then 3, 4 and 5 add 2 each: the lower ids first, and the cap of 3 stops
    # there; without the cap 5 comes next, and 1 (only e1 left new) never does
    assert cover_ids(statement, passages) == [2, 3, 4]
    assert cover_ids(statement, passages, max_ids=5) == [2, 3, 4, 5]
    assert cover_ids({"x", "y"}, [{"x"}, {"y"}]) == []  # no passage adds 2 words


@pytest.mark.parametrize("name, kind, expected", [
    ("baseline:trivial", "baseline", "dollars [1][2][4]. The river floods in spring [3]."),
    ("baseline:cover", "baseline", "dollars [1][2]. The river floods in spring [3]."),
    # lexical P = shared / statement words: passages 1 and 2 share 3 of 6 (0.5 >= 0.5), 4 shares
    # 1 of 6; the second statement's 3 words are all in passage 3
    ("lexical", "pair", "dollars [1][2]. The river floods in spring [3]."),
])
def test_named_refiners_replace_the_marks(name, kind, expected):
    refiner = load_refiner(name)
    assert (refiner.kind, refiner.name) == (kind, name)
    counts = {}
    (out,), got = refiner.refine([RECORD], counts)
    assert out.output == "The bridge opened in 1932 and cost four million " + expected
    assert strip_marks(out.output) == strip_marks(RECORD.output)
    assert got is counts and set(COUNT_KEYS) <= set(counts) and counts["statements"] == 2


def test_every_named_baseline_loads_its_own_refine_function():
    from citetrain.refine.load import NAMED
    from citetrain.refine.spans import SpanOptions, spans_refine

    for name in (n for n, kind in NAMED.items() if kind == "baseline"):
        refiner = load_refiner(name)
        assert (refiner.kind, refiner.name) == ("baseline", name)
    (loaded,), _ = load_refiner("baseline:spans").refine([RECORD], {})
    (direct,), _ = spans_refine([RECORD], SpanOptions(), {})
    assert loaded.output == direct.output


def test_lexical_takes_the_pair_refiner_threshold_and_cap():
    (out,), _ = load_refiner("lexical", threshold=0.6).refine([RECORD], {})
    assert out.output == ("The bridge opened in 1932 and cost four million dollars. "
                          "The river floods in spring [3].")
    (out,), _ = load_refiner("lexical", max_ids=1).refine([RECORD], {})
    assert out.output.startswith("The bridge opened in 1932 and cost four million dollars [1].")
