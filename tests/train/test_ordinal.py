"""The ordinal three-way head (:mod:`citetrain.train.ordinal`): the projection, the order it
imposes on the expected support level, and a run that keeps it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from citetrain.config import ConfigError
from citetrain.train.ordinal import make_ordinal, project, second_difference
from citetrain.train.recipe import validate_recipe
from tests.train.test_crossencoder import recipe_data, toy_rows, wice_oracle_rows, write_jsonl


def test_the_projection_removes_the_second_difference_and_nothing_else():
    import torch

    w = torch.tensor([[1.0, 0.0], [0.0, 3.0], [5.0, 0.0]])
    project(w)
    # second difference (6, -6) / 6 = (1, -1): rows (1-1, 0+1), (0+2, 3-2), (5-1, 0+1)
    assert torch.allclose(w, torch.tensor([[0.0, 1.0], [2.0, 1.0], [4.0, 1.0]]))
    assert torch.allclose(second_difference(w), torch.zeros(2))
    before = w.clone()
    project(w)  # already ordinal: unchanged
    assert torch.equal(w, before)
    # what all rows share and the slope are kept: W_k = a + k·w
    a, slope = torch.tensor([0.5, -1.0]), torch.tensor([2.0, 0.25])
    line = torch.stack([a, a + slope, a + 2 * slope])
    kept = line.clone()
    project(kept)
    assert torch.allclose(kept, line)


def test_an_ordinal_head_ranks_every_pair_of_levels_by_one_score():
    import torch

    torch.manual_seed(0)
    w = torch.randn(3, 8)
    project(w)
    b = torch.tensor([0.3, -0.2, 0.1])
    x = torch.randn(200, 8)
    p = torch.softmax(x @ w.T + b, -1)
    expected = p[:, 1] + 2 * p[:, 2]
    s = x @ (w[1] - w[0])  # the score: log p1/p0 and log p2/p1 both move with it
    order = torch.argsort(s)
    assert torch.all(expected[order][1:] >= expected[order][:-1] - 1e-6)
    # log p1/p0 - s and log p2/p1 - s are the constant thresholds
    c0 = torch.log(p[:, 1] / p[:, 0]) - s
    c1 = torch.log(p[:, 2] / p[:, 1]) - s
    assert torch.allclose(c0, c0[0].expand_as(c0), atol=1e-4)
    assert torch.allclose(c1, c1[0].expand_as(c1), atol=1e-4)


def test_make_ordinal_finds_the_head_of_a_classifier(tiny_bert):
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert), num_labels=3,
                                                               ignore_mismatched_sizes=True)
    layers = make_ordinal(model)
    assert layers == [model.classifier]
    assert float(second_difference(model.classifier.weight).abs().max()) < 1e-6


def test_model_head_is_for_kind_crossencoder(tmp_path):
    base = recipe_data(tmp_path, ["wice_oracle:x.jsonl"], tmp_path)
    validate_recipe({**base, "model": {**base["model"], "head": "ordinal"}})
    with pytest.raises(ConfigError, match="model.head"):
        validate_recipe({**base, "model": {**base["model"], "head": "ladder"}})
    with pytest.raises(ConfigError, match="model.head is for kind crossencoder"):
        validate_recipe({**base, "kind": "judge", "data": {"dataset": str(tmp_path / "d")},
                         "model": {**base["model"], "head": "ordinal"}})


def test_a_judge_trains_with_an_ordinal_head(tiny_bert, tmp_path):
    import torch
    from safetensors.torch import load_file

    from citetrain.train.run import train

    wice = write_jsonl(tmp_path / "wice.jsonl", wice_oracle_rows(30))
    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(40))
    data = recipe_data(tiny_bert, [f"wice_oracle:{wice}", f"attributionbench:{ab}"], tmp_path,
                       max_steps=3)
    data["model"]["head"] = "ordinal"
    summary = train(validate_recipe(data))
    assert summary["head"].endswith(", ordinal")
    final = Path(summary["final"])
    weights = load_file(str(final / "model.safetensors"))
    head = weights["classifier.weight"]
    assert head.shape[0] == 3
    assert float(second_difference(head).abs().max()) < 1e-5
    # trained: the head moved off its projected start (it is not all one row)
    assert float((head[2] - head[0]).abs().max()) > 0
    assert json.loads((final / "config.json").read_text())["citetrain_head"] == "ordinal"
    assert torch.isfinite(torch.tensor(summary["losses"])).all()


def test_a_lora_judge_keeps_its_ordinal_head_when_merged(tiny_bert, tmp_path):
    from safetensors.torch import load_file

    from citetrain.train.run import train

    wice = write_jsonl(tmp_path / "wice.jsonl", wice_oracle_rows(30))
    data = recipe_data(tiny_bert, [f"wice_oracle:{wice}"], tmp_path, max_steps=3)
    data.update(method="lora", lora={"r": 4, "alpha": 8, "target_modules": ["query", "value"]})
    data["model"]["head"] = "ordinal"
    summary = train(validate_recipe(data))
    head = load_file(str(Path(summary["final"]) / "model.safetensors"))["classifier.weight"]
    assert float(second_difference(head).abs().max()) < 1e-5


def test_a_two_way_head_cannot_be_ordinal(tiny_bert, tmp_path):
    from citetrain.errors import CitetrainError
    from citetrain.train.run import train

    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(24))
    data = recipe_data(tiny_bert, [str(ab)], tmp_path, max_steps=2)
    data["model"]["head"] = "ordinal"
    with pytest.raises(CitetrainError, match="model.head: ordinal: these train three support levels; the training pairs have no partial label"):
        train(validate_recipe(data))
