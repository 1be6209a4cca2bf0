"""Lenient recall and subset precision (Generate-then-Refine §3.2) against hand-computed values.

TableNLI entails a hypothesis iff the premise contains every phrase of one listed set; φ(S) below
is that decision for the docs of S joined in citation order, φ(∅) = 0.
"""
from __future__ import annotations

import pytest

from citetrain.metrics.alce import alce
from citetrain.metrics.lenient import lenient
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record
from tests.nli_table import TableNLI

A, B, C, D = "alpha fact", "beta fact", "gamma fact", "delta fact"


def docs(*texts: str) -> list[Doc]:
    return [Doc(title=f"T{i}", text=t) for i, t in enumerate(texts, 1)]


def engine(table: dict) -> NLIEngine:
    return NLIEngine(TableNLI(table), progress=False)


def test_uncited_statements_no_marks_and_out_of_range():
    rec = Record(id="r", docs=docs(A, B),
                 output="Paris is in France [1]. The sky is blue. Grass is green. Water is wet [7].")
    table = {"Paris is in France.": [{A}], "Grass is green.": [{B}], "Water is wet.": [{A}]}
    res = lenient([rec], engine(table))
    paris, sky, grass, water = res.per_statement
    # sky: uncited and doc1+doc2 do not entail it -> left out of recall
    assert (sky["recall"], sky["flag"]) == (None, "uncited_unsupported")
    # grass: uncited but all docs entail it (doc 2) -> recall 0, kept
    assert (grass["recall"], grass["flag"]) == (0, "uncited_supported")
    # [7] with 2 docs: recall 0, no citation counted
    assert (water["recall"], water["counted_citations"], water["flag"]) == (0, 0, "out_of_range")
    assert (paris["recall"], paris["relevant_citations"]) == (1, 1)
    # recall 1 / 3 kept statements; precision 1/1
    assert res.scores["lenient_rec"] == pytest.approx(100 / 3)
    assert res.scores["lenient_prec"] == pytest.approx(100.0)
    assert res.info["statements_left_out"] == 1 and res.info["statements_in_recall"] == 3
    # ALCE counts the unsupported uncited sentence as 0: recall 1/4
    assert alce([rec], engine(table)).scores["citation_rec"] == pytest.approx(25.0)


def test_comma_marks_duplicates_and_cut():
    rec = Record(id="r", docs=docs(A, B, C, D),
                 output="Dogs bark [1, 2]. Cats purr [1][1]. Rome is in Italy [1][2][3][4].")
    table = {"Dogs bark.": [{B}], "Cats purr.": [{A}], "Rome is in Italy.": [{D}]}
    res = lenient([rec], engine(table))
    dogs, cats, rome = res.per_statement
    # [1, 2] gives C = (1, 2) and a mark-free hypothesis; φ(1)=0, φ(2)=1, φ(12)=1 -> recall 1;
    # 1: C'=∅ fails (φ(1)=0), C'={2} has φ=1 -> irrelevant; 2: alone -> relevant: 1 of 2
    assert dogs["citations"] == [1, 2] and dogs["hypothesis"] == "Dogs bark."
    assert (dogs["recall"], dogs["relevant_citations"], dogs["counted_citations"]) == (1, 1, 2)
    # [1][1] is the set C = (1,): recall 1, 1 of 1
    assert cats["citations"] == [1] and cats["relevant_citations"] == 1
    # four ids cut to (1, 2, 3): doc 4 dropped -> recall 0, 0 of 3
    assert rome["citations"] == [1, 2, 3] and (rome["recall"], rome["relevant_citations"]) == (0, 0)
    # recall 2/3, precision (1 + 1 + 0) / (2 + 1 + 3) = 2/6
    assert res.scores["lenient_rec"] == pytest.approx(200 / 3)
    assert res.scores["lenient_prec"] == pytest.approx(100 / 3)
    # ALCE reads "[1, 2]" as id 1 with hypothesis "Dogs bark, 2." (not in the table) -> 0
    assert alce([rec], engine(table)).per_statement[0]["recall"] == 0


def test_redundant_sufficient_and_identical_docs_vs_alce():
    rec = Record(id="r", docs=docs(A, B, "same fact", "same fact", "extra fact"),
                 output="Bees make honey [1][2]. Ants build nests [1][2]. Moles dig tunnels [3][4][5].")
    table = {"Bees make honey.": [{A}], "Ants build nests.": [{A}, {B}],
             "Moles dig tunnels.": [{"same fact", "extra fact"}]}
    res = lenient([rec], engine(table))
    bees, ants, moles = (r["relevant_citations"] for r in res.per_statement)
    # Bees: 2 alone fails and its only C'={1} already entails -> irrelevant (as ALCE): 1 of 2
    assert bees == 1
    # Ants: each alone entails: 2 of 2 (ALCE: 2 of 2 too)
    assert ants == 2
    # Moles: 3 with C'={5}: φ(5)=0, φ(3,5)=1 -> relevant; 4 likewise; 5 with C'={3}: φ(3)=0,
    # φ(3,5)=1 -> relevant: 3 of 3, where ALCE gives 1 of 3 (3 and 4 "irrelevant")
    assert moles == 3
    # precision (1 + 2 + 3) / 7 = 6/7, ALCE (1 + 2 + 1) / 7 = 4/7
    assert res.scores["lenient_prec"] == pytest.approx(600 / 7)
    assert alce([rec], engine(table)).scores["citation_prec"] == pytest.approx(400 / 7)


def test_per_record_and_micro_aggregation():
    recs = [Record(id="a", docs=docs(A, B), output="Paris is in France [1]. The sky is blue."),
            Record(id="b", docs=docs(A, B, C),
                   output="Bees make honey [1][2]. Ants build nests [3]. Water is wet [2]."),
            Record(id="c", docs=docs(A), output="The sky is blue."),
            Record(id="e", docs=docs(A), output="")]
    table = {"Paris is in France.": [{A}], "Bees make honey.": [{A}], "Water is wet.": [{B}]}
    res = lenient(recs, engine(table))
    # a: Paris 1 (1 of 1); sky left out -> recall 1/1, precision 1/1
    # b: Bees φ(1)=1 -> 1, relevant {1} (2 is redundant) 1 of 2; Ants φ(3)=0 -> 0, 0 of 1;
    #    Water 1, 1 of 1 -> recall 2/3, precision 2/4
    # c: its only statement is left out -> no recall; no citations -> precision 0
    # e: empty output, skipped
    assert res.per_record == [
        {"id": "a", "lenient_rec": 1.0, "lenient_prec": 1.0},
        {"id": "b", "lenient_rec": pytest.approx(2 / 3), "lenient_prec": 0.5},
        {"id": "c", "lenient_rec": None, "lenient_prec": 0.0},
    ]
    # per record: rec = (1 + 2/3) / 2 = 83.33 (c left out); prec = (1 + 1/2 + 0) / 3 = 50
    # F1 = 2*50*83.33/133.33 = 62.5
    assert res.scores["lenient_rec"] == pytest.approx(250 / 3)
    assert res.scores["lenient_prec"] == pytest.approx(50.0)
    assert res.scores["lenient_f1"] == pytest.approx(62.5)
    # micro: 3 of 4 kept statements entailed -> 75; 3 of 5 citations relevant -> 60;
    # F1 = 2*75*60/135 = 66.67
    assert res.scores["lenient_rec_micro"] == pytest.approx(75.0)
    assert res.scores["lenient_prec_micro"] == pytest.approx(60.0)
    assert res.scores["lenient_f1_micro"] == pytest.approx(200 / 3)
    assert res.info["records_left_out_of_recall"] == 1
    assert res.info["skipped_empty_output"] == 1 and res.info["skipped_ids"] == ["e"]


def test_one_engine_call_with_every_subset():
    recs = [Record(id="a", docs=docs(A, B, C), output="Moles dig tunnels [1][2][3]. The sky is blue."),
            Record(id="b", docs=docs(A, B), output="Bees make honey [2][1].")]
    table = {"Moles dig tunnels.": [{A, C}], "Bees make honey.": [{A}]}
    backend = TableNLI(table)
    eng = NLIEngine(backend, progress=False)
    res = lenient(recs, eng)
    # Moles: 7 non-empty subsets of (1,2,3); sky: 1 all-docs premise; Bees: 3 subsets of (2,1)
    assert eng.stats.requested == 11 and eng.stats.batches == 1
    assert ("Title: T2\nbeta fact\nTitle: T1\nalpha fact", "Bees make honey.") in backend.calls
    # Moles: 1 with C'={3} (φ(3)=0, φ(1,3)=1) relevant; 3 likewise; 2 never needed -> 2 of 3
    # Bees: 1 relevant alone; 2 irrelevant -> 1 of 2
    assert [r["relevant_citations"] for r in res.per_statement] == [2, 0, 1]
    with pytest.raises(ValueError):
        lenient(recs, eng, at_most_citations=0)
