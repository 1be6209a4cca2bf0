"""Run a recipe of any kind in this process: its missing data is built first, then the trainer
of its kind trains it.

The data step is the run's own, before training starts: ``data.build`` (a build spec) makes a
missing LM dataset, ``crossencoder.labelled`` makes (or remakes, when its files changed) a
cross-encoder's pairs dataset. Under ``accelerate launch`` the main process builds and the others
wait. The trainers then only read what is there: :mod:`citetrain.train` (SFT, DPO, GRPO) builds
nothing, and :mod:`citetrain.judge_training` trains the cross-encoder judges.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from citetrain.errors import CitetrainError
from citetrain.train.recipe_schema import Recipe

Trainer = Callable[[Recipe, tuple[Any, ...]], dict[str, Any]]


def trainer_for(kind: str) -> Trainer:
    """The training function of a recipe ``kind``."""
    if kind == "crossencoder":
        from citetrain.judge_training.trainer import train_crossencoder

        return train_crossencoder
    if kind == "grpo":
        from citetrain.train.grpo import train_grpo

        return train_grpo
    if kind == "dpo":
        from citetrain.train.dpo import train_dpo

        return train_dpo
    from citetrain.train.sft import train_sft

    return train_sft


def input_errors(recipe: Recipe) -> list[str]:
    """The missing inputs a run would stop on (its dataset, or what the dataset is made from),
    found before anything is launched."""
    if recipe.kind == "crossencoder":
        from citetrain.judge_training.pairs import pairs_input_errors

        return pairs_input_errors(recipe)
    from citetrain.train.components import input_errors as lm_input_errors

    return lm_input_errors(recipe)


def build_dataset(recipe: Recipe) -> Path:
    """``data.dataset``, built from ``data.build`` first when it is missing."""
    path = Path(recipe.data.dataset)
    if (path / "dataset_dict.json").is_file():
        return path
    if recipe.data.build is None:
        raise CitetrainError(input_errors(recipe)[0])
    from citetrain.builders.pipeline import build
    from citetrain.builders.spec import load_spec

    spec = load_spec(recipe.data.build)
    spec.out = str(path.parent)
    build(spec, progress=True)
    if not (path / "dataset_dict.json").is_file():
        raise CitetrainError(f"data.build wrote {path.parent} but data.dataset is {path}: "
                             f"point data.dataset at {path.parent / 'dataset'}")
    return path


def prepare_data(recipe: Recipe, main: bool = True) -> Path:
    """The run's dataset folder, made first when it is missing (by the main process only:
    ``main`` False just returns the path)."""
    if not main:
        return Path(recipe.data.dataset)
    if recipe.kind == "crossencoder":
        from citetrain.judge_training.pairs import ensure_pairs

        return ensure_pairs(recipe, True)
    return build_dataset(recipe)


def run_recipe(recipe: Recipe, extra_callbacks: tuple[Any, ...] = ()) -> dict[str, Any]:
    """Build the recipe's missing data, then train it; returns the trainer's summary (final
    loss, in-loop scores, output folders). ``extra_callbacks``: more ``TrainerCallback``s
    (tests use one to stop a run early)."""
    import torch
    from accelerate import PartialState

    from citetrain.train.threads import thread_notice

    notice = thread_notice(recipe)
    if notice and os.environ.get("LOCAL_RANK", "0") == "0":
        print(notice, flush=True)
    state = PartialState(cpu=recipe.train.use_cpu or not torch.cuda.is_available())
    with state.main_process_first():
        prepare_data(recipe, state.is_main_process)
    return trainer_for(recipe.kind)(recipe, extra_callbacks)
