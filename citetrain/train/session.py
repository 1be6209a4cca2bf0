"""What every causal-LM run shares, whatever its trainer (SFT, GRPO, DPO): the data, the base
model and its tokenizer, resuming, the in-loop citation scorer, and saving ``final/`` with its
card. :func:`prepare` before building the trainer, :func:`train_and_save` to run it."""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citetrain.train import components as S
from citetrain.train.recipe_rules import task_of
from citetrain.train.recipe_schema import Recipe
from citetrain.train.resume import resume_point


@dataclass
class Session:
    """A prepared run (see the module docstring)."""

    recipe: Recipe
    state: Any
    out: Path
    data_path: Path
    train_set: Any
    eval_set: Any
    eval_small: Any
    records: dict[str, Any]
    base: str
    ckpt: str | None
    tokenizer: Any
    model: Any
    scorer: Any = None
    callbacks: list[Any] = field(default_factory=list)

    @property
    def main(self) -> bool:
        return self.state.is_main_process


def prepare(recipe: Recipe, extra_callbacks: tuple[Any, ...] = (), *,
            completion_key: str | None = "completion") -> Session:
    """Data, base model, tokenizer, resume point and in-loop scorer.
    ``completion_key``: the column whose prompt + text must fit ``data.max_length`` (``None``:
    the prompt alone, for GRPO, which samples its completions)."""
    import torch
    from accelerate import PartialState

    state = PartialState(cpu=recipe.train.use_cpu or not torch.cuda.is_available())
    out = Path(recipe.train.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    data_path = S.dataset_path(recipe)
    train_set, eval_set = S.load_splits(recipe, data_path)
    with state.main_process_first():
        base = S.base_model_path(recipe, train_set, state.is_main_process)
    identity = S.run_identity(recipe, state.num_processes)
    ckpt = resume_point(recipe, out, identity)
    if state.is_main_process:
        shutil.rmtree(out / "final.tmp", ignore_errors=True)  # left by a killed run
    state.wait_for_everyone()
    if state.is_main_process:
        S.write_json(out / "citetrain_run.json", identity)
    tokenizer = S.load_tokenizer(recipe, recipe.model.adapter if _has_tokenizer(
        recipe.model.adapter) else base)
    limit = recipe.data.max_length
    if completion_key is None and recipe.rl is not None:
        limit -= recipe.rl.max_completion_length
    train_set = S.drop_long(train_set, tokenizer, limit, "train", completion_key)
    eval_set = S.drop_long(eval_set, tokenizer, limit, "eval", completion_key)
    model = S.load_model(recipe, base, state.local_process_index)
    session = Session(recipe, state, out, data_path, train_set, eval_set, None,
                      S.load_records(data_path), base, ckpt, tokenizer, model,
                      callbacks=list(extra_callbacks))
    _add_scorer(session)
    return session


def _has_tokenizer(folder: str | None) -> bool:
    return bool(folder) and (Path(folder) / "tokenizer_config.json").is_file()


def _add_scorer(s: Session) -> None:
    """The in-loop citation scorer on a fixed subset of whole eval records."""
    recipe = s.recipe
    if s.eval_set is None or not recipe.eval.enabled:
        return
    s.eval_small = s.eval_set.select(S.whole_records(s.eval_set["id"], recipe.eval.subset))
    if not s.records:
        if s.main:
            print(f"[citetrain] no records.jsonl beside {s.data_path}: in-loop citation scoring "
                  "is off (rebuild the data with `citetrain build`)", flush=True)
        return
    from citetrain.nli.registry import make_engine
    from citetrain.train.callbacks import CitationScoreCallback

    engine = make_engine(recipe.eval.nli, progress=False, **recipe.eval.nli_options)
    s.scorer = CitationScoreCallback(
        task_of(recipe), [dict(r) for r in s.eval_small], s.records, s.tokenizer,
        recipe.eval.metrics, engine, max_new_tokens=recipe.eval.max_new_tokens,
        batch_size=recipe.eval.batch_size, max_length=recipe.data.max_length)
    s.callbacks.append(s.scorer)


def train_and_save(s: Session, trainer: Any) -> dict[str, Any]:
    """Train (resuming when a checkpoint of the same run exists), save ``final/`` atomically with
    its tokenizer, adapter check and card; the run's summary."""
    import torch

    from citetrain.train.callbacks import AdapterCheckCallback, check_adapter
    from citetrain.train.console import use_log_lines

    recipe = s.recipe
    use_log_lines(trainer)
    if s.scorer is not None:
        s.scorer.trainer = trainer
    if recipe.method == "qlora" and not trainer.args.bf16:
        # trl casts a quantized model's adapter to bf16; without bf16 autocast (CPU, fp32 compute)
        # generation would then mix dtypes: keep the trainable weights in fp32
        for p in trainer.model.parameters():
            if p.requires_grad and p.dtype != torch.float32:
                p.data = p.data.float()
    n_trainable = sum(1 for n, p in trainer.model.named_parameters()
                      if p.requires_grad and ".ref." not in n)
    if recipe.method != "full":
        trainer.add_callback(AdapterCheckCallback(n_trainable))
    result = trainer.train(resume_from_checkpoint=s.ckpt)
    final = s.out / "final"
    staging = final.with_name(final.name + ".tmp")  # every process saves into it (ZeRO-3 gathers)
    trainer.save_model(str(staging))
    history = trainer.state.log_history
    summary: dict[str, Any] = {"final": str(final), "steps": trainer.state.global_step,
                               "train_loss": result.training_loss, "resumed_from": s.ckpt,
                               "losses": [h["loss"] for h in history if "loss" in h],
                               "in_loop": s.scorer.history if s.scorer else [],
                               "best_checkpoint": trainer.state.best_model_checkpoint}
    for key, name in (("reward", "rewards"), ("rewards/margins", "margins")):  # GRPO, DPO
        values = [h[key] for h in history if key in h]
        if values:
            summary[name] = values
    s.state.wait_for_everyone()
    if s.main:
        from citetrain.io.writers import replace_dir
        from citetrain.train.card import publish

        s.tokenizer.save_pretrained(str(staging))
        if recipe.method != "full":
            summary["adapter_tensors"], summary["adapter_bytes"] = check_adapter(staging, n_trainable)
        replace_dir(staging, final)  # a kill before here leaves the previous final/ in place
        publish(final, recipe, s.data_path, summary, s.base, trainer, s.tokenizer, s.out)
    s.state.wait_for_everyone()
    return summary
