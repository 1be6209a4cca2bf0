"""The site's generated reference pages, made from the code when the site is built.

``docs/hooks.py`` adds every page of :func:`pages` to the MkDocs build in memory (nothing is
written under ``docs/``); :func:`write` writes them to a folder to read them without a build.
"""
from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Callable

from . import cli, http, metrics, schema

_SCHEMAS = {
    "reference/recipe.md": (
        "citetrain.train.recipe_schema:Recipe", "Recipe keys",
        "A training recipe (`recipes/*.yaml`; `citetrain validate RECIPE`, `citetrain train "
        "RECIPE`) is a YAML file of these keys, read from the schema "
        "`citetrain.train.recipe_schema.Recipe`. A key is written `section.key` here and in "
        "overrides: `citetrain train RECIPE --set train.max_steps=10`. Unknown keys are refused "
        "with a suggestion."),
    "reference/build-spec.md": (
        "citetrain.builders.spec:BuildSpec", "Build-spec keys",
        "A build spec (`data_builders/*.yaml`; `citetrain build SPEC`) is a YAML file of these "
        "keys, read from the schema `citetrain.builders.spec.BuildSpec`. `sources[]` is a list: "
        "each entry has the keys under it. Override a key with `--set KEY=VALUE`."),
    "reference/suite.md": (
        "citetrain.metrics.suites:Suite", "Eval-suite keys",
        "An eval suite (`eval/*.yaml`; `citetrain eval SUITE`) is a YAML file of these keys, read "
        "from the schema `citetrain.metrics.suites.Suite`. `data[]` is a list: each entry has the "
        "keys under it. Override a key with `--set KEY=VALUE`; metric options are listed in "
        "[Metrics](metrics.md)."),
    "reference/serve-config.md": (
        "citetrain.serve.config:ServeConfig", "Judge-server settings",
        "`citetrain serve JUDGE` takes these settings as options (`--max-batch 32` sets "
        "`max_batch`); the schema is `citetrain.serve.config.ServeConfig`. The routes are in "
        "[HTTP API](http.md)."),
    "reference/distill-spec.md": (
        "citetrain.distill.spec:DistillSpec", "Distillation-spec keys",
        "A distillation spec (`distill/*.yaml`; `citetrain distill SPEC`) is a YAML file of these "
        "keys, read from the schema `citetrain.distill.spec.DistillSpec`: one spec names the "
        "whole chain that makes a cheap judge."),
}
"""Page -> (``module:Model``, title, introduction) of each configuration reference."""

def model(target: str):
    """The pydantic model ``module:Name`` names."""
    module, _, name = target.partition(":")
    return getattr(import_module(module), name)


def pages() -> dict[str, Callable[[], str]]:
    """Every generated page: its path under ``docs/`` -> the function that writes it."""
    out: dict[str, Callable[[], str]] = {"reference/cli.md": cli.render}
    for path, (target, title, intro) in _SCHEMAS.items():
        out[path] = lambda t=target, ti=title, i=intro: schema.render(model(t), ti, i)
    out["reference/metrics.md"] = metrics.render
    out["reference/http.md"] = http.render
    return out


def write(folder: str | Path) -> list[Path]:
    """Write every page under ``folder`` (e.g. to read them without building the site)."""
    written = []
    for path, render in pages().items():
        target = Path(folder) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(), encoding="utf-8")
        written.append(target)
    return written
