"""Structured pruning of an encoder's feed-forward blocks: keep each layer's most used units.

A cross-encoder judge spends most of its matrix products in the feed-forward blocks: per token and
layer, MiniLM-L6 multiplies 2·384·1536 weights there against 4·384² in attention's projections.
:func:`prune_ffn` keeps, in every layer, the ``keep`` intermediate units of largest importance

    I_j = mean over the sample's tokens of |a_j| · ‖W_out[:, j]‖₂

(``a_j`` the unit's activation after the non-linearity, ``W_out`` the block's output projection:
the size of what the unit adds to the layer's output; a first-order pruning criterion in the
manner of Molchanov et al. 2017, *Pruning convolutional neural networks for resource efficient
inference*, and Michel et al. 2019, *Are sixteen heads really better than one?*), and cuts both
linear layers of the block to those units. The model then saves and loads as a standard one with
``config.intermediate_size = keep``: no custom code to serve it.

A judge pruned this way loses much of its skill until it is trained again; distilled from the
unpruned judge it gets it back (experiments/studies/pruned-judge.md). BERT-style encoders
(``encoder.layer[i].intermediate.dense`` / ``.output.dense``: BERT, RoBERTa, XLM-R, ELECTRA,
DeBERTa-v2) are supported; others are a clear error.

:func:`keep_layers` drops whole layers instead (``crossencoder.layers``): the student keeps the chosen
layers of its teacher, in order, as DistilBERT took every other layer of BERT (Sanh et al. 2019).
"""
from __future__ import annotations

from typing import Any, Iterable

from citetrain.errors import CitetrainError
from citetrain.nli.ffn_units import bert_ffn_layers, cut_units, encoder_of


def ffn_layers(model: Any) -> list[Any]:
    """The encoder's layers, each with ``intermediate`` (its output: the activated units, from
    ``intermediate.dense``) and ``output.dense`` (the block's output projection)."""
    layers = bert_ffn_layers(model)
    if layers is None:
        raise CitetrainError(f"crossencoder.intermediate_size: {type(model).__name__} is not a "
                             "BERT-style encoder (encoder.layer[i].intermediate.dense / .output.dense)")
    return layers


def pad_units(layer: Any, width: int) -> None:
    """Widen ``layer``'s feed-forward block in place to ``width`` units with units that are zero in
    and out (they add nothing, training keeps them zero, and
    :func:`~citetrain.nli.ffn_units.drop_dead_units` cuts them where the model is read)."""
    import torch

    first, out = layer.intermediate.dense, layer.output.dense
    have = out.in_features
    if width <= have:
        return
    wide_in = torch.nn.Linear(first.in_features, width, bias=first.bias is not None,
                              device=first.weight.device, dtype=first.weight.dtype)
    wide_out = torch.nn.Linear(width, out.out_features, bias=out.bias is not None,
                               device=out.weight.device, dtype=out.weight.dtype)
    with torch.no_grad():
        for param in (*wide_in.parameters(), *wide_out.parameters()):
            param.zero_()
        wide_in.weight[:have] = first.weight
        wide_out.weight[:, :have] = out.weight
        if first.bias is not None:
            wide_in.bias[:have] = first.bias
        if out.bias is not None:
            wide_out.bias.copy_(out.bias)
    layer.intermediate.dense, layer.output.dense = wide_in, wide_out


def keep_layers(model: Any, keep: list[int]) -> int:
    """Keep only the encoder layers at indices ``keep`` (ascending), renumbered 0..len-1; sets
    ``config.num_hidden_layers``. Returns the number of layers the model had."""
    import torch

    encoder = encoder_of(model)
    layers = getattr(encoder, "layer", None)
    if not isinstance(layers, torch.nn.ModuleList):
        raise CitetrainError(f"crossencoder.layers: {type(model).__name__} is not a BERT-style encoder "
                             "(encoder.layer[i])")
    have = len(layers)
    if bad := [i for i in keep if not 0 <= i < have]:
        raise CitetrainError(f"crossencoder.layers: {bad} not among the {have} layers (0..{have - 1}) "
                             "of the model")
    encoder.layer = torch.nn.ModuleList(layers[i] for i in keep)
    for new, layer in enumerate(encoder.layer):
        for module in layer.modules():
            if hasattr(module, "layer_idx"):
                module.layer_idx = new
    model.config.num_hidden_layers = len(keep)
    return have


def ffn_importance(model: Any, batches: Iterable[dict[str, Any]]) -> list[Any]:
    """Per layer, the importance of each intermediate unit (module docstring) over the tokens of
    ``batches`` (model inputs with an ``attention_mask``; padding does not count)."""
    import torch

    layers = ffn_layers(model)
    sums = [torch.zeros(l.output.dense.in_features, dtype=torch.float64) for l in layers]
    mask: dict[str, Any] = {}

    def hook(i: int):
        def add(_module: Any, _inputs: Any, acts: Any) -> None:
            m = mask["m"].to(acts.device, acts.dtype)[..., None]
            sums[i] += (acts.detach().abs() * m).sum((0, 1)).double().cpu()
        return add

    handles = [l.intermediate.register_forward_hook(hook(i)) for i, l in enumerate(layers)]
    tokens = 0
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for batch in batches:
                mask["m"] = batch["attention_mask"]
                tokens += int(batch["attention_mask"].sum())
                model(**{k: v.to(model.device) for k, v in batch.items() if k != "labels"})
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    if not tokens:
        raise CitetrainError("crossencoder.intermediate_size: no tokens to measure the units on")
    return [s / tokens * l.output.dense.weight.detach().double().cpu().norm(dim=0)
            for s, l in zip(sums, layers)]


def prune_ffn(model: Any, keep: int, batches: Iterable[dict[str, Any]]) -> int:
    """Keep the ``keep`` most important intermediate units of every layer (:func:`ffn_importance`
    on ``batches``), in their original order; sets ``config.intermediate_size``. Returns the
    number of units each layer had."""
    import torch

    layers = ffn_layers(model)
    have = layers[0].output.dense.in_features
    if not 1 <= keep < have:
        raise CitetrainError(f"crossencoder.intermediate_size: {keep} must be between 1 and the "
                             f"{have} units the model has, exclusive of {have}")
    for layer, score in zip(layers, ffn_importance(model, batches)):
        idx = torch.topk(score, keep).indices.sort().values.to(layer.output.dense.weight.device)
        layer.intermediate.dense = cut_units(layer.intermediate.dense, idx, rows=True)
        layer.output.dense = cut_units(layer.output.dense, idx, rows=False)
    model.config.intermediate_size = keep
    return have
