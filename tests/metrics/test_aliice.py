"""ALiiCE (``semantics="paper"``) recall / precision on atomic claims and CVCP, against hand-computed
values.

Doc texts are distinct phrases; TableNLI entails a hypothesis (here: a claim) iff the premise holds
every phrase of one listed set. The claims are the paper's appendix D claims (tests/text/test_claims).
"""
from __future__ import annotations

from functools import partial

import pytest

from citetrain.metrics import aliice as aliice_module
from citetrain.metrics.aliice import sentence_cvcp
from citetrain.metrics.alce import alce
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record
from citetrain.text.marks import parse_marks
from tests.nli_table import TableNLI

# this file pins semantics="paper" (tests/metrics/test_aliice_authors.py: the released eval.py's)
aliice = partial(aliice_module.aliice, semantics="paper")

A, B, C, D = "alpha fact", "beta fact", "gamma fact", "delta fact"
CIGS = ("Some brands, such as Export As, come in packs of 25 [1][2], while standard packs typically "
        "contain 20 cigarettes [3].")
CIGS_1 = "Some brands, such as Export As, come in packs of 25"
CIGS_2 = "while standard packs typically contain 20 cigarettes"
GREY = ("In the plane crash on Grey's Anatomy, the characters who die are Dr. Lexie Grey [1][2] "
        "and Dr. Mark Sloan [3][9].")
GREY_1 = "In the plane crash on Greys Anatomy, the characters who die are Dr Lexie Grey and"


def docs(*texts: str) -> list[Doc]:
    return [Doc(title=f"T{i}", text=t) for i, t in enumerate(texts, 1)]


class CountingEngine(NLIEngine):
    """An engine that counts its calls (one per round expected)."""

    calls = 0

    def results(self, pairs):
        self.calls += 1
        return super().results(pairs)


def engine(table: dict) -> CountingEngine:
    return CountingEngine(TableNLI(table), progress=False)


def test_cvcp_all_marks_at_the_end_is_zero():
    # one group at the end: p = (1.0,) -> σ = 0
    assert sentence_cvcp(parse_marks("Paris is a big city [1][2].")) == 0.0
    # "[1] Paris ..." opens the sentence: p = (0,), μ = 0 -> guarded to 0
    assert sentence_cvcp(parse_marks("[1] Paris is big.")) == 0.0
    assert sentence_cvcp(parse_marks("No marks at all.")) is None


def test_cvcp_two_groups_by_hand():
    st = parse_marks("w1 w2 w3 [1][2] w4 w5 w6 w7 w8 w9 w10 [3].")
    # groups after word 3 and word 10 of 10: p = (0.3, 1.0), μ = 0.65, σ = 0.35, CV = 0.35 / 0.65
    assert sentence_cvcp(st) == pytest.approx(0.35 / 0.65)
    assert sentence_cvcp(st) == pytest.approx(0.538461538)
    # per mark: p = (0.3, 0.3, 1.0), μ = 1.6/3, deviations (-7/30, -7/30, 14/30),
    # σ = sqrt((49 + 49 + 196) / 900 / 3) = sqrt(294/2700) = 0.329983, CV = 0.618718
    assert sentence_cvcp(st, per_mark=True) == pytest.approx((294 / 2700) ** 0.5 / (1.6 / 3))


def test_cvcp_per_record_and_dataset():
    recs = [
        # sentence 1 CV = 0.35/0.65 (as above); sentence 2 uncited: not counted; sentence 3 CV 0
        Record(id="a", docs=docs(A, B, C),
               output="w1 w2 w3 [1] w4 w5 w6 w7 w8 w9 w10 [2]. Nothing here. Paris is big [3]."),
        # no marks at all: CVCP undefined, left out of the dataset mean
        Record(id="b", docs=docs(A), output="Nothing cited here."),
        Record(id="c", docs=docs(A), output="Rome is old [1]."),
    ]
    res = aliice(recs, engine({}))
    by_id = {r["id"]: r for r in res.per_record}
    assert by_id["a"]["cvcp"] == pytest.approx((0.35 / 0.65 + 0.0) / 2)
    assert by_id["b"]["cvcp"] is None and by_id["c"]["cvcp"] == 0.0
    # dataset: mean over a and c = (0.26923 + 0) / 2
    assert res.scores["cvcp"] == pytest.approx(0.35 / 0.65 / 4)
    assert res.info["cvcp_records"] == 2


def test_recall_and_precision_on_claims_by_hand():
    rec1 = Record(id="r1", docs=docs(A, B, C, D), output=CIGS + " The sky is blue.")
    rec2 = Record(id="r2", docs=docs(A, B, C), output=GREY)
    table = {CIGS_1: [{A}], CIGS_2: [{D}], GREY_1: [{A, B}], "The sky is blue.": [{B}]}
    eng = engine(table)
    res = aliice([rec1, rec2], eng)
    # r1: claim 1 ids (1,2): joint entails (A); 1 alone entails -> correct; 2 alone fails and (1)
    #     still entails -> irrelevant: 1 correct. claim 2 ids (3): C does not entail (needs D) ->
    #     recall 0, 1 counted, 0 correct. "The sky is blue." has no marks: recall 0, nothing counted.
    #     recall = (1 + 0 + 0) / 3, precision = 1 / 3
    # r2: claim 1 ids (1,2) needs A and B together: joint entails; 1 alone and 2 alone fail, and
    #     leaving either out fails -> both correct. claim 2 ids (3,9): 9 > 3 docs -> recall 0 and
    #     not counted. recall = 1/2, precision = 2/2
    by_id = {r["id"]: r for r in res.per_record}
    assert by_id["r1"]["aliice_rec"] == pytest.approx(1 / 3)
    assert by_id["r1"]["aliice_prec"] == pytest.approx(1 / 3)
    assert (by_id["r2"]["aliice_rec"], by_id["r2"]["aliice_prec"]) == (0.5, 1.0)
    rec_, prec_ = 100 * (1 / 3 + 1 / 2) / 2, 100 * (1 / 3 + 1) / 2  # 41.667, 66.667
    assert res.scores["aliice_rec"] == pytest.approx(rec_)
    assert res.scores["aliice_prec"] == pytest.approx(prec_)
    assert res.scores["aliice_f1"] == pytest.approx(2 * rec_ * prec_ / (rec_ + prec_))  # 51.282
    claims = res.per_statement[0]["claims"]
    assert [c["claim"] for c in claims] == [CIGS_1, CIGS_2]
    assert [(c["recall"], c["correct_citations"], c["counted_citations"]) for c in claims] == [
        (1, 1, 2), (0, 0, 1)]
    assert res.per_statement[1]["claims"][0]["flag"] == "no_marks"
    assert res.per_statement[2]["claims"][1]["flag"] == "out_of_range"
    # three rounds (joint, singles, leave-one-out), each one engine call for all records
    assert eng.calls == 3
    assert res.info["sent_split"] == 2 and res.info["claims_out_of_range"] == 1
    assert res.info["spacy_model"].startswith("en_core_web_sm")


def test_fallback_scores_the_whole_sentence_with_all_ids():
    rec = Record(id="r", docs=docs(A, B, C), output="Cups are glass [1] or plastic [2].")
    table = {"Cups are glass or plastic.": [{A, B}]}
    # max_words=4: the 5-word sentence falls back; the claim is the sentence with ids (1, 2);
    # joint entails, neither alone nor either leave-one-out does -> both correct
    res = aliice([rec], engine(table), max_words=4)
    assert res.per_statement[0]["fallback"] == "too_long"
    assert res.per_statement[0]["claims"][0]["citations"] == [1, 2]
    assert (res.scores["aliice_rec"], res.scores["aliice_prec"]) == (100.0, 100.0)
    assert res.info["fallbacks"] == {"too_long": 1}


def test_at_most_citations_applies_per_claim():
    rec = Record(id="r", docs=docs(A, B, C, D), output="Paris is big [1][2][3][4].")
    table = {"Paris is big.": [{D}]}
    # the 4th id is cut: (1,2,3) does not entail -> 0; with None all four entail jointly, D alone
    # entails -> correct, A, B, C fail alone and the rest still entails -> 1 of 4
    res = aliice([rec], engine(table))
    assert (res.scores["aliice_rec"], res.scores["aliice_prec"]) == (0.0, 0.0)
    res = aliice([rec], engine(table), at_most_citations=None)
    assert (res.scores["aliice_rec"], res.scores["aliice_prec"]) == (100.0, 25.0)
    with pytest.raises(ValueError):
        aliice([rec], engine(table), at_most_citations=0)


def test_single_group_sentences_agree_with_alce():
    # one group per sentence, at the end: every claim is the sentence, so ALiiCE = ALCE
    recs = [Record(id="x", docs=docs(A, B, C), output="Paris is big [1][2]. Rome is old [3]. Hi."),
            Record(id="y", docs=docs(A, B), output="Oslo is cold [2]."),
            Record(id="z", docs=docs(A), output="")]
    table = {"Paris is big.": [{A}], "Rome is old.": [{B}], "Oslo is cold.": [{B}]}
    ours, theirs = aliice(recs, engine(table)), alce(recs, engine(table))
    assert ours.scores["aliice_rec"] == pytest.approx(theirs.scores["citation_rec"])
    assert ours.scores["aliice_prec"] == pytest.approx(theirs.scores["citation_prec"])
    assert ours.info["skipped_ids"] == ["z"] and ours.info["fallbacks"] == {"single_group": 3}


def test_mid_sentence_marks_keep_the_sentence_whole():
    # spaCy cuts before a mark inside a sentence; the splitter joins such a piece back (ALiiCE
    # needs the whole sentence to find the claims), but not after a sentence-final period
    from citetrain.text.statements import sentences

    s = "It was released in 2016 [1] and it grossed a lot [2] in Europe."
    assert sentences(s) == [s]
    assert sentences("Paris is big. [1] Rome is old [2].") == ["Paris is big.", "[1] Rome is old [2]."]
