"""Two processes (`accelerate launch --multi_gpu --num_processes 2 -m citetrain.evaluation`, gloo
on CPU) generate the same predictions as one (`python -m citetrain.evaluation`)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from citetrain.evaluation.__main__ import main as evaluation_main

from .conftest import REPO, small_model, write_suite


def _env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
            "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("accelerate") is None, reason="accelerate CLI not installed")
def test_two_processes_give_the_predictions_of_one(generator, questions, tmp_path, monkeypatch):
    suite = write_suite(tmp_path / "suite.yaml", questions, small_model(generator),
                        metrics=["alce", "lenient"])
    monkeypatch.chdir(tmp_path)  # the one-process run in this worker, the two-process one launched
    assert evaluation_main([str(suite), "--out", str(tmp_path / "one"), "--no-progress"]) == 0
    cmd = ["accelerate", "launch", "--main_process_port", "0", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
           "--mixed_precision", "no", "--dynamo_backend", "no", "-m", "citetrain.evaluation",
           str(suite), "--out", str(tmp_path / "two")]
    two = subprocess.run(cmd, env=_env(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert two.returncode == 0, two.stderr[-3000:]
    # 3 chunks dealt out: rank 0 generates chunks 0 and 2 (4 records), rank 1 chunk 1 (3)
    assert "generate (rank 0)" in two.stderr and "generate (rank 1)" in two.stderr
    assert "3/3" in two.stderr and "4/4" in two.stderr
    a, b = tmp_path / "one", tmp_path / "two"
    assert (a / "predictions.jsonl").read_bytes() == (b / "predictions.jsonl").read_bytes()
    assert (a / "table.txt").read_text() == (b / "table.txt").read_text()
    ra, rb = (json.loads((d / "report.json").read_text()) for d in (a, b))
    assert (ra["info"]["processes"], rb["info"]["processes"]) == (1, 2)
    assert ra["scores"] == rb["scores"]
    assert two.stdout.count("wrote ") == 1  # only the main process scores and writes
    assert not list(b.glob("*.partial.jsonl"))
