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
    got = subprocess.run([sys.executable, "bench/judge_throughput.py", "--smoke", "--compile",
                          "--json", str(out)],
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
    from citetrain.nli.hf import cpu_has_bf16

    native = cpu_has_bf16()  # bf16 weights are a row (union first) where the CPU has them
    compiled = "bf16+compile" if native else "fp32+compile"  # --compile: one more row
    assert [r["dtype"] for r in rows if r["scorer"].startswith("cross-encoder judge")] == (
        ["fp32", "int8", "bf16", compiled] if native else ["fp32", "int8", compiled])
    assert set(data["same_ratings"]) == ({"int8", "bf16", compiled} if native else {"int8", compiled})
    assert f"{compiled}: compiled in" in got.stdout
    # the int8 row's pairs at the cores' fastest low-precision matrix-product rate
    floor = data["floor"]
    assert floor["pairs"] > 0 and floor["gflop"] > 0 and floor["int8_gop_per_s"] > 0
    assert (floor["bf16_gflop_per_s"] is not None) == native
    rates = {"int8": floor["int8_gop_per_s"], "bf16": floor["bf16_gflop_per_s"] or 0.0}
    assert floor["best"] == max(rates, key=rates.get)
    int8 = next(r for r in rows if r["dtype"] == "int8")
    assert floor["floor_s"] == pytest.approx(floor["gflop"] / rates[floor["best"]])
    assert floor["statements_per_s"] == pytest.approx(int8["statements"] / floor["floor_s"])
    assert "floor: the int8 row's" in got.stdout
    gen = rows[-1]
    assert gen["unit"] == "prompts" and gen["prompts_per_s"] > 0 and gen["new_tokens"] > 0
    assert not list(tmp_path.glob(".x.json.*"))  # the temporary file was renamed away
