"""The payloads of ``bench/serve_judge.py --hostile`` stay within the server's default caps (body
bytes, records, passages, statements, work as :func:`citetrain.serve.cost.plan_records` counts
it), and its worst request is close to ``--max-work``; no server is started."""
from __future__ import annotations

import json

import pytest

from bench import _hostile as H
from citetrain.serve.config import ServeConfig

CAPS = ServeConfig(judge="nli:lexical")


def within_caps(body: dict) -> int:
    """The body's estimated work; fails where the server would refuse it."""
    assert H.body_bytes(body) <= CAPS.max_body_bytes
    assert len(body["records"]) <= CAPS.max_items
    assert all(len(r["docs"]) <= CAPS.max_passages for r in body["records"])
    plan = H.plan_of(body)  # raises the server's 422 past a limit
    assert sum(len(c.statements) for c in plan.items) <= CAPS.max_statements
    return sum(plan.costs)


@pytest.mark.parametrize("build", [H.long_passages_body, H.many_statements_body, H.cjk_body,
                                   lambda seed: H.cjk_body(seed, japanese=True)])
def test_heavy_bodies_are_within_the_default_caps(build):
    body = build(3)
    work = within_caps(body)
    assert work > 0  # near the body cap, or near the work cap where that binds first
    assert H.body_bytes(body) > CAPS.max_body_bytes * 0.7 or work > CAPS.max_work * 0.9


def test_shapes_of_the_long_and_many_modes():
    long = H.long_passages_body(0)["records"][0]
    assert len(long["docs"]) == 100 and min(len(d["text"]) for d in long["docs"]) > 7000
    assert sum(len(c.statements) for c in H.plan_of({"records": [long]}).items) == 10
    many = H.plan_of(H.many_statements_body(0))
    statements = [s for c in many.items for s in c.statements]
    assert len(statements) > min(1800, CAPS.max_work // 1700) and all(350 < len(s.text) < 500 for s in statements[:50])


def test_the_worst_request_is_within_the_caps_and_near_max_work():
    body = H.worst_body(1)
    work = within_caps(body)
    assert CAPS.max_work / 2 < work <= CAPS.max_work
    assert work == pytest.approx(H.estimate_work(body), rel=0.02)
    for shape in ("spread-100", "spread-10x64"):  # searched shapes of other forms too
        assert CAPS.max_work / 2 < within_caps(H.shape_body(shape, 2)) <= CAPS.max_work


def test_fresh_seeds_give_unseen_words():
    a, b = (json.dumps(H.worst_body(seed)) for seed in (5, 6))
    words_a = set(a.split()) - {"passage"}
    assert len(words_a & set(b.split())) < 0.05 * len(words_a)  # chance overlaps of short words


def test_a_cjk_body_past_twice_the_statement_cap_is_refused():
    from citetrain.serve.bodies import RequestError

    with pytest.raises(RequestError, match="--max-statements"):
        H.plan_of(H.cjk_body(0, 20_000))


def test_busy_until_and_quantiles():
    samples = [(t * 0.05, c) for t, c in enumerate([0, 0.05, 0.1, 0.1, 0.1, 0.15, 0.15])]
    assert H.busy_until(samples, 0.0) == pytest.approx(0.25)
    assert H.quantiles([3.0, 1.0, 2.0]) == (2.0, 3.0, 3.0)


@pytest.mark.slow
def test_a_hostile_mode_runs_against_a_real_server():
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("fastapi", reason="the server stack: pip install -e '.[serve]'")
    script = Path(__file__).resolve().parents[2] / "bench" / "serve_judge.py"
    out = subprocess.run([sys.executable, str(script), "--hostile", "refusal-trickle", "--seconds", "1",
                          "--light-clients", "2"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "| refusal-trickle |" in out.stdout and "100 of 100 closed" in out.stdout
