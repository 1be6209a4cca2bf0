"""Resuming a run: the last complete checkpoint of its output folder, after checking that the run
that wrote it had the same world size and recipe (shared by the causal-LM and cross-encoder
trainers)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.train.recipe_schema import Recipe


def resume_point(recipe: Recipe, out: Path, identity: dict[str, Any]) -> str | None:
    """The checkpoint to resume from (``resume: auto``: the last one), after checking that the
    run that wrote it had the same world size and recipe."""
    mode = recipe.train.resume
    if mode == "never" or not out.is_dir():
        return None
    ckpt = last_complete_checkpoint(out) if mode == "auto" else mode
    if ckpt is None:
        return None
    if not Path(ckpt).is_dir():
        raise CitetrainError(f"train.resume: {ckpt} is not a checkpoint folder")
    saved = out / "citetrain_run.json"
    if saved.is_file():
        old = json.loads(saved.read_text())
        if old.get("world_size") != identity["world_size"]:
            raise CitetrainError(
                f"{ckpt} was written by {old.get('world_size')} processes, this run has "
                f"{identity['world_size']}: data order and optimizer state would not match; use "
                "the same number of processes, another train.output_dir, or train.resume: never")
        if old.get("recipe") != identity["recipe"]:
            changed = sorted(k for k in identity["recipe"] if old["recipe"].get(k) != identity["recipe"][k])
            raise CitetrainError(f"{ckpt} was trained with another recipe ({', '.join(changed)} "
                                 "changed): cannot resume; use another train.output_dir or "
                                 "train.resume: never")
    return ckpt


def last_complete_checkpoint(out: Path) -> str | None:
    """The ``checkpoint-N`` folder with the highest N whose ``trainer_state.json`` (the file the
    Trainer writes last) reads as JSON; a checkpoint cut short by a kill is passed over."""
    steps = []
    for p in out.glob("checkpoint-*"):
        step = p.name.partition("-")[2]
        if p.is_dir() and step.isdigit():
            steps.append((int(step), p))
    for _, p in sorted(steps, reverse=True):
        try:
            json.loads((p / "trainer_state.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return str(p)
    return None
