"""``python -m citetrain.train RECIPE [--set section.key=value ...]``: one training run in this
process (:func:`citetrain.runner.run_recipe`).

Under ``accelerate launch`` (DDP, FSDP, DeepSpeed) every process runs this; the main process
builds missing data and the tiny base model, the others wait. ``citetrain train RECIPE`` starts
it with the recipe's launch section.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from citetrain.runner import run_recipe
from citetrain.train.recipe import load_recipe


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
        summary = run_recipe(recipe)
        if rank == "0":  # once under accelerate launch: the main process says it
            print(f"[citetrain] done: {summary['steps']} steps, train loss "
                  f"{summary['train_loss']:.4f}, saved {summary['final']}", flush=True)
        return 0

    from citetrain.errors import run_reporting

    return run_reporting("citetrain train", run, args.debug)
