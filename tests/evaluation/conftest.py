"""A tiny generator checkpoint trained on CPU in seconds, held-out questions (synthetic records
with their answers removed) and suites pointing at them, shared by the evaluation tests."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def generator(tmp_path_factory) -> str:
    """The final adapter of two training steps of tiny-cpu.yaml on a generator set built from
    40 synthetic records (lexical NLI); weights need not be good."""
    from citetrain.builders.pipeline import build
    from citetrain.builders.spec import BuildSpec
    from citetrain.train.recipe import load_recipe
    from citetrain.runner import run_recipe as train

    root = tmp_path_factory.mktemp("generator")
    spec = BuildSpec.model_validate({
        "name": "g", "kind": "generator", "sources": [{"synthetic": {"n": 40, "seed": 1}}],
        "nli": "lexical", "max_subset": 2, "split": {"validation": 0.2}, "out": str(root / "data")})
    build(spec, progress=False, log=lambda s: None)
    sets = {"kind": "generator", "data.dataset": str(root / "data" / "dataset"), "data.build": "null",
            "train.output_dir": str(root / "run"), "train.max_steps": 2, "train.save_steps": 2,
            "train.logging_steps": 1, "train.batch_size": 4, "eval.enabled": "false",
            "eval.best_metric": "null"}
    recipe = load_recipe(REPO / "recipes" / "tiny-cpu.yaml", [f"{k}={v}" for k, v in sets.items()])
    return train(recipe)["final"]


def write_questions(path: Path, n: int = 7, seed: int = 11) -> Path:
    """``n`` held-out synthetic records (another seed than the training set's) without outputs."""
    from citetrain.synth.records import synth_records

    rows = []
    for rec in synth_records(n, seed=seed):
        row = rec.to_dict()
        row.pop("output")
        rows.append(json.dumps(row))
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture
def questions(tmp_path) -> Path:
    return write_questions(tmp_path / "questions.jsonl")


def write_suite(path: Path, data: str | Path, model: dict, **extra) -> Path:
    """A suite YAML over one data file with ``model:``."""
    suite = {"name": "ckpt", "data": [{"path": str(data)}], "model": model, **extra}
    path.write_text(yaml.safe_dump(suite))
    return path


def small_model(path: str, **extra) -> dict:
    """``model:`` settings that keep a CPU run to seconds: 7 records in chunks of 3 (so 3 chunks),
    6 new tokens, batches of 2."""
    return {"path": path, "max_new_tokens": 6, "batch_size": 2, "chunk": 3, **extra}


def predictions(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
