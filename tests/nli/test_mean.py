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
    assert r.label is False  # "no" is the most probable level
    # the expected level is the weighted mean of the members' expected levels: (0.75 + 3·0.2) / 4
    assert r.expected == pytest.approx(0.3375)
    (r,) = MeanNLI([(three, 1.0), (two, 1.0)]).predict(PAIRS[:1])
    assert r.support == pytest.approx((0.4, 0.15, 0.45)) and r.label is False
    (r,) = MeanNLI([(three, 3.0), (two, 1.0)]).predict(PAIRS[:1])
    assert r.support == pytest.approx((0.5, 0.225, 0.275)) and r.label is True


def test_backend_fields():
    m = MeanNLI([(Fixed(NLIResult(1.0, True), name="a"), 1.0),
                 (Fixed(NLIResult(0.0, False), baseline=True, name="b"), 2.0)])
    assert m.model_id == "mean(a + b*2)" and m.is_baseline is False and m.batch_size == 8
    assert m.cost(("abc", "d")) == 3


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
