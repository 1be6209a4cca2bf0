"""Two processes (`accelerate launch --multi_gpu --num_processes 2`, gloo on CPU) build the same
dataset as one."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from citetrain.cli.main import main

from .hand import variant


def dataset_files(out):
    root = out / "dataset"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("accelerate") is None, reason="accelerate CLI not installed")
def test_two_processes_build_the_same_dataset_as_one(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(variant(i)[0].to_dict()) + "\n" for i in range(8)))
    spec = tmp_path / "spec.yaml"
    spec.write_text("name: t\nkind: refiner\nsources:\n  - path: in.jsonl\nnli: lexical\n"
                    "shard_size: 2\nrefiner: {perturb: 0.5}\n")
    assert main(["build", str(spec), "--out", str(tmp_path / "one"), "--no-progress"]) == 0
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = ["accelerate", "launch", "--main_process_port", "0", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
           "--mixed_precision", "no", "--dynamo_backend", "no", "-m", "citetrain.build", str(spec),
           "--out", str(tmp_path / "two"), "--no-progress"]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert dataset_files(tmp_path / "one") == dataset_files(tmp_path / "two")
    one = json.loads((tmp_path / "one" / "manifest.json").read_text())
    two = json.loads((tmp_path / "two" / "manifest.json").read_text())
    assert two.pop("processes") == 2 and one.pop("processes") == 1
    assert one == two
    # both ranks analysed shards: 4 shards, rank r takes shards r, r + 2
    assert len(list((tmp_path / "two" / "work").glob("shard-*.jsonl"))) == 4
    assert sys.executable  # the launcher runs this interpreter's citetrain
