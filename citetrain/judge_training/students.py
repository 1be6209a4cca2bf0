"""The model a ``kind: crossencoder`` recipe trains: the base encoder with a fresh head, cut to the
student the recipe asks for.

- ``crossencoder.num_layers`` N keeps the base's first N encoder layers (only their weights
  load); ``crossencoder.layers`` keeps the listed ones, in order
  (:func:`~citetrain.models.prune.keep_layers`).
- ``crossencoder.intermediate_size`` keeps each layer's most used feed-forward units, measured on
  a seeded sample of the training pairs (:func:`~citetrain.models.prune.prune_ffn`).
"""
from __future__ import annotations

from typing import Any

from citetrain.errors import CitetrainError
from citetrain.train import components as S
from citetrain.judge_training.pairs import LABEL_NAMES
from citetrain.train.recipe_schema import Recipe

PRUNE_SAMPLE = 256  # training pairs whose tokens measure the feed-forward units' use


def source_layers(recipe: Recipe, base: str) -> tuple[list[int], int]:
    """The base's encoder layers the student holds, in order (``crossencoder.layers``, the first
    ``crossencoder.num_layers``, or all of them), and how many the base has (its config, read
    once); a ``crossencoder.num_layers`` beyond them is a clear error."""
    from transformers import AutoConfig

    m, c = recipe.model, recipe.crossencoder
    config = AutoConfig.from_pretrained(base, revision=m.revision,
                                        trust_remote_code=m.trust_remote_code)
    if not hasattr(config, "num_hidden_layers"):
        raise CitetrainError(f"crossencoder.num_layers: {base}'s config has no num_hidden_layers")
    have = config.num_hidden_layers
    if c.num_layers is not None and c.num_layers > have:
        raise CitetrainError(f"crossencoder.num_layers: {c.num_layers} is more than the {have} "
                             f"layers of {base}")
    return list(c.layers or range(c.num_layers or have)), have


def load_classifier(recipe: Recipe, base: str, id2label: dict[int, str] | None = None):
    """The encoder with a fresh head (3-way unless ``id2label`` says otherwise; any head the
    base carries is replaced); with ``crossencoder.num_layers`` N, only its first N layers; with
    ``crossencoder.layers``, only those (:func:`~citetrain.models.prune.keep_layers`)."""
    from transformers import AutoModelForSequenceClassification

    c = recipe.crossencoder
    labels = id2label or dict(LABEL_NAMES)
    extra: dict[str, Any] = {}
    if c.num_layers is not None:  # the first N layers' weights load
        extra["num_hidden_layers"] = len(source_layers(recipe, base)[0])
    model = AutoModelForSequenceClassification.from_pretrained(
        base, revision=recipe.model.revision, num_labels=len(labels), id2label=labels,
        label2id={v: k for k, v in labels.items()}, ignore_mismatched_sizes=True,
        dtype=S.torch_dtype(recipe), trust_remote_code=recipe.model.trust_remote_code, **extra)
    model.config.citetrain_premise = c.premise
    model.config.citetrain_hint = c.hint
    if c.layers is not None:
        from citetrain.models.prune import keep_layers

        had = keep_layers(model, c.layers)
        print(f"[citetrain] crossencoder.layers: kept layers {c.layers} of {had}", flush=True)
    if c.dropout is not None:  # e.g. 0.0: a few hundred steps on little data
        import torch

        for module in model.modules():
            if isinstance(module, torch.nn.Dropout):
                module.p = c.dropout
    if recipe.method == "lora":
        from peft import LoraConfig, TaskType, get_peft_model

        lo = recipe.lora
        model = get_peft_model(model, LoraConfig(
            task_type=TaskType.SEQ_CLS, r=lo.r, lora_alpha=lo.alpha, lora_dropout=lo.dropout,
            target_modules=lo.target_modules, modules_to_save=lo.modules_to_save))
    return model


def prune_classifier(model: Any, keep: int, train_set: Any, tokenizer: Any, seed: int) -> None:
    """``crossencoder.intermediate_size``: keep each layer's ``keep`` most used feed-forward units
    (:func:`~citetrain.models.prune.prune_ffn`), measured on a seeded sample of
    :data:`PRUNE_SAMPLE` tokenized training pairs, before training starts."""
    from transformers import DataCollatorWithPadding

    from citetrain.models.prune import prune_ffn

    sample = train_set.shuffle(seed=seed).select(range(min(PRUNE_SAMPLE, len(train_set))))
    inputs = [c for c in ("input_ids", "attention_mask", "token_type_ids") if c in sample.column_names]
    rows = [{c: sample[i][c] for c in inputs} for i in range(len(sample))]
    collate = DataCollatorWithPadding(tokenizer, return_tensors="pt")
    had = prune_ffn(model, keep, (collate(rows[i:i + 32]) for i in range(0, len(rows), 32)))
    print(f"[citetrain] crossencoder.intermediate_size: kept {keep} of {had} feed-forward units per "
          f"layer, by their use on {len(rows)} training pairs", flush=True)


def load_student(recipe: Recipe, base: str, id2label: dict[int, str], train_set: Any,
                 tokenizer: Any) -> Any:
    """The model to train: :func:`load_classifier`, then :func:`prune_classifier` with
    ``crossencoder.intermediate_size``."""
    c = recipe.crossencoder
    model = load_classifier(recipe, base, id2label)
    from citetrain.nli.classifier import position_limit

    limit = position_limit(model)
    if limit is not None and recipe.data.max_length > limit:
        raise CitetrainError(f"data.max_length: {recipe.data.max_length} is past the {limit} "
                             f"tokens {base} can embed (its max_position_embeddings)")
    if c.intermediate_size is not None:
        prune_classifier(model, c.intermediate_size, train_set, tokenizer, recipe.train.seed)
    return model
