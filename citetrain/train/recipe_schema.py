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


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class ModelSection(_Section):
    name_or_path: str | None = None
    """The base model: a Hugging Face hub id or a local folder (give this or `tiny`)."""
    revision: str | None = None
    """The hub revision (branch, tag or commit) of `name_or_path`."""
    tiny: TinySpec | None = None
    """A small model built from a config, no download (give this or `name_or_path`)."""
    dtype: Literal["auto", "bf16", "fp16", "fp32"] = "auto"
    """The dtype the weights are loaded in; auto: bf16 on a GPU that has it for LoRA and QLoRA, fp32
    on CPU and for method full."""
    attn_implementation: str | None = None
    """The attention kernel (eager, sdpa, flash_attention_2, ...); null: the model's own, or with
    `data.packing` each packed example attended on its own."""
    trust_remote_code: bool = False
    """Run the modeling code a hub model ships."""
    gradient_checkpointing: bool = False
    """Recompute activations in the backward pass: less memory, slower steps."""
    adapter: str | None = None
    """A trained LoRA adapter folder (an SFT run's `final/`) that this run goes on training."""


class LoraSection(_Section):
    enabled: bool = True
    """Train LoRA adapters (needed by method lora and qlora; false for method full)."""
    r: int = Field(default=16, ge=1)
    """Rank of the adapters."""
    alpha: int = Field(default=32, ge=1)
    """Scaling of the adapters (alpha / r multiplies their update)."""
    dropout: float = Field(default=0.05, ge=0.0, lt=1.0)
    """Dropout on the adapters' input."""
    target_modules: list[str] | str = "all-linear"
    """The layers that get adapters: all-linear, or a list of module names."""
    modules_to_save: list[str] | None = None
    """Modules trained in full beside the adapters (e.g. lm_head, which trl refuses as a LoRA
    target)."""


class QuantSection(_Section):
    load_in_4bit: bool = False
    """Load the base model in 4 bits (bitsandbytes; method qlora needs it)."""
    quant_type: Literal["nf4", "fp4"] = "nf4"
    """The 4-bit data type: nf4 or fp4."""
    double_quant: bool = True
    """Quantize the quantization constants too (saves about 0.4 bits per weight)."""
    compute_dtype: Literal["bf16", "fp16", "fp32"] = "bf16"
    """The dtype the 4-bit layers compute in."""


class DataSection(_Section):
    dataset: str
    """The training set: a `citetrain build` output's `dataset/` folder (kind crossencoder without
    `crossencoder.labelled`: a pairs dataset folder)."""
    build: str | None = None
    """A build spec that makes `dataset` first when it is missing."""
    train_split: str = "train"
    """The split trained on."""
    eval_split: str = "validation"
    """The split scored in the loop."""
    max_length: int = Field(default=2048, ge=16)
    """Cap on the tokens of an example (prompt + completion; a pair for kind crossencoder)."""
    packing: bool = False
    """Pack several examples into each row of a batch."""
    max_train_examples: int | None = Field(default=None, ge=1)
    """Train on the first N examples only (null: all)."""
    max_eval_examples: int | None = Field(default=None, ge=1)
    """Compute the eval loss on about the first N examples of `eval_split`, whole records at a time
    (null: all); the in-loop scoring takes its `eval.subset` from them."""


class TrainSection(_Section):
    output_dir: str
    """The run's folder: checkpoints, `final/`, logs."""
    max_steps: int = Field(default=-1)
    """Optimizer steps to take; -1: `epochs` decides."""
    epochs: float = Field(default=1.0, gt=0)
    """Passes over the training set (when max_steps is -1)."""
    learning_rate: float = Field(default=2e-4, gt=0)
    """Peak learning rate."""
    batch_size: int = Field(default=4, ge=1)
    """Examples per device per step."""
    grad_accum: int = Field(default=1, ge=1)
    """Steps whose gradients are summed before each optimizer step."""
    warmup_steps: int | None = Field(default=None, ge=0)
    """Steps of linear warm-up (give this or warmup_ratio)."""
    warmup_ratio: float | None = Field(default=None, ge=0.0, lt=1.0)
    """Share of the steps spent warming up (give this or warmup_steps)."""
    scheduler: str = "cosine"
    """The learning-rate schedule (transformers' names: cosine, linear, constant, ...)."""
    weight_decay: float = Field(default=0.0, ge=0.0)
    """AdamW weight decay."""
    seed: int = 42
    """Seed of the run (data order, initial adapters, sampling)."""
    logging_steps: int = Field(default=10, ge=1)
    """Steps between logged losses."""
    save_steps: int = Field(default=200, ge=1)
    """Steps between checkpoints (a multiple of eval.steps when a best checkpoint is kept)."""
    save_total_limit: int | None = Field(default=3, ge=1)
    """Checkpoints kept (the oldest removed; null: all)."""
    resume: Literal["auto", "never"] | str = "auto"
    """auto: go on from the last complete checkpoint of output_dir; never: start over; or a
    checkpoint folder."""
    bf16: Literal["auto", True, False] = "auto"
    """bf16 mixed precision; auto: on a GPU that has it."""
    use_cpu: bool = False
    """Train on the CPU even when a GPU is there."""


class EvalSection(_Section):
    enabled: bool = True
    """Score the model during training."""
    steps: int = Field(default=200, ge=1)
    """Steps between in-loop scorings."""
    subset: int = Field(default=32, ge=1)
    """Records (for kind crossencoder: validation pairs) scored each time, a fixed seeded sample."""
    metrics: list[str] = Field(default_factory=lambda: ["alce", "lenient"])
    """The citation metrics computed in the loop."""
    nli: str = "lexical"
    """The NLI engine the in-loop metrics ask: lexical, seq2seq:PATH, classifier:PATH, llm:MODEL."""
    nli_options: dict[str, Any] = Field(default_factory=dict)
    """Keyword options of that NLI engine."""
    max_new_tokens: int = Field(default=32, ge=1)
    """Cap on the tokens generated per in-loop answer."""
    batch_size: int = Field(default=8, ge=1)
    """Prompts per in-loop generation batch."""
    best_metric: str | None = None
    """The in-loop score that picks the best checkpoint (null: none kept; kind crossencoder:
    roc_auc)."""
    greater_is_better: bool | None = None
    """Whether a higher best_metric is better (null: the metric's known direction)."""


class CrossEncoderSection(_Section):
    """``kind: crossencoder``: the labelled pairs a judge trains on, how it reads them, and the
    student it cuts from the base encoder."""

    labelled: list[str] | None = None
    """The labelled pairs: `PATH` or `FORMAT:PATH` entries."""
    validation_fraction: float = Field(default=0.3, gt=0.0, lt=1.0)
    """Share of the claims held out to validate."""
    split_seed: int = 0
    """Seed of the train / validation split (by hash of the claim)."""
    premise: Literal["select", "cut"] = "select"
    """How a premise too long for data.max_length is read: select keeps the sentences that best
    cover the statement, cut keeps its start."""
    hint: Literal[HINT_MODES] = "none"
    """Coverage hint after the statement: none, uncovered (its content words the premise lacks) or
    coverage (also the share it holds)."""
    built: list[str] | None = None
    """Folders of `citetrain build` kind pairs whose train split is added to training."""
    built_max: int | None = Field(default=None, ge=1)
    """A seeded sample of this many built pairs (null: all)."""
    human_train: bool = True
    """Train on the labelled pairs too (false: they only validate)."""
    built_exclude: list[str] = Field(default_factory=list)
    """Transformations whose built pairs are left out. No shipped recipe sets it: it is the
    hard-negative ablation that recipes/judge-crossencoder-built.yaml's header runs with --set."""
    not_full: list[str] = Field(default_factory=list)
    """Sources (formats such as attributionbench, or FORMAT:PATH entries) whose label 0 says only
    "not fully supported": trained as level 0 or 1. No shipped recipe sets it: it is for a recipe
    that mixes such binary sources with three-level ones."""
    dropout: float | None = Field(default=None, ge=0.0, lt=1.0)
    """Every dropout layer of the encoder set to this (null: the model's own)."""
    num_layers: int | None = Field(default=None, ge=1)
    """Keep the encoder's first N layers (a cheaper student for serving on CPUs; null: all)."""
    layers: list[int] | None = None
    """Keep these layers of the encoder, in order (e.g. [0, 2, 4, 5]); num_layers N keeps
    [0, ..., N-1]."""
    intermediate_size: int | None = Field(default=None, ge=1)
    """method full: keep each layer's N most used feed-forward units (null: all)."""
    card: bool = True
    """Write held-out figures and throughput into the saved model's card."""


class DistillSection(_Section):
    """``kind: crossencoder``, distillation (citetrain/judge_training/teacher_scores.py): a teacher run leaves fold
    ``fold`` of ``folds`` (by hash of the claim, crossencoder.split_seed) out of training and
    scores it; a student trains on the merged teacher file's probabilities, mixed with the label
    by ``teacher_weight``."""

    folds: int | None = Field(default=None, ge=2)
    """A teacher run: the claims cut into this many folds."""
    fold: int | None = Field(default=None, ge=0)
    """A teacher run: the fold it leaves out of training and scores, from 0."""
    fold_read: Literal[READS] = "whole"
    """How a teacher run reads its fold: each statement whole, or clause by clause."""
    teacher: str | None = None
    """A student: the teacher file (`citetrain teacher RUN... --out FILE`)."""
    teacher_weight: float = Field(default=1.0, ge=0.0, le=1.0)
    """The teacher's part of the target; the label has the rest."""


class SelfCiteSection(_Section):
    """``rl.rewards: {selfcite: w}`` and ``rl.rejected: selfcite``: SelfCite's context-ablation
    reward (:mod:`citetrain.rewards.selfcite`) and how it is scored."""

    model: str | None = None
    """The causal LM that scores it (a folder, an adapter folder or a hub id; null: the model
    being trained, as SelfCite scores with its own model)."""
    max_batch_tokens: int = Field(default=8192, ge=1)
    """Padded tokens per scoring forward pass (the ablated contexts of a group go together)."""
    normalize: bool = True
    """Mean token log-probability of a statement (the paper's); false: the sum."""
    max_cited_tokens: int | None = Field(default=None, ge=1)
    """Subtract 1000 when a statement cites several passages of more than this many tokens
    (SelfCite's length limit; null: no limit)."""
    candidates: int = Field(default=8, ge=2)
    """dpo, rejected selfcite: citation sets ranked per statement (sampled, the given ones, then
    drawn at random)."""
    max_ids: int | None = Field(default=3, ge=1)
    """dpo, rejected selfcite: ids kept per candidate set (null: all)."""


class RLSection(_Section):
    """``kind: grpo`` / ``kind: dpo``: what the prompts ask for, and the citation rewards
    (:mod:`citetrain.rewards.citation`) with their weights."""

    task: Literal["refiner", "generator"] = "refiner"
    """What the prompts ask for: a refiner's citations or a generator's answer."""
    rewards: dict[str, float] = Field(default_factory=lambda: {
        "recall": 1.0, "precision": 1.0, "wellformed": 0.5})
    """The citation rewards and their weights (of recall, precision, wellformed, preservation,
    gold and selfcite)."""
    nli: str = "lexical"
    """The NLI engine the recall / precision rewards ask."""
    nli_options: dict[str, Any] = Field(default_factory=dict)
    """Keyword options of that NLI engine."""
    at_most_citations: int | None = Field(default=3, ge=1)
    """The rewards read only the first this many ids of a statement (null: all)."""
    beta: float | None = Field(default=None, ge=0.0)
    """KL coefficient against the reference model (null: trl's default per trainer)."""
    sft_weight: float = Field(default=0.0, ge=0.0)
    """dpo: weight of a negative log-likelihood loss on the chosen completion beside the DPO loss
    (RPO; trl's loss_type [sigmoid, sft]); 0: DPO alone."""
    num_generations: int = Field(default=4, ge=2)
    """grpo: completions sampled per prompt (the group)."""
    max_completion_length: int = Field(default=32, ge=1)
    """grpo: cap on the tokens of each completion."""
    temperature: float = Field(default=1.0, gt=0.0)
    """grpo: sampling temperature."""
    rejected: Literal["perturbed", "original", "sampled", "selfcite"] = "perturbed"
    """dpo: the rejected completion: the gold citations perturbed, the statement's original
    citations, or sampled completions ranked by the rewards; selfcite: both sides are the best
    and worst of `rl.selfcite.candidates` citation sets by the SelfCite reward."""
    samples: int = Field(default=4, ge=2)
    """dpo, rejected sampled: completions drawn per prompt."""
    selfcite: SelfCiteSection = Field(default_factory=SelfCiteSection)
    """The SelfCite reward's scorer and options (reward `selfcite`, rejected `selfcite`)."""


class LoggingSection(_Section):
    report_to: list[Literal["wandb", "trackio", "tensorboard", "none"]] = Field(
        default_factory=lambda: ["none"])
    """Trackers the run logs to: wandb, trackio, tensorboard, or none."""
    run_name: str | None = None
    """The run's name in the trackers (null: the recipe's name)."""
    project: str = "citetrain"
    """The trackers' project."""


class LaunchSection(_Section):
    config_file: str | None = None
    """An accelerate config file (launch/*.yaml) for `accelerate launch`."""
    num_processes: int = Field(default=1, ge=1)
    """Training processes (one per GPU)."""
    num_machines: int = Field(default=1, ge=1)
    """Machines the run spans."""
    multi_gpu: bool | None = None
    """Pass --multi_gpu to accelerate (null: when num_processes > 1 and no config_file)."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment variables set for the run."""


class HubSection(_Section):
    push: bool = False
    """Push the final model to the Hugging Face hub."""
    repo_id: str | None = None
    """The hub repository pushed to."""
    private: bool = True
    """Create the repository private."""


# keys a crossencoder recipe once gave in data: / model: / eval:, and the section that holds them
# now (a recipe that still gives them there is told where they went)
MOVED: dict[str, dict[str, str]] = {
    "data": {**{k: "crossencoder" for k in (
        "labelled", "validation_fraction", "split_seed", "premise", "hint", "built", "built_max",
        "human_train", "built_exclude", "not_full")},
        **{k: "distill" for k in ("folds", "fold", "fold_read", "teacher", "teacher_weight")}},
    "model": {k: "crossencoder" for k in ("dropout", "num_layers", "layers", "intermediate_size")},
    "eval": {"card": "crossencoder"},
}


class Recipe(_Section):
    """A training run: what to train, on what, how, how to score it and how to launch it."""

    name: str
    """The run's name."""
    kind: Literal["refiner", "generator", "judge", "crossencoder", "grpo", "dpo"]
    """What is trained: a refiner, a generator or a generative judge (SFT), a cross-encoder judge,
    or GRPO / DPO on citation rewards."""
    method: Literal["lora", "qlora", "full"] = "lora"
    """lora: adapters on a frozen base; qlora: adapters on a 4-bit base; full: every weight."""
    model: ModelSection
    """The base model."""
    lora: LoraSection = Field(default_factory=LoraSection)
    """The LoRA adapters (method lora and qlora)."""
    quantization: QuantSection = Field(default_factory=QuantSection)
    """4-bit loading (method qlora)."""
    data: DataSection
    """The training data."""
    train: TrainSection
    """The optimisation: steps, learning rate, batches, checkpoints."""
    eval: EvalSection = Field(default_factory=EvalSection)
    """In-loop scoring and the best checkpoint."""
    crossencoder: CrossEncoderSection | None = None
    """kind crossencoder: the labelled pairs, how they are read, and the student cut from the
    encoder (every default when left out)."""
    distill: DistillSection | None = None
    """kind crossencoder: teacher runs and students trained on their scores."""
    rl: RLSection | None = None
    """kind grpo and dpo: prompts and citation rewards."""
    logging: LoggingSection = Field(default_factory=LoggingSection)
    """Experiment trackers."""
    launch: LaunchSection = Field(default_factory=LaunchSection)
    """How `citetrain train` starts accelerate."""
    hub: HubSection = Field(default_factory=HubSection)
    """Pushing the final model to the Hugging Face hub."""

    @model_validator(mode="after")
    def _crossencoder_defaults(self) -> "Recipe":
        """A crossencoder recipe always has both sections (their defaults when left out); other
        kinds keep what was given, for :mod:`citetrain.train.recipe_rules` to reject."""
        if self.kind == "crossencoder":
            self.crossencoder = self.crossencoder or CrossEncoderSection()
            self.distill = self.distill or DistillSection()
        return self

