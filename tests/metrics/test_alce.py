"""ALCE citation recall / precision against hand-computed values (TableNLI decides entailment).

Doc texts are distinct phrases ("alpha fact", ...); TableNLI entails a hypothesis iff the premise
contains every phrase of one listed set. Sentences are written so that Punkt (the default splitter) splits them plainly.
"""
from __future__ import annotations

import copy
import re

import pytest

from citetrain.metrics.alce import alce
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record
from citetrain.text.marks import alce_remove
from citetrain.text.statements import sentences
from tests.nli_table import TableNLI

A, B, C, D = "alpha fact", "beta fact", "gamma fact", "delta fact"


def docs(*texts: str) -> list[Doc]:
    return [Doc(title=f"T{i}", text=t) for i, t in enumerate(texts, 1)]


def engine(table: dict, batch_size: int = 64) -> NLIEngine:
    return NLIEngine(TableNLI(table, batch_size=batch_size), progress=False)


def rows(result, rid: str) -> list[dict]:
    return [r for r in result.per_statement if r["id"] == rid]


def test_no_marks_out_of_range_and_fourth_citation_dropped():
    rec = Record(id="r", docs=docs(A, B, C, D),
                 output="Paris is in France [1][2][3][4]. The sky is blue. Water is wet [9].")
    table = {"Paris is in France.": [{A}], "The sky is blue.": [{B}], "Water is wet.": [{A}]}
    res = alce([rec], engine(table))
    s = rows(res, "r")
    # Paris: ids (1,2,3) after the cut; joint entails; 1 alone entails -> correct; 2 and 3 fail
    # alone and (1,3) / (1,2) still entail -> irrelevant: 1 correct of 3 counted
    assert s[0]["citations"] == [1, 2, 3] and (s[0]["recall"], s[0]["correct_citations"]) == (1, 1)
    assert s[0]["counted_citations"] == 3 and s[0]["flag"] is None
    # no marks: recall 0 although doc 2 supports it, nothing counted
    assert (s[1]["recall"], s[1]["counted_citations"], s[1]["flag"]) == (0, 0, "no_marks")
    # [9] with 4 docs: recall 0, its citation not counted
    assert (s[2]["recall"], s[2]["counted_citations"], s[2]["flag"]) == (0, 0, "out_of_range")
    # recall 1/3, precision 1/3 -> 33.33 each, F1 33.33
    assert res.scores["citation_rec"] == pytest.approx(100 / 3)
    assert res.scores["citation_prec"] == pytest.approx(100 / 3)
    assert res.scores["citation_f1"] == pytest.approx(100 / 3)
    assert res.info["sent_no_marks"] == 1 and res.info["sent_out_of_range"] == 1
    # at_most_citations=None: 4 counted, only 1 correct -> precision 1/4
    res = alce([rec], engine(table), at_most_citations=None)
    assert res.scores["citation_prec"] == pytest.approx(25.0)


def test_fourth_citation_needed_but_dropped():
    rec = Record(id="r", docs=docs(A, B, C, D), output="Rome is in Italy [1][2][3][4].")
    table = {"Rome is in Italy.": [{D}]}
    # default cut (1,2,3) lacks doc 4: recall 0, 0 of 3 correct
    res = alce([rec], engine(table))
    assert (res.scores["citation_rec"], res.scores["citation_prec"]) == (0.0, 0.0)
    assert res.per_statement[0]["counted_citations"] == 3
    # all four: joint entails; 4 alone -> correct; 1, 2, 3 each irrelevant ((.., 4) entails) -> 1/4
    res = alce([rec], engine(table), at_most_citations=None)
    assert (res.scores["citation_rec"], res.scores["citation_prec"]) == (100.0, 25.0)


def test_duplicate_marks_and_comma_marks():
    rec = Record(id="r", docs=docs(A, B),
                 output="Cats purr [1][1]. Owls hoot [2][2]. Dogs bark [1, 2].")
    table = {"Cats purr.": [{A}], "Owls hoot.": [{A}],
             "Dogs bark, 2.": [{A}], "Dogs bark.": [{B}]}
    res = alce([rec], engine(table))
    cats, owls, dogs = res.per_statement
    # [1][1]: ids [1, 1] kept; premise doc1+doc1 entails; each copy entails alone -> 2 of 2
    assert cats["citations"] == [1, 1] and (cats["recall"], cats["correct_citations"]) == (1, 2)
    # [2][2]: joint doc2+doc2 does not entail -> recall 0, 0 of 2
    assert (owls["recall"], owls["correct_citations"], owls["counted_citations"]) == (0, 0, 2)
    # [1, 2]: ALCE reads only id 1 and the hypothesis keeps ", 2"; doc 1 entails it -> 1 of 1
    assert dogs["citations"] == [1] and dogs["hypothesis"] == "Dogs bark, 2."
    assert (dogs["recall"], dogs["correct_citations"]) == (1, 1)
    # recall 2/3; precision (2 + 0 + 1) / (2 + 2 + 1) = 3/5
    assert res.scores["citation_rec"] == pytest.approx(200 / 3)
    assert res.scores["citation_prec"] == pytest.approx(60.0)
    # two multi-cited sentences, one supported by its joint set, no overcite
    assert (res.info["sent_mcite"], res.info["sent_mcite_support"]) == (2, 1)
    assert res.info["sent_mcite_overcite"] == 0


def test_empty_outputs_are_skipped():
    recs = [Record(id="e1", docs=docs(A), output=""), Record(id="e2", docs=docs(A), output="  \n"),
            Record(id="r", docs=docs(A), output="Paris is in France [1].")]
    eng = engine({"Paris is in France.": [{A}]})
    res = alce(recs, eng)
    # only "r" is scored: recall 1, precision 1
    assert [r["id"] for r in res.per_record] == ["r"]
    assert res.scores == {"citation_rec": 100.0, "citation_prec": 100.0, "citation_f1": 100.0}
    assert res.info["skipped_empty_output"] == 2 and res.info["skipped_ids"] == ["e1", "e2"]
    # nothing to score: zeros and no model call
    eng = engine({})
    res = alce(recs[:2], eng)
    assert res.scores["citation_rec"] == 0.0 and eng.stats.requested == 0


def test_redundant_both_sufficient_and_identical_docs():
    rec = Record(id="r", docs=docs(A, B, "same fact", "same fact", "extra fact"),
                 output="Bees make honey [1][2]. Ants build nests [1][2]. Moles dig tunnels [3][4][5].")
    table = {"Bees make honey.": [{A}], "Ants build nests.": [{A}, {B}],
             "Moles dig tunnels.": [{"same fact", "extra fact"}]}
    res = alce([rec], engine(table))
    bees, ants, moles = res.per_statement
    # Bees: 1 entails alone (correct); 2 does not and (1) still entails -> irrelevant: 1 of 2
    assert bees["correct_citations"] == 1
    # Ants: both entail alone -> both correct
    assert ants["correct_citations"] == 2
    # Moles: no doc entails alone; without 3, (4,5) entails -> 3 irrelevant; without 4, (3,5)
    # entails -> 4 irrelevant; without 5, (3,4) lacks "extra fact" -> 5 correct: 1 of 3
    assert moles["correct_citations"] == 1 and moles["recall"] == 1
    # precision (1 + 2 + 1) / (2 + 2 + 3) = 4/7; 3 of the 7 citations overcite
    assert res.scores["citation_prec"] == pytest.approx(400 / 7)
    assert res.info["sent_mcite_overcite"] == 3


def test_uncited_unsupported_statement_counts_as_zero():
    rec = Record(id="r", docs=docs(A), output="Paris is in France [1]. The sky is blue.")
    res = alce([rec], engine({"Paris is in France.": [{A}]}))
    # the uncited sentence stays in the recall denominator: recall 1/2, precision 1/1
    assert res.per_record == [{"id": "r", "citation_rec": 0.5, "citation_prec": 1.0}]


def test_dataset_means_and_f1():
    recs = [Record(id="a", docs=docs(A, B), output="Paris is in France [1]. The sky is blue."),
            Record(id="b", docs=docs(A, B, C),
                   output="Bees make honey [1][2]. Ants build nests [3]. Water is wet [2].")]
    table = {"Paris is in France.": [{A}], "Bees make honey.": [{A}], "Water is wet.": [{B}]}
    res = alce(recs, engine(table))
    # a: recall 1/2, precision 1/1. b: Bees 1 (1 of 2 correct), Ants 0 (0 of 1), Water 1 (1 of 1)
    # -> recall 2/3, precision 2/4
    assert res.per_record[0]["citation_rec"] == pytest.approx(0.5)
    assert res.per_record[1]["citation_rec"] == pytest.approx(2 / 3)
    assert res.per_record[1]["citation_prec"] == pytest.approx(0.5)
    # rec = (1/2 + 2/3) / 2 = 58.33; prec = (1 + 1/2) / 2 = 75; F1 = 2*75*58.33/133.33 = 65.625
    assert res.scores["citation_rec"] == pytest.approx(175 / 3)
    assert res.scores["citation_prec"] == pytest.approx(75.0)
    assert res.scores["citation_f1"] == pytest.approx(65.625)


def test_zero_id_is_out_of_range_and_bad_cut_rejected():
    rec = Record(id="r", docs=docs(A), output="Paris is in France [0].")
    res = alce([rec], engine({"Paris is in France.": [{A}]}))
    assert res.per_statement[0]["flag"] == "out_of_range"
    with pytest.raises(ValueError):
        alce([rec], engine({}), at_most_citations=0)


# --- the rounds ask exactly what ALCE's loop asks ----------------------------------------------

def _eval_py_loop(records: list[Record], nli: TableNLI, at_most_citations: int = 3):
    """ALCE eval.py's compute_autoais (citation=True), one pair at a time, as written there."""
    asked: set[tuple[str, str]] = set()

    def run(premise: str, hyp: str) -> int:
        asked.add((premise, hyp))
        return int(nli.predict([(premise, hyp)])[0].label)

    def fmt(doc: Doc) -> str:
        return "Title: %s\n%s" % (doc.title, doc.text)

    ais, prec = [], []
    for item in records:
        sents = sentences(item.output)
        if not sents:
            continue
        targets = [alce_remove(s).strip() for s in sents]
        entail = entail_prec = total = 0
        for sent, target in zip(sents, targets):
            ref = [int(r[1:]) - 1 for r in re.findall(r"\[\d+", sent)]
            if not ref or any(r >= len(item.docs) for r in ref):
                flag = 0
            else:
                ref = ref[:at_most_citations]
                total += len(ref)
                flag = run("\n".join(fmt(item.docs[i]) for i in ref), target)
            entail += flag
            if flag and len(ref) > 1:
                for pid in ref:
                    ok = run(fmt(item.docs[pid]), target)
                    if not ok:
                        sub = copy.deepcopy(ref)
                        sub.remove(pid)
                        if not run("\n".join(fmt(item.docs[i]) for i in sub), target):
                            entail_prec += 1
                    else:
                        entail_prec += 1
            elif flag:
                entail_prec += flag
        ais.append(entail / len(sents))
        prec.append(entail_prec / total if total > 0 else 0)
    return asked, 100 * sum(ais) / len(ais), 100 * sum(prec) / len(prec)


def test_rounds_match_the_eval_py_loop():
    recs = [
        Record(id="a", docs=docs(A, B, C, D),
               output="Paris is in France [1][2][3][4]. The sky is blue. Water is wet [9]."),
        Record(id="b", docs=docs(A, B, "same fact", "same fact", "extra fact"),
               output="Bees make honey [1][2]. Ants build nests [2][1]. Moles dig tunnels [3][4][5]."),
        Record(id="c", docs=docs(A, B), output="Cats purr [1][1]. Dogs bark [1, 2]. Owls hoot [2][1][2]."),
        Record(id="d", docs=docs(A), output=""),
    ]
    table = {"Paris is in France.": [{A}], "The sky is blue.": [{B}], "Bees make honey.": [{A}],
             "Ants build nests.": [{A}, {B}], "Moles dig tunnels.": [{"same fact", "extra fact"}],
             "Cats purr.": [{A}], "Dogs bark, 2.": [{A}], "Owls hoot.": [{A}]}
    backend = TableNLI(table)
    eng = NLIEngine(backend, progress=False)
    res = alce(recs, eng)
    asked, rec, prec = _eval_py_loop(recs, TableNLI(table))
    assert set(backend.calls) == asked
    assert res.scores["citation_rec"] == pytest.approx(rec)
    assert res.scores["citation_prec"] == pytest.approx(prec)
    # one engine call per round: joint, single docs, leave-one-out -> 3 batches of <= 64 pairs
    assert eng.stats.batches == 3
