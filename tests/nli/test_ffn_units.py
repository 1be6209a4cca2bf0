"""A pruned folder's padding (:mod:`citetrain.nli.ffn_units`): units whose output column is zero
are cut without moving a logit, at least one unit stays in a layer, a model that is not a
BERT-style encoder is left alone, and ``classifier:PATH`` reads a padded folder at its widths."""
from __future__ import annotations

from tests.models.test_prune import _batches, _bert


def test_dead_units_go_and_the_logits_stay():
    """Layer 0: units 1, 4 and 9 have zero output columns (their input rows are not zero: the
    output column alone decides); layer 1: every unit is dead but one stays."""
    import torch

    from citetrain.nli.ffn_units import drop_dead_units

    model = _bert()
    layers = model.bert.encoder.layer
    with torch.no_grad():
        layers[0].output.dense.weight[:, [1, 4, 9]] = 0.0
        layers[1].output.dense.weight.zero_()
    keep = [j for j in range(16) if j not in (1, 4, 9)]
    rows = layers[0].intermediate.dense.weight[keep].clone()
    batch = _batches()[1]
    with torch.inference_mode():
        before = model(**batch).logits
    assert drop_dead_units(model) == [13, 1]
    assert torch.equal(layers[0].intermediate.dense.weight, rows)
    assert layers[0].output.dense.weight.shape == (8, 13)
    assert layers[1].intermediate.dense.weight.shape == (1, 8)
    with torch.inference_mode():
        assert torch.allclose(model(**batch).logits, before, atol=1e-6)
    assert model.config.intermediate_size == 16  # the saved width


def test_a_model_without_bert_blocks_is_left_alone():
    from transformers import LlamaConfig, LlamaForSequenceClassification

    from citetrain.nli.ffn_units import drop_dead_units

    llama = LlamaForSequenceClassification(LlamaConfig(
        vocab_size=50, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, pad_token_id=0))
    assert drop_dead_units(llama) is None
    assert llama.model.layers[0].mlp.down_proj.weight.shape == (8, 16)
