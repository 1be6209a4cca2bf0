"""The recipe schema: a training run's YAML file as nested pydantic sections.

Unknown keys are rejected with a "did you mean" (:func:`citetrain.config.validate`); the rules that
involve several keys are :mod:`citetrain.train.recipe_rules`, and loading a file (overrides, paths)
is :mod:`citetrain.train.recipe`. The keys of ``kind: crossencoder`` alone are in its own two
sections, ``crossencoder:`` (the labelled pairs, how they are read, the student cut from the base)
and ``distill:`` (teacher runs and a student's teacher file).
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from citetrain.models.tiny import TinySpec
from citetrain.nli.clauses import READS
from citetrain.nli.hints import HINT_MODES
from citetrain.train.targets import TEACHER_LOSSES


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelSection(_Section):
    name_or_path: str | None = None
    revision: str | None = None
    tiny: TinySpec | None = None
    dtype: Literal["auto", "bf16", "fp16", "fp32"] = "auto"
    attn_implementation: str | None = None
    trust_remote_code: bool = False
    gradient_checkpointing: bool = False
    adapter: str | None = None  # a trained LoRA adapter folder (an SFT run's final/) to go on from


class LoraSection(_Section):
    enabled: bool = True
    r: int = Field(default=16, ge=1)
    alpha: int = Field(default=32, ge=1)
    dropout: float = Field(default=0.05, ge=0.0, lt=1.0)
    target_modules: list[str] | str = "all-linear"
    modules_to_save: list[str] | None = None


class QuantSection(_Section):
    load_in_4bit: bool = False
    quant_type: Literal["nf4", "fp4"] = "nf4"
    double_quant: bool = True
    compute_dtype: Literal["bf16", "fp16", "fp32"] = "bf16"


class DataSection(_Section):
    dataset: str
    build: str | None = None
    train_split: str = "train"
    eval_split: str = "validation"
    max_length: int = Field(default=2048, ge=16)
    packing: bool = False
    max_train_examples: int | None = Field(default=None, ge=1)


class TrainSection(_Section):
    output_dir: str
    max_steps: int = Field(default=-1)
    epochs: float = Field(default=1.0, gt=0)
    learning_rate: float = Field(default=2e-4, gt=0)
    batch_size: int = Field(default=4, ge=1)
    grad_accum: int = Field(default=1, ge=1)
    warmup_steps: int | None = Field(default=None, ge=0)
    warmup_ratio: float | None = Field(default=None, ge=0.0, lt=1.0)
    scheduler: str = "cosine"
    weight_decay: float = Field(default=0.0, ge=0.0)
    seed: int = 42
    logging_steps: int = Field(default=10, ge=1)
    save_steps: int = Field(default=200, ge=1)
    save_total_limit: int | None = Field(default=3, ge=1)
    resume: Literal["auto", "never"] | str = "auto"
    bf16: Literal["auto", True, False] = "auto"
    use_cpu: bool = False


class EvalSection(_Section):
    enabled: bool = True
    steps: int = Field(default=200, ge=1)
    subset: int = Field(default=32, ge=1)
    metrics: list[str] = Field(default_factory=lambda: ["alce", "lenient"])
    nli: str = "lexical"
    nli_options: dict[str, Any] = Field(default_factory=dict)
    max_new_tokens: int = Field(default=32, ge=1)
    batch_size: int = Field(default=8, ge=1)
    best_metric: str | None = None
    greater_is_better: bool | None = None  # default: best_metric's known direction (best_direction)


class CrossEncoderSection(_Section):
    """``kind: crossencoder``: the labelled pairs a judge trains on, how it reads them, and the
    student it cuts from the base encoder."""

    labelled: list[str] | None = None  # ``PATH`` or ``FORMAT:PATH`` entries of labelled pairs
    validation_fraction: float = Field(default=0.3, gt=0.0, lt=1.0)  # claims held out to validate
    split_seed: int = 0  # the seed of the train/validation split (by hash of the claim)
    premise: Literal["select", "cut"] = "select"  # long premises, see nli.classifier
    hint: Literal[HINT_MODES] = "none"  # coverage hint, see nli.hints
    # folders of `citetrain build` kind pairs whose train split is added to training
    built: list[str] | None = None
    built_max: int | None = Field(default=None, ge=1)  # a seeded sample of the built pairs
    human_train: bool = True  # False: the labelled pairs only validate (training on built alone)
    built_exclude: list[str] = Field(default_factory=list)  # transformations left out (ablations)
    # sources (formats such as attributionbench, or FORMAT:PATH entries) whose label 0 says only
    # "not fully supported": trained as level 0 or 1 (citetrain/train/targets.py)
    not_full: list[str] = Field(default_factory=list)
    # every dropout layer of the encoder set to this (None: the model's own)
    dropout: float | None = Field(default=None, ge=0.0, lt=1.0)
    # keep the encoder's first N layers (a cheaper student for serving on CPUs; None: all of them)
    num_layers: int | None = Field(default=None, ge=1)
    # keep these layers of the encoder, in order (e.g. [0, 2, 4, 5]; citetrain/models/prune.py);
    # num_layers N is [0, ..., N-1]
    layers: list[int] | None = None
    # method full: keep each layer's N most used feed-forward units (citetrain/models/prune.py;
    # None: all)
    intermediate_size: int | None = Field(default=None, ge=1)
    card: bool = True  # held-out figures and throughput in the saved model's card


class DistillSection(_Section):
    """``kind: crossencoder``, distillation (citetrain/train/distill.py): a teacher run leaves fold
    ``fold`` of ``folds`` (by hash of the claim, crossencoder.split_seed) out of training and
    scores it; a student trains on the merged teacher file's probabilities, mixed with the label
    by ``teacher_weight``."""

    folds: int | None = Field(default=None, ge=2)  # a teacher run: the claims cut into this many
    fold: int | None = Field(default=None, ge=0)  # a teacher run: the fold it leaves out, from 0
    # how a teacher run reads its fold: the statement whole, or clause by clause (nli.clauses)
    fold_read: Literal[READS] = "whole"
    teacher: str | None = None  # a student: the teacher file (`citetrain teacher RUN... --out`)
    teacher_weight: float = Field(default=1.0, ge=0.0, le=1.0)  # the teacher's part of the target
    # the teacher's part of the loss: cross-entropy, or squared error of the centred log-probs
    # (citetrain/train/targets.py)
    teacher_loss: Literal[TEACHER_LOSSES] = "ce"


class RLSection(_Section):
    """``kind: grpo`` / ``kind: dpo``: what the prompts ask for, and the citation rewards
    (:mod:`citetrain.rewards.citation`) with their weights."""

    task: Literal["refiner", "generator"] = "refiner"
    rewards: dict[str, float] = Field(default_factory=lambda: {
        "recall": 1.0, "precision": 1.0, "wellformed": 0.5})
    nli: str = "lexical"  # the NLI engine the recall / precision rewards ask
    nli_options: dict[str, Any] = Field(default_factory=dict)
    at_most_citations: int | None = Field(default=3, ge=1)
    beta: float | None = Field(default=None, ge=0.0)  # KL coefficient (trl's default per trainer)
    # grpo
    num_generations: int = Field(default=4, ge=2)  # group size
    max_completion_length: int = Field(default=32, ge=1)
    temperature: float = Field(default=1.0, gt=0.0)
    # dpo: preference pairs (citetrain.builders.rl_sets)
    rejected: Literal["perturbed", "original", "sampled"] = "perturbed"
    samples: int = Field(default=4, ge=2)  # rejected: sampled, completions drawn per prompt


class LoggingSection(_Section):
    report_to: list[Literal["wandb", "trackio", "tensorboard", "none"]] = Field(
        default_factory=lambda: ["none"])
    run_name: str | None = None
    project: str = "citetrain"


class LaunchSection(_Section):
    config_file: str | None = None
    num_processes: int = Field(default=1, ge=1)
    num_machines: int = Field(default=1, ge=1)
    multi_gpu: bool | None = None
    env: dict[str, str] = Field(default_factory=dict)


class HubSection(_Section):
    push: bool = False
    repo_id: str | None = None
    private: bool = True


# keys a crossencoder recipe once gave in data: / model: / eval:, and the section that holds them
# now (a recipe that still gives them there is told where they went)
MOVED: dict[str, dict[str, str]] = {
    "data": {**{k: "crossencoder" for k in (
        "labelled", "validation_fraction", "split_seed", "premise", "hint", "built", "built_max",
        "human_train", "built_exclude", "not_full")},
        **{k: "distill" for k in ("folds", "fold", "fold_read", "teacher", "teacher_weight",
                                  "teacher_loss")}},
    "model": {k: "crossencoder" for k in ("dropout", "num_layers", "layers", "intermediate_size")},
    "eval": {"card": "crossencoder"},
}


class Recipe(_Section):
    """A training run: what to train, on what, how, how to score it and how to launch it."""

    name: str
    kind: Literal["refiner", "generator", "judge", "crossencoder", "grpo", "dpo"]
    method: Literal["lora", "qlora", "full"] = "lora"
    model: ModelSection
    lora: LoraSection = Field(default_factory=LoraSection)
    quantization: QuantSection = Field(default_factory=QuantSection)
    data: DataSection
    train: TrainSection
    eval: EvalSection = Field(default_factory=EvalSection)
    crossencoder: CrossEncoderSection | None = None  # kind crossencoder (default: every default)
    distill: DistillSection | None = None  # kind crossencoder
    rl: RLSection | None = None
    logging: LoggingSection = Field(default_factory=LoggingSection)
    launch: LaunchSection = Field(default_factory=LaunchSection)
    hub: HubSection = Field(default_factory=HubSection)

    @model_validator(mode="after")
    def _crossencoder_defaults(self) -> "Recipe":
        """A crossencoder recipe always has both sections (their defaults when left out); other
        kinds keep what was given, for :mod:`citetrain.train.recipe_rules` to reject."""
        if self.kind == "crossencoder":
            self.crossencoder = self.crossencoder or CrossEncoderSection()
            self.distill = self.distill or DistillSection()
        return self

