"""Feed-forward pruning that keeps the model's reading: whole units removed, the rest re-fitted.

:func:`~citetrain.models.prune.prune_ffn` keeps each layer's most used units and cuts the others; a
judge pruned that way has to be trained again. :func:`compensate_ffn` needs no training: layer by
layer, on calibration pairs, it chooses the units to remove by how much the layer's output suffers
once the others are re-fitted, and re-fits the block's output projection by least squares (the
layer-wise reconstruction of Kwon et al. 2022, *A fast post-training pruning framework for
transformers*, with the unit choice of Optimal Brain Surgeon, Hassibi & Stork 1993, for whole
units as in Kurtic et al. 2022, *The optimal BERT surgeon*).

For layer ``l``, over the calibration tokens (padding excluded): ``X = [a, 1]``, the activated
units of the model pruned so far (after the non-linearity) and a constant; ``Y``, the unpruned
model's block output plus its attention output minus the pruned model's (the residual the block's
output is added to), so that the block also makes up for what earlier layers lost. Then

1. ``H = XᵀX + λ·mean(diag H)·I``, ``W = H⁻¹XᵀY`` (the least-squares projection on every unit);
2. while more than ``keep`` units are left, remove the unit ``j`` of least
   ``‖W_j‖² / [H⁻¹]_jj`` (the growth of the squared error when ``j`` goes and the others are
   re-fitted), with ``W ← W − H⁻¹_{:,j} W_j / [H⁻¹]_jj`` and
   ``H⁻¹ ← H⁻¹ − H⁻¹_{:,j} H⁻¹_{j,:} / [H⁻¹]_jj``;
3. solve the projection again on the kept units.

The last layer of a sequence classifier matters only at the first token, the one its head reads
(BERT's pooler, RoBERTa's and DeBERTa's heads; :mod:`citetrain.nli.first_token`): its rows are the
first tokens of ``head_batches``, which can hold many more pairs for the same memory. The model
saves as a standard one with ``config.intermediate_size = keep``. With a width per layer it is
saved at the widest, its narrower layers padded with units that are zero in and out
(:mod:`citetrain.nli.ffn_units`, which cuts them again where the model is read); a trimmed export
computes the last layer for the first token only (:mod:`citetrain.nli.first_token`), so that
layer's width costs almost nothing there.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from citetrain.errors import CitetrainError
from citetrain.models.prune import ffn_layers, pad_units
from citetrain.nli.ffn_units import cut_units

RIDGE = 1e-3  # λ: a share of the mean diagonal of XᵀX, so no unit's fit is ill-posed


class _Stop(Exception):
    """Raised by a hook once the layer of interest has run: the rest of the pass is not needed."""


@dataclass
class LayerFit:
    """One layer's fit: the units it keeps, calibration rows, the squared error per output value before and after
    the pruning (the pruned model's block as it came against the target), and the target's
    variance (what the error compares with)."""

    layer: int
    width: int
    rows: int
    error_before: float
    error_after: float
    target_variance: float


def _block_io(model: Any, index: int, batch: dict[str, Any], first: bool) -> tuple[Any, Any, Any]:
    """``(units, residual, projected)`` of layer ``index``'s feed-forward block on ``batch``: the
    activated units its output projection reads, the residual (attention's output) the projection
    is added to, and the projection's output, over the unpadded tokens (``first``: the first token
    of each row only), in float64."""
    import torch

    seen: dict[str, Any] = {}

    def hook(module: Any, args: tuple, kwargs: dict, output: Any) -> None:
        inputs = args[0] if args else kwargs["hidden_states"]
        residual = args[1] if len(args) > 1 else kwargs["input_tensor"]
        seen.update(inputs=inputs, residual=residual, projected=module.dense(inputs))
        raise _Stop

    handle = ffn_layers(model)[index].output.register_forward_hook(hook, with_kwargs=True)
    try:
        with torch.inference_mode():
            model(**{k: v.to(model.device) for k, v in batch.items() if k != "labels"})
    except _Stop:
        pass
    finally:
        handle.remove()
    if not seen:
        raise CitetrainError(f"layer {index}: its feed-forward block did not run")
    mask = batch["attention_mask"].bool().to(seen["inputs"].device)
    if first:
        mask = torch.zeros_like(mask)
        mask[:, 0] = True
    return tuple(seen[k][mask].double().cpu() for k in ("inputs", "residual", "projected"))


def _with_bias(kept: Any, units: int) -> Any:
    """The rows of ``XᵀX`` / ``XᵀY`` the fit on ``kept`` reads: the kept units and the constant."""
    import torch

    return torch.cat([kept, torch.tensor([units])])


def surgeon(gram: Any, cross: Any, keep: int, ridge: float = RIDGE) -> tuple[Any, Any]:
    """``(kept, W)``: the ``keep`` units (indices, ascending) left by the greedy removal of steps
    1-3 of the module docstring, and the least-squares projection on them (``keep + 1`` rows, the
    last the bias), from ``gram = XᵀX`` and ``cross = XᵀY`` (the last row and column of ``gram``
    the constant)."""
    import torch

    units = gram.shape[0] - 1
    if not 1 <= keep <= units:
        raise CitetrainError(f"keep {keep} units: must be between 1 and the {units} the layer has")
    reg = gram + ridge * gram.diagonal().mean() * torch.eye(units + 1, dtype=gram.dtype)
    inv = torch.linalg.inv(reg)
    w = inv @ cross
    alive = torch.ones(units, dtype=torch.bool)
    for _ in range(units - keep):
        cost = (w[:units] ** 2).sum(1) / inv.diagonal()[:units]
        j = int(torch.where(alive, cost, torch.inf).argmin())
        w = w - torch.outer(inv[:, j], w[j]) / inv[j, j]
        inv = inv - torch.outer(inv[:, j], inv[j]) / inv[j, j]
        alive[j] = False
    kept = torch.nonzero(alive).flatten()
    rows = _with_bias(kept, units)
    return kept, torch.linalg.solve(reg[rows][:, rows], cross[rows])


def layer_widths(keep: int | Sequence[int], have: int, layers: int) -> list[int]:
    """Each layer's width from ``keep``: one width for every layer (fewer than the ``have`` units
    a layer has), or one per layer (each at most ``have``, one at least under it)."""
    if isinstance(keep, int):
        if not 1 <= keep < have:
            raise CitetrainError(f"intermediate size {keep}: must be between 1 and the {have} units "
                                 f"the model has, exclusive of {have}")
        return [keep] * layers
    widths = [int(k) for k in keep]
    if len(widths) != layers:
        raise CitetrainError(f"intermediate sizes {','.join(map(str, widths))}: give one width for "
                             f"each of the model's {layers} layers")
    if bad := [k for k in widths if not 1 <= k <= have]:
        raise CitetrainError(f"intermediate sizes: {bad} not between 1 and the {have} units a layer "
                             "has")
    if min(widths) == have:
        raise CitetrainError(f"intermediate sizes: every layer keeps all {have} units; prune one")
    return widths


def compensate_ffn(model: Any, reference: Any, keep: int | Sequence[int],
                   batches: Sequence[dict[str, Any]],
                   head_batches: Sequence[dict[str, Any]] | None = None,
                   ridge: float = RIDGE) -> list[LayerFit]:
    """Prune ``model``'s feed-forward blocks in place (module docstring) to ``keep`` units each,
    or to ``keep[i]`` in layer ``i`` (a layer that keeps all its units is still re-fitted, so it
    makes up for the layers before it), against ``reference``, an unpruned copy of it (left as it
    is). ``batches``: calibration token batches (with ``attention_mask``) for every layer but the
    last; ``head_batches``: those of the last layer, read at the first token only (default
    ``batches``). Sets ``config.intermediate_size`` (with a width per layer, the widest, the
    narrower layers padded by :func:`~citetrain.models.prune.pad_units`, so the folder stays a
    standard one); returns each layer's :class:`LayerFit`."""
    layers = ffn_layers(model)
    widths = layer_widths(keep, layers[0].output.dense.in_features, len(layers))
    if len(ffn_layers(reference)) != len(layers):
        raise CitetrainError("the reference model has another number of layers")
    fits = []
    model.eval()
    reference.eval()
    for index, width in enumerate(widths):
        last = index == len(layers) - 1
        rows = (head_batches or batches) if last else batches
        fits.append(_refit(model, reference, index, rows, last, width, ridge))
    for layer in ffn_layers(model):
        pad_units(layer, max(widths))
    model.config.intermediate_size = max(widths)
    return fits


def _refit(model: Any, reference: Any, index: int, batches: Sequence[dict[str, Any]],
           first: bool, keep: int, ridge: float) -> LayerFit:
    """Choose ``keep`` units of layer ``index``'s feed-forward block and fit its output
    projection on them to the reference's output plus the lost residual; cut it in place."""
    import torch

    gram = cross = None
    n = 0
    before = total = square = 0.0
    for batch in batches:
        inputs, residual, projected = _block_io(model, index, batch, first)
        _, ref_residual, ref_projected = _block_io(reference, index, batch, first)
        target = ref_projected + ref_residual - residual
        x = torch.cat([inputs, torch.ones(len(inputs), 1, dtype=inputs.dtype)], 1)
        gram = x.T @ x if gram is None else gram + x.T @ x
        cross = x.T @ target if cross is None else cross + x.T @ target
        before += float(((projected - target) ** 2).sum())
        total += float(target.sum())
        square += float((target ** 2).sum())
        n += len(inputs)
    if not n:
        raise CitetrainError("no calibration tokens to fit the feed-forward blocks on")
    kept, w = surgeon(gram, cross, keep, ridge)
    # ‖XW − Y‖² = tr(Wᵀ XᵀX W) − 2·tr(Wᵀ XᵀY) + ‖Y‖², on the kept columns of X
    cols = _with_bias(kept, gram.shape[0] - 1)
    after = float((w * (gram[cols][:, cols] @ w)).sum() - 2 * (w * cross[cols]).sum() + square)
    layer = ffn_layers(model)[index]
    layer.intermediate.dense = cut_units(layer.intermediate.dense, kept, rows=True)
    out = layer.output.dense = cut_units(layer.output.dense, kept, rows=False)
    with torch.no_grad():
        out.weight.copy_(w[:-1].T.to(out.weight.dtype))
        out.bias.copy_(w[-1].to(out.bias.dtype))
    values = n * cross.shape[1]
    return LayerFit(index, keep, n, before / values, max(after, 0.0) / values,
                    square / values - (total / values) ** 2)
