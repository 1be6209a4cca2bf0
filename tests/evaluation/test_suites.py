"""The suite key `model:`: validated like every suite key (unknown keys refused, every error at
once), its path taken from the suite file's folder, and the command line's options over it."""
from __future__ import annotations

import argparse

import pytest
import yaml

from citetrain.config import ConfigError
from citetrain.errors import CitetrainError
from citetrain.cli.eval_args import add_arguments
from citetrain.evaluation.inputs import load_target
from citetrain.metrics.suites import load_suite

from .conftest import REPO


def _suite(tmp_path, model, **extra):
    path = tmp_path / "sub" / "s.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(yaml.safe_dump({"name": "s", "data": [{"path": "q.jsonl"}], "model": model,
                                    **extra}))
    return path


def test_model_defaults_and_relative_path(tmp_path):
    suite = load_suite(_suite(tmp_path, {"path": "../runs/final"}))
    m = suite.model
    assert m.path == str((tmp_path / "runs" / "final").resolve())
    assert (m.kind, m.max_new_tokens, m.batch_size, m.max_length, m.max_doc_words, m.chunk,
            m.backend) == ("auto", 128, 8, None, None, 64, "transformers")
    assert suite.data[0].path == str((tmp_path / "sub" / "q.jsonl").resolve())


def test_every_model_error_at_once(tmp_path):
    path = _suite(tmp_path, {"path": "x", "kind": "generater", "batch_sze": 2, "chunk": 0,
                             "backend": "tgi"})
    with pytest.raises(ConfigError) as e:
        load_suite(path)
    text = str(e.value)
    assert "4 errors" in text
    assert "model.batch_sze: unknown key; did you mean 'batch_size'?" in text
    assert "model.kind: Input should be 'auto', 'generator', 'refiner' or 'judge'" in text
    assert "model.chunk: Input should be greater than or equal to 1" in text
    assert "model.backend:" in text


@pytest.mark.parametrize("model, message", [
    ({"kind": "generator"}, "path: give the checkpoint folder"),
    ({"path": "x", "judge": "crossencoder"}, "judge: given with kind auto; set kind: judge"),
    ({"kind": "judge", "judge": "crossencoder"}, "path: give the checkpoint folder"),
])
def test_model_needs_a_path_and_a_judge_kind(tmp_path, model, message):
    with pytest.raises(ConfigError, match=message):
        load_suite(_suite(tmp_path, model))


def test_a_judge_may_be_named_in_full(tmp_path):
    suite = load_suite(_suite(tmp_path, {"kind": "judge", "judge": "nli:lexical"}))
    assert suite.model.path is None and suite.model.judge == "nli:lexical"


def _args(*argv):
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(list(argv))


def test_command_line_options_override_the_suite(tmp_path):
    path = _suite(tmp_path, {"path": "ckpt", "max_new_tokens": 64, "chunk": 16})
    suite = load_target(_args(str(path), "--max-new-tokens", "9", "--set", "model.batch_size=3"))
    assert (suite.model.max_new_tokens, suite.model.chunk, suite.model.batch_size) == (9, 16, 3)
    assert suite.model.path == str((tmp_path / "sub" / "ckpt").resolve())
    suite = load_target(_args(str(path), "--model", "other"))
    assert suite.model.path == "other" and suite.model.max_new_tokens == 64
    plain = load_target(_args(str(tmp_path / "q.jsonl"), "--model", "m", "--model-kind", "refiner",
                              "--chunk", "5"))
    assert (plain.model.path, plain.model.kind, plain.model.chunk) == ("m", "refiner", 5)
    assert load_target(_args(str(tmp_path / "q.jsonl"))).model is None
    with pytest.raises(CitetrainError, match="--chunk: needs --model"):
        load_target(_args(str(tmp_path / "q.jsonl"), "--chunk", "5"))


def test_the_shipped_checkpoint_suite_validates():
    suite = load_suite(REPO / "eval" / "generator-checkpoint.yaml")
    assert suite.model.path == str((REPO / "runs" / "generator-qwen7b" / "final").resolve())
    assert suite.model.max_doc_words == 200 and suite.metrics == ["alce", "lenient", "aliice"]


def test_a_bare_name_is_the_shipped_suite_unless_a_file_has_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    suite = load_target(_args("example"))
    assert suite.name == load_suite(REPO / "eval" / "example.yaml").name
    (tmp_path / "example").write_text("")  # a file of that name wins: a predictions file
    assert load_target(_args("example")).data[0].path == "example"
