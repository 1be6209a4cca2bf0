"""The scripts in examples/ run as a user runs them: each as its own process, on CPU, offline, at
its tiny default settings; each exits 0 and prints its result. Each stays short (under 80 lines)
and opens with a docstring that says what it shows and how to run it."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import worker_threads

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))


def _run(script: str, *args: str, cwd: Path = REPO) -> str:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "OMP_NUM_THREADS": str(worker_threads()), "WANDB_DISABLED": "true"}
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{script}: {done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def test_the_three_scripts_are_there():
    assert {p.name for p in SCRIPTS} >= {"grpo_with_citation_rewards.py",
                                         "trainer_with_inloop_scores.py", "score_rag_output.py"}


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_each_script_is_short_and_says_how_to_run_it(path):
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 80, f"{path.name}: {len(text.splitlines())} lines"
    doc = ast.get_docstring(ast.parse(text))
    assert doc and f"examples/{path.name}" in doc, f"{path.name}: no docstring with its command"
    assert path.name in (EXAMPLES / "README.md").read_text(encoding="utf-8")


def test_score_rag_output_scores_the_shipped_predictions(tmp_path):
    out = _run("score_rag_output.py", "--out", str(tmp_path / "report"), cwd=tmp_path)
    assert "citation_f1" in out and "59.36" in out  # docs/guides/score.md's figure for this file
    assert (tmp_path / "report" / "report.json").is_file()


def test_score_rag_output_maps_a_llamaindex_log(tmp_path):
    docs = [{"text": "The Eiffel Tower was completed in 1889.", "metadata": {"title": "Eiffel"}},
            {"text": "Paris receives many visitors.", "metadata": {"title": "Paris"}}]
    rows = [{"query": "When was the Eiffel Tower completed?", "source_nodes": docs,
             "response": "The Eiffel Tower was completed in 1889 [1]."},
            {"query": "When was the Eiffel Tower completed?", "contexts": [d["text"] for d in docs],
             "answer": "The Eiffel Tower was completed in 1889 [2]."}]
    log = tmp_path / "rag.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = _run("score_rag_output.py", str(log), "--metrics", "alce", cwd=tmp_path)
    scores = json.loads(out.split("scores:", 1)[1])
    assert scores["alce/citation_rec"] == 50.0  # the first answer's citation supports it


@pytest.mark.slow
def test_grpo_with_citation_rewards_trains_two_steps(tmp_path):
    out = _run("grpo_with_citation_rewards.py", cwd=tmp_path)
    assert "steps=2 mean reward per step:" in out


@pytest.mark.slow
def test_trainer_with_inloop_scores_logs_citation_scores(tmp_path):
    out = _run("trainer_with_inloop_scores.py", cwd=tmp_path)
    assert "step 2: citation_f1=" in out and "step 4: citation_f1=" in out
