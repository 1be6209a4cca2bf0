"""``accelerate launch recipes/X.yaml``: a recipe handed to an interpreter trains.

accelerate (and torchrun and the DeepSpeed launcher under it) runs its script with Python, one
process per rank: ``python [flags] recipes/X.yaml ARGS``. The wheel installs a one-line
``citetrain-recipe-hook.pth`` into site-packages; at interpreter start-up it looks at
``sys.argv[0]`` and, only when that ends in ``.yaml`` / ``.yml``, calls :func:`run` here. When the
file is a citetrain recipe (a YAML mapping with ``name``, a recipe ``kind``, ``model``, ``data``
and ``train``), the process is replaced (``os.execv``, same pid and environment, so every rank
keeps its ``RANK`` / ``WORLD_SIZE``) by ``python [flags] -m citetrain.train recipes/X.yaml ARGS``:
exactly what ``accelerate launch -m citetrain.train recipes/X.yaml`` runs. Any other file, a YAML
that is not a recipe included, is left to Python (its own ``SyntaxError``).

For every other script the hook costs one ``str.endswith`` at start-up (``bench/recipe_hook.py``
measures it); ``CITETRAIN_RECIPE_HOOK=0`` switches it off.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Sequence

ENV = "CITETRAIN_RECIPE_HOOK"
SUFFIXES = (".yaml", ".yml")
RECIPE_KEYS = ("name", "kind", "model", "data", "train")
PTH_NAME = "citetrain-recipe-hook.pth"
# the .pth's one line: site executes lines that start with "import"
PTH_LINE = ("import os, sys; exec('from citetrain.cli.recipe_hook import run; run()') "
            f"if (getattr(sys, 'argv', None) or [''])[0].endswith({SUFFIXES!r}) "
            f"and os.environ.get({ENV!r}, '1') != '0' else None\n")


def recipe_kinds() -> tuple[str, ...]:
    """The ``kind`` values a recipe may have (from :class:`citetrain.train.recipe_schema.Recipe`)."""
    from typing import get_args

    from citetrain.train.recipe_schema import Recipe

    return get_args(Recipe.model_fields["kind"].annotation)


def is_recipe(path: str | Path) -> bool:
    """True when ``path`` is a readable YAML mapping with every key of :data:`RECIPE_KEYS` and a
    recipe ``kind``; anything else (missing, unreadable, not YAML, another YAML) is not."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return (isinstance(data, dict) and all(k in data for k in RECIPE_KEYS)
            and data.get("kind") in recipe_kinds())


def command(argv: Sequence[str], orig_argv: Sequence[str], executable: str) -> list[str] | None:
    """The ``python -m citetrain.train`` command that replaces ``python [flags] RECIPE ARGS``, or
    None when ``argv[0]`` is not a recipe (or the hook is switched off). Interpreter flags (``-u``
    from torchrun, ``-X``, ``-W``) are kept."""
    if not argv or not argv[0].endswith(SUFFIXES) or os.environ.get(ENV, "1") == "0":
        return None
    if not is_recipe(argv[0]):
        return None
    flags = list(orig_argv[1:len(orig_argv) - len(argv)]) if len(orig_argv) > len(argv) else []
    return [executable, *flags, "-m", "citetrain.train", *argv]


def run() -> None:
    """Called from the .pth at start-up: replace this process by the training command when
    ``sys.argv[0]`` is a recipe; return otherwise."""
    cmd = command(sys.argv, getattr(sys, "orig_argv", [sys.executable, *sys.argv]),
                  sys.executable or "python")
    if cmd is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)
