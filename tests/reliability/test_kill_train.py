"""A training run killed in the middle of a checkpoint save resumes from the last complete
checkpoint (the cut one is passed over) and ends with the weights of an uninterrupted run."""
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from tests.train.conftest import tiny_overrides

from .conftest import REPO, child_env, kill_at_marker, run_child

TINY = REPO / "recipes" / "tiny-cpu.yaml"
SETS = {"train.max_steps": 4, "train.save_steps": 2, "eval.enabled": False,
        "eval.best_metric": "null"}


def train_args(data: Path, out: Path) -> list[str]:
    args = [str(TINY)]
    for item in tiny_overrides(data, out, **SETS):
        args += ["--set", item]
    return args


@pytest.mark.slow
def test_killed_mid_checkpoint_resumes_to_the_uninterrupted_weights(tiny_data, tmp_path):
    whole = run_child("train", train_args(tiny_data, tmp_path / "whole"), child_env(tmp_path))
    assert whole.returncode == 0, whole.stderr[-3000:]

    out = tmp_path / "resumed"
    kill_at_marker("train", train_args(tiny_data, out), child_env(tmp_path, CT_STOP_SAVE=4))
    assert (out / "checkpoint-2" / "trainer_state.json").is_file()
    assert (out / "checkpoint-4").is_dir() and not (out / "checkpoint-4" / "trainer_state.json").exists()
    assert not (out / "final").exists()

    again = run_child("train", train_args(tiny_data, out), child_env(tmp_path))
    assert again.returncode == 0, again.stderr[-3000:]
    summary = json.loads((out / "train_summary.json").read_text())
    assert summary["resumed_from"] == str(out / "checkpoint-2") and summary["steps"] == 4
    a = load_file(str(tmp_path / "whole" / "final" / "adapter_model.safetensors"))
    b = load_file(str(out / "final" / "adapter_model.safetensors"))
    assert a.keys() == b.keys() and len(a) > 0
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=1e-4, atol=1e-5)
    assert not list(out.glob("final.*")) and not list(out.glob(".final*"))
