"""`citetrain eval` of a generator checkpoint: predictions generated with the training sets'
prompt, written and scored; a killed run resumes without generating a finished chunk again."""
from __future__ import annotations

import json

import pytest

import citetrain.evaluation.generate as G
from citetrain.cli.main import main
from citetrain.io.readers import read_records
from citetrain.text.prompts import generator_prompt

from .conftest import predictions, small_model, write_questions, write_suite


def test_eval_of_a_generator_writes_predictions_and_the_table(generator, questions, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["eval", str(questions), "--model", generator, "--max-new-tokens", "6",
                 "--batch-size", "4", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    for key in ("citation_f1", "lenient_f1", "aliice_f1", "cvcp"):
        assert key in printed and key in (out / "table.txt").read_text()
    report = json.loads((out / "report.json").read_text())
    assert set(report["scores"]) == {"alce", "lenient", "aliice"}
    assert report["info"]["model"]["kind"] == "generator"
    assert report["info"]["model"]["max_new_tokens"] == 6 and report["info"]["n_records"] == 7
    preds = predictions(out)
    inputs = read_records(questions).records
    assert [p["id"] for p in preds] == [r.id for r in inputs]
    assert all(r.output == "" for r in inputs)
    assert [p["docs"] for p in preds] == [[d.model_dump() for d in r.docs] for r in inputs]
    assert any(p["output"] for p in preds)  # answers generated (not good ones)
    assert all(p["output"] == p["output"].strip() for p in preds)
    assert (out / "statements.jsonl").is_file()
    assert not list(out.glob("*.partial.jsonl"))  # removed once the report is written


def _recording(monkeypatch, fail_after: int | None = None) -> list[list[str]]:
    """Record the prompts of every generate_texts call (one call per chunk); with
    ``fail_after``, raise KeyboardInterrupt (a kill) on the call after that many."""
    from citetrain.models.generate import generate_texts as real

    calls: list[list[str]] = []

    def generate(model, tokenizer, prompts, **kwargs):
        if fail_after is not None and len(calls) >= fail_after:
            raise KeyboardInterrupt
        calls.append(list(prompts))
        return real(model, tokenizer, prompts, **kwargs)

    monkeypatch.setattr(G, "generate_texts", generate)
    return calls


def test_killed_run_resumes_without_generating_a_finished_chunk_again(generator, questions,
                                                                      tmp_path, monkeypatch, capsys):
    suite = write_suite(tmp_path / "suite.yaml", questions, small_model(generator),
                        metrics=["alce"])
    prompts = [generator_prompt(r.question, r.docs) for r in read_records(questions).records]

    whole = _recording(monkeypatch)
    assert main(["eval", str(suite), "--out", str(tmp_path / "whole"), "--no-progress"]) == 0
    assert whole == [prompts[0:3], prompts[3:6], prompts[6:7]]  # three chunks, input order

    first = _recording(monkeypatch, fail_after=1)
    out = tmp_path / "killed"
    assert main(["eval", str(suite), "--out", str(out), "--no-progress"]) == 130
    assert first == [prompts[0:3]]
    partial = out / "predictions.rank-0.partial.jsonl"
    lines = partial.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["chunk"] == 0
    assert not (out / "predictions.jsonl").exists() and not (out / "report.json").exists()
    with open(partial, "a") as fh:  # a chunk line cut by the kill
        fh.write('{"chunk": 1, "ids": ["synth-11-000003"], "outp')
    capsys.readouterr()

    again = _recording(monkeypatch)
    assert main(["eval", str(suite), "--out", str(out), "--no-progress"]) == 0
    assert again == [prompts[3:6], prompts[6:7]]  # chunk 0 is never generated again
    assert "resumed 1 finished chunk(s)" in capsys.readouterr().out
    assert (out / "predictions.jsonl").read_bytes() == (tmp_path / "whole" / "predictions.jsonl").read_bytes()
    assert (out / "table.txt").read_text() == (tmp_path / "whole" / "table.txt").read_text()
    assert not partial.exists()


def test_a_partial_run_of_another_input_is_refused(generator, tmp_path, monkeypatch, capsys):
    questions = write_questions(tmp_path / "q.jsonl")
    suite = write_suite(tmp_path / "suite.yaml", questions, small_model(generator), metrics=["alce"])
    _recording(monkeypatch, fail_after=1)
    out = tmp_path / "out"
    assert main(["eval", str(suite), "--out", str(out), "--no-progress"]) == 130
    write_questions(questions, seed=12)  # the input changed under the partial run
    capsys.readouterr()
    assert main(["eval", str(suite), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a partial run of another input" in err
    assert "predictions.rank-0.partial.jsonl" in err


def test_generation_settings_are_part_of_the_partial_header(generator, questions, tmp_path, monkeypatch, capsys):
    suite = write_suite(tmp_path / "suite.yaml", questions, small_model(generator), metrics=["alce"])
    _recording(monkeypatch, fail_after=1)
    out = tmp_path / "out"
    assert main(["eval", str(suite), "--out", str(out), "--no-progress"]) == 130
    capsys.readouterr()
    assert main(["eval", str(suite), "--out", str(out), "--no-progress",
                 "--max-new-tokens", "7"]) == 2
    assert "a partial run of another input, checkpoint or setting" in capsys.readouterr().err


@pytest.mark.parametrize("words", [None, 5])
def test_prompts_are_the_generator_training_prompts(questions, words):
    records = read_records(questions).records
    assert G.prompts_of(records, words) == [generator_prompt(r.question, r.docs, words)
                                            for r in records]
    if words:
        assert all(len(p) < len(q) for p, q in zip(G.prompts_of(records, words),
                                                    G.prompts_of(records, None)))
