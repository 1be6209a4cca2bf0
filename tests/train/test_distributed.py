"""The tiny recipe on two CPU processes: DDP over gloo, DeepSpeed ZeRO-2 and ZeRO-3 (a few
steps); the saved adapters are non-empty and load. Launched as the README teaches
(``accelerate launch -m citetrain.train RECIPE``) and as users write it (``accelerate launch
RECIPE``: the start-up hook of citetrain/cli/recipe_hook.py)."""
import importlib.util
import json
import os
import shlex
import shutil
import subprocess

import pytest

from citetrain.train.callbacks import check_adapter

from .conftest import REPO, tiny_overrides

needs_accelerate = pytest.mark.skipif(shutil.which("accelerate") is None,
                                      reason="accelerate CLI not installed")
pytestmark = pytest.mark.slow  # real `accelerate launch` runs, tens of seconds each

needs_deepspeed = pytest.mark.skipif(importlib.util.find_spec("deepspeed") is None,
                                     reason="deepspeed not installed (pip install -e '.[test]')")


def launch(tiny_data, out, *launch_args, steps=4, processes=2, module=True, procs_flag=True,
           recipe=("tiny-cpu.yaml",)):
    """Train the tiny recipe with ``accelerate launch`` on ``processes`` processes (``procs_flag``:
    named on the command line, else by the launch config); ``module=False`` hands accelerate the
    recipe file itself; ``recipe``: the recipe and its own ``--set``s, before the tiny ones."""
    sets = tiny_overrides(tiny_data, out, **{"train.max_steps": steps, "train.save_steps": 2,
                                             "eval.steps": 2})
    procs = ["--num_processes", str(processes)] if procs_flag else []
    cmd = (["accelerate", "launch", "--main_process_port", "0", *launch_args, *procs,
            *(["-m", "citetrain.train"] if module else []), str(REPO / "recipes" / recipe[0]),
            *recipe[1:]] + [a for s in sets for a in ("--set", s)])
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("CITETRAIN_RECIPE_HOOK", None)
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, cwd=REPO)
    assert run.returncode == 0, run.stderr[-4000:]
    summary = json.loads((out / "train_summary.json").read_text())
    assert json.loads((out / "citetrain_run.json").read_text())["world_size"] == processes
    assert summary["steps"] == steps and summary["in_loop"]
    tensors, size = check_adapter(out / "final", summary["adapter_tensors"])
    assert tensors > 0 and size > 0
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(str(out / "base")),
                                      str(out / "final"))
    assert any("lora_B" in n and p.abs().sum() > 0 for n, p in model.named_parameters())
    return summary


@needs_accelerate
def test_two_processes_over_gloo(tiny_data, tmp_path):
    """The README's two-process CPU command (the chain of tests/test_readme.py leaves it to this
    test): the recipe file handed to accelerate with the shipped two-process CPU config, its world
    size read back from the run; ``-m citetrain.train`` runs under ZeRO-2 below."""
    from tests.test_readme import RUN_BY_TESTS, readme_cpu_command

    line = readme_cpu_command("launch/cpu-2proc.yaml")
    assert RUN_BY_TESTS["launch/cpu-2proc.yaml"].endswith(f"::{test_two_processes_over_gloo.__name__}")
    words = shlex.split(line)
    assert words[:4] == ["accelerate", "launch", "--config_file", "launch/cpu-2proc.yaml"], line
    assert words[4].startswith("recipes/"), line
    launch(tiny_data, tmp_path / "ddp", "--config_file", str(REPO / words[3]),
           procs_flag=False, module=False, recipe=(words[4].removeprefix("recipes/"), *words[5:]))


@needs_accelerate
@needs_deepspeed
@pytest.mark.parametrize("stage, steps, module", [("zero2", 4, True), ("zero3", 2, False)])
def test_deepspeed_on_cpu(tiny_data, tmp_path, stage, steps, module):
    """ZeRO-3 is launched with the recipe file: every rank runs the recipe."""
    launch(tiny_data, tmp_path / stage, "--config_file", str(REPO / "launch" / f"{stage}.yaml"),
           steps=steps, module=module)
