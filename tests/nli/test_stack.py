"""A classifier's support stacked with lexical recall (citetrain/nli/stack.py)."""
from __future__ import annotations

import json
import math

import pytest

from citetrain.errors import CitetrainError
from citetrain.nli.classifier import ClassifierNLI
from citetrain.nli.lexical import LexicalNLI
from citetrain.nli.stack import CONFIG_KEY, Stack, fit_stack, model_feature
from tests.nli.tiny_models import build_bert_classifier

LABELS = ("not_supported", "partially_supported", "supported")


def test_model_feature_is_the_clipped_logit():
    assert model_feature(0.5) == 0.0
    assert model_feature(0.8) == pytest.approx(math.log(4))
    assert model_feature(1.0) == pytest.approx(math.log((1 - 1e-4) / 1e-4))
    assert model_feature(0.0) == pytest.approx(-math.log((1 - 1e-4) / 1e-4))


def test_support_by_hand():
    # P(>=1) = σ(0 + 1·logit(0.5) + 2·1) = σ(2); P(>=2) = σ(-1 + 0 + 1·1) = σ(0) = 0.5
    stack = Stack(partial=(0.0, 1.0, 2.0), full=(-1.0, 0.0, 1.0))
    full, partial, no = stack.support(0.5, 1.0)
    p1 = 1 / (1 + math.exp(-2))
    assert (full, partial, no) == pytest.approx((0.5, p1 - 0.5, 1 - p1))
    # crossing regressions never give a negative partial, and the three still sum to one
    full, partial, no = Stack(partial=(-5.0, 0.0, 0.0), full=(5.0, 0.0, 0.0)).support(0.3, 0.2)
    assert partial == 0.0 and full + no == pytest.approx(1.0)


def test_fit_separates_what_neither_feature_does_alone():
    # supported pairs have high model scores OR full recall; lexical alone and the model alone
    # each miss half of them, the stack ranks every supported pair above every unsupported one
    expected = [0.9, 0.2, 0.9, 0.2, 0.1, 0.15, 0.3, 0.25] * 5
    recall = [0.4, 1.0, 0.5, 0.9, 0.3, 0.35, 0.2, 0.45] * 5
    levels = [2, 2, 2, 2, 0, 0, 0, 0] * 5
    stack = fit_stack(expected, recall, levels, source="toy")
    scores = [stack.support(e, r)[0] for e, r in zip(expected, recall)]
    assert min(s for s, y in zip(scores, levels) if y) > max(s for s, y in zip(scores, levels) if not y)
    assert stack.pairs == 40 and stack.source == "toy"
    assert stack.partial == pytest.approx(stack.full)  # two levels: one fit serves both cuts
    with pytest.raises(ValueError, match="one class"):
        fit_stack([0.1, 0.2], [0.5, 0.6], [0, 0])


def test_config_round_trip_and_tag():
    stack = Stack(partial=(0.1, 0.2, 0.3), full=(0.4, 0.5, 0.6), pairs=7, source="calibration")
    back = Stack.from_config(json.loads(json.dumps(stack.to_config())))
    assert back == stack and back.tag == stack.tag
    assert Stack(partial=(0.1, 0.2, 0.3), full=(0.4, 0.5, 0.7)).tag != stack.tag
    with pytest.raises(ValueError, match="not a stack"):
        Stack.from_config({"partial": [1, 2, 3]})


def test_the_classifier_backend_reads_a_saved_stack(tmp_path):
    path = build_bert_classifier(tmp_path / "judge", LABELS)
    pairs = [("Paris is the capital of France.", "Paris is the capital."),
             ("The river is long.", "Lakes are deep.")]
    plain = ClassifierNLI(str(path), device="cpu")
    raw = plain.predict(pairs)
    stack = Stack(partial=(-1.0, 0.5, 3.0), full=(-2.0, 0.7, 2.5), pairs=10, source="t")
    cfg = json.loads((path / "config.json").read_text())
    (path / "config.json").write_text(json.dumps({**cfg, CONFIG_KEY: stack.to_config()}))
    stacked = ClassifierNLI(str(path), device="cpu")
    assert f"+stack-{stack.tag}" in stacked.revision  # the cache keeps stacked answers apart
    recall = [r.prob for r in LexicalNLI().predict(pairs)]
    assert recall == [1.0, 0.0]
    for got, r, x in zip(stacked.predict(pairs), raw, recall):
        want = stack.support(r.expected, x)
        assert got.support == pytest.approx(want)
        assert got.prob == pytest.approx(want[0]) and got.label == (want[0] >= 0.5)
        assert got.expected == pytest.approx(want[0] + want[1] / 2)
    # stacked=False reads the model alone, under the plain revision
    alone = ClassifierNLI(str(path), device="cpu", stacked=False)
    assert "+stack-" not in alone.revision
    for got, r in zip(alone.predict(pairs), raw):  # element by element: approx takes no nesting
        assert got.support == pytest.approx(r.support)
    (path / "config.json").write_text(json.dumps({**cfg, CONFIG_KEY: {"full": [1]}}))
    with pytest.raises(CitetrainError, match="not a stack"):
        ClassifierNLI(str(path), device="cpu")
