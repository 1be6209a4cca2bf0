"""Coverage hints (:mod:`citetrain.nli.hints`): the statement's content words the premise lacks,
computed on the whole premise, read the same way in training and by the classifier backend."""
import pytest

from citetrain.nli.hints import SEPARATOR, covered_tenths, hinted, uncovered_words


def test_uncovered_words_by_hand():
    premise = "The cat sat on mats in 1999."
    # content words of the statement: cats (stem cat), sat, red, mats (stem mat), 1998, 1999;
    # "the", "on", "in", "and" are stop words; the premise has cat, sat, mat, 1999
    assert uncovered_words(premise, "The cats sat on red mats in 1998 and 1999.") == ["red", "1998"]
    assert uncovered_words(premise, "Cats sat.") == []
    assert uncovered_words("", "Red red RED dogs.") == ["red", "dogs"]  # once each, as written


def test_hinted_modes():
    pairs = [("The cat sat.", "The cat sat."), ("The cat sat.", "A dog sat.")]
    assert hinted(pairs, "none") == hinted(pairs, None) == ["The cat sat.", "A dog sat."]
    assert hinted(pairs, "uncovered") == ["The cat sat." + SEPARATOR + "none",
                                          "A dog sat." + SEPARATOR + "dog"]
    assert hinted(pairs, "coverage") == ["The cat sat. | covered: 10/10" + SEPARATOR + "none",
                                         "A dog sat. | covered: 5/10" + SEPARATOR + "dog"]
    with pytest.raises(ValueError, match="hint must be one of none, uncovered, coverage"):
        hinted(pairs, "all")


def test_covered_tenths_by_hand_is_lexical_recall_rounded():
    """``round(10·r)``, halves up, with ``r`` the lexical baseline's score of the same pair."""
    from citetrain.nli.lexical import LexicalNLI

    premise = "The cat sat on mats in 1999."
    cases = {  # statement: (distinct content words found, of)
        "The cats sat on red mats in 1998 and 1999.": (4, 6),  # cat sat mat 1999 / red 1998
        "Cats sat.": (2, 2),
        "Red dogs barked loudly.": (0, 4),
        "The cat sat in 1998.": (2, 3),  # 6.67 tenths -> 7
        "Cats sat on red dogs and 1998 mats.": (3, 6),  # exactly half: 5
        "The and of.": (0, 0),  # no content words: 0, as the lexical score
    }
    for statement, (found, of) in cases.items():
        want = int(10 * found / of + 0.5) if of else 0
        assert covered_tenths(premise, statement) == want, statement
        assert want == round(10 * LexicalNLI().predict([(premise, statement)])[0].prob + 1e-9)
    assert [covered_tenths(premise, s) for s in cases] == [7, 10, 0, 7, 5, 0]


def test_hint_counts_the_whole_premise_not_the_selected_part(tmp_path):
    """The word is found far past the ``max_length`` window: no hint names it, though the
    selected premise the model reads may not hold it."""
    from citetrain.nli.premises import select_premises

    class Tok:  # one token per word
        def __call__(self, texts, add_special_tokens=False, verbose=True):
            return {"input_ids": [t.split() for t in texts]}

        def num_special_tokens_to_add(self, pair=True):
            return 3

    premise = " ".join(f"w{i} ." for i in range(40)) + " zebra ."
    pairs = [(premise, "w1 zebra")]
    read = hinted(pairs, "uncovered")
    assert read == ["w1 zebra" + SEPARATOR + "none"]
    assert hinted([("w1 .", "w1 zebra")], "uncovered") == ["w1 zebra" + SEPARATOR + "zebra"]
    # the room left for the premise counts the hinted statement's length
    short = select_premises(pairs, Tok(), 16)[0]
    hinted_room = select_premises(pairs, Tok(), 16, read)[0]
    assert len(hinted_room.split()) < len(short.split()) <= 16 - 3 - 2
