"""``citetrain train RECIPE``: start ``accelerate launch -m citetrain.train`` from the recipe."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="train a model from a recipe (starts accelerate)",
                       description="Validate a recipe and start `accelerate launch -m "
                       "citetrain.train RECIPE` with its launch section (config file, "
                       "processes, machines, environment). Returns the run's exit code.")
    p.add_argument("recipe", help="training recipe (recipes/*.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a recipe key, e.g. --set train.max_steps=10 (forwarded to the run)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="print the command and exit")
    mode.add_argument("--emit-shell", action="store_true",
                      help="print CT_* shell assignments for `eval` (SLURM scripts) and exit")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import os
    import shutil
    import subprocess
    import sys

    from citetrain.config import ConfigError
    from citetrain.train.launcher import (
        format_command,
        launch_command,
        launch_errors,
        shell_assignments,
    )
    from citetrain.train.recipe import load_recipe

    recipe = load_recipe(args.recipe, args.set)
    errors = launch_errors(recipe)
    if errors:
        raise ConfigError(args.recipe, errors)
    if args.emit_shell:
        print(shell_assignments(recipe), end="")
        return 0
    argv, env = launch_command(recipe, args.recipe, args.set)
    if not args.dry_run:
        from citetrain.runner import input_errors

        missing = input_errors(recipe)
        if missing:
            raise ConfigError(args.recipe, missing)
        if not args.debug:  # the run prints its own one-line error; no launcher traceback after it
            argv[2:2] = ["--quiet"]
    if shutil.which(argv[0]) is None:  # accelerate installed but its script not on PATH
        argv = [sys.executable, "-m", "accelerate.commands.launch", *argv[2:]]
    if args.dry_run:
        print(format_command(argv, env))
        return 0
    return subprocess.run(argv, env={**os.environ, **env}, check=False).returncode
