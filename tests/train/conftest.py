"""A small synthetic refiner dataset and a tiny-cpu recipe pointing at it, shared by the tests."""
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory) -> Path:
    """A refiner dataset built from 80 synthetic records (lexical NLI)."""
    from citetrain.builders.pipeline import build
    from citetrain.builders.spec import BuildSpec

    root = tmp_path_factory.mktemp("tinydata")
    spec = BuildSpec.model_validate({
        "name": "t", "kind": "refiner", "sources": [{"synthetic": {"n": 80, "seed": 1}}],
        "nli": "lexical", "max_subset": 2, "refiner": {"perturb": 0.3},
        "split": {"validation": 0.2}, "out": str(root / "built")})
    build(spec, progress=False, log=lambda s: None)
    return root / "built" / "dataset"


def tiny_overrides(data: Path, out: Path, **extra) -> list[str]:
    sets = {"data.dataset": str(data), "train.output_dir": str(out), "train.max_steps": 6,
            "train.save_steps": 3, "train.logging_steps": 1, "eval.steps": 3, "eval.subset": 8,
            "eval.max_new_tokens": 6, "train.batch_size": 4, **extra}
    return [f"{k}={v}" for k, v in sets.items()]
