"""Training targets of a three-way cross-encoder: a teacher's part and the label as a set of levels.

A pair's target has two parts (:func:`training_targets`):

- the teacher's part ``t = w·teacher`` (``distill.teacher``, :mod:`citetrain.judge_training.teacher_scores`; zero
  where the teacher file lacks the pair), of mass ``w``;
- the label, as the set ``S`` of support levels it allows, with the remaining mass ``1 − w``.
  Most labels allow one level. A binary source's "not attributable" (AttributionBench) says only
  that the claim is **not fully** supported: it is partially supported or not at all, so with
  ``crossencoder.not_full`` naming that source its label 0 allows ``{0, 1}``.

The loss (:func:`target_trainer_class`) is

    L = −Σ_k t_k·log p_k − (1 − Σ_k t_k)·log Σ_{k∈S} p_k

where ``p`` is the head's softmax: with a one-level ``S`` it is the cross-entropy against
``w·teacher + (1 − w)·one-hot(label)``, the distillation target; with ``S = {0, 1}`` the label
asks only that the pair is not read as fully supported, and leaves how the model splits the rest
between partial and no support to the pairs that say so (the marginal likelihood of a coarse
label). Rows are ``2·LEVELS`` wide: ``t`` then the 0/1 mask of ``S``.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from citetrain.judge_training.teacher_scores import LEVELS, pair_key

NOT_FULL = (0, 1)  # the levels a binary source's negative label allows


def source_matches(source: str, names: Iterable[str]) -> bool:
    """Whether a pair's ``source`` (``"FORMAT:PATH"``) is one of ``names``: a format
    (``attributionbench``) or a whole ``crossencoder.labelled`` entry."""
    return any(source == n or source.startswith(n + ":") for n in names)


def label_set(label: int, source: str, not_full: Iterable[str] = ()) -> list[float]:
    """The 0/1 mask of the levels ``label`` allows: ``{label}``, or :data:`NOT_FULL` for label 0
    of a source named in ``not_full``."""
    levels = NOT_FULL if int(label) == 0 and source_matches(source, not_full) else (int(label),)
    return [1.0 if k in levels else 0.0 for k in range(LEVELS)]


def training_targets(train: Any, teacher: dict[str, tuple[list[float], float | None]],
                     weight: float, not_full: Iterable[str] = ()
                     ) -> tuple[list[list[float]], dict[str, int]]:
    """Per training pair the row ``t + mask(S)`` (module docstring): ``t = w·teacher`` where the
    teacher rows (:func:`~citetrain.judge_training.teacher_scores.read_teacher_rows`) have the pair, ``w`` the
    row's own weight when it has one (transfer pairs), else ``weight``; zero elsewhere. Returns
    (rows, counts: ``taught`` pairs the teacher had, ``own`` of them with their own weight,
    ``not_full`` labels read as :data:`NOT_FULL`)."""
    not_full = tuple(not_full)
    sources = train["source"] if "source" in train.column_names else [""] * len(train)
    rows, counts = [], {"taught": 0, "own": 0, "not_full": 0}
    for p, h, lab, src in zip(train["premise"], train["hypothesis"], train["label"], sources):
        allowed = label_set(lab, src, not_full)
        counts["not_full"] += sum(allowed) > 1
        probs, w = teacher.get(pair_key(p, h), (None, None))
        part = [0.0] * LEVELS
        if probs is not None:
            counts["taught"] += 1
            counts["own"] += w is not None
            w = weight if w is None else w
            part = [w * x for x in probs]
        rows.append(part + allowed)
    return rows, counts


def target_loss(logits: Any, rows: Any) -> Any:
    """The batch mean of L (module docstring) for ``logits`` (batch, LEVELS) and ``rows``
    (batch, 2·LEVELS)."""
    import torch

    t, allowed = rows[:, :LEVELS].to(logits.dtype), rows[:, LEVELS:] > 0
    logp = torch.log_softmax(logits, -1)
    mass = t.sum(-1)
    rest = (1.0 - mass).clamp(min=0.0)
    in_set = logp.masked_fill(~allowed, float("-inf")).logsumexp(-1)
    taught = -(t * logp).sum(-1)
    return (taught - rest * in_set).mean()


def target_trainer_class():
    """A ``transformers.Trainer`` whose training labels are target rows (:func:`target_loss`);
    integer labels (validation) get the usual cross-entropy."""
    import torch
    from transformers import Trainer

    class TargetTrainer(Trainer):
        loss_is_scaled_for_ga = False  # a per-batch mean: the Trainer divides by grad_accum

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.model_accepts_loss_kwargs = False  # the same, in transformers before 5

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            labels = inputs.pop("labels")
            outputs = model(**inputs)
            logits = outputs.logits.float()
            loss = (target_loss(logits, labels) if labels.dim() == 2
                    else torch.nn.functional.cross_entropy(logits, labels))
            return (loss, outputs) if return_outputs else loss

    return TargetTrainer


def describe_targets(recipe: Any, counts: dict[str, int], n: int) -> list[str]:
    """What the soft targets of ``n`` training pairs read, one line each (the run prints them)."""
    c, d = recipe.crossencoder, recipe.distill
    lines = []
    if d.teacher is not None:
        lines.append(f"teacher: {counts['taught']} of {n} training pairs read "
                     f"{d.teacher_weight:g}·teacher + {1 - d.teacher_weight:g}·label"
                     + (f", {counts['own']} of them transfer pairs with their own weight"
                        if counts["own"] else ""))
        if counts["own"] == counts["taught"] and d.teacher_weight != 1.0:
            lines.append(f"warning: distill.teacher_weight {d.teacher_weight:g} applies to no "
                         f"pair: every pair {d.teacher} scores carries its own weight (set it "
                         "when the file is made: citetrain teacher --transfer-weight)")
    if c.not_full:
        lines.append(f"crossencoder.not_full: {counts['not_full']} training labels of "
                     f"{', '.join(c.not_full)} read as 'not fully supported' (level 0 or 1)")
    return lines
