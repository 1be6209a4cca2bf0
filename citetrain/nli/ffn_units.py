"""A BERT-style encoder's feed-forward units: where they are, and cutting those that add nothing.

A feed-forward block computes ``W_out·act(W_in·x + b_in) + b_out``; unit ``j`` adds
``W_out[:, j]·act(...)`` to the layer's output, so a unit whose output column is zero adds exactly
nothing and can go without changing any output. ``citetrain prune`` with a width per layer
(:func:`~citetrain.models.compensate.compensate_ffn`) saves a standard folder, every layer at the
widest layer's width, its narrower layers padded with such units, zero in and out; training keeps
them zero (their gradients are exactly zero, so AdamW's steps and weight decay leave them so).
:func:`drop_dead_units` cuts them again where the model is read: by ``classifier:PATH`` in PyTorch
and before ``citetrain export`` traces the model, so each layer costs its own width.
"""
from __future__ import annotations

from typing import Any


def encoder_of(model: Any) -> Any:
    """The model's encoder (``base_model.encoder``), or None."""
    return getattr(getattr(model, "base_model", model), "encoder", None)


def bert_ffn_layers(model: Any) -> list[Any] | None:
    """The encoder's layers when each has ``intermediate.dense`` (its units) and ``output.dense``
    (the block's output projection), as BERT, RoBERTa, XLM-R, ELECTRA and DeBERTa-v2 build them;
    else None."""
    layers = getattr(encoder_of(model), "layer", None)
    if not layers or not all(hasattr(getattr(l, "intermediate", None), "dense")
                             and hasattr(getattr(l, "output", None), "dense") for l in layers):
        return None
    return list(layers)


def cut_units(linear: Any, idx: Any, rows: bool) -> Any:
    """A copy of ``linear`` with only the output units (``rows``) or input units ``idx``."""
    import torch

    weight = linear.weight.detach()[idx] if rows else linear.weight.detach()[:, idx]
    bias = linear.bias
    new = torch.nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None,
                          device=weight.device, dtype=weight.dtype)
    with torch.no_grad():
        new.weight.copy_(weight)
        if bias is not None:
            new.bias.copy_(bias.detach()[idx] if rows else bias.detach())
    return new


def drop_dead_units(model: Any) -> list[int] | None:
    """Cut, in place, every feed-forward unit whose output column is all zeros (at least one unit
    stays in each layer); the outputs do not change. Returns each layer's width after, or None
    where the model is not a BERT-style encoder (left as it is). ``config.intermediate_size``
    keeps the saved width."""
    import torch

    layers = bert_ffn_layers(model)
    if layers is None:
        return None
    widths = []
    for layer in layers:
        out = layer.output.dense
        alive = out.weight.detach().ne(0).any(0)
        if not alive.any():
            alive[0] = True
        if not alive.all():
            idx = torch.nonzero(alive).flatten()
            layer.intermediate.dense = cut_units(layer.intermediate.dense, idx, rows=True)
            layer.output.dense = cut_units(out, idx, rows=False)
        widths.append(int(alive.sum()))
    return widths
