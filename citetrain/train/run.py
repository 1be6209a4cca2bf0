"""``python -m citetrain.train RECIPE [--set section.key=value ...]``: one training run.

Under ``accelerate launch`` (DDP, FSDP, DeepSpeed) every process runs this module; the main
process builds missing data and the tiny base model, the others wait.
"""
from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.train import setup as S
from citetrain.train.recipe import Recipe, load_recipe
from citetrain.train.resume import resume_point


def check_completion_mask(dataset: Any, eos_id: int, n: int = 32) -> None:
    """Every checked example trains on some tokens, and its last trained token is EOS."""
    for i in range(min(n, len(dataset))):
        labels = [t for t in dataset[i]["labels"] if t != -100]
        if not labels:
            raise CitetrainError(f"training example {i}: the completion mask is empty (the "
                                 "prompt fills data.max_length?)")
        if labels[-1] != eos_id:
            raise CitetrainError(f"training example {i}: the end-of-sequence token is not inside "
                                 "the completion mask (completion cut by data.max_length?)")


def thread_notice(recipe: Recipe) -> str | None:
    """On a CPU run, the notice of :func:`citetrain.train.threads.one_thread_warning` for this
    process (printed once per machine by :func:`train`)."""
    import os

    import torch

    from citetrain.train.threads import one_thread_warning

    from citetrain.train.threads import USER_THREADS

    if (torch.cuda.is_available() and not recipe.train.use_cpu) or os.environ.get(USER_THREADS):
        return None
    return one_thread_warning(torch.get_num_threads(), int(os.environ.get("LOCAL_WORLD_SIZE", "1")))


def train(recipe: Recipe, extra_callbacks: tuple[Any, ...] = ()) -> dict[str, Any]:
    """Run the recipe; returns a summary (final loss, in-loop scores, output folders).
    ``extra_callbacks``: more ``TrainerCallback``s (tests use one to stop a run early)."""
    import os

    notice = thread_notice(recipe)
    if notice and os.environ.get("LOCAL_RANK", "0") == "0":
        print(notice, flush=True)
    if recipe.kind == "crossencoder":
        from citetrain.train.crossencoder import train_crossencoder

        return train_crossencoder(recipe, extra_callbacks)
    import torch
    from accelerate import PartialState
    from trl import SFTTrainer

    from citetrain.train.callbacks import AdapterCheckCallback, CitationScoreCallback, check_adapter

    state = PartialState(cpu=recipe.train.use_cpu or not torch.cuda.is_available())
    out = Path(recipe.train.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    with state.main_process_first():
        data_path = S.ensure_dataset(recipe, state.is_main_process)
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
    tokenizer = S.load_tokenizer(recipe, base)
    train_set = S.drop_long(train_set, tokenizer, recipe.data.max_length, "train")
    eval_set = S.drop_long(eval_set, tokenizer, recipe.data.max_length, "eval")
    model = S.load_model(recipe, base, state.local_process_index)
    callbacks: list[Any] = list(extra_callbacks)
    scorer = None
    records = S.load_records(data_path)
    eval_small = None
    if eval_set is not None and recipe.eval.enabled:
        eval_small = eval_set.select(S.whole_records(eval_set["id"], recipe.eval.subset))
        if records:
            from citetrain.nli.registry import make_engine

            engine = make_engine(recipe.eval.nli, progress=False, **recipe.eval.nli_options)
            scorer = CitationScoreCallback(
                recipe.kind, [dict(r) for r in eval_small], records, tokenizer, recipe.eval.metrics,
                engine, max_new_tokens=recipe.eval.max_new_tokens,
                batch_size=recipe.eval.batch_size, max_length=recipe.data.max_length)
            callbacks.append(scorer)
        elif state.is_main_process:
            print(f"[citetrain] no records.jsonl beside {data_path}: in-loop citation scoring "
                  "is off (rebuild the data with `citetrain build`)", flush=True)
    args = S.sft_config(recipe, eval_small is not None)
    trainer = SFTTrainer(model=model, args=args, train_dataset=train_set,
                         eval_dataset=eval_small, processing_class=tokenizer,
                         peft_config=S.peft_config(recipe), callbacks=callbacks)
    from citetrain.train.console import use_log_lines

    use_log_lines(trainer)
    if scorer is not None:
        scorer.trainer = trainer
    if recipe.method == "qlora" and not args.bf16:
        # trl casts a quantized model's adapter to bf16; without bf16 autocast (CPU, fp32 compute)
        # generation would then mix dtypes: keep the trainable weights in fp32
        for p in trainer.model.parameters():
            if p.requires_grad and p.dtype != torch.float32:
                p.data = p.data.float()
    check_completion_mask(trainer.train_dataset, tokenizer.eos_token_id)
    n_trainable = sum(1 for _, p in trainer.model.named_parameters() if p.requires_grad)
    if recipe.method != "full":
        trainer.add_callback(AdapterCheckCallback(n_trainable))
    result = trainer.train(resume_from_checkpoint=ckpt)
    final = out / "final"
    staging = final.with_name(final.name + ".tmp")  # every process saves into it (ZeRO-3 gathers)
    trainer.save_model(str(staging))
    summary: dict[str, Any] = {"final": str(final), "steps": trainer.state.global_step,
                               "train_loss": result.training_loss, "resumed_from": ckpt,
                               "losses": [h["loss"] for h in trainer.state.log_history if "loss" in h],
                               "in_loop": scorer.history if scorer else [],
                               "best_checkpoint": trainer.state.best_model_checkpoint}
    state.wait_for_everyone()
    if state.is_main_process:
        from citetrain.io.writers import replace_dir

        tokenizer.save_pretrained(str(staging))
        if recipe.method != "full":
            summary["adapter_tensors"], summary["adapter_bytes"] = check_adapter(staging, n_trainable)
        replace_dir(staging, final)  # a kill before here leaves the previous final/ in place
        from citetrain.train.card import publish

        publish(final, recipe, data_path, summary, base, trainer, tokenizer, out)
    state.wait_for_everyone()
    return summary


def main(argv: list[str] | None = None) -> int:
    import os

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    p = argparse.ArgumentParser(prog="python -m citetrain.train",
                                description="Train a citation model from a recipe.")
    p.add_argument("recipe", help="recipes/*.yaml")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a recipe key, e.g. --set train.max_steps=4")
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    p.add_argument("--verbose", action="store_true", help="the libraries' messages and warnings "
                   "here too (otherwise in OUTPUT_DIR/train.log)")
    p.add_argument("--dry-run", action="store_true",
                   help="check the recipe, print what would be trained and exit (loads no model)")
    args = p.parse_args(argv)
    if args.verbose:
        from citetrain.io.console import VERBOSE_ENV

        os.environ[VERBOSE_ENV] = "1"

    def run() -> int:
        recipe = load_recipe(args.recipe, args.set)
        if args.dry_run:
            if os.environ.get("RANK", "0") == "0":  # once under accelerate launch
                model = recipe.model.name_or_path or f"tiny {recipe.model.tiny.family}"
                print(f"{args.recipe}: ok ({recipe.kind}, {recipe.method}, {model}, "
                      f"{os.environ.get('WORLD_SIZE', '1')} process(es)); dry run, nothing "
                      "trained", flush=True)
            return 0
        from citetrain.io.console import quiet_libraries

        rank = os.environ.get("RANK", "0")
        logged = quiet_libraries(Path(recipe.train.output_dir) / (
            "train.log" if rank == "0" else f"train-rank{rank}.log"))
        if logged is not None and rank == "0":
            print(f"[citetrain] the libraries' messages go to {logged} (--verbose shows them)",
                  flush=True)
        summary = train(recipe)
        print(f"[citetrain] done: {summary['steps']} steps, train loss "
              f"{summary['train_loss']:.4f}, saved {summary['final']}", flush=True)
        return 0

    from citetrain.errors import run_reporting

    return run_reporting("citetrain train", run, args.debug)
