"""``parse_marks`` costs about linear in the marks of a sentence: 16,000 marks against 2,000 take
about 8× (the old parser, which re-tidied the prefix at every mark, took 64×)."""
from __future__ import annotations

from citetrain.text.marks import parse_marks, strip_marks
from tests.scaling import scaling_ratio, seconds

BOUND = 20  # 8× the input: linear ~8, quadratic ~64


def _ratio(make, fn=parse_marks) -> float:
    small, large = make(2_000), make(16_000)
    return scaling_ratio(lambda: seconds(lambda: fn(small)), lambda: seconds(lambda: fn(large)),
                         BOUND)


def test_parse_marks_is_linear_in_the_marks_of_a_sentence():
    assert _ratio(lambda n: "word [1] " * n) < BOUND
    assert _ratio(lambda n: "Paris, [1][2] is nice [3, 4]; see\t[5] . " * (n // 4)) < BOUND


def test_parse_marks_is_linear_in_whitespace_runs_and_open_brackets():
    assert _ratio(lambda n: "a" + " \t" * (5 * n) + "b .") < BOUND
    assert _ratio(lambda n: "[1" + " " * (10 * n)) < BOUND
    assert _ratio(lambda n: "a" + " " * (10 * n) + "b", strip_marks) < BOUND


def test_the_positions_of_many_marks():
    st = parse_marks("word [1] " * 5000)
    assert [g.word_index for g in st.groups][:3] == [1, 2, 3] and st.groups[-1].word_index == 5000
    assert st.groups[-1].char == len(st.text) and st.citations == (1,) * 5000
