"""Training recipes: YAML files in the top-level ``recipes/``, validated with nested sections.

Unknown keys are rejected with a "did you mean"; cross-field rules (QLoRA needs 4-bit loading and
LoRA, warmup steps or ratio, best-checkpoint metric needs in-loop scoring, ...) are checked in the
same pass, and every problem is reported at once (:class:`~citetrain.config.ConfigError`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citetrain.config import ConfigError, apply_overrides, did_you_mean, load_yaml, validate
from citetrain.metrics.registry import METRICS
from citetrain.models.tiny import TinySpec
from citetrain.nli.clauses import READS
from citetrain.nli.hints import HINT_MODES
from citetrain.rewards.citation import NAMES as REWARD_NAMES


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
    dropout: float | None = Field(default=None, ge=0.0, lt=1.0)  # kind crossencoder: every
    # dropout layer of the encoder set to this (None: the model's own)
    num_layers: int | None = Field(default=None, ge=1)  # kind crossencoder: keep the encoder's
    # first N layers (a cheaper student for serving on CPUs; None: all of them)
    layers: list[int] | None = None  # kind crossencoder: keep these layers of the encoder, in
    # order (e.g. [0, 2, 4, 5]; citetrain/models/prune.py); num_layers N is [0, ..., N-1]
    intermediate_size: int | None = Field(default=None, ge=1)  # kind crossencoder, method full:
    # keep each layer's N most used feed-forward units (citetrain/models/prune.py; None: all)
    adapter: str | None = None  # a trained LoRA adapter folder (an SFT run's final/) to go on from
    head: Literal["free", "ordinal"] = "free"  # kind crossencoder: "ordinal" keeps the three
    # levels' logits on one line, W_k = a + k·w (citetrain/train/ordinal.py)


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
    labelled: list[str] | None = None  # crossencoder: ``PATH`` or ``FORMAT:PATH`` entries
    validation_fraction: float = Field(default=0.3, gt=0.0, lt=1.0)
    split_seed: int = 0
    premise: Literal["select", "cut"] = "select"  # crossencoder: long premises, see nli.classifier
    hint: Literal[HINT_MODES] = "none"  # crossencoder: coverage hint, see nli.hints
    # crossencoder: folders of `citetrain build` kind pairs whose train split is added to training
    built: list[str] | None = None
    built_max: int | None = Field(default=None, ge=1)  # a seeded sample of the built pairs
    human_train: bool = True  # False: the labelled pairs only validate (training on built alone)
    built_exclude: list[str] = Field(default_factory=list)  # transformations left out (ablations)
    # crossencoder: this fraction of the human training claims is held out of training to fit
    # eval.stack (hash of the pair's group, split_seed)
    calibration_fraction: float = Field(default=0.0, ge=0.0, lt=1.0)
    # crossencoder, distillation (citetrain/train/distill.py): a teacher run leaves fold `fold` of `folds` (by
    # hash of the claim, split_seed) out of training and scores it; a student trains on the
    # merged teacher file's probabilities, mixed with the label by teacher_weight
    folds: int | None = Field(default=None, ge=2)
    fold: int | None = Field(default=None, ge=0)
    # how a teacher run reads its fold: the statement whole, or clause by clause (nli.clauses)
    fold_read: Literal[READS] = "whole"
    teacher: str | None = None
    teacher_weight: float = Field(default=1.0, ge=0.0, le=1.0)
    # crossencoder: a judge folder whose hidden states the student's layers learn, layer by
    # layer, read during training (citetrain/train/hidden.py), weighted by hidden_weight
    teacher_model: str | None = None
    hidden_weight: float = Field(default=1.0, gt=0.0)
    # crossencoder: sources (formats such as attributionbench, or FORMAT:PATH entries) whose
    # label 0 says only "not fully supported": trained as level 0 or 1 (citetrain/train/targets.py)
    not_full: list[str] = Field(default_factory=list)


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
    card: bool = True  # crossencoder: held-out figures and throughput in the saved model's card
    # crossencoder: "lexical" stacks the model with lexical recall (nli.stack), fitted on the
    # data.calibration_fraction claims held out of training and saved in the model's config
    stack: Literal["none", "lexical"] = "none"


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
    rl: RLSection | None = None
    logging: LoggingSection = Field(default_factory=LoggingSection)
    launch: LaunchSection = Field(default_factory=LaunchSection)
    hub: HubSection = Field(default_factory=HubSection)


def cross_field_errors(r: Recipe) -> list[str]:
    """Rules that involve several keys; one message per broken rule."""
    errs = []
    if (r.model.name_or_path is None) == (r.model.tiny is None):
        errs.append("model: give exactly one of name_or_path or tiny")
    if r.method == "qlora" and not r.quantization.load_in_4bit:
        errs.append("method qlora needs quantization.load_in_4bit: true")
    if r.method != "qlora" and r.quantization.load_in_4bit:
        errs.append(f"quantization.load_in_4bit is for method qlora (method is {r.method})")
    if r.method in ("lora", "qlora") and not r.lora.enabled:
        errs.append(f"method {r.method} needs lora.enabled: true")
    if r.method == "full" and r.lora.enabled:
        errs.append("method full trains every weight: set lora.enabled: false")
    if r.train.warmup_steps is not None and r.train.warmup_ratio is not None:
        errs.append("train: give warmup_steps or warmup_ratio, not both")
    if r.train.max_steps == 0 or r.train.max_steps < -1:
        errs.append("train.max_steps must be positive (or -1 to use epochs)")
    bad = [m for m in r.eval.metrics if m not in METRICS]
    if bad:
        errs.append(f"eval.metrics: unknown {', '.join(bad)}; choose from {', '.join(METRICS)}")
    if r.eval.best_metric and not r.eval.enabled:
        errs.append("eval.best_metric needs eval.enabled: true (in-loop scoring)")
    if r.eval.best_metric and r.eval.enabled and r.train.save_steps % r.eval.steps:
        errs.append(f"eval.best_metric: train.save_steps ({r.train.save_steps}) must be a multiple "
                    f"of eval.steps ({r.eval.steps}) to keep the best checkpoint")
    errs += _direction_errors(r)
    errs += _crossencoder_errors(r)
    errs += _rl_errors(r)
    if r.hub.push and not r.hub.repo_id:
        errs.append("hub.push needs hub.repo_id")
    if "none" in r.logging.report_to and len(r.logging.report_to) > 1:
        errs.append("logging.report_to: 'none' cannot be combined with other trackers")
    if r.lora.target_modules == ["lm_head"] or "lm_head" in (r.lora.target_modules or []):
        errs.append("lora.target_modules: trl refuses LoRA on lm_head; use lora.modules_to_save")
    return errs


def _best_metric(r: Recipe) -> str | None:
    return r.eval.best_metric or ("roc_auc" if r.kind == "crossencoder" else None)


def known_direction(score: str) -> bool | None:
    """Whether a higher in-loop ``score`` is better (the metrics', the training loop's own, and
    transformers' ``loss`` rule); ``None`` when unknown."""
    from citetrain.metrics.registry import score_direction
    from citetrain.train.scoring import IN_LOOP_DIRECTIONS

    return score_direction(score, IN_LOOP_DIRECTIONS)


def best_direction(r: Recipe) -> bool:
    """``greater_is_better`` for keeping the best checkpoint: ``eval.greater_is_better`` when set,
    else the known direction of the best metric (higher is better when unknown, as transformers)."""
    if r.eval.greater_is_better is not None:
        return r.eval.greater_is_better
    best = _best_metric(r)
    known = known_direction(best) if best else None
    return True if known is None else known


def _direction_errors(r: Recipe) -> list[str]:
    """``eval.greater_is_better`` set against the best metric's known direction."""
    best, given = _best_metric(r), r.eval.greater_is_better
    known = known_direction(best) if best and given is not None else None
    if known is None or known == given:
        return []
    word = {True: "higher", False: "lower"}
    return [f"eval.greater_is_better: {str(given).lower()}, but {best} is {word[known]}-is-better; "
            f"remove eval.greater_is_better (it follows eval.best_metric)"]


def _not_full_errors(r: Recipe) -> list[str]:
    """``data.not_full`` names formats (``attributionbench``) or ``FORMAT:PATH`` entries of
    ``data.labelled``."""
    if not r.data.not_full:
        return []
    from citetrain.train.pairs import source_formats

    formats = source_formats()
    unknown = [n for n in r.data.not_full if n not in formats | set(r.data.labelled or [])]
    if unknown:
        return [f"data.not_full: {', '.join(unknown)} is neither a format "
                f"({', '.join(sorted(formats))}) nor a FORMAT:PATH entry of data.labelled"]
    return []


def _crossencoder_errors(r: Recipe) -> list[str]:
    """Rules of ``kind: crossencoder`` (a sequence-pair classifier trained on labelled pairs)."""
    if r.kind != "crossencoder":
        return ((["data.labelled is for kind crossencoder"] if r.data.labelled is not None else [])
                + (["data.hint is for kind crossencoder"] if r.data.hint != "none" else [])
                + (["data.built is for kind crossencoder"] if r.data.built else [])
                + (["eval.stack is for kind crossencoder"] if r.eval.stack != "none" else [])
                + (["data.calibration_fraction is for kind crossencoder"]
                   if r.data.calibration_fraction else [])
                + (["model.num_layers is for kind crossencoder"]
                   if r.model.num_layers is not None else [])
                + (["model.layers is for kind crossencoder"] if r.model.layers is not None else [])
                + (["model.intermediate_size is for kind crossencoder"]
                   if r.model.intermediate_size is not None else [])
                + (["data.folds / data.teacher are for kind crossencoder"]
                   if r.data.folds is not None or r.data.teacher is not None else [])
                + (["data.not_full is for kind crossencoder"] if r.data.not_full else [])
                + (["data.teacher_model is for kind crossencoder"]
                   if r.data.teacher_model is not None else [])
                + (["model.head is for kind crossencoder"] if r.model.head != "free" else []))
    errs = _distill_errors(r)
    if r.data.hidden_weight != 1.0 and r.data.teacher_model is None:
        errs.append("data.hidden_weight weighs the hidden-state loss of data.teacher_model: set "
                    "data.teacher_model")
    if r.model.layers is not None:
        if r.model.num_layers is not None:
            errs.append("model.layers and model.num_layers both choose layers: set one")
        if not r.model.layers or r.model.layers != sorted(set(r.model.layers)):
            errs.append(f"model.layers: {r.model.layers} must be layer indices in ascending order, "
                        "each once")
    if r.model.intermediate_size is not None and r.method != "full":
        errs.append("model.intermediate_size prunes the model before training: it needs method: "
                    "full (a pruned model learns again in every weight)")
    if r.eval.stack != "none" and not r.data.calibration_fraction:
        errs.append("eval.stack is fitted on held-out training claims: set "
                    "data.calibration_fraction (e.g. 0.15)")
    if r.data.calibration_fraction and r.eval.stack == "none":
        errs.append("data.calibration_fraction holds claims out for eval.stack: set "
                    "eval.stack: lexical, or remove it")
    if r.data.calibration_fraction and not r.data.human_train:
        errs.append("data.calibration_fraction is taken from the human pairs: "
                    "data.human_train: false trains on none")
    if not r.data.human_train and not r.data.built:
        errs.append("data.human_train: false trains on data.built alone: give data.built")
    errs += _not_full_errors(r)
    if r.data.built_exclude:
        from citetrain.builders.transforms import TRANSFORMS

        unknown = [t for t in r.data.built_exclude if t not in TRANSFORMS]
        if unknown:
            errs.append(f"data.built_exclude: unknown transformation(s) {', '.join(unknown)}; "
                        f"choose from {', '.join(TRANSFORMS)}")
        if not r.data.built:
            errs.append("data.built_exclude filters data.built: give data.built")
    if not r.data.labelled and not (Path(r.data.dataset) / "dataset_dict.json").is_file():
        errs.append(f"kind crossencoder needs data.labelled (labelled files) or an existing "
                    f"pairs dataset at data.dataset ({r.data.dataset} has none)")
    if r.method not in ("full", "lora"):
        errs.append(f"kind crossencoder trains with method full or lora, not {r.method}")
    if r.model.tiny is not None:
        errs.append("kind crossencoder needs model.name_or_path (model.tiny builds causal LMs)")
    if r.data.build is not None:
        errs.append("data.build makes SFT sets; kind crossencoder reads data.labelled")
    if r.eval.enabled and not r.eval.best_metric and r.train.save_steps % r.eval.steps:
        errs.append(f"kind crossencoder keeps the best checkpoint by roc_auc: train.save_steps "
                    f"({r.train.save_steps}) must be a multiple of eval.steps ({r.eval.steps})")
    return errs


def _distill_errors(r: Recipe) -> list[str]:
    """Rules of the distillation keys (``data.folds``, ``data.fold``, ``data.teacher``)."""
    d, errs = r.data, []
    if (d.folds is None) != (d.fold is None):
        errs.append("data.folds and data.fold go together (a teacher run leaves fold `fold` of "
                    "`folds` out)")
    elif d.folds is not None and d.fold >= d.folds:
        errs.append(f"data.fold: {d.fold} is not below data.folds ({d.folds}); folds count from 0")
    if d.folds is not None and d.calibration_fraction:
        errs.append("data.folds and data.calibration_fraction both hold claims out: use one")
    if d.teacher is not None and not Path(d.teacher).is_file():
        errs.append(f"data.teacher: {d.teacher} not found (make it from teacher runs with "
                    "`citetrain teacher RUN... --out FILE`)")
    if d.teacher is not None and d.folds is not None:
        errs.append("data.teacher (a student) and data.folds (a teacher) in one run: choose one")
    return errs


def task_of(r: Recipe) -> str:
    """What the trained model does: ``kind``, or ``rl.task`` for ``kind: grpo`` / ``dpo``."""
    return (r.rl or RLSection()).task if r.kind in ("grpo", "dpo") else r.kind


def _rl_errors(r: Recipe) -> list[str]:
    """Rules of ``kind: grpo`` / ``kind: dpo`` and of ``model.adapter``."""
    errs = []
    if r.kind not in ("grpo", "dpo"):
        if r.rl is not None:
            errs.append(f"rl is for kind grpo or dpo (kind is {r.kind})")
    else:
        rl = r.rl or RLSection()
        unknown = [n for n in rl.rewards if n not in REWARD_NAMES]
        if unknown:
            errs += [f"rl.rewards: unknown reward {n!r}{did_you_mean(n, REWARD_NAMES)}; choose "
                     f"from {', '.join(REWARD_NAMES)}" for n in unknown]
        if r.kind == "grpo" and not rl.rewards:
            errs.append("rl.rewards: give at least one reward with its weight")
        if rl.task == "generator" and "preservation" in rl.rewards:
            errs.append("rl.rewards: preservation compares a refiner's rewrite with its input; "
                        "rl.task is generator")
        if r.kind == "grpo":
            batch = r.train.batch_size * r.train.grad_accum * r.launch.num_processes
            if batch % rl.num_generations:
                errs.append(f"rl.num_generations ({rl.num_generations}) must divide the "
                            f"completions of one step: train.batch_size x train.grad_accum x "
                            f"launch.num_processes = {batch}")
        if r.data.packing:
            errs.append(f"data.packing is for supervised kinds; kind {r.kind} trains on "
                        "sampled or paired completions")
        if r.model.tiny is not None and r.model.adapter is None:
            errs.append(f"kind {r.kind} starts from a trained model: give model.name_or_path "
                        "(and model.adapter for an SFT adapter), not model.tiny")
    if r.model.adapter is not None:
        if r.method == "full":
            errs.append("model.adapter goes on training a LoRA adapter: method lora or qlora")
        if r.kind == "crossencoder":
            errs.append("model.adapter is for causal LMs, not kind crossencoder")
    return errs


def _resolve_labelled(entry: str, bases: tuple[Path, ...]) -> str:
    """``PATH`` or ``FORMAT:PATH`` with PATH resolved like the recipe's other paths."""
    from citetrain.train.pairs import source_formats

    fmt, sep, value = entry.partition(":")
    if not sep or fmt not in source_formats():
        fmt, sep, value = "", "", entry
    if not Path(value).is_absolute() and not Path(value).exists():
        for base in bases:
            if (base / value).exists():
                value = str((base / value).resolve())
                break
    return f"{fmt}{sep}{value}"


def _resolve(recipe: Recipe, path: str | Path) -> Recipe:
    """A relative path in a recipe is kept when it exists from the current folder; otherwise it
    is taken from the recipe's folder or its parent (the repository root for ``recipes/``)."""
    here = Path(path).resolve().parent
    for obj, key in ((recipe.data, "dataset"), (recipe.data, "build"), (recipe.launch, "config_file"),
                     (recipe.model, "adapter"), (recipe.data, "teacher")):
        value = getattr(obj, key)
        if not value or Path(value).is_absolute() or Path(value).exists():
            continue
        for base in (here, here.parent):
            if (base / value).exists():
                setattr(obj, key, str((base / value).resolve()))
                break
    if recipe.launch.config_file and not Path(recipe.launch.config_file).exists():
        from citetrain.io.assets import resolve  # a bare name: a shipped launch config (zero3)

        recipe.launch.config_file = str(resolve(recipe.launch.config_file, "launch"))
    if recipe.data.labelled:
        recipe.data.labelled = [_resolve_labelled(e, (here, here.parent))
                                for e in recipe.data.labelled]
    if recipe.data.built:
        recipe.data.built = [_resolve_labelled(e, (here, here.parent)) for e in recipe.data.built]
    return recipe


def validate_recipe(data: dict[str, Any], path: str | Path = "<recipe>") -> Recipe:
    """A :class:`Recipe` from plain data: schema errors first (all of them), then every
    cross-field rule that is broken."""
    recipe = validate(Recipe, data, str(path))
    errors = cross_field_errors(recipe)
    if errors:
        raise ConfigError(str(path), errors)
    return recipe


def load_recipe(path: str | Path, overrides: list[str] | None = None) -> Recipe:
    """Load, override (``section.key=value``) and validate a recipe; every error at once. A path
    that does not exist may name a shipped recipe (``refiner``, :mod:`citetrain.io.assets`)."""
    from citetrain.io.assets import resolve

    path = resolve(path, "recipe")
    recipe = _resolve(validate(Recipe, apply_overrides(load_yaml(path), overrides or []),
                               str(path)), path)
    errors = cross_field_errors(recipe)  # after resolving: some rules look at paths
    if errors:
        raise ConfigError(str(path), errors)
    return recipe
