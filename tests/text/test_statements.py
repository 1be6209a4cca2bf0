"""Sentence splitting and statements."""
from citetrain.text.splitter import split_sentences, splitter_name
from citetrain.text.statements import first_line, sentences, statements


def test_first_line_cuts_at_newline_like_alce():
    assert first_line("  One [1]. Two.\nThree [2].<|im_end|>") == "One [1]. Two."


def test_marks_stay_with_their_sentence():
    got = sentences("Cups are glass [1]. Dr. Who is plastic [2][3]. Nope.")
    assert got == ["Cups are glass [1].", "Dr. Who is plastic [2][3].", "Nope."]


def test_statements_parse_each_sentence():
    sts = statements("Cups are glass [1]. Plates are not.")
    assert [s.citations for s in sts] == [(1,), ()]
    assert sts[1].text == "Plates are not."


def test_empty_output_has_no_sentences():
    assert split_sentences("   ") == [] and statements("") == []


def test_splitter_is_named():
    assert splitter_name().startswith("punkt:") and splitter_name("spacy").startswith("spacy:")


def test_mid_sentence_mark_before_a_comma_does_not_split():
    # spaCy cuts after "[3]," here; the splitter joins a piece that continues the sentence
    text = "The river flows north [3], and the lake is deep [1]. It rains [2]."
    assert split_sentences(text, prefer="spacy") == [
        "The river flows north [3], and the lake is deep [1].", "It rains [2]."]
