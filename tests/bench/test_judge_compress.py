"""bench/judge_compress.py (issue 14): the judge's own reading of the human pairs and of the built
pairs its students draw, one student per seed cut from the judge, and the students' gap to it."""
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import judge_campaign as jc  # noqa: E402
import judge_compress as jcomp  # noqa: E402


def test_students_start_from_the_judge_and_learn_its_file(tmp_path):
    judge, teacher = tmp_path / "judge", tmp_path / "out" / "teacher.jsonl"
    todo = jcomp.student_jobs(judge, teacher, [42, 1], 4000, jcomp.STUDENT)
    assert [j["name"] for j in todo] == ["small-s42", "small-s1"]
    assert all(j["built"] and j["after"] is None and j["row"] == "small" for j in todo)
    line = " ".join(jc.command(todo[1], tmp_path / "out", None, ["data.max_length=128"]))
    for want in (f"model.name_or_path={judge / 'final'}", f"data.teacher={teacher}",
                 "data.teacher_weight=1.0", "data.built_max=4000", "model.layers=[0,2,4,5]",
                 "model.intermediate_size=192", "train.seed=1", "data.max_length=128",
                 f"data.built=[{tmp_path / 'out' / 'small-s1' / 'pairs'}]"):
        assert want in line


def test_the_teacher_file_holds_every_human_pair_and_the_drawn_built_ones(tmp_path, monkeypatch):
    from citetrain.nli.base import NLIResult
    from citetrain.train.distill import pair_key, read_teacher_rows
    from citetrain.train.transfer import drawn_keys, transfer_pairs
    from tests.train.test_built_pairs import write_built

    human = write_built(tmp_path / "h", 12) / "dataset"  # 7 training pairs
    built = write_built(tmp_path / "b", 45)  # 40, of which each student draws 5
    judge = tmp_path / "judge"
    (judge / "final").mkdir(parents=True)
    (judge / "final" / "config.json").write_text("{}")
    loads = []

    class Fixed:
        def results(self, pairs):
            return [NLIResult(0.7, True, (0.7, 0.2, 0.1)) for _ in pairs]

    monkeypatch.setattr("citetrain.train.transfer._load",
                        lambda final, read="whole", dtype="auto": loads.append(dtype) or Fixed())
    teacher = tmp_path / "out" / "teacher.jsonl"
    teacher.parent.mkdir()
    jcomp.self_teacher(judge, teacher, human, built, [42, 1], 5, "bf16")
    rows = read_teacher_rows(teacher)
    want = {pair_key(p, h) for p, h in transfer_pairs(human)} | drawn_keys(built, 5, [42, 1])
    assert set(rows) == want
    assert all(probs == [0.1, 0.2, 0.7] and weight == 1.0 for probs, weight in rows.values())
    assert loads == ["bf16", "bf16"] and not teacher.with_suffix(".tmp").exists()
    monkeypatch.setattr("citetrain.train.transfer._load", lambda *a: pytest.fail("read again"))
    jcomp.self_teacher(judge, teacher, human, built, [42, 1], 5, "bf16")  # kept as it is


def test_gaps_are_the_students_mean_minus_the_judges():
    figs = {"judge": {"j": {"wice": {"model": 0.80}, "expertqa": {"model": 0.60}}},
            "student": {"a": {"wice": {"model": 0.79}, "expertqa": {"model": 0.62}},
                        "b": {"wice": {"model": 0.80}, "expertqa": {"model": 0.60}}}}
    assert jcomp.gaps(figs, "judge", "student") == pytest.approx({"wice": -0.005,
                                                                  "expertqa": 0.01})
