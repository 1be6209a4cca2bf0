"""citetrain.judge_training.students: the model a cross-encoder recipe trains, cut to its student."""
from __future__ import annotations

import pytest

from citetrain.errors import CitetrainError
from citetrain.train.recipe import validate_recipe
from tests.judge_training.test_trainer import recipe_data


def test_source_layers_are_the_kept_base_layers_and_the_base_count(tiny_bert, tmp_path):
    from citetrain.judge_training.students import source_layers

    data = recipe_data(tiny_bert, ["x.jsonl"], tmp_path)

    def source(**keys):
        return source_layers(validate_recipe({**data, "crossencoder": {**data["crossencoder"],
                                                                       **keys}}), str(tiny_bert))

    assert source() == ([0, 1], 2)
    assert source(num_layers=1) == ([0], 2)
    assert source(layers=[1]) == ([1], 2)
    with pytest.raises(CitetrainError, match="crossencoder.num_layers: 3 is more than the 2 layers"):
        source(num_layers=3)


def test_num_layers_keeps_the_first_layers_of_the_encoder(tiny_bert, tmp_path):
    import torch
    from transformers import AutoModelForSequenceClassification

    from citetrain.judge_training.students import load_classifier

    data = recipe_data(tiny_bert, ["x.jsonl"], tmp_path)
    base = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert))
    student = load_classifier(validate_recipe({**data, "crossencoder": {**data["crossencoder"], "num_layers": 1}}),
                              str(tiny_bert))
    assert student.config.num_hidden_layers == 1 and len(student.bert.encoder.layer) == 1
    got, want = student.bert.encoder.layer[0].state_dict(), base.bert.encoder.layer[0].state_dict()
    assert all(torch.equal(got[k], want[k]) for k in want)  # layer 0 as trained, not re-drawn
    assert torch.equal(student.bert.embeddings.word_embeddings.weight,
                       base.bert.embeddings.word_embeddings.weight)
    whole = load_classifier(validate_recipe(data), str(tiny_bert))
    assert len(whole.bert.encoder.layer) == 2
    with pytest.raises(CitetrainError, match="crossencoder.num_layers: 3 is more than the 2 layers"):
        load_classifier(validate_recipe({**data, "crossencoder": {**data["crossencoder"], "num_layers": 3}}),
                        str(tiny_bert))


def test_layers_keeps_the_chosen_layers_of_the_encoder(tiny_bert, tmp_path):
    import torch
    from transformers import AutoModelForSequenceClassification

    from citetrain.judge_training.students import load_classifier

    data = recipe_data(tiny_bert, ["x.jsonl"], tmp_path)
    base = AutoModelForSequenceClassification.from_pretrained(str(tiny_bert))
    student = load_classifier(validate_recipe({**data, "crossencoder": {**data["crossencoder"], "layers": [1]}}),
                              str(tiny_bert))
    assert student.config.num_hidden_layers == 1 and len(student.bert.encoder.layer) == 1
    got, want = student.bert.encoder.layer[0].state_dict(), base.bert.encoder.layer[1].state_dict()
    assert all(torch.equal(got[k], want[k]) for k in want)  # the base's second layer, as trained
    with pytest.raises(CitetrainError, match=r"crossencoder.layers: \[2\] not among the 2 layers"):
        load_classifier(validate_recipe({**data, "crossencoder": {**data["crossencoder"], "layers": [0, 2]}}),
                        str(tiny_bert))


def test_a_max_length_past_the_models_positions_is_a_clear_error(tiny_bert, tmp_path):
    from transformers import AutoConfig

    from citetrain.judge_training.students import load_student

    positions = AutoConfig.from_pretrained(str(tiny_bert)).max_position_embeddings
    data = recipe_data(tiny_bert, ["x.jsonl"], tmp_path)
    labels = {0: "not_supported", 1: "supported"}
    model = load_student(validate_recipe(data), str(tiny_bert), labels, None, None)
    assert model.config.max_position_embeddings == positions
    long = {**data, "data": {**data["data"], "max_length": positions + 1}}
    with pytest.raises(CitetrainError, match=f"data.max_length: {positions + 1} is past the "
                                             f"{positions} tokens"):
        load_student(validate_recipe(long), str(tiny_bert), labels, None, None)
