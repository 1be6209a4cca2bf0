"""bench/nli_engine.py --smoke: runs on the CPU, writes its figures (the floor's too), and the
engine's ALCE scores equal ALCE's one-pair-at-a-time loop's. No timing or speed ratio is asserted."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import transformers

from tests.conftest import worker_threads

pytestmark = pytest.mark.slow  # a benchmark's whole run at smoke size: 15-50 s on 2 CPU cores

REPO = Path(__file__).resolve().parents[2]


def test_nli_engine_smoke(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "OMP_NUM_THREADS": str(worker_threads())}
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "nli_engine.py"), "--smoke", "--json", str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    header = next(line for line in proc.stdout.splitlines() if line.startswith("device:"))
    assert "CPU" in header
    assert f"torch {torch.__version__}" in header
    assert f"transformers {transformers.__version__}" in header

    fig = json.loads(out.read_text())
    assert fig["device"] in header and fig["shape"] == "tiny" and fig["dtype"] == "float32"
    assert fig["records"] > 0 and fig["baseline_complete"] is True
    for key in ("engine_model_pairs_per_s", "engine_alce_pairs_per_s", "baseline_pairs_per_s",
                "speedup_alce_pairs", "speedup_model_pairs", "params_b", "weights_gib",
                "model_tflop", "matmul_gflop_per_s", "engine_floor_s", "speedup_ceiling"):
        assert fig[key] > 0 and math.isfinite(fig[key]), key
    # the engine asks exactly the pairs ALCE's loop asks, and they score the same
    assert fig["engine_alce_pairs"] == fig["baseline_pairs"] > 0
    assert 0 < fig["engine_model_pairs"] <= fig["engine_alce_pairs"]
    assert fig["identical"] is True and fig["records_agreeing"] == fig["records"]
    for key in ("citation_rec", "citation_prec"):
        assert math.isclose(fig["scores_engine"][key], fig["scores_baseline"][key], abs_tol=1e-9)
    # the floor: the pad-free matrix products of the model pairs at the device's matmul rate
    assert math.isclose(fig["engine_floor_s"], fig["model_tflop"] * 1e3 / fig["matmul_gflop_per_s"])
    assert math.isclose(fig["speedup_ceiling"], fig["engine_alce_pairs"] / fig["baseline_pairs_per_s"]
                        / fig["engine_floor_s"])
    assert "floor: (a)'s" in proc.stdout and "goal >= 30x" in proc.stdout
    assert fig["peak_gib_engine"] is None  # CPU: no GPU memory figure
    assert "identical: True" in proc.stdout
