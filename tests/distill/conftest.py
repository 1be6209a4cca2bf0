"""A toy distillation chain: a tiny BERT, WiCE-style human pairs, a pairs build and a recipe."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.judge_training.test_built_pairs import write_built
from tests.judge_training.test_trainer import build_tiny_bert, wice_oracle_rows, write_jsonl


@pytest.fixture(scope="session")
def toy(tmp_path_factory) -> dict[str, Path]:
    """``base`` (a two-layer BERT from a config), ``wice`` (40 claims, three chunks each),
    ``built`` (a finished pairs build of 45 pairs) and ``recipe`` (a crossencoder recipe of two
    steps a run, no card) under one folder."""
    root = tmp_path_factory.mktemp("toy")
    rows = wice_oracle_rows(40)
    wice = write_jsonl(root / "wice.jsonl", rows)
    built = write_built(root / "built", 45)
    corpus = [r["claim"] + " " + " ".join(r["evidence"]) for r in rows]
    corpus += [f"it says w{i} and w{i + 1} of chunk" for i in range(12)]
    base = build_tiny_bert(root / "base", corpus)
    recipe = {"name": "toy", "kind": "crossencoder", "method": "full",
              "model": {"name_or_path": str(base)}, "lora": {"enabled": False},
              "data": {"dataset": str(root / "human" / "dataset"), "max_length": 48},
              "crossencoder": {"labelled": [f"wice_oracle:{wice}"], "validation_fraction": 0.3,
                               "card": False},
              "train": {"output_dir": str(root / "run"), "batch_size": 8, "logging_steps": 1,
                        "learning_rate": 1e-3, "save_steps": 2, "max_steps": 2, "use_cpu": True},
              "eval": {"enabled": False}}
    path = root / "toy-recipe.yaml"
    path.write_text(yaml.safe_dump(recipe))
    return {"root": root, "base": base, "wice": wice, "built": built, "recipe": path}


def write_spec(folder: Path, toy: dict[str, Path], **sections) -> Path:
    """A distillation spec over the toy recipe and build, ``sections`` replacing its defaults
    (2 fold teachers of one seed, one run at a time)."""
    spec = {"name": "toy", "out": str(folder / "out"), "recipe": str(toy["recipe"]),
            "parallel": 1, "pairs": {"folder": str(toy["built"])},
            "teacher": {"folds": {"folds": 2, "seeds": [42]}},
            "student": {"seed": 42, "teacher_weight": 0.5, "built_max": 20}, **sections}
    path = folder / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path
