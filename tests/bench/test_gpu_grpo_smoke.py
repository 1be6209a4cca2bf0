"""bench/gpu_grpo.py (issue 16) in its CPU smoke mode: kind grpo's training path with a seq2seq
reward NLI, the time split it reports, and the reward timing on completions that cite."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import worker_threads

pytestmark = pytest.mark.slow  # a benchmark's whole run at smoke size: 15-50 s on 2 CPU cores

REPO = Path(__file__).resolve().parents[2]


def test_gpu_grpo_smoke(tmp_path):
    out = tmp_path / "grpo.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": str(worker_threads())}
    proc = subprocess.run([sys.executable, "bench/gpu_grpo.py", "--smoke", "--steps", "1",
                           "--warmup", "1", "--batch", "4", "--generations", "2",
                           "--max-completion", "6", "--nli", "t5-tiny", "--json", str(out)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(out.read_text())
    assert got["device"] == "CPU" and got["nli"] == "t5-tiny"
    assert got["completions_per_step"] == 4 and got["group"] == 2 and got["steps"] == 1
    assert got["generate_s"] > 0 and got["train_s"] > 0 and got["rewards_gold_s"] > 0
    # the split adds up to the step
    parts = got["generate_s"] + got["rewards_s"] + got["train_s"]
    assert abs(parts - got["step_s"]) < 1e-6
    assert got["completions_s"] == 4 / got["step_s"]
    assert "completions/s" in proc.stdout
