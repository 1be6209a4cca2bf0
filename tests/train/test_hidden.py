"""Layer-by-layer distillation (:mod:`citetrain.train.hidden`, ``data.teacher_model``): the layer
map, the hidden-state loss computed by hand, the trainer adding it in training only, and a
student whose layers move towards its teacher's."""
from __future__ import annotations

import json

import pytest

from citetrain.errors import CitetrainError
from citetrain.train.recipe import validate_recipe
from tests.train.test_crossencoder import recipe_data, toy_rows, write_jsonl


def test_layer_map_by_source_and_uniform():
    from citetrain.train.hidden import layer_map

    # a student of its own teacher: each layer to the layer it was taken from
    assert layer_map([0, 2, 4, 5], 6, 6) == [(1, 1), (2, 3), (3, 5), (4, 6)]
    assert layer_map([0, 1, 2, 3], 6, 6) == [(1, 1), (2, 2), (3, 3), (4, 4)]
    # another teacher: layer i of S to layer ceil((i+1)·T/S) of T
    assert layer_map([0, 1], 2, 4) == [(1, 2), (2, 4)]
    assert layer_map([0, 1, 2, 3], 4, 6) == [(1, 2), (2, 3), (3, 5), (4, 6)]


def test_hidden_loss_is_the_mean_squared_gap_over_unpadded_tokens():
    import torch

    from citetrain.train.hidden import hidden_loss

    zero = torch.zeros(1, 3, 2)
    s1 = torch.tensor([[[1.0, 1.0], [2.0, 0.0], [9.0, 9.0]]])  # the third token is padding
    t1 = torch.tensor([[[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]]])
    t2 = torch.tensor([[[0.0, 0.0], [0.0, 3.0], [5.0, 5.0]]])
    mask = torch.tensor([[1, 1, 0]])
    # layer 1 against teacher layer 1: (1 + 0 + 4 + 0) / 4 = 1.25
    got = hidden_loss((zero, s1), (zero, t1, t2), mask, [(1, 1)])
    assert got.item() == pytest.approx(1.25)
    # and against teacher layer 2: (1 + 1 + 4 + 9) / 4 = 3.75; two pairs averaged: 2.5
    got = hidden_loss((zero, s1), (zero, t1, t2), mask, [(1, 1), (1, 2)])
    assert got.item() == pytest.approx(2.5)


def _batch(tiny_bert):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny_bert))
    return dict(tok(["w1 w2 w3", "w4 w5"], ["it says w2", "it says w9 and more"],
                    padding=True, return_tensors="pt"))


def test_the_trainer_adds_the_hidden_loss_in_training_only(tiny_bert):
    import torch
    from transformers import AutoModelForSequenceClassification

    from citetrain.train.hidden import HiddenTeacher, hidden_loss
    from citetrain.train.targets import target_trainer_class

    student = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert))
    teacher = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert))
    with torch.no_grad():
        for p in teacher.parameters():
            p.add_(0.1 * torch.randn_like(p))
    hidden = HiddenTeacher(teacher, [(1, 1), (2, 2)], 3.0)
    trainer = object.__new__(target_trainer_class(hidden))  # compute_loss only
    batch = _batch(tiny_bert)
    labels = torch.tensor([1, 0])
    student.train()
    torch.manual_seed(0)
    got = trainer.compute_loss(student, {**batch, "labels": labels})
    torch.manual_seed(0)
    out = student(**batch, output_hidden_states=True)
    with torch.no_grad():
        want_hidden = hidden_loss(out.hidden_states, teacher(**batch, output_hidden_states=True)
                                  .hidden_states, batch["attention_mask"], [(1, 1), (2, 2)])
    want = torch.nn.functional.cross_entropy(out.logits, labels) + 3.0 * want_hidden
    assert want_hidden.item() > 0 and got.item() == pytest.approx(want.item(), rel=1e-5)
    student.eval()
    plain = trainer.compute_loss(student, {**batch, "labels": labels})
    with torch.no_grad():
        ce = torch.nn.functional.cross_entropy(student(**batch).logits, labels)
    assert plain.item() == pytest.approx(ce.item(), rel=1e-5)  # validation: no hidden term


def test_a_student_of_itself_starts_at_zero(tiny_bert):
    from transformers import AutoModelForSequenceClassification

    from citetrain.train.hidden import HiddenTeacher

    model = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert)).eval()
    hidden = HiddenTeacher(AutoModelForSequenceClassification.from_pretrained(str(tiny_bert)),
                           [(1, 1), (2, 2)], 1.0)
    batch = _batch(tiny_bert)
    assert hidden.loss(model(**batch, output_hidden_states=True).hidden_states, batch).item() == 0


def test_training_moves_the_students_layer_towards_the_teachers(tiny_bert, tmp_path, capsys):
    """A one-layer student that keeps only the teacher's second layer (``model.layers: [1]``),
    trained with a heavy hidden-state loss: its layer, which now reads the embeddings instead of
    the first layer's output, gives what the teacher's second layer gives much more closely
    after training than before (the map pairs the student's layer with the one it came from)."""
    import torch
    from transformers import AutoModelForSequenceClassification

    from citetrain.train.hidden import hidden_loss
    from citetrain.train.run import train

    teacher = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert))
    torch.manual_seed(1)
    with torch.no_grad():  # a teacher whose layers do more than a freshly drawn one's
        for p in teacher.bert.encoder.parameters():
            p.add_(0.3 * torch.randn_like(p))
    teacher.save_pretrained(tmp_path / "teacher")
    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(40))
    data = recipe_data(tiny_bert, [f"attributionbench:{ab}"], tmp_path, max_steps=12,
                       learning_rate=3e-3)
    data["model"]["layers"] = [1]
    data["data"].update(teacher_model=str(tmp_path / "teacher"), hidden_weight=20.0)
    summary = train(validate_recipe(data))
    assert "layers matched to" in (said := capsys.readouterr().out) and "1->2" in said
    assert summary["teacher_model"] == {"path": str(tmp_path / "teacher"), "weight": 20.0}
    teacher.eval()
    batch = _batch(tiny_bert)
    with torch.no_grad():
        want = teacher(**batch, output_hidden_states=True).hidden_states

        def gap(model):
            return hidden_loss(model(**batch, output_hidden_states=True).hidden_states, want,
                               batch["attention_mask"], [(1, 2)]).item()

        from citetrain.models.prune import keep_layers

        start = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert)).eval()
        keep_layers(start, [1])
        before = gap(start)
        after = gap(AutoModelForSequenceClassification.from_pretrained(summary["final"]).eval())
    assert after < 0.5 * before
    assert json.loads((tmp_path / "run" / "train_summary.json").read_text())["teacher_model"]


def test_rules_and_errors(tiny_bert, tmp_path):
    from transformers import BertConfig, BertForSequenceClassification

    from citetrain.config import ConfigError
    from citetrain.train.hidden import load_hidden_teacher
    from citetrain.train.students import source_layers

    ok = recipe_data(tiny_bert, ["x.jsonl"], tmp_path)
    with pytest.raises(ConfigError) as e:
        validate_recipe({**ok, "data": {**ok["data"], "hidden_weight": 2.0}}, "r.yaml")
    assert "set data.teacher_model" in " ".join(e.value.errors)
    other = {"name": "t", "kind": "refiner", "model": {"tiny": {}},
             "data": {"dataset": "d", "teacher_model": "m"}, "train": {"output_dir": "o"}}
    with pytest.raises(ConfigError) as e:
        validate_recipe(other, "r.yaml")
    assert "data.teacher_model is for kind crossencoder" in " ".join(e.value.errors)
    wide = BertForSequenceClassification(BertConfig(
        vocab_size=30, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=16, max_position_embeddings=32))
    wide.save_pretrained(tmp_path / "wide")
    from transformers import AutoModelForSequenceClassification

    student = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert))
    recipe = validate_recipe(ok)
    with pytest.raises(CitetrainError, match="has hidden_size 16, the student 32"):
        load_hidden_teacher(str(tmp_path / "wide"), student, *source_layers(recipe, str(tiny_bert)),
                            1.0)


def test_a_teacher_with_another_tokenizer_is_refused(tiny_bert, tmp_path):
    """Same sizes, but two tokens trade ids: the teacher would read other words."""
    import shutil

    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from citetrain.train.hidden import load_hidden_teacher

    shutil.copytree(tiny_bert, tmp_path / "t")
    tok = json.loads((tmp_path / "t" / "tokenizer.json").read_text())
    vocab = tok["model"]["vocab"]
    a, b = list(vocab)[-2:]
    vocab[a], vocab[b] = vocab[b], vocab[a]
    (tmp_path / "t" / "tokenizer.json").write_text(json.dumps(tok))
    student = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert))
    ours = AutoTokenizer.from_pretrained(str(tiny_bert))
    with pytest.raises(CitetrainError, match=r"tokenizer gives 2 of the student's \d+ tokens "
                                             r"another id"):
        load_hidden_teacher(str(tmp_path / "t"), student, [0, 1], 2, 1.0, ours)
    assert load_hidden_teacher(str(tiny_bert), student, [0, 1], 2, 1.0, ours).pairs == [(1, 1),
                                                                                        (2, 2)]
