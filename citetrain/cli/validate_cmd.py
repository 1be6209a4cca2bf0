"""``citetrain validate RECIPE``: check a training recipe without loading any model."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="check a training recipe (every error at once)",
                       description="Validate a recipe: unknown keys (with a 'did you mean'), "
                       "values, cross-field rules and the launch section, all reported at once.")
    p.add_argument("recipe", help="training recipe (recipes/*.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a recipe key first, e.g. --set launch.num_processes=2")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.config import ConfigError
    from citetrain.train.launcher import launch_errors
    from citetrain.train.recipe import load_recipe

    recipe = load_recipe(args.recipe, args.set)
    errors = launch_errors(recipe)
    if errors:
        raise ConfigError(args.recipe, errors)
    model = recipe.model.name_or_path or f"tiny {recipe.model.tiny.family}"
    n = recipe.launch.num_processes
    print(f"{args.recipe}: ok ({recipe.kind}, {recipe.method}, {model}, "
          f"{n} process{'es' if n != 1 else ''})")
    return 0
