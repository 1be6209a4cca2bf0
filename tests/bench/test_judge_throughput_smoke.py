"""``bench/judge_throughput.py --smoke``: the CPU mode runs end to end and writes its figures.

Figures only: no timing is asserted, just that every row measured something.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_smoke_runs_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "2"}
    got = subprocess.run([sys.executable, "bench/judge_throughput.py", "--smoke", "--json", str(out)],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stdout[-3000:] + got.stderr[-3000:]
    header = next(line for line in got.stdout.splitlines() if line.startswith("device:"))
    assert "CPU" in header and "torch " in header and "transformers " in header

    data = json.loads(out.read_text())
    assert "CPU" in data["device"] and data["torch"] and data["transformers"]
    rows = data["rows"]
    scorers = " | ".join(r["scorer"] for r in rows)
    for want in ("cross-encoder judge", "int8", "ALCE", "generative judge"):
        assert want in scorers
    for row in rows:
        assert row["statements"] > 0 and row["seconds"] > 0, row
        assert row["statements_per_s"] > 0, row
    floor = data["floor"]  # the int8 row's pairs at the cores' int8 matrix-product rate
    assert floor["pairs"] > 0 and floor["gflop"] > 0 and floor["int8_gop_per_s"] > 0
    int8 = next(r for r in rows if r["dtype"] == "int8")
    assert floor["floor_s"] == pytest.approx(floor["gflop"] / floor["int8_gop_per_s"])
    assert floor["statements_per_s"] == pytest.approx(int8["statements"] / floor["floor_s"])
    assert "floor: the int8 row's" in got.stdout
    gen = rows[-1]
    assert gen["unit"] == "prompts" and gen["prompts_per_s"] > 0 and gen["new_tokens"] > 0
    assert not list(tmp_path.glob(".x.json.*"))  # the temporary file was renamed away
