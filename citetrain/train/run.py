"""``python -m citetrain.train RECIPE [--set section.key=value ...]``: one training run.

Under ``accelerate launch`` (DDP, FSDP, DeepSpeed) every process runs this module; the main
process builds missing data and the tiny base model, the others wait.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.train import setup as S
from citetrain.train.recipe import load_recipe
from citetrain.train.recipe_schema import Recipe


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
    if recipe.kind == "grpo":
        from citetrain.train.grpo import train_grpo

        return train_grpo(recipe, extra_callbacks)
    if recipe.kind == "dpo":
        from citetrain.train.dpo import train_dpo

        return train_dpo(recipe, extra_callbacks)
    return train_sft(recipe, extra_callbacks)


def train_sft(recipe: Recipe, extra_callbacks: tuple[Any, ...] = ()) -> dict[str, Any]:
    """Supervised fine-tuning (trl's ``SFTTrainer``, loss on the completion only)."""
    from trl import SFTTrainer

    from citetrain.train.session import prepare, train_and_save

    s = prepare(recipe, extra_callbacks)
    args = S.sft_config(recipe, s.eval_small is not None)
    trainer = SFTTrainer(model=s.model, args=args, train_dataset=s.train_set,
                         eval_dataset=s.eval_small, processing_class=s.tokenizer,
                         peft_config=S.peft_config(recipe), callbacks=s.callbacks)
    check_completion_mask(trainer.train_dataset, s.tokenizer.eos_token_id)
    return train_and_save(s, trainer)


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
