"""The lexical baseline NLI."""
import pytest

from citetrain.nli.engine import NLIEngine
from citetrain.nli.lexical import LexicalNLI, content_words


def test_content_words_drop_stop_words_and_stem():
    words, numbers = content_words("The cats were sitting on 3 mats in 1,999.")
    assert {"cat", "sit", "mat", "3", "1999"} <= words and numbers == {"3", "1999"}
    assert "the" not in words and "on" not in words


def test_content_words_are_computed_once_per_text_and_frozen():
    text = "A passage that a judge reads against many statements."
    first = content_words(text)
    assert content_words(text) is first  # cached: the same sets, not recomputed
    assert isinstance(first[0], frozenset) and isinstance(first[1], frozenset)
    with pytest.raises(AttributeError):
        first[0].add("x")  # so that no caller can change another's


def test_recall_and_numbers():
    nli = LexicalNLI(threshold=0.7)
    full, part, wrong_number, empty = nli.predict([
        ("The cat sat on the mat in 1999.", "A cat sat on a mat in 1999."),  # cat sat mat 1999: 4/4
        ("The cat sat.", "The cat sat on a mat."),                           # cat sat / cat sat mat: 2/3
        ("The cat sat on the mat in 1998.", "A cat sat on a mat in 1999."),  # 3/4, number missing
        ("Anything at all.", "."),                                           # no content words
    ])
    assert (full.prob, full.label) == (1.0, True)
    assert part.prob == pytest.approx(2 / 3) and not part.label
    assert wrong_number.prob == pytest.approx(0.75) and not wrong_number.label
    assert (empty.prob, empty.label) == (0.0, False)


def test_engine_labels_lexical_as_baseline_and_dedups():
    engine = NLIEngine(LexicalNLI())
    engine.entails([("a cat", "cat"), ("a cat", "cat"), ("dog", "cat")])
    assert "lexical baseline" in engine.name
    assert engine.stats.unique == 2 and engine.stats.model_pairs == 2


def test_bad_threshold():
    with pytest.raises(ValueError):
        LexicalNLI(threshold=0)
