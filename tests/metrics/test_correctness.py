"""Correctness metrics (ALCE's str_em, ROUGE-Lsum, claims; sacrebleu BLEU-4) by hand."""
from __future__ import annotations

import pytest

from citetrain.metrics.correctness import (
    bleu4,
    claims_recall,
    correctness,
    normalize_answer,
    output_text,
    rouge_lsum,
    str_em,
)
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record
from tests.nli_table import TableNLI


def test_normalisation_and_output_text():
    assert normalize_answer("The  Cat's hat, an apple!") == "cats hat apple"
    rec = Record(id="r", output="  It was 1990 [1][2].\nParis [3].")
    assert output_text(rec) == "It was 1990."  # first line, ALCE's mark removal


def test_str_em():
    recs = [
        Record(id="a", output="It opened in 1990 [1]. The Eiffel Tower is tall.\nParis",
               qa_pairs=[{"short_answers": ["1990"]},
                         {"short_answers": ["the eiffel tower", "tour eiffel"]},
                         {"short_answers": ["Paris"]}]),  # Paris only on the second line
        Record(id="b", output="Barack Obama won.", answer=["Obama", "Barack H. Obama"]),
        Record(id="c", output="no gold here"),
    ]
    res = str_em(recs)
    # a: 2 of 3 qa pairs matched, not all -> hit 0; b: one qa pair of aliases, matched -> 1, 1
    assert [(r["id"], r["str_em"], r["str_hit"]) for r in res.per_record] == [
        ("a", pytest.approx(2 / 3), 0.0), ("b", 1.0, 1.0)]
    assert res.scores["str_em"] == pytest.approx(100 * (2 / 3 + 1) / 2)
    assert res.scores["str_hit"] == 50.0 and res.info["skipped_no_gold"] == 1


def test_rouge_lsum_best_reference():
    # hypothesis "the cat sat" vs "the cat sat on the mat": LCS 3, P = 3/3, R = 3/6,
    # F = 2 * 1 * 0.5 / 1.5 = 2/3; against "a dog barks" F = 0; the best reference counts
    rec = Record(id="r", output="The cat sat [1].", answer="unused",
                 annotations=[{"long_answer": "A dog barks."},
                              {"long_answer": "The cat sat on the mat."}])
    res = rouge_lsum([rec, Record(id="x", output="y")])
    assert res.per_record[0]["rouge_lsum"] == pytest.approx(2 / 3)
    assert res.scores["rouge_lsum"] == pytest.approx(200 / 3)
    assert res.info["skipped_no_gold"] == 1


def test_bleu4():
    # n-gram precisions 6/7, 5/6, 4/5, 3/4, hypothesis longer -> BP 1:
    # BLEU = (6/7 * 5/6 * 4/5 * 3/4) ** (1/4) = (3/7) ** 0.25 = 0.80911
    rec = Record(id="r", output="the cat sat on the mat today", answer="the cat sat on the mat")
    res = bleu4([rec])
    assert res.scores["bleu4"] == pytest.approx(100 * (3 / 7) ** 0.25)
    # several references per record, padded per stream: an exact match of one gives 100
    recs = [Record(id="a", output="a b c d e", answer=["x y z w", "a b c d e"]),
            Record(id="b", output="f g h i j", answer="f g h i j")]
    assert bleu4(recs).scores["bleu4"] == pytest.approx(100.0)


def test_claims_recall_one_engine_call():
    recs = [Record(id="a", output="Water boils at 100 degrees [1].",
                   claims=["Water boils.", "Ice melts."]),
            Record(id="b", output="Ice melts in the sun.", claims=["Ice melts."])]
    eng = NLIEngine(TableNLI({"Water boils.": [{"boils at 100"}], "Ice melts.": [{"Ice melts"}]}),
                    progress=False)
    res = claims_recall(recs, eng)
    # a: 1 of 2 claims entailed; b: 1 of 1 -> mean 0.75
    assert [r["claims_recall"] for r in res.per_record] == [0.5, 1.0]
    assert res.scores["claims_recall"] == 75.0
    assert (eng.stats.requested, eng.stats.batches) == (3, 1)  # all pairs in one request


def test_correctness_runs_what_gold_allows():
    recs = [Record(id="a", output="It was 1990.", qa_pairs=[{"short_answers": ["1990"]}],
                   claims=["It was 1990."])]
    res = correctness(recs)
    assert res.info["ran"] == ["str_em"]
    assert res.info["skipped"] == {"rouge_lsum": "no record has annotations or answer",
                                   "bleu4": "no record has answer",
                                   "claims": "no NLI engine given"}
    eng = NLIEngine(TableNLI({"It was 1990.": [{"1990"}]}), progress=False)
    res = correctness(recs, eng, which=("str_em", "claims"))
    assert res.scores == {"str_em": 100.0, "str_hit": 100.0, "claims_recall": 100.0}
    assert res.per_record == [{"id": "a", "str_em": 1.0, "str_hit": 1.0, "claims_recall": 1.0}]
    with pytest.raises(ValueError):
        correctness(recs, which=("bleu",))
