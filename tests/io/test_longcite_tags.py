"""LongCite's tagged answers: statements, merged citations, numbered sentences, malformed tags."""
from __future__ import annotations

import json

import pytest

from citetrain.errors import CitetrainError
from citetrain.io.formats import convert_longcite, detect_format
from citetrain.io.readers import read_records
from citetrain.text.longcite_tags import (
    TagError, context_sentences, parse_tagged_answer, sentences_from_list,
)

SENTS = sentences_from_list(["S0. ", "S1. ", "S2. ", "S3.", " S4.", " S5.", " S6."])


def test_statements_and_citations():
    answer = ("Intro text here.<statement>A claim.<cite>[0-0][1-1][3-9]</cite></statement>ok"
              "<statement>Second.<cite>[5-4][9-9]</cite></statement> Closing words here.")
    got = parse_tagged_answer(answer, SENTS)
    assert [(s["statement"], [(c["start_sentence_idx"], c["end_sentence_idx"], c["cite"])
                              for c in s["citation"]]) for s in got] == [
        ("Intro text here.", []),                          # free text over 5 characters
        ("A claim.", [(0, 1, "S0. S1. "), (3, 6, "S3. S4. S5. S6.")]),  # merged; 9 cut to 6
        ("Second.", []),                                   # reversed and out-of-range dropped
        (" Closing words here.", []),                      # "ok" (5 or fewer) left out
    ]
    assert got[1]["citation"][0]["start_char_idx"] == 0
    assert got[1]["citation"][0]["end_char_idx"] == len("S0. S1. ")


def test_at_most_three_citations():
    got = parse_tagged_answer("<statement>X.<cite>[0-0][2-2][4-4][6-6]</cite></statement>", SENTS)
    assert [c["start_sentence_idx"] for c in got[0]["citation"]] == [0, 2, 4]


@pytest.mark.parametrize("answer, message", [
    ("<statement>never closed", "never closed"),
    ("text</statement>", "outside a <statement>"),
    ("<statement>a<statement>b</statement>", "not closed before the next one"),
    ("<statement>a<cite>[1]</cite></statement>", "not \\[a-b\\] ranges"),
    ("<statement>a<cite>[1-2]</statement>", "not closed or not opened"),
])
def test_malformed_tags(answer, message):
    with pytest.raises(TagError, match=message):
        parse_tagged_answer(answer, SENTS)


def test_context_sentences_follow_longcite_numbering():
    context = "The first one is here. And a second one follows! 第三句话。第四句话？"
    sents = context_sentences(context)
    assert [s.text for s in sents] == ["The first one is here. ", "And a second one follows! ",
                                       "第三句话。", "第四句话？"]
    assert sents[1].start == len("The first one is here. ") and sents[-1].end == len(context)
    marked = context_sentences("<C0>Alpha. <C1>Beta.")
    assert [(s.text, s.start) for s in marked] == [("Alpha. ", 4), ("Beta.", 15)]


def test_raw_generation_becomes_a_record(tmp_path):
    item = {"idx": 3, "dataset": "hotpotqa", "query": "Who?",
            "context": "Alice wrote the book. Bob read the book twice. Carol sold the book.",
            "prediction": "<statement>Alice wrote it.<cite>[0-0]</cite></statement>"
                          "<statement>Carol sold it.<cite>[2-2]</cite></statement>"}
    assert detect_format(item) == "longcite"
    (rec,) = convert_longcite(item, "1")
    assert rec.output == "Alice wrote it [1]. Carol sold it [2]."
    assert [d.text for d in rec.docs] == ["Alice wrote the book. ", "Carol sold the book."]
    assert rec.longcite["statements"][1] == {"statement": "Carol sold it.", "citation": [
        {"start_sentence_idx": 2, "end_sentence_idx": 2, "cite": "Carol sold the book."}]}
    assert rec.dataset == "hotpotqa"
    bad = dict(item, prediction="<statement>Alice wrote it.<cite>[0-0]</cite>")
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps(item) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(CitetrainError, match=r"preds\.jsonl:2: field 'prediction'.*never closed"):
        read_records(path)
