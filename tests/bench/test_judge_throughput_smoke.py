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

from tests.conftest import worker_threads

pytestmark = pytest.mark.slow  # a benchmark's whole run at smoke size: 15-50 s on 2 CPU cores

REPO = Path(__file__).resolve().parents[2]


def test_smoke_runs_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": str(worker_threads())}
    # --compile and --workers (a compiled row, a row in two processes) are left out: their judge
    # paths are tested in tests/nli/test_classifier.py and tests/judges/test_workers.py
    got = subprocess.run([sys.executable, "bench/judge_throughput.py", "--smoke",
                          "--warm-records", "3", "--repeats", "3",
                          "--json", str(out)],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stdout[-3000:] + got.stderr[-3000:]
    header = next(line for line in got.stdout.splitlines() if line.startswith("device:"))
    assert "CPU" in header and "torch " in header and "transformers " in header
    # --warm-records 3: the judge rows score 3 other answers untimed first, then the timed ones
    source = next(line for line in got.stdout.splitlines() if line.startswith("records:"))
    assert "the first 10 timed; each judge row first scores the other 3, untimed" in source

    data = json.loads(out.read_text())
    assert "CPU" in data["device"] and data["torch"] and data["transformers"]
    rows = data["rows"]
    scorers = " | ".join(r["scorer"] for r in rows)
    for want in ("cross-encoder judge", "int8", "ALCE", "generative judge"):
        assert want in scorers
    for row in rows:
        assert row["statements"] > 0 and row["seconds"] > 0, row
        assert row["statements_per_s"] > 0, row
    # --repeats 3: every in-process judge row timed three times, reported at its median pass
    timed = [r for r in rows if "passes" in r]
    assert len(timed) == len([r for r in rows if r["scorer"].startswith("cross-encoder judge")])
    for row in timed:
        assert len(row["passes"]) == 3
        assert row["seconds"] == pytest.approx(sorted(row["passes"])[1], abs=1e-3)
        assert f"{row['scorer']}: 3 passes, statements/s " in got.stdout
    from citetrain.nli.hf import cpu_has_bf16

    native = cpu_has_bf16()  # bf16 weights are a row (union first) where the CPU has them
    assert [r["dtype"] for r in rows if r["scorer"].startswith("cross-encoder judge")] == (
        ["fp32", "int8", "bf16"] if native else ["fp32", "int8"])
    assert set(data["same_ratings"]) == ({"int8", "bf16"} if native else {"int8"})
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
    kinds = data["pair_kinds"]  # the int8 row's pairs by premise, every one counted once
    assert sum(kinds.values()) == floor["pairs"] and kinds.get("one passage", 0) > 0
    assert "the int8 row's" in got.stdout and "pairs by premise:" in got.stdout
    gen = rows[-1]
    assert gen["unit"] == "prompts" and gen["prompts_per_s"] > 0 and gen["new_tokens"] > 0
    assert not list(tmp_path.glob(".x.json.*"))  # the temporary file was renamed away


def test_with_lexical_rows_read_the_judge_averaged_with_lexical_recall(tmp_path: Path) -> None:
    """``--with-lexical``: the rows' NLI is ``mean:classifier:PATH+lexical``; the time counters
    are the cross-encoder's own, and its answers are (e + r) / 2 of the two members'."""
    sys.path.insert(0, str(REPO / "bench"))
    import judge_throughput as jt

    from citetrain.nli.lexical import LexicalNLI
    from tests.nli.tiny_models import build_bert_classifier

    path = str(build_bert_classifier(tmp_path / "m", ("contradiction", "entailment", "neutral")))
    pairs = [("the cat sat on the mat .", "a cat sat ."), ("water boils at 100 degrees .", "ice is cold .")]
    assert jt.judge_spec(path, False) == f"classifier:{path}"
    engine, spent = jt.make_crossencoder(path, "cpu", "fp32", None, False, pairs, lexical=True)
    model, lexical = (b for b, _ in engine.backend.members)
    assert isinstance(lexical, LexicalNLI) and type(model).__name__ == "ClassifierNLI"
    got = engine.results(pairs)
    assert spent["predict"] > 0 and spent["_encode"] > 0  # the cross-encoder's own counters
    for res, m, r in zip(got, model.predict(pairs), lexical.predict(pairs)):
        assert res.expected == pytest.approx((m.expected + r.expected) / 2, abs=1e-6)


def test_repeats_below_one_is_refused() -> None:
    got = subprocess.run([sys.executable, "bench/judge_throughput.py", "--smoke", "--repeats", "0"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert got.returncode != 0 and "--repeats 0: must be at least 1" in got.stderr
