"""Training targets of the three-way cross-encoder (:mod:`citetrain.judge_training.targets`): the teacher's
part, the label as a set of levels (``crossencoder.not_full``), and the loss, computed by hand."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from citetrain.config import ConfigError
from citetrain.errors import CitetrainError
from citetrain.judge_training.teacher_scores import pair_key, read_teacher_rows
from citetrain.train.recipe import validate_recipe
from citetrain.judge_training.targets import label_set, target_loss, target_trainer_class, training_targets
from tests.judge_training.test_trainer import recipe_data, toy_rows, wice_oracle_rows, write_jsonl


def _rows(groups: list[str], sources: list[str] | None = None):
    import datasets

    return datasets.Dataset.from_dict({
        "premise": [f"p {g} {i}" for i, g in enumerate(groups)],
        "hypothesis": [f"h {g}" for g in groups], "label": [i % 3 for i in range(len(groups))],
        "group": groups, "source": sources or ["x:y"] * len(groups)})


def test_targets_mix_teacher_and_label():
    data = _rows(["a", "b"])  # labels 0 and 1
    teacher = {pair_key("p a 0", "h a"): ([0.2, 0.3, 0.5], None)}
    rows, counts = training_targets(data, teacher, 0.5)
    assert counts == {"taught": 1, "own": 0, "not_full": 0}
    assert rows[0] == pytest.approx([0.1, 0.15, 0.25, 1.0, 0.0, 0.0])  # 0.5·teacher, label {0}
    assert rows[1] == [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]  # no teacher: the label alone
    full, _ = training_targets(data, teacher, 1.0)
    assert full[0] == pytest.approx([0.2, 0.3, 0.5, 1.0, 0.0, 0.0])


def test_a_row_with_its_own_weight_mixes_with_it(tmp_path):
    data = _rows(["a", "b", "c"])  # labels 0, 1, 2
    k0, k1 = pair_key("p a 0", "h a"), pair_key("p b 1", "h b")
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"key": k0, "probs": [0.2, 0.3, 0.5]}) + "\n"
                    + json.dumps({"key": k1, "probs": [0.1, 0.1, 0.8], "weight": 1.0}) + "\n")
    rows = read_teacher_rows(path)
    assert rows[k0] == ([0.2, 0.3, 0.5], None) and rows[k1] == ([0.1, 0.1, 0.8], 1.0)
    targets, counts = training_targets(data, rows, 0.25)
    assert counts["taught"] == 2 and counts["own"] == 1
    # the file's weight (1.0) for the second pair, the recipe's (0.25) for the first
    assert targets[0] == pytest.approx([0.05, 0.075, 0.125, 1.0, 0.0, 0.0])
    assert targets[1] == pytest.approx([0.1, 0.1, 0.8, 0.0, 1.0, 0.0])
    assert targets[2] == [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    path.write_text(json.dumps({"key": k0, "probs": [0.2, 0.3, 0.5], "weight": 1.5}) + "\n")
    with pytest.raises(CitetrainError, match=r"t.jsonl:1: weight 1.5 is outside \[0, 1\]"):
        read_teacher_rows(path)


def test_a_not_full_source_reads_its_label_0_as_level_0_or_1():
    assert label_set(0, "attributionbench:ab.jsonl", ["attributionbench"]) == [1.0, 1.0, 0.0]
    assert label_set(0, "attributionbench:ab.jsonl", ["attributionbench:ab.jsonl"]) == [1.0, 1.0, 0.0]
    assert label_set(2, "attributionbench:ab.jsonl", ["attributionbench"]) == [0.0, 0.0, 1.0]
    assert label_set(0, "wice:w.jsonl", ["attributionbench"]) == [1.0, 0.0, 0.0]
    assert label_set(0, "attributionbench2:x", ["attributionbench"]) == [1.0, 0.0, 0.0]  # not a prefix
    data = _rows(["a", "b", "c", "d"], ["ab:1", "ab:1", "ab:1", "w:2"])  # labels 0, 1, 2, 0
    rows, counts = training_targets(data, {}, 0.5, ["ab"])
    assert counts["not_full"] == 1
    assert [r[3:] for r in rows] == [[1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    assert all(r[:3] == [0, 0, 0] for r in rows)


def test_the_loss_is_the_teacher_cross_entropy_plus_the_label_sets_likelihood():
    import torch

    logits = torch.tensor([[0.0, 1.0, 2.0], [2.0, 0.0, 0.0], [0.0, 1.0, 2.0]])
    z1 = math.log(1 + math.e + math.e ** 2)
    z2 = math.log(math.e ** 2 + 2)
    rows = torch.tensor([[0.2, 0.3, 0.5, 0.0, 0.0, 1.0],   # teacher alone (mass 1)
                         [0.0, 0.0, 0.0, 1.0, 0.0, 0.0],   # label 0 alone
                         [0.1, 0.1, 0.3, 1.0, 1.0, 0.0]])  # 0.5·teacher + 0.5·label {0, 1}
    want = [-(0.2 * (0 - z1) + 0.3 * (1 - z1) + 0.5 * (2 - z1)),
            z2 - 2,
            -(0.1 * (0 - z1) + 0.1 * (1 - z1) + 0.3 * (2 - z1)) - 0.5 * math.log((1 + math.e) / math.e ** z1)]
    assert target_loss(logits, rows).item() == pytest.approx(sum(want) / 3, rel=1e-6)
    # a one-level set is the cross-entropy against w·teacher + (1 − w)·one-hot
    mixed = torch.tensor([[0.1, 0.15, 0.25, 1.0, 0.0, 0.0]])
    soft = torch.tensor([0.6, 0.15, 0.25])
    ce = -(soft * torch.log_softmax(logits[:1], -1)).sum()
    assert target_loss(logits[:1], mixed).item() == pytest.approx(ce.item(), rel=1e-6)

    from types import SimpleNamespace

    trainer = target_trainer_class().__new__(target_trainer_class())
    got = trainer.compute_loss(lambda **_: SimpleNamespace(logits=logits), {"labels": rows})
    assert got.item() == pytest.approx(sum(want) / 3, rel=1e-6)
    hard = trainer.compute_loss(lambda **_: SimpleNamespace(logits=logits[:2]),
                                {"labels": torch.tensor([2, 0])})  # validation labels
    assert hard.item() == pytest.approx(((z1 - 2) + (z2 - 2)) / 2, rel=1e-6)


def test_not_full_names_must_be_formats_or_entries(tmp_path):
    base = recipe_data(tmp_path, ["wice_oracle:x.jsonl"], tmp_path)
    with pytest.raises(ConfigError, match=r"crossencoder.not_full: abench is neither a format \("):
        validate_recipe({**base, "crossencoder": {**base["crossencoder"], "not_full": ["abench"]}})
    for ok in (["attributionbench"], ["wice_oracle:x.jsonl"]):
        validate_recipe({**base, "crossencoder": {**base["crossencoder"], "not_full": ok}})


def test_a_judge_trains_with_not_full_labels(tiny_bert, tmp_path, capsys):
    from citetrain.runner import run_recipe as train

    wice = write_jsonl(tmp_path / "wice.jsonl", wice_oracle_rows(30))
    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(40))
    data = recipe_data(tiny_bert, [f"wice_oracle:{wice}", f"attributionbench:{ab}"], tmp_path,
                       max_steps=2)
    data["crossencoder"]["not_full"] = ["attributionbench"]
    summary = train(validate_recipe(data))
    n = summary["not_full"]["labels"]
    assert summary["not_full"]["sources"] == ["attributionbench"] and n > 0
    said = capsys.readouterr().out
    assert f"crossencoder.not_full: {n} training labels of attributionbench read as" in said
    assert all(math.isfinite(x) for x in summary["losses"])
    card = (Path(summary["final"]) / "README.md").read_text()
    assert f"## Coarse labels (`crossencoder.not_full`)\n\n{n} training labels 0 of attributionbench" in card
