"""``citetrain eval`` of one record whose answer is one sentence of N citation marks costs about
linear in N: 16,000 marks against 2,000 take about 8× (a quadratic pass: 64×), as a ratio of the
best of a few runs, never a wall-clock bound.

The sentence cycles through five passages, each holding one of its words, so that every round of
the default metrics runs: joint premises entail, single passages do not, and ALCE's rule (on the
sentence, and on ALiiCE's sentence-level claim, which keeps every mark) asks leave-one-out
premises. The metrics are the command's defaults (ALCE, lenient, ALiiCE).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pytest

from citetrain.cli.eval_args import add_arguments
from citetrain.cli.eval_cmd import run_eval
from tests.scaling import scaling_ratio

WORDS = ["alpha", "bravo", "charlie", "delta", "echo"]
BOUND = 20  # 8× the marks: linear ~8, quadratic ~64


def _record(n: int, tag: str) -> dict:
    """One record: five passages and an answer of one sentence with ``n`` marks. ``tag`` makes
    each run's texts new, so no run reads another's cached NLI work."""
    docs = [{"title": f"{i}", "text": f"{w} {tag}"}
            for i, w in enumerate(WORDS, 1)]
    answer = " ".join(f"{WORDS[k % 5]} [{k % 5 + 1}]" for k in range(n)) + "."
    return {"id": "r1", "question": f"What about {tag}?", "docs": docs, "output": answer}


def _eval_seconds(tmp: Path, n: int, tag: str) -> float:
    path = tmp / f"{tag}.jsonl"
    path.write_text(json.dumps(_record(n, tag)) + "\n")
    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args([str(path), "--nli", "lexical", "--no-cache",
                         "--no-progress", "--out", str(tmp / f"out-{tag}")])
    t = time.perf_counter()
    assert run_eval(args) == 0
    return time.perf_counter() - t


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> None:
    """spaCy, the stop words and the metrics loaded once, before anything is timed."""
    _eval_seconds(tmp_path_factory.mktemp("warm"), 20, "warm")


def test_one_record_eval_is_linear_in_the_marks_of_a_sentence(warm, tmp_path):
    tags = iter(range(1000))
    ratio = scaling_ratio(lambda: _eval_seconds(tmp_path, 2_000, f"s{next(tags)}"),
                          lambda: _eval_seconds(tmp_path, 16_000, f"l{next(tags)}"), BOUND)
    assert ratio < BOUND
    large = max(tmp_path.glob("out-l*"), key=lambda p: int(p.name[5:]))
    rows = {r["metric"]: r for r in map(json.loads, (large / "statements.jsonl").open())}
    assert rows["alce"]["counted_citations"] == 3  # ALCE's cut to at_most_citations
    # ALiiCE keeps every mark: the joint premise entails, no passage alone does, and leaving
    # out one mark of a passage cited 3,200 times still entails, so no mark is correct
    claim = rows["aliice"]["claims"][0]
    assert (claim["recall"], claim["counted_citations"], claim["correct_citations"]) == (1, 16_000, 0)
