"""bench/gpu_train.py (issue 17 items 1-2) in its CPU smoke mode: the recipe's training path at
each setting, the figures it reports, and one in-loop evaluation."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import worker_threads

pytestmark = pytest.mark.slow  # a benchmark's whole run at smoke size: 15-50 s on 2 CPU cores

REPO = Path(__file__).resolve().parents[2]


def test_gpu_train_smoke(tmp_path):
    out = tmp_path / "train.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": str(worker_threads())}
    proc = subprocess.run([sys.executable, "bench/gpu_train.py", "--smoke", "--configs",
                           "pad,pack,pack-nockpt", "--steps", "2", "--warmup", "1",
                           "--nli-pairs-per-s", "100", "--json", str(out)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(out.read_text())
    assert got["head"]["device"] == "CPU"
    assert {"torch", "transformers", "trl"} <= set(got["head"])
    assert f"transformers {got['head']['transformers']}" in proc.stdout
    rows = {r["setting"]: r for r in got["rows"]}
    assert list(rows) == ["pad", "pack", "pack-nockpt"]
    for r in rows.values():
        assert r["real_tok_s"] > 0 and r["padded_tok_s"] >= r["real_tok_s"]
        assert r["method"] == "lora" and r["trainable"] < r["params"]
    # packed rows are padding-free; padded batches count their padding
    assert rows["pack"]["real_share"] == 1.0 and rows["pack"]["packing"]
    assert not rows["pad"]["packing"] and rows["pad"]["checkpointing"]
    assert not rows["pack-nockpt"]["checkpointing"] and rows["pack-nockpt"]["batch_size"] == 1
    loop = got["in_loop"]
    assert loop["examples"] > 0 and set(loop["generate_s"]) == {"8", "32"}
    assert loop["nli_pairs"] > 0 and loop["nli_s"] == loop["nli_pairs"] / 100
    # the budget: eval.steps optimizer steps at the recipe's grad_accum (4) from the timed step
    assert loop["train_between_s"] == 200 * rows["pack"]["step_s"] * 4
    assert 0 < loop["eval_share"] < 1
