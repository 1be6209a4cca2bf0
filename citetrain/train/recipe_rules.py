"""Cross-field rules of a recipe: QLoRA needs 4-bit loading and LoRA, warmup steps or ratio, a
best-checkpoint metric needs in-loop scoring, ...; one message per broken rule, all reported at
once by :func:`citetrain.train.recipe.load_recipe` (:class:`~citetrain.config.ConfigError`). Also
what a valid recipe implies: the best checkpoint's direction and the trained model's task.
"""
from __future__ import annotations

from pathlib import Path

from citetrain.config import did_you_mean
from citetrain.metrics.registry import METRICS
from citetrain.rewards.citation import NAMES as CITATION_REWARDS
from citetrain.train.recipe_schema import Recipe, RLSection

REWARD_NAMES = (*CITATION_REWARDS, "selfcite")  # selfcite: citetrain/rewards/selfcite.py


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
    """``crossencoder.not_full`` names formats (``attributionbench``) or ``FORMAT:PATH`` entries
    of ``crossencoder.labelled``."""
    c = r.crossencoder
    if not c.not_full:
        return []
    from citetrain.io.labelled import source_formats

    formats = source_formats()
    unknown = [n for n in c.not_full if n not in formats | set(c.labelled or [])]
    if unknown:
        return [f"crossencoder.not_full: {', '.join(unknown)} is neither a format "
                f"({', '.join(sorted(formats))}) nor a FORMAT:PATH entry of crossencoder.labelled"]
    return []


def _crossencoder_errors(r: Recipe) -> list[str]:
    """Rules of ``kind: crossencoder`` (a sequence-pair classifier trained on labelled pairs)."""
    if r.kind != "crossencoder":
        return [f"{', '.join(f'{name}.{k}' for k in sorted(section.model_fields_set)) or name}: "
                f"the {name} section is for kind crossencoder (kind is {r.kind})"
                for name in ("crossencoder", "distill")
                if (section := getattr(r, name)) is not None]
    c, errs = r.crossencoder, _distill_errors(r)
    if c.layers is not None:
        if c.num_layers is not None:
            errs.append("crossencoder.layers and crossencoder.num_layers both choose layers: set one")
        if not c.layers or c.layers != sorted(set(c.layers)):
            errs.append(f"crossencoder.layers: {c.layers} must be layer indices in ascending "
                        "order, each once")
    if c.intermediate_size is not None and r.method != "full":
        errs.append("crossencoder.intermediate_size prunes the model before training: it needs "
                    "method: full (a pruned model learns again in every weight)")
    if not c.human_train and not c.built:
        errs.append("crossencoder.human_train: false trains on crossencoder.built alone: give "
                    "crossencoder.built")
    errs += _not_full_errors(r)
    if c.built_exclude:
        from citetrain.io.labelled import TRANSFORM_LEVELS as TRANSFORMS

        unknown = [t for t in c.built_exclude if t not in TRANSFORMS]
        if unknown:
            errs.append(f"crossencoder.built_exclude: unknown transformation(s) "
                        f"{', '.join(unknown)}; choose from {', '.join(TRANSFORMS)}")
        if not c.built:
            errs.append("crossencoder.built_exclude filters crossencoder.built: give "
                        "crossencoder.built")
    if not c.labelled and not (Path(r.data.dataset) / "dataset_dict.json").is_file():
        errs.append(f"kind crossencoder needs crossencoder.labelled (labelled files) or an "
                    f"existing pairs dataset at data.dataset ({r.data.dataset} has none)")
    if r.method not in ("full", "lora"):
        errs.append(f"kind crossencoder trains with method full or lora, not {r.method}")
    if r.model.tiny is not None:
        errs.append("kind crossencoder needs model.name_or_path (model.tiny builds causal LMs)")
    if r.data.build is not None:
        errs.append("data.build makes SFT sets; kind crossencoder reads crossencoder.labelled")
    if r.eval.enabled and not r.eval.best_metric and r.train.save_steps % r.eval.steps:
        errs.append(f"kind crossencoder keeps the best checkpoint by roc_auc: train.save_steps "
                    f"({r.train.save_steps}) must be a multiple of eval.steps ({r.eval.steps})")
    return errs


def _distill_errors(r: Recipe) -> list[str]:
    """Rules of the ``distill`` section (teacher runs' folds, a student's teacher file)."""
    d, errs = r.distill, []
    if (d.folds is None) != (d.fold is None):
        errs.append("distill.folds and distill.fold go together (a teacher run leaves fold `fold` "
                    "of `folds` out)")
    elif d.folds is not None and d.fold >= d.folds:
        errs.append(f"distill.fold: {d.fold} is not below distill.folds ({d.folds}); folds count "
                    "from 0")
    if d.teacher is not None and not Path(d.teacher).is_file():
        errs.append(f"distill.teacher: {d.teacher} not found (make it from teacher runs with "
                    "`citetrain teacher RUN... --out FILE`)")
    if d.teacher is not None and d.folds is not None:
        errs.append("distill.teacher (a student) and distill.folds (a teacher) in one run: choose "
                    "one")
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
        if rl.rejected == "selfcite" and (r.kind != "dpo" or rl.task != "refiner"):
            errs.append("rl.rejected: selfcite ranks a refiner's citation sets; it needs kind dpo "
                        "and rl.task refiner")
        if rl.sft_weight and r.kind != "dpo":
            errs.append(f"rl.sft_weight adds a loss to DPO's; kind is {r.kind}")
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

