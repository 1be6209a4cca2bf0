"""Feed-forward pruning (:mod:`citetrain.models.prune`): the units kept are the most used ones,
units that add nothing are removed without changing a logit, and a pruned model saves and loads
as a standard one."""
from __future__ import annotations

import pytest

from citetrain.errors import CitetrainError


def _bert(intermediate: int = 16):
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    config = BertConfig(vocab_size=50, hidden_size=8, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=intermediate, max_position_embeddings=32, num_labels=3)
    return BertForSequenceClassification(config).eval()


def _batches():
    import torch

    g = torch.Generator().manual_seed(1)
    ids = torch.randint(5, 50, (6, 10), generator=g)
    mask = torch.ones_like(ids)
    mask[3:, 7:] = 0  # padded tokens do not count
    return [{"input_ids": ids[:3], "attention_mask": mask[:3]},
            {"input_ids": ids[3:], "attention_mask": mask[3:]}]


def test_importance_is_mean_activation_times_output_norm():
    """I_j = mean over unpadded tokens of |a_j| · ‖W_out[:, j]‖, computed here by hand from the
    layer's own activations."""
    import torch

    from citetrain.models.prune import ffn_importance

    model = _bert()
    seen = []
    handle = model.bert.encoder.layer[1].intermediate.register_forward_hook(
        lambda m, i, out: seen.append(out.detach()))
    with torch.inference_mode():
        for b in _batches():
            model(**b)
    handle.remove()
    acts = torch.cat([a.reshape(-1, a.shape[-1]) for a in seen])
    mask = torch.cat([b["attention_mask"].reshape(-1) for b in _batches()]).bool()
    want = acts[mask].abs().mean(0).double() * \
        model.bert.encoder.layer[1].output.dense.weight.detach().double().norm(dim=0)
    got = ffn_importance(model, _batches())
    assert len(got) == 2 and got[1].shape == (16,)
    assert torch.allclose(got[1], want, rtol=1e-5)
    assert mask.sum() == 51  # 60 tokens, 9 of them padding


def test_units_that_add_nothing_go_first_and_the_logits_stay():
    """With half of every layer's units given zero output weights, pruning to the other half
    keeps exactly those units, and the logits do not move."""
    import torch

    from citetrain.models.prune import prune_ffn

    model = _bert()
    dead = [torch.tensor([0, 2, 3, 5, 8, 9, 12, 15]), torch.tensor([1, 4, 6, 7, 10, 11, 13, 14])]
    with torch.no_grad():
        for layer, d in zip(model.bert.encoder.layer, dead):
            layer.output.dense.weight[:, d] = 0.0
    live = [[j for j in range(16) if j not in set(d.tolist())] for d in dead]
    kept_rows = [layer.intermediate.dense.weight[live[i]].clone()
                 for i, layer in enumerate(model.bert.encoder.layer)]
    batch = _batches()[0]
    with torch.inference_mode():
        before = model(**batch).logits
    assert prune_ffn(model, 8, _batches()) == 16
    assert model.config.intermediate_size == 8
    for i, layer in enumerate(model.bert.encoder.layer):
        assert layer.intermediate.dense.weight.shape == (8, 8)
        assert layer.output.dense.weight.shape == (8, 8)
        assert torch.equal(layer.intermediate.dense.weight, kept_rows[i])  # in their order
    with torch.inference_mode():
        assert torch.allclose(model(**batch).logits, before, atol=1e-6)


def test_a_pruned_model_saves_and_loads_as_a_standard_one(tmp_path):
    import torch
    from transformers import AutoModelForSequenceClassification

    from citetrain.models.prune import prune_ffn

    model = _bert()
    prune_ffn(model, 5, _batches())
    model.save_pretrained(tmp_path / "m")
    again = AutoModelForSequenceClassification.from_pretrained(tmp_path / "m").eval()
    assert again.config.intermediate_size == 5
    batch = _batches()[1]
    with torch.inference_mode():
        assert torch.allclose(again(**batch).logits, model(**batch).logits, atol=1e-6)


def test_clear_errors():
    import torch
    from transformers import LlamaConfig, LlamaForSequenceClassification

    from citetrain.models.prune import prune_ffn

    with pytest.raises(CitetrainError, match="16 must be between 1 and the 16 units"):
        prune_ffn(_bert(), 16, _batches())
    with pytest.raises(CitetrainError, match="no tokens"):
        prune_ffn(_bert(), 4, [])
    llama = LlamaForSequenceClassification(LlamaConfig(
        vocab_size=50, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, pad_token_id=0))
    with pytest.raises(CitetrainError, match="LlamaForSequenceClassification is not a BERT-style"):
        prune_ffn(llama, 4, [{"input_ids": torch.ones(1, 3, dtype=torch.long),
                              "attention_mask": torch.ones(1, 3, dtype=torch.long)}])


def test_kept_layers_are_the_chosen_ones_in_order_and_reload(tmp_path):
    """``keep_layers(model, [0, 2])`` of a three-layer encoder: layer 2 becomes layer 1 with its
    weights, the logits are those of the original model with layer 1 skipped, and the saved
    model reloads as a standard two-layer one."""
    import torch
    from transformers import AutoModelForSequenceClassification, BertConfig, \
        BertForSequenceClassification

    from citetrain.models.prune import keep_layers

    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(
        vocab_size=50, hidden_size=8, num_hidden_layers=3, num_attention_heads=2,
        intermediate_size=16, max_position_embeddings=32, num_labels=3)).eval()
    third = {k: v.clone() for k, v in model.bert.encoder.layer[2].state_dict().items()}
    batch = _batches()[0]
    skip = model.bert.encoder.layer[1]
    model.bert.encoder.layer[1] = torch.nn.Identity()
    model.bert.encoder.layer[1].forward = lambda hidden, *a, **k: hidden
    with torch.inference_mode():
        want = model(**batch).logits
    model.bert.encoder.layer[1] = skip
    assert keep_layers(model, [0, 2]) == 3
    assert model.config.num_hidden_layers == 2 and len(model.bert.encoder.layer) == 2
    got = model.bert.encoder.layer[1].state_dict()
    assert all(torch.equal(got[k], third[k]) for k in third)
    assert model.bert.encoder.layer[1].attention.self.layer_idx == 1
    with torch.inference_mode():
        assert torch.allclose(model(**batch).logits, want, atol=1e-6)
    model.save_pretrained(tmp_path / "m")
    again = AutoModelForSequenceClassification.from_pretrained(tmp_path / "m").eval()
    with torch.inference_mode():
        assert torch.allclose(again(**batch).logits, want, atol=1e-6)
    with pytest.raises(CitetrainError, match=r"crossencoder.layers: \[2\] not among the 2 layers"):
        keep_layers(again, [0, 2])


def test_padding_adds_nothing_and_training_keeps_it_zero():
    """Layer 0 padded from 16 to 24 units: the logits do not move, and after AdamW steps with
    weight decay (every other weight moves) the eight new units are still zero in and out, so
    drop_dead_units cuts exactly them."""
    import torch

    from citetrain.models.prune import pad_units
    from citetrain.nli.ffn_units import drop_dead_units

    model = _bert()
    batch = _batches()[0]
    with torch.inference_mode():
        before = model(**batch).logits
    layer = model.bert.encoder.layer[0]
    pad_units(layer, 24)
    assert layer.intermediate.dense.weight.shape == (24, 8)
    assert layer.output.dense.weight.shape == (8, 24)
    with torch.inference_mode():
        assert torch.allclose(model(**batch).logits, before, atol=1e-6)
    model.train()
    start = layer.intermediate.dense.weight[:16].clone()
    optim = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    for _ in range(3):
        loss = model(**batch, labels=torch.tensor([0, 1, 2])).loss
        loss.backward()
        optim.step()
        optim.zero_grad()
    assert not torch.equal(layer.intermediate.dense.weight[:16], start)
    assert not layer.intermediate.dense.weight[16:].any()
    assert not layer.intermediate.dense.bias[16:].any()
    assert not layer.output.dense.weight[:, 16:].any()
    assert drop_dead_units(model.eval()) == [16, 16]
