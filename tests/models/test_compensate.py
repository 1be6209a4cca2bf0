"""Feed-forward pruning with least-squares compensation (:mod:`citetrain.models.compensate`): the
surgeon removes units in the order its cost says (computed by hand on orthogonal columns), a unit
that is a sum of others goes at no cost, units that add nothing go without moving a logit, the fit
is never worse than the plain cut of the same units, and the last layer is fitted on first tokens."""
from __future__ import annotations

import pytest

from citetrain.errors import CitetrainError
from tests.models.test_prune import _batches, _bert


def _design():
    """Four rows; a constant and three zero-mean orthogonal columns of squared norms 4, 1, 9."""
    import torch

    ones = torch.ones(4, dtype=torch.float64)
    cols = [torch.tensor([1., -1., 1., -1.]), 0.5 * torch.tensor([1., 1., -1., -1.]),
            1.5 * torch.tensor([1., -1., -1., 1.])]
    return torch.stack(cols + [ones], 1)


def test_the_surgeon_removes_the_unit_of_least_cost_first():
    """Orthogonal columns: removing unit j costs w_j²·‖x_j‖² = 1·4, 9·1, 0.25·9 = 4, 9, 2.25, so
    unit 2 goes first, then unit 0; the fit on unit 1 alone is its true weight and the bias."""
    import torch

    from citetrain.models.compensate import surgeon

    x = _design()
    y = (x @ torch.tensor([1.0, 3.0, 0.5, 2.0], dtype=torch.float64))[:, None]
    kept, w = surgeon(x.T @ x, x.T @ y, 2, ridge=0.0)
    assert kept.tolist() == [0, 1]
    kept, w = surgeon(x.T @ x, x.T @ y, 1, ridge=0.0)
    assert kept.tolist() == [1]
    assert torch.allclose(w.flatten(), torch.tensor([3.0, 2.0], dtype=torch.float64))


def test_a_unit_that_is_the_sum_of_two_others_goes_at_no_cost():
    """x_2 = x_0 + x_1: with it removed and the others re-fitted the output is exact."""
    import torch

    from citetrain.models.compensate import surgeon

    g = torch.Generator().manual_seed(0)
    a = torch.randn(40, 3, generator=g, dtype=torch.float64)
    x = torch.cat([a[:, :2], a[:, :1] + a[:, 1:2], a[:, 2:], torch.ones(40, 1, dtype=torch.float64)], 1)
    y = x @ torch.randn(5, 2, generator=g, dtype=torch.float64)
    kept, w = surgeon(x.T @ x, x.T @ y, 3, ridge=1e-9)
    assert 3 in kept.tolist()  # the independent unit stays
    rows = torch.cat([kept, torch.tensor([4])])
    assert torch.allclose(x[:, rows] @ w, y, atol=1e-5)


def test_units_that_add_nothing_go_and_the_logits_stay():
    """Half of every layer's units with zero output weights: those go, and the logits do not
    move (the fit of the others is exact)."""
    import torch

    from citetrain.models.compensate import compensate_ffn

    model, reference = _bert(), _bert()
    dead = [torch.tensor([0, 2, 3, 5, 8, 9, 12, 15]), torch.tensor([1, 4, 6, 7, 10, 11, 13, 14])]
    with torch.no_grad():
        for m in (model, reference):
            for layer, d in zip(m.bert.encoder.layer, dead):
                layer.output.dense.weight[:, d] = 0.0
    batch = _batches()[0]
    with torch.inference_mode():
        before = reference(**batch).logits
    fits = compensate_ffn(model, reference, 8, _batches(), ridge=0.0)
    assert model.config.intermediate_size == 8
    for layer in model.bert.encoder.layer:
        assert layer.output.dense.weight.shape == (8, 8)
    with torch.inference_mode():
        after = model(**batch).logits
    assert torch.allclose(before, after, atol=1e-5)
    assert all(f.error_after < 1e-9 for f in fits)


def test_the_fit_is_never_worse_than_the_plain_cut_and_the_last_layer_reads_first_tokens():
    """Layer 0 sees the same inputs in both models, so its squared error after the fit is at most
    that of the kept units with their own weights (least squares on the same rows); the first
    layer's rows are the 51 unpadded tokens, the last layer's the 6 first tokens."""
    import torch

    from citetrain.models.compensate import compensate_ffn

    model, reference = _bert(), _bert()
    acts, outs = [], []
    layer0 = reference.bert.encoder.layer[0]
    h = [layer0.intermediate.register_forward_hook(lambda m, i, o: acts.append(o.detach())),
         layer0.output.dense.register_forward_hook(lambda m, i, o: outs.append(o.detach()))]
    with torch.inference_mode():
        for b in _batches():
            reference(**b)
    for handle in h:
        handle.remove()
    mask = torch.cat([b["attention_mask"].reshape(-1) for b in _batches()]).bool()
    a = torch.cat([x.reshape(-1, 16) for x in acts])[mask].double()
    y = torch.cat([x.reshape(-1, 8) for x in outs])[mask].double()
    fits = compensate_ffn(model, reference, 5, _batches(), ridge=0.0)
    kept = [j for j in range(16)
            if any(torch.equal(model.bert.encoder.layer[0].intermediate.dense.weight[k],
                               layer0.intermediate.dense.weight[j]) for k in range(5))]
    assert len(kept) == 5
    w = layer0.output.dense.weight.detach().double()[:, kept]
    plain = float(((a[:, kept] @ w.T + layer0.output.dense.bias.detach().double() - y) ** 2).mean())
    assert fits[0].error_after <= plain + 1e-12
    assert fits[0].error_after < fits[0].error_before or fits[0].error_before == 0
    assert [f.rows for f in fits] == [51, 6]


def test_bad_sizes_are_clear_errors():
    from citetrain.models.compensate import compensate_ffn

    for keep in (0, 16, 20):
        with pytest.raises(CitetrainError, match="between 1 and the 16 units"):
            compensate_ffn(_bert(), _bert(), keep, _batches())
    with pytest.raises(CitetrainError, match="another number of layers"):
        from transformers import BertConfig, BertForSequenceClassification

        other = BertForSequenceClassification(BertConfig(
            vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
            intermediate_size=16, max_position_embeddings=32, num_labels=3))
        compensate_ffn(_bert(), other, 8, _batches())


def test_a_width_per_layer_pads_the_narrower_layers_and_refits_the_full_one():
    """Widths [5, 16]: layer 0 keeps 5 units, padded back to 16 with units zero in and out;
    layer 1 keeps all 16 and is still re-fitted (its error falls: it makes up for layer 0); the
    padded model's logits are those of the cut one; bad lists are clear errors."""
    import torch

    from citetrain.models.compensate import compensate_ffn
    from citetrain.nli.ffn_units import drop_dead_units

    model, reference = _bert(), _bert()
    fits = compensate_ffn(model, reference, [5, 16], _batches(), ridge=0.0)
    assert [f.width for f in fits] == [5, 16]
    assert model.config.intermediate_size == 16
    first = model.bert.encoder.layer[0]
    assert first.intermediate.dense.weight.shape == (16, 8)
    assert not first.intermediate.dense.weight[5:].any() and not first.output.dense.weight[:, 5:].any()
    assert fits[1].error_after < fits[1].error_before
    batch = _batches()[1]
    with torch.inference_mode():
        padded = model(**batch).logits
    assert drop_dead_units(model) == [5, 16]
    with torch.inference_mode():
        assert torch.allclose(model(**batch).logits, padded, atol=1e-6)
    for keep, message in (([5], "one width for each of the model's 2 layers"),
                          ([0, 8], r"\[0\] not between 1 and the 16"),
                          ([16, 16], "every layer keeps all 16 units")):
        with pytest.raises(CitetrainError, match=message):
            compensate_ffn(_bert(), _bert(), keep, _batches())
