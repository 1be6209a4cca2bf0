"""A teacher file begun (:func:`citetrain.judge_training.teachers.start_teacher`): fold teachers merged
with their missing folds named, or an empty compression teacher, and bad input refused before
anything is written."""
from __future__ import annotations

import pytest

from citetrain.errors import CitetrainError
from citetrain.judge_training.teacher_scores import read_teacher
from citetrain.judge_training.teachers import start_teacher
from tests.judge_training.test_built_pairs import write_built
from tests.judge_training.test_teacher_scores import _teacher_run
from tests.judge_training.test_transfer import _runs


def test_fold_teachers_are_merged_and_their_missing_folds_named(tmp_path):
    runs = [_teacher_run(tmp_path / f"f{k}", 42, 3, k) for k in (0, 2)]
    out = tmp_path / "teacher.jsonl"
    t = start_teacher(runs, out)
    assert t["merged"]["pairs"] == 2 and t["read"] == "whole"
    assert t["warnings"] == ["train.seed 42 (distill.folds 3, crossencoder.split_seed 0): no fold 1"]
    assert read_teacher(out) == {"k0": [0.2, 0.3, 0.5], "k2": [0.2, 0.3, 0.5]}


def test_runs_without_fold_scores_begin_an_empty_compression_teacher(tmp_path):
    runs, built = _runs(tmp_path, ["judge"]), write_built(tmp_path / "built", 6)
    out = tmp_path / "teacher.jsonl"
    assert start_teacher(runs, out, builds=[built]) == {"merged": None, "warnings": [],
                                                         "read": "whole"}
    assert out.read_text() == ""
    out.unlink()
    with pytest.raises(CitetrainError, match="is not a pairs build"):
        start_teacher(runs, out, builds=[tmp_path / "judge"])
    with pytest.raises(CitetrainError, match="no fold_scores"):  # no fold scores, no transfer
        start_teacher(runs, out)
    assert not out.exists()
    folded = _teacher_run(tmp_path / "f0", 1, 2, 0)  # fold scores but no saved model
    with pytest.raises(CitetrainError, match="no saved model"):
        start_teacher([folded], out, builds=[built])
    assert not out.exists()
    assert start_teacher([folded], out)["merged"]["pairs"] == 1
