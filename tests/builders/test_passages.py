"""Splitting a build's passages into sentences, in one process or several."""
import pytest

from citetrain.builders.passages import split_all, split_passages

from .pairs_corpus import PASSAGES


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_split_in_processes_equals_split_in_one():
    texts = [f"Title: Page {k}\n{p}" for k, p in enumerate(PASSAGES)] + ["", "Too short."]
    one = split_passages(texts)
    assert split_all(texts, processes=2, chunk=3) == one == split_all(texts, processes=1, chunk=3)
    assert one[0][0] == "Page 0" and one[0][1][0] == "Marta Kowal was born in Lodz in 1961."
    assert one[-2:] == [("", ()), ("", ())]  # nothing, and a sentence under 3 words
