"""GRPO and DPO through the recipe path (``kind: grpo`` / ``kind: dpo``), from an SFT adapter, on
the toy refiner set of rl_toy.py: the mean citation reward rises across seeds, DPO lowers its loss
and widens its margin, a run resumes, and two processes over gloo save a non-empty adapter."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from citetrain.train.callbacks import check_adapter
from citetrain.train.recipe import load_recipe
from citetrain.runner import run_recipe as train

from .conftest import REPO
from .rl_toy import write_toy_set

pytestmark = pytest.mark.slow  # RL trainings from an 80-step SFT run, and a two-process launch


@pytest.fixture(scope="module")
def toy_sft(tmp_path_factory) -> tuple[Path, Path]:
    """The toy set and a tiny refiner fine-tuned on it (80 steps): (dataset, run folder)."""
    root = tmp_path_factory.mktemp("rl")
    data = write_toy_set(root / "toy")
    sets = {"data.dataset": data, "train.output_dir": root / "sft", "train.max_steps": 80,
            "train.save_steps": 1000, "eval.enabled": "false", "eval.best_metric": "null",
            "train.batch_size": 8, "model.tiny.hidden_size": 32, "model.tiny.intermediate_size": 64,
            "train.resume": "never"}
    train(load_recipe(REPO / "recipes" / "tiny-cpu.yaml", [f"{k}={v}" for k, v in sets.items()]))
    return data, root / "sft"


def rl_recipe(tmp: Path, toy_sft, kind: str, **rl) -> Path:
    data, sft = toy_sft
    recipe = {"name": f"toy-{kind}", "kind": kind, "method": "lora",
              "model": {"name_or_path": str(sft / "base"), "adapter": str(sft / "final")},
              "data": {"dataset": str(data), "max_length": 256},
              "train": {"output_dir": str(tmp / kind), "max_steps": 30, "learning_rate": 2e-3,
                        "batch_size": 16, "logging_steps": 1, "save_steps": 1000, "use_cpu": True},
              "eval": {"steps": 1000, "subset": 20, "max_new_tokens": 6, "batch_size": 20},
              "rl": {"task": "refiner", "num_generations": 4, "max_completion_length": 6, **rl}}
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / f"{kind}.yaml"
    path.write_text(yaml.safe_dump(recipe))
    return path


@pytest.mark.parametrize("seed", [0, 1])
def test_grpo_raises_the_mean_citation_reward(tmp_path, toy_sft, seed):
    recipe = load_recipe(rl_recipe(tmp_path, toy_sft, "grpo"), [f"train.seed={seed}"])
    summary = train(recipe)
    r = summary["rewards"]
    assert len(r) == 30
    # recall + precision + 0.5 wellformed, at most 2.5; the SFT model cites at random
    assert sum(r[-10:]) / 10 - sum(r[:5]) / 5 > 0.4, r
    assert summary["in_loop"][-1]["citation_f1"] > 50.0
    tensors, size = check_adapter(Path(summary["final"]), summary["adapter_tensors"])
    assert tensors > 0 and size > 0


def test_dpo_on_sampled_pairs_lowers_its_loss_and_widens_its_margin(tmp_path, toy_sft, capsys):
    recipe = load_recipe(rl_recipe(tmp_path, toy_sft, "dpo", rejected="sampled", samples=4),
                         ["train.max_steps=20", "train.batch_size=8", "train.learning_rate=1e-3"])
    summary = train(recipe)
    assert "preference pairs (sampled)" in capsys.readouterr().out
    losses, margins = summary["losses"], summary["margins"]
    assert len(losses) == 20 and len(margins) == 20
    assert sum(losses[-5:]) / 5 < sum(losses[:5]) / 5
    assert sum(margins[-5:]) / 5 > sum(margins[:5]) / 5 + 0.05, margins


def test_dpo_on_selfcite_pairs_trains_from_pairs_the_policy_ranked(tmp_path, toy_sft, capsys):
    """``rl.rejected: selfcite``: the starting model samples, its own context-ablation reward
    ranks the citation sets, DPO with the chosen set's NLL trains on the best over the worst
    (recipes/tiny-selfcite.yaml)."""
    recipe = load_recipe(rl_recipe(tmp_path, toy_sft, "dpo", rejected="selfcite", samples=2,
                                   selfcite={"candidates": 4, "max_ids": 2}, sft_weight=1.0),
                         ["train.max_steps=3", "train.batch_size=8"])
    summary = train(recipe)
    said = capsys.readouterr().out
    assert "preference pairs (selfcite)" in said
    assert summary["steps"] == 3 and len(summary["margins"]) == 3
    tensors, size = check_adapter(Path(summary["final"]), summary["adapter_tensors"])
    assert tensors > 0 and size > 0


def test_dpo_on_perturbed_pairs_generator_prompts_and_a_resumed_grpo_run(tmp_path, toy_sft):
    summary = train(load_recipe(rl_recipe(tmp_path, toy_sft, "dpo"), ["train.max_steps=4"]))
    assert summary["steps"] == 4 and summary["margins"]
    # rl.task generator: a completion is a whole answer, rewarded against the record's docs
    gen = train(load_recipe(rl_recipe(tmp_path / "gen", toy_sft, "grpo"),
                            ["train.max_steps=2", "rl.task=generator"]))
    assert gen["steps"] == 2 and len(gen["rewards"]) == 2
    path = rl_recipe(tmp_path, toy_sft, "grpo")
    first = train(load_recipe(path, ["train.max_steps=2", "train.save_steps=2"]))
    assert first["resumed_from"] is None
    again = train(load_recipe(path, ["train.max_steps=4", "train.save_steps=2"]))
    assert again["resumed_from"] and again["resumed_from"].endswith("checkpoint-2")
    assert again["steps"] == 4


@pytest.mark.skipif(shutil.which("accelerate") is None, reason="accelerate CLI not installed")
def test_grpo_on_two_processes_over_gloo(tmp_path, toy_sft):
    path = rl_recipe(tmp_path, toy_sft, "grpo")
    sets = ["train.max_steps=3", "train.batch_size=8", "train.logging_steps=1"]
    cmd = ["accelerate", "launch", "--main_process_port", "0", "--multi_gpu", "--num_processes", "2", "-m", "citetrain.train",
           str(path)] + [a for s in sets for a in ("--set", s)]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("CITETRAIN_RECIPE_HOOK", None)
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, cwd=REPO)
    assert run.returncode == 0, run.stderr[-4000:]
    out = tmp_path / "grpo"
    assert json.loads((out / "citetrain_run.json").read_text())["world_size"] == 2
    summary = json.loads((out / "train_summary.json").read_text())
    assert summary["steps"] == 3 and summary["rewards"]
    tensors, size = check_adapter(out / "final", summary["adapter_tensors"])
    assert tensors > 0 and size > 0


def test_grpo_with_full_fine_tuning(tmp_path, toy_sft):
    sets = ["train.max_steps=2", "train.batch_size=8", "method=full", "lora.enabled=false",
            "model.adapter=null"]  # every weight of the base; no adapter
    summary = train(load_recipe(rl_recipe(tmp_path, toy_sft, "grpo"), sets))
    assert summary["steps"] == 2 and len(summary["rewards"]) == 2
    assert (Path(summary["final"]) / "model.safetensors").is_file()


def test_grpo_with_qlora_from_the_sft_adapter(tmp_path, toy_sft):
    pytest.importorskip("bitsandbytes", reason="pip install -e '.[qlora]'")
    data, _ = toy_sft  # bitsandbytes' CPU kernels refuse the 32-wide toy: tiny-cpu's 64-wide model
    sft = {"data.dataset": data, "train.output_dir": tmp_path / "sft64", "train.max_steps": 6,
           "train.save_steps": 1000, "eval.enabled": "false", "eval.best_metric": "null",
           "train.batch_size": 8, "train.resume": "never"}
    train(load_recipe(REPO / "recipes" / "tiny-cpu.yaml", [f"{k}={v}" for k, v in sft.items()]))
    sets = ["train.max_steps=2", "train.batch_size=8", "method=qlora",
            "quantization.load_in_4bit=true", "quantization.compute_dtype=fp32"]
    summary = train(load_recipe(rl_recipe(tmp_path, (data, tmp_path / "sft64"), "grpo"), sets))
    assert summary["steps"] == 2 and len(summary["rewards"]) == 2
    tensors, size = check_adapter(Path(summary["final"]), summary["adapter_tensors"])
    assert tensors > 0 and size > 0
