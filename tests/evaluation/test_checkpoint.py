"""A checkpoint's kind decides what `citetrain eval` does: a refiner (pair classifier read from
its config, or a causal LM named `kind: refiner`) refines the answers, scored before and after; a
judge is meta-evaluated as `citetrain meta-eval` does; bad checkpoints are one line, exit 2."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citetrain.cli.main import main
from citetrain.io.readers import read_records
from citetrain.text.marks import strip_marks
from tests.nli.tiny_models import build_bert_classifier

from .conftest import REPO, predictions, small_model, write_suite

SUPPORT = ("not_supported", "partially_supported", "supported")


@pytest.fixture(scope="module")
def classifier(tmp_path_factory) -> str:
    """A random support classifier: a pair refiner, and a cross-encoder judge."""
    return str(build_bert_classifier(tmp_path_factory.mktemp("cls") / "model", SUPPORT))


@pytest.fixture
def answers(tmp_path) -> Path:
    """Synthetic records with their answers (and citations)."""
    from citetrain.synth.records import synth_records

    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in synth_records(6, seed=3)))
    return path


def _refined_keeps_text(answers: Path, out: Path) -> None:
    before = read_records(answers).records
    after = predictions(out)
    assert [p["id"] for p in after] == [r.id for r in before]
    assert [strip_marks(p["output"]) for p in after] == [strip_marks(r.output) for r in before]


def test_a_pair_refiner_is_read_from_the_checkpoint_and_scored_before_and_after(
        classifier, answers, tmp_path, capsys):
    out = tmp_path / "out"
    suite = write_suite(tmp_path / "s.yaml", answers, {"path": classifier}, metrics=["alce"])
    assert main(["eval", str(suite), "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "pair refiner" in printed and "before" in printed and "change" in printed
    _refined_keeps_text(answers, out)
    after = json.loads((out / "report.json").read_text())
    before = json.loads((out / "before" / "report.json").read_text())
    assert after["info"]["model"]["kind"] == "refiner" and after["info"]["model"]["refiner"] == "pair"
    assert after["info"]["before"] == before["scores"]
    assert before["info"]["stage"] == "before refining"
    from citetrain.metrics.evaluate import evaluate

    direct = evaluate(read_records(answers).records, ["alce"], "lexical", progress=False)
    assert before["scores"] == json.loads(json.dumps(direct.scores))  # the answers as given
    assert "citation_f1" in (out / "change.txt").read_text()
    assert not list(out.glob("*.partial.jsonl"))


def test_a_causal_lm_named_refiner_refines(generator, answers, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["eval", str(answers), "--model", generator, "--model-kind", "refiner",
                 "--max-new-tokens", "4", "--chunk", "2", "--metrics", "alce", "--out", str(out),
                 "--no-progress"]) == 0
    assert "generative refiner" in capsys.readouterr().out
    _refined_keeps_text(answers, out)
    assert json.loads((out / "report.json").read_text())["info"]["model"]["refiner"] == "generative"


def test_a_judge_is_meta_evaluated_as_meta_eval_does(classifier, tmp_path, capsys):
    rows = [{"id": f"r{i}", "claim": f"claim {i % 5} about the cat", "references": [f"the cat {i}"],
             "attribution_label": "attributable" if i % 2 else "not attributable"} for i in range(20)]
    labelled = tmp_path / "ab.jsonl"
    labelled.write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = write_suite(tmp_path / "s.yaml", labelled, {"path": classifier, "kind": "judge"})
    assert main(["eval", str(suite), "--out", str(tmp_path / "judge"), "--no-progress"]) == 0
    assert "20 labelled pairs" in capsys.readouterr().out
    got = json.loads((tmp_path / "judge" / "meta_eval.json").read_text())
    assert got["judge"] == f"crossencoder:{classifier}" and got["n"] == 20
    assert main(["meta-eval", str(labelled), "--nli", f"classifier:{classifier}", "--out",
                 str(tmp_path / "meta"), "--no-progress"]) == 0
    want = json.loads((tmp_path / "meta" / "meta_eval.json").read_text())
    assert list(got["results"].values()) == list(want["results"].values())
    assert "roc_auc" in (tmp_path / "judge" / "table.txt").read_text()


def _citetrain(args: list[str], cwd: Path, module: str = "citetrain") -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


@pytest.mark.parametrize("module", ["citetrain", "citetrain.evaluation"])
def test_a_bad_model_path_is_one_line_and_exit_2(module, questions, tmp_path):
    suite = write_suite(tmp_path / "s.yaml", questions, small_model("no/such/ckpt"))
    args = ["eval", str(suite)] if module == "citetrain" else [str(suite)]
    got = _citetrain(args, tmp_path, module)
    assert got.returncode == 2
    missing = tmp_path / "no" / "such" / "ckpt"  # taken from the suite file's folder
    assert got.stderr == (f"citetrain eval: error: model.path: {missing} is not a folder (a "
                          "checkpoint: an adapter or a model folder)\n")
    assert not (tmp_path / "eval_results").exists()


@pytest.mark.parametrize("argv, message", [
    (["--model", "{classifier}", "--model-kind", "generator"],
     "is a (passage, statement) support classifier, not a generator"),
    (["--model", "{tmp}"], "holds no config.json or adapter_config.json"),
    (["--model", "{generator}", "--backend", "vllm"], "vllm is not installed"),
    (["--model", "{classifier}", "--batch-size", "0"],
     "--model: batch_size: Input should be greater than or equal to 1"),
    (["--max-new-tokens", "5"], "--max-new-tokens: needs --model CKPT or a suite with a model: key"),
])
def test_checkpoint_errors_are_one_line(argv, message, classifier, generator, questions,
                                       tmp_path, capsys):
    if "vllm" in argv:
        import importlib.util

        if importlib.util.find_spec("vllm") is not None:
            pytest.skip("vLLM is installed here")
    argv = [a.format(classifier=classifier, generator=generator, tmp=tmp_path) for a in argv]
    assert main(["eval", str(questions), *argv, "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("citetrain eval: error: ") and message in err
    assert not (tmp_path / "out").exists()  # refused before any work
