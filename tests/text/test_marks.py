"""Citation marks: ALCE's exact parsing and the general parser."""
from citetrain.text.marks import alce_ids, alce_remove, parse_marks, remove_marks, render_marks


def test_alce_ids_keep_duplicates_and_read_only_first_number_of_a_list():
    assert alce_ids("A [1][1] b [3].") == [1, 1, 3]
    assert alce_ids("Foo [1, 2].") == [1]  # ALCE's regex \[(\d+) sees only the 1


def test_alce_remove_matches_eval_py():
    # re.sub(r"\[\d+", "", re.sub(r" \[\d+", "", s)).replace(" |", "").replace("]", "")
    assert alce_remove("Cups are glass [1][2].") == "Cups are glass."
    assert alce_remove("Foo [1, 2].") == "Foo, 2."
    assert alce_remove("No marks.") == "No marks."


def test_parse_marks_groups_and_word_positions():
    st = parse_marks("Cups can be made of glass [1] or plastic [2][3].")
    assert st.text == "Cups can be made of glass or plastic."
    assert st.citations == (1, 2, 3)
    assert [(g.word_index, g.ids) for g in st.groups] == [(6, (1,)), (8, (2, 3))]


def test_parse_marks_comma_list_and_no_space_before_mark():
    st = parse_marks("Victoria became queen in 1837[3], while Anne ruled [1, 2].")
    assert st.text == "Victoria became queen in 1837, while Anne ruled."
    assert st.citations == (3, 1, 2)
    assert st.groups[0].word_index == 5 and st.groups[1].ids == (1, 2)


def test_leading_marks_attach_at_word_zero_and_no_marks():
    assert parse_marks("[2] Foo bar.").groups[0].word_index == 0
    st = parse_marks("No marks here.")
    assert st.citations == () and st.groups == () and st.text == "No marks here."


def test_remove_and_render():
    assert remove_marks("A [1] b [2][3].") == "A b."
    assert render_marks((1, 3)) == "[1][3]"


def test_word_index_counts_words_of_the_clean_text():
    # "Paris ," becomes "Paris," in the clean text: the mark follows 1 word, not 2
    st = parse_marks("Paris , [1] is nice [2].")
    assert st.text == "Paris, is nice."
    assert [g.word_index for g in st.groups] == [1, 3]
