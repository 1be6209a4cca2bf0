"""A killed ``citetrain build`` resumes from its finished shards and NLI cache: the rerun asks
the model no pair twice and writes output byte-identical to an uninterrupted build."""
from pathlib import Path

import pytest

from .conftest import child_env, kill_at_marker, logged_pairs, run_child

SPEC = """name: t
kind: refiner
sources:
  - synthetic: {{n: 12, seed: 3}}
nli: lexical
max_subset: 2
shard_size: 2
refiner: {{perturb: 0.3}}
out: {out}
"""


def spec(tmp: Path, name: str) -> Path:
    path = tmp / f"{name}.yaml"
    path.write_text(SPEC.format(out=tmp / name))
    return path


def snapshot(out: Path) -> dict[str, bytes]:
    files = [p for p in out.rglob("*") if p.is_file() and "work" not in p.relative_to(out).parts]
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(files)}


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_killed_build_resumes_byte_identical_without_asking_twice(tmp_path):
    logs = {n: tmp_path / f"{n}.log" for n in ("whole", "first", "second")}
    done = run_child("cli", ["build", str(spec(tmp_path, "whole")), "--no-progress"],
                     child_env(tmp_path, CT_PAIRS_LOG=logs["whole"], CT_BATCH=8))
    assert done.returncode == 0, done.stderr
    whole = logged_pairs(logs["whole"])

    args = ["build", str(spec(tmp_path, "resumed")), "--no-progress"]
    kill_at_marker("cli", args, child_env(tmp_path, CT_PAIRS_LOG=logs["first"], CT_BATCH=8,
                                          CT_STOP_AFTER=24))
    first = logged_pairs(logs["first"])
    out = tmp_path / "resumed"
    shards = sorted((out / "work").glob("shard-*.jsonl"))
    assert 0 < len(shards) < 6 and not (out / "manifest.json").exists()
    assert not (out / "dataset").exists()

    again = run_child("cli", args, child_env(tmp_path, CT_PAIRS_LOG=logs["second"], CT_BATCH=8))
    assert again.returncode == 0, again.stderr
    second = logged_pairs(logs["second"])
    assert len(first + second) == len(set(first + second)), "a pair went to the model twice"
    assert sorted(first + second) == sorted(whole)
    want = snapshot(tmp_path / "whole")
    assert snapshot(out) == want and "dataset/dataset_dict.json" in want
