"""Training recipes: YAML files in the top-level ``recipes/``, loaded, overridden
(``section.key=value``) and validated: the schema (:mod:`citetrain.train.recipe_schema`) first,
then every cross-field rule (:mod:`citetrain.train.recipe_rules`), every problem at once
(:class:`~citetrain.config.ConfigError`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from citetrain.config import (ConfigError, apply_overrides, load_yaml_of, validate, yaml_entry,
                              yaml_path)
from citetrain.train.recipe_rules import cross_field_errors
from citetrain.train.recipe_schema import MOVED, Recipe


def _resolve(recipe: Recipe, path: str | Path) -> Recipe:
    """The recipe's relative paths read as every YAML file's (:func:`~citetrain.config.yaml_path`);
    one found nowhere is kept as written (a folder the run builds, a shipped launch config)."""
    for obj, key in ((recipe.data, "dataset"), (recipe.data, "build"), (recipe.launch, "config_file"),
                     (recipe.model, "adapter"), (recipe.distill, "teacher")):
        value = getattr(obj, key) if obj is not None else None
        if value:
            setattr(obj, key, yaml_path(value, path, "written"))
    if recipe.launch.config_file and not Path(recipe.launch.config_file).exists():
        from citetrain.io.assets import resolve  # a bare name: a shipped launch config (zero3)

        recipe.launch.config_file = str(resolve(recipe.launch.config_file, "launch"))
    c = recipe.crossencoder
    if c is not None and c.labelled:
        c.labelled = [yaml_entry(e, path, "written") for e in c.labelled]
    if c is not None and c.built:
        c.built = [yaml_entry(e, path, "written") for e in c.built]
    return recipe


def _moved_errors(data: dict[str, Any]) -> list[str]:
    """Keys that live in the ``crossencoder:`` or ``distill:`` section, given where they were
    once read (``data.built``): one line each naming the new place."""
    errs = []
    for section, keys in MOVED.items():
        given = data.get(section)
        for key in (given if isinstance(given, dict) else {}):
            if key in keys:
                errs.append(f"{section}.{key}: moved to {keys[key]}.{key}")
    return errs


def _validate(data: dict[str, Any], path: str) -> Recipe:
    moved = _moved_errors(data)
    if moved:
        raise ConfigError(path, moved)
    return validate(Recipe, data, path)


def validate_recipe(data: dict[str, Any], path: str | Path = "<recipe>") -> Recipe:
    """A :class:`Recipe` from plain data: schema errors first (all of them), then every
    cross-field rule that is broken."""
    recipe = _validate(data, str(path))
    errors = cross_field_errors(recipe)
    if errors:
        raise ConfigError(str(path), errors)
    return recipe


def load_recipe(path: str | Path, overrides: list[str] | None = None) -> Recipe:
    """Load, override (``section.key=value``) and validate a recipe; every error at once. A path
    that does not exist may name a shipped recipe (``refiner``, :mod:`citetrain.io.assets`)."""
    from citetrain.io.assets import resolve

    path = resolve(path, "recipe")
    recipe = _resolve(_validate(apply_overrides(load_yaml_of(path, "recipe"), overrides or []), str(path)),
                      path)
    errors = cross_field_errors(recipe)  # after resolving: some rules look at paths
    if errors:
        raise ConfigError(str(path), errors)
    return recipe
