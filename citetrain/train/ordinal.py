"""An ordinal three-way head (``model.head: ordinal``): the support levels' logits on one line.

A free three-way head has a weight row ``W_k`` per level ``k`` (0 no, 1 partial, 2 full support)
and reads a pair's features ``x`` as ``p = softmax(W x + b)``: the direction that tells partial
from no support is learned apart from the one that tells full from partial. The ordinal head is the
adjacent-category logit model (Agresti, *Analysis of Ordinal Categorical Data*, §4.1):

    log p_{k+1} / p_k = s(x) + c_k,  s(x) = w·x,  k = 0, 1

that is ``W_k = a + k·w`` for any ``a`` (softmax ignores what all rows share), or the rows'
second difference ``W_0 − 2·W_1 + W_2 = 0``. The expected level ``p_1 + 2·p_2`` then rises with
the one score ``s``, so the same direction ranks claims for every pair of levels: the plentiful
full-vs-not labels of binary sets also teach partial vs no support. The biases (the thresholds
``c_k``) stay free.

It is kept by projection (:func:`project`): the head's weight starts in that subspace and is put
back into it after every optimizer step (:func:`ordinal_callback`), so a checkpoint or a saved
model is a plain ``(num_labels, hidden)`` linear head that any classifier reader loads unchanged.
"""
from __future__ import annotations

from typing import Any

from citetrain.errors import CitetrainError


def second_difference(weight: Any) -> Any:
    """``W_0 − 2·W_1 + W_2`` of a three-row weight: zero for an ordinal head."""
    return weight[0] - 2 * weight[1] + weight[2]


def project(weight: Any) -> None:
    """Put a ``(3, hidden)`` weight in place onto the ordinal subspace: remove its component along
    ``v = (1, −2, 1)/√6`` (the orthogonal projection ``W ← W − v vᵀ W``)."""
    import torch

    with torch.no_grad():
        d = second_difference(weight) / 6.0
        weight[0] -= d
        weight[1] += 2 * d
        weight[2] -= d


def head_layers(model: Any, num_labels: int = 3) -> list[Any]:
    """The linear layers that output the ``num_labels`` logits (the classifier head; with LoRA's
    ``modules_to_save`` both its copies); an error when there is none."""
    import torch

    found = [m for m in model.modules()
             if isinstance(m, torch.nn.Linear) and m.out_features == num_labels]
    if not found:
        raise CitetrainError(f"model.head: ordinal: {type(model).__name__} has no linear layer "
                             f"with {num_labels} outputs to constrain")
    return found


def make_ordinal(model: Any) -> list[Any]:
    """Project the model's three-way head onto the ordinal subspace; returns its layers."""
    layers = head_layers(model)
    for layer in layers:
        project(layer.weight)
    return layers


def ordinal_callback(layers: list[Any]):
    """A ``TrainerCallback`` that projects ``layers`` after every optimizer step."""
    from transformers import TrainerCallback

    class OrdinalCallback(TrainerCallback):
        def on_optimizer_step(self, args, state, control, **kwargs):
            for layer in layers:
                project(layer.weight)

    return OrdinalCallback()
