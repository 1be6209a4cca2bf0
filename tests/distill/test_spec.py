"""Distillation specs (:mod:`citetrain.distill.spec`): every problem at once, one line for one,
the shipped specs, and ``--dry-run`` printing the chain without running it."""
from __future__ import annotations

import pytest
import yaml

from citetrain.cli.main import main
from citetrain.config import ConfigError
from citetrain.distill.spec import load_spec, validate_spec
from tests.distill.conftest import write_spec

BASE = {"name": "t", "out": "o", "pairs": {"folder": "p"}, "teacher": {"folds": {}}}


def test_a_bad_key_is_one_error_naming_the_field(tmp_path, toy, capsys):
    with pytest.raises(ConfigError) as e:
        validate_spec({**BASE, "teacher": {"folds": {"sedes": [1]}}})
    assert e.value.errors == ["teacher.folds.sedes: unknown key; did you mean 'seeds'?"]
    spec = write_spec(tmp_path, toy, student={"teacher_wieght": 0.5})
    assert main(["distill", str(spec)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "student.teacher_wieght: unknown key; did you mean " \
        "'teacher_weight'?" in err and str(spec) in err


def test_the_rules_across_keys_are_reported_together():
    with pytest.raises(ConfigError) as e:
        validate_spec({**BASE, "pairs": {"folder": "p", "spec": "s"}, "parallel": 0,
                       "teacher": {"folds": {}, "nli": {"engine": "lexical"}},
                       "teach_back": {}, "student": {"set": ["nokey"]}})
    assert len(e.value.errors) == 1 and e.value.errors[0].startswith("parallel: ")  # schema first
    with pytest.raises(ConfigError) as e:
        validate_spec({**BASE, "pairs": {"folder": "p", "spec": "s"},
                       "teacher": {"folds": {}, "nli": {"engine": "lexical"}},
                       "teach_back": {}, "student": {"set": ["nokey"]}})
    assert e.value.errors == [
        "pairs: give exactly one of spec (a build spec of kind pairs) or folder (a finished build)",
        "teacher: give exactly one of folds, nli or llm (got folds, nli)",
        "teach_back teaches the pruned judge its student's reading: give prune too",
        "student.set: not KEY=VALUE: nokey"]
    assert validate_spec({**BASE, "parallel": "auto"}).teacher.kind() == "folds"


def test_the_shipped_specs_load_by_name(capsys):
    prod = load_spec("production-judge")
    assert prod.teacher.folds.folds == 4 and prod.teacher.folds.seeds == [42, 1, 2, 3]
    assert prod.teacher.folds.read == "clauses" and prod.student.teacher_weight == 0.5
    assert prod.student.built_max == 4000 and "data.max_length=128" in prod.set
    assert "train.bf16=true" in prod.set and prod.prune.widths == [768, 1024, 768, 1024, 384, 1536]
    assert prod.teach_back.epochs == 1 and prod.teach_back.learning_rate == 2e-5
    assert prod.export.runtime == "openvino" and prod.export.int8
    hub = load_spec("distill/nli-teacher", ["student.seed=1"])
    assert hub.teacher.nli.engine == "classifier:MoritzLaurer/DeBERTa-v3-base-mnli-fever-anli"
    assert hub.student.seed == 1
    assert main(["ls", "distill"]) == 0
    listed = capsys.readouterr().out
    assert "production-judge" in listed and "nli-teacher" in listed


def test_dry_run_prints_the_chain_and_runs_nothing(tmp_path, toy, capsys):
    spec = write_spec(tmp_path, toy, prune={"widths": 32}, teach_back={"epochs": 1},
                      export={"runtime": "onnx", "int8": False})
    assert main(["distill", str(spec), "--dry-run"]) == 0
    out = capsys.readouterr().out
    names = ["human", "teacher-f0-s42", "teacher-f1-s42", "teacher-file", "student", "prune",
             "teach-back-file", "teach-back", "export"]
    lines = [x for x in out.splitlines() if x[:3].strip().rstrip(".").isdigit()]
    assert [x.split(". ", 1)[1].split(" [")[0] for x in lines] == names
    assert all("[to run]" in x for x in lines)
    assert "-m citetrain.train" in out and "--set distill.folds=2 --set distill.fold=1" in out
    assert "--set distill.teacher_weight=0.5" in out and "crossencoder.built_max=20" in out
    assert f"citetrain prune {tmp_path / 'out' / 'student' / 'final'}" in out
    assert "teacher runs: 1 at a time" in out and "then judge with it: " in out
    assert not (tmp_path / "out").exists()
    data = yaml.safe_load(spec.read_text())
    data["pairs"] = {"folder": str(tmp_path / "nowhere")}
    spec.write_text(yaml.safe_dump(data))
    assert main(["distill", str(spec), "--dry-run"]) == 2
    assert "pairs.folder: " in capsys.readouterr().err
