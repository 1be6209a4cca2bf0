"""A judge read on the whole statement and its clause segments (citetrain/nli/clauses.py)."""
from __future__ import annotations

import pytest

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIResult
from citetrain.nli.clauses import ClausesNLI
from citetrain.nli.registry import make_backend, make_engine

PREMISE = "Media Play News covers home entertainment. Arnold is its publisher."
TWO = "Arnold is the publisher of Media Play News, which is based in Paris."  # 2 segments
ONE = "Arnold is the publisher."


class ByStatement:
    """A three-way backend whose support is looked up by the hypothesis; records its batches."""

    def __init__(self, table: dict[str, tuple[float, float, float]], batch_size: int = 8,
                 two_way: bool = False) -> None:
        self.table, self.two_way = table, two_way
        self.model_id, self.revision, self.batch_size, self.is_baseline = "by", "r1", batch_size, False
        self.batches: list[int] = []

    def cost(self, pair):
        return len(pair[1])

    def predict(self, pairs):
        self.batches.append(len(pairs))
        if self.two_way:
            return [NLIResult(self.table[h][0], self.table[h][0] >= 0.5) for _, h in pairs]
        return [NLIResult(self.table[h][0], self.table[h][0] > 0.5, self.table[h]) for _, h in pairs]


TABLE = {TWO: (0.2, 0.6, 0.2),
         "Arnold is the publisher of Media Play News": (0.9, 0.1, 0.0),
         "which is based in Paris": (0.0, 0.2, 0.8),
         ONE: (0.7, 0.2, 0.1)}


def test_support_is_half_whole_half_segment_mean_by_hand():
    inner = ByStatement(TABLE)
    two, one = ClausesNLI(inner).predict([(PREMISE, TWO), (PREMISE, ONE)])
    # segments' mean (0.45, 0.15, 0.4); half of it and half of the whole (0.2, 0.6, 0.2)
    assert two.support == pytest.approx((0.325, 0.375, 0.3))
    assert two.expected == pytest.approx(0.5 * (0.2 + 0.3) + 0.5 * (0.95 + 0.1) / 2)
    assert two.prob == pytest.approx(0.325) and two.label is False  # partial is most probable
    assert one.support == pytest.approx((0.7, 0.2, 0.1)) and one.label is True  # one segment: whole
    assert ClausesNLI(inner).segments(TWO) == ["Arnold is the publisher of Media Play News",
                                                "which is based in Paris"]


def test_two_way_backend_counts_as_p_0_1_minus_p():
    (r,) = ClausesNLI(ByStatement(TABLE, two_way=True)).predict([(PREMISE, TWO)])
    # whole 0.2, segments 0.9 and 0.0: 0.5·0.2 + 0.5·0.45
    assert r.support == pytest.approx((0.325, 0.0, 0.675)) and r.expected == pytest.approx(0.325)


def test_asks_each_pair_once_in_batches_of_the_inner_size():
    inner = ByStatement(TABLE, batch_size=2)
    ClausesNLI(inner).predict([(PREMISE, TWO), (PREMISE, ONE), (PREMISE, TWO)])
    assert inner.batches == [2, 2]  # 4 distinct pairs: TWO, its 2 segments, ONE


def test_fields_and_cost():
    inner = ByStatement(TABLE)
    c = ClausesNLI(inner)
    assert c.model_id == "clauses(by@r1)" and c.revision == "v1-w3" and c.batch_size == 8
    assert c.is_baseline is False and c.call_size == 8
    inner.call_size = 64  # an inner backend that batches its own rows: so does the wrapper
    assert ClausesNLI(inner).call_size == 64
    assert c.cost((PREMISE, ONE)) == len(ONE)
    assert c.cost((PREMISE, TWO)) == len(TWO) + 42 + 23  # the whole and both segments
    with pytest.raises(AttributeError):
        c.not_an_attribute


def test_registry_kind_and_composition():
    b = make_backend("clauses:lexical")
    assert isinstance(b, ClausesNLI) and b.is_baseline and b.model_id.startswith("clauses(")
    lexical = make_engine("lexical", cache=False, progress=False)
    premise = "The bridge opened in 1932. It carries six lanes."
    hyp = "The bridge opened in 1932, and it was painted red by the city."
    whole, *segs = lexical.results([(premise, hyp), (premise, "The bridge opened in 1932"),
                                    (premise, "and it was painted red by the city")])
    (r,) = make_engine("clauses:lexical", cache=False, progress=False).results([(premise, hyp)])
    assert r.expected == pytest.approx(0.5 * whole.prob + 0.25 * (segs[0].prob + segs[1].prob))
    (m,) = make_engine("mean:clauses:lexical+lexical", cache=False, progress=False).results(
        [(premise, hyp)])
    assert m.expected == pytest.approx((r.expected + whole.prob) / 2)
    with pytest.raises(CitetrainError, match="clauses:classifier:PATH"):
        make_backend("clauses:")


def test_a_saved_classifier_read_clause_by_clause(tmp_path):
    import datasets

    from citetrain.nli.classifier import ClassifierNLI
    from citetrain.judge_training.card import heldout_figures
    from tests.nli.tiny_models import build_bert_classifier

    path = build_bert_classifier(tmp_path / "j", ("not_supported", "partially_supported",
                                                  "supported"), seed=3)
    premise = "Paris is the capital of France. The river is long."
    hyps = ["Paris is the capital of France, and the river is long.", "The river is long."]
    alone = ClassifierNLI(str(path), device="cpu")
    whole, seg1, seg2, short = alone.predict([(premise, hyps[0]),
                                              (premise, "Paris is the capital of France"),
                                              (premise, "and the river is long"),
                                              (premise, hyps[1])])
    engine = make_engine(f"clauses:classifier:{path}", cache=False, progress=False, device="cpu")
    r, s = engine.results([(premise, h) for h in hyps])
    assert r.expected == pytest.approx(0.5 * whole.expected
                                       + 0.25 * (seg1.expected + seg2.expected), abs=1e-6)
    assert s.expected == pytest.approx(short.expected, abs=1e-6)
    assert str(engine.backend.device) == "cpu"
    assert engine.truncated([(premise, h) for h in hyps]) == [False, False]
    # the card's held-out figures read through it (what experiments/judge_seeds.py --read clauses does)
    val = datasets.Dataset.from_dict({"premise": [premise] * 4, "hypothesis": hyps * 2,
                                      "label": [2, 0, 1, 0], "group": ["a", "b", "c", "d"],
                                      "source": ["wice:x"] * 4})
    held = heldout_figures(path, val, scores_to=tmp_path / "s.jsonl", model=engine)
    assert held["sources"][0]["source"] == "wice" and held["sources"][0]["claims"] == 4
    assert len((tmp_path / "s.jsonl").read_text().splitlines()) == 4
