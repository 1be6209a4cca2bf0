"""Several NLI backends read as one (citetrain/nli/mean.py): weighted mean of the support."""
from __future__ import annotations

import pytest

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIResult
from citetrain.nli.classifier import ClassifierNLI
from citetrain.nli.lexical import LexicalNLI
from citetrain.nli.mean import MeanNLI, parse_members
from citetrain.nli.registry import make_backend, make_engine
from tests.nli.tiny_models import build_bert_classifier

LABELS = ("not_supported", "partially_supported", "supported")
PAIRS = [("Paris is the capital of France.", "Paris is the capital."),
         ("The river is long.", "Lakes are deep."),
         ("The river is long and wide.", "The river is wide.")]


class Fixed:
    """A backend that answers every pair with one result."""

    def __init__(self, result: NLIResult, baseline: bool = False, name: str = "fixed") -> None:
        self.result, self.is_baseline = result, baseline
        self.model_id, self.revision, self.batch_size = name, "", 8

    def cost(self, pair):
        return len(pair[0])

    def predict(self, pairs):
        return [self.result for _ in pairs]


def test_members_and_weights_are_parsed():
    assert parse_members("classifier:a+lexical*3") == [("classifier:a", 1.0), ("lexical", 3.0)]
    assert parse_members("classifier:x*y+lexical") == [("classifier:x*y", 1.0), ("lexical", 1.0)]
    assert parse_members(" lexical + lexical:0.5*0.5 ") == [("lexical", 1.0), ("lexical:0.5", 0.5)]
    for bad, why in (("lexical", "two or more"), ("lexical+", "positive weight"),
                     ("lexical+lexical*0", "positive weight"), ("lexical*-1+lexical", "positive")):
        with pytest.raises(CitetrainError, match=why):
            parse_members(bad)


def test_weighted_mean_of_support_by_hand():
    three = Fixed(NLIResult(0.6, True, (0.6, 0.3, 0.1)))
    two = Fixed(NLIResult(0.2, False), baseline=True, name="two")  # read as (0.2, 0, 0.8)
    (r,) = MeanNLI([(three, 1.0), (two, 3.0)]).predict(PAIRS[:1])
    # ((0.6 + 3·0.2) / 4, 0.3 / 4, (0.1 + 3·0.8) / 4)
    assert r.support == pytest.approx((0.3, 0.075, 0.625))
    assert r.prob == pytest.approx(0.3)
    assert r.label is True  # the model decides: lexical recall moves the score only
    # the expected level is the weighted mean of the members' expected levels: (0.75 + 3·0.2) / 4
    assert r.expected == pytest.approx(0.3375)
    # decide="all": "no" is the most probable level of everyone's mean support
    (r,) = MeanNLI([(three, 1.0), (two, 3.0)], decide="all").predict(PAIRS[:1])
    assert r.support == pytest.approx((0.3, 0.075, 0.625)) and r.label is False
    (r,) = MeanNLI([(three, 1.0), (two, 1.0)], decide="all").predict(PAIRS[:1])
    assert r.support == pytest.approx((0.4, 0.15, 0.45)) and r.label is False
    (r,) = MeanNLI([(three, 3.0), (two, 1.0)], decide="all").predict(PAIRS[:1])
    assert r.support == pytest.approx((0.5, 0.225, 0.275)) and r.label is True


def test_the_models_decide_and_lexical_recall_only_scores():
    """One model: its own decision (here a threshold the argmax would not give); several: the
    most probable level of the models' mean support, baselines left out; baselines only: all."""
    low = Fixed(NLIResult(0.4, True, (0.4, 0.5, 0.1)), name="low")  # decided by a threshold
    no = Fixed(NLIResult(0.1, False, (0.1, 0.2, 0.7)), name="no")
    full = Fixed(NLIResult(0.9, True, (0.9, 0.05, 0.05)), name="full")
    lex1 = Fixed(NLIResult(1.0, True), baseline=True, name="l1")
    lex0 = Fixed(NLIResult(0.0, False), baseline=True, name="l0")
    assert MeanNLI([(low, 1.0), (lex0, 5.0)]).predict(PAIRS[:1])[0].label is True
    assert MeanNLI([(no, 1.0), (lex1, 5.0)]).predict(PAIRS[:1])[0].label is False
    assert MeanNLI([(no, 1.0), (lex1, 5.0)], decide="all").predict(PAIRS[:1])[0].label is True
    # models' mean (0.1·2 + 0.9) / 3 = 0.367 full against 0.483 no (weights 2 : 1): not full
    (r,) = MeanNLI([(no, 2.0), (full, 1.0), (lex1, 9.0)]).predict(PAIRS[:1])
    assert r.label is False and r.prob == pytest.approx((0.2 + 0.9 + 9.0) / 12)
    assert MeanNLI([(no, 1.0), (full, 2.0), (lex0, 9.0)]).predict(PAIRS[:1])[0].label is True
    assert MeanNLI([(lex1, 1.0), (lex0, 2.0)]).predict(PAIRS[:1])[0].label is False  # 1/3 vs 2/3
    assert MeanNLI([(lex1, 2.0), (lex0, 1.0)]).predict(PAIRS[:1])[0].label is True
    with pytest.raises(CitetrainError, match="decide must be"):
        MeanNLI([(no, 1.0), (lex1, 1.0)], decide="lexical")  # type: ignore[arg-type]
    assert MeanNLI([(no, 1.0), (lex1, 1.0)]).revision != MeanNLI([(no, 1.0), (lex1, 1.0)],
                                                                  decide="all").revision


def test_backend_fields():
    m = MeanNLI([(Fixed(NLIResult(1.0, True), name="a"), 1.0),
                 (Fixed(NLIResult(0.0, False), baseline=True, name="b"), 2.0)])
    assert m.model_id == "mean(a + b*2)" and m.is_baseline is False and m.batch_size == 8
    assert m.cost(("abc", "d")) == 3
    assert m.call_size == 8  # no member batches its own rows: a batch per call
    a, b = Fixed(NLIResult(1.0, True)), Fixed(NLIResult(0.0, False))
    a.call_size, b.batch_size = 128, 1024
    assert MeanNLI([(a, 1.0), (b, 1.0)]).call_size == 128  # the smallest member's


def test_a_judge_read_with_lexical_recall_is_their_mean(tmp_path):
    """``mean:classifier:J+lexical`` is one judge's (e + r) / 2 and ``mean:classifier:J+classifier:K``
    the ensemble's mean expected level, pair by pair, against the members read alone."""
    j = build_bert_classifier(tmp_path / "j", LABELS, seed=1)
    k = build_bert_classifier(tmp_path / "k", LABELS, seed=2)
    judge_j = ClassifierNLI(str(j), device="cpu").predict(PAIRS)
    judge_k = ClassifierNLI(str(k), device="cpu").predict(PAIRS)
    lexical = LexicalNLI().predict(PAIRS)
    hybrid = make_engine(f"mean:classifier:{j}+lexical", cache=False, progress=False,
                         device="cpu").results(PAIRS)
    assert [h.expected for h in hybrid] == pytest.approx(
        [(a.expected + r.prob) / 2 for a, r in zip(judge_j, lexical)])
    ensemble = make_engine(f"mean:classifier:{j}+classifier:{k}+lexical*2", cache=False,
                           progress=False, device="cpu").results(PAIRS)
    assert [e.expected for e in ensemble] == pytest.approx(
        [((a.expected + b.expected) / 2 + r.prob) / 2 for a, b, r in zip(judge_j, judge_k, lexical)])
    assert all(e.support is not None and sum(e.support) == pytest.approx(1.0) for e in ensemble)


def test_registry_errors_and_lexical_members():
    with pytest.raises(CitetrainError, match="two or more"):
        make_backend("mean:lexical")
    with pytest.raises(CitetrainError, match=r"e\.g\. mean:classifier:PATH\+lexical"):
        make_backend("mean:")
    with pytest.raises(CitetrainError, match="unknown NLI"):
        make_backend("mean:lexical+nosuchkind:x")
    m = make_backend("mean:lexical+lexical:0.5")
    assert m.is_baseline is True
    (r,) = m.predict([("The river is long.", "The river is wide.")])  # recall 1/2 for both
    assert r.expected == pytest.approx(0.5)



class Strict:
    """A model-like backend (not a baseline): full support where lexical recall is at least 0.9."""

    is_baseline = False
    model_id, revision, batch_size = "strict", "", 8

    def cost(self, pair):
        return len(pair[0])

    def predict(self, pairs):
        return [NLIResult(0.8, True, (0.8, 0.1, 0.1)) if r.prob >= 0.9
                else NLIResult(0.2, False, (0.2, 0.3, 0.5)) for r in LexicalNLI().predict(pairs)]


def test_the_judge_read_with_lexical_recall_searches_as_the_model_alone():
    """The CiteEval judge's rounds act on decisions only, so the model read with lexical recall
    asks exactly the pairs the model alone asks and finds the same contexts and supporting
    subsets; counted as a voter (``decide="all"``), lexical recall makes it search more."""
    from citetrain.judges.nli import NLIJudge
    from citetrain.nli.engine import NLIEngine
    from citetrain.synth.records import synth_records

    records = synth_records(6, seed=1)
    found = {}
    for name, backend in (("alone", Strict()), ("mean", MeanNLI([(Strict(), 1.0), (LexicalNLI(), 1.0)])),
                          ("all", MeanNLI([(Strict(), 1.0), (LexicalNLI(), 1.0)], decide="all"))):
        engine = NLIEngine(backend, cache=None, progress=False)
        rows = NLIJudge(engine, union_first=True).score(records, progress=False).result.per_statement
        found[name] = (engine.stats.model_pairs, [(r["context"], r["support"]) for r in rows])
    assert found["alone"] == found["mean"]
    assert any(sup for _, sup in found["alone"][1])  # some statements are supported
    assert found["all"][0] > found["alone"][0]
