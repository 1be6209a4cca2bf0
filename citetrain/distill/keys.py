"""The recipe keys the chain sets on its training runs, in one place.

Every ``--set`` the chain writes for a teacher, the student or the teach-back goes through
:func:`overrides`, by a short name; the recipe section that holds each key is named here only
(``distill.folds``, ``crossencoder.built``, ...), so a recipe schema that moves a key needs one
line changed.
"""
from __future__ import annotations

import json
from typing import Any

# short name -> the recipe key (section.leaf) of kind crossencoder
RECIPE_KEYS: dict[str, str] = {
    "base": "model.name_or_path",
    "dataset": "data.dataset",
    "output_dir": "train.output_dir",
    "seed": "train.seed",
    "epochs": "train.epochs",
    "learning_rate": "train.learning_rate",
    "folds": "distill.folds",
    "fold": "distill.fold",
    "fold_read": "distill.fold_read",
    "teacher": "distill.teacher",
    "teacher_weight": "distill.teacher_weight",
    "built": "crossencoder.built",
    "built_max": "crossencoder.built_max",
}


def value_text(value: Any) -> str:
    """A value as ``--set`` reads it (YAML): lists as ``["a","b"]`` (strings quoted, so a path
    with a comma stays one item), booleans lower case."""
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(json.dumps(v) if isinstance(v, str) else value_text(v)
                              for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def overrides(**values: Any) -> list[str]:
    """``KEY=VALUE`` items for the recipe keys named by short names (:data:`RECIPE_KEYS`);
    ``None`` values are left out."""
    return [f"{RECIPE_KEYS[name]}={value_text(v)}" for name, v in values.items() if v is not None]
