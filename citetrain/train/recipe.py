"""Training recipes: YAML files in the top-level ``recipes/``, loaded, overridden
(``section.key=value``) and validated: the schema (:mod:`citetrain.train.recipe_schema`) first,
then every cross-field rule (:mod:`citetrain.train.recipe_rules`), every problem at once
(:class:`~citetrain.config.ConfigError`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from citetrain.config import ConfigError, apply_overrides, load_yaml, validate
from citetrain.train.recipe_rules import cross_field_errors
from citetrain.train.recipe_schema import MOVED, Recipe


def _resolve_labelled(entry: str, bases: tuple[Path, ...]) -> str:
    """``PATH`` or ``FORMAT:PATH`` with PATH resolved like the recipe's other paths."""
    from citetrain.io.labelled import source_formats

    fmt, sep, value = entry.partition(":")
    if not sep or fmt not in source_formats():
        fmt, sep, value = "", "", entry
    if not Path(value).is_absolute() and not Path(value).exists():
        for base in bases:
            if (base / value).exists():
                value = str((base / value).resolve())
                break
    return f"{fmt}{sep}{value}"


def _resolve(recipe: Recipe, path: str | Path) -> Recipe:
    """A relative path in a recipe is kept when it exists from the current folder; otherwise it
    is taken from the recipe's folder or its parent (the repository root for ``recipes/``)."""
    here = Path(path).resolve().parent
    for obj, key in ((recipe.data, "dataset"), (recipe.data, "build"), (recipe.launch, "config_file"),
                     (recipe.model, "adapter"), (recipe.distill, "teacher")):
        value = getattr(obj, key) if obj is not None else None
        if not value or Path(value).is_absolute() or Path(value).exists():
            continue
        for base in (here, here.parent):
            if (base / value).exists():
                setattr(obj, key, str((base / value).resolve()))
                break
    if recipe.launch.config_file and not Path(recipe.launch.config_file).exists():
        from citetrain.io.assets import resolve  # a bare name: a shipped launch config (zero3)

        recipe.launch.config_file = str(resolve(recipe.launch.config_file, "launch"))
    c = recipe.crossencoder
    if c is not None and c.labelled:
        c.labelled = [_resolve_labelled(e, (here, here.parent)) for e in c.labelled]
    if c is not None and c.built:
        c.built = [_resolve_labelled(e, (here, here.parent)) for e in c.built]
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
    recipe = _resolve(_validate(apply_overrides(load_yaml(path), overrides or []), str(path)),
                      path)
    errors = cross_field_errors(recipe)  # after resolving: some rules look at paths
    if errors:
        raise ConfigError(str(path), errors)
    return recipe
