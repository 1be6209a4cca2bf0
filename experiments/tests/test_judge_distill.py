"""experiments/judge_distill.py (issue 14): the teachers (every fold of every seed, beside stage 1), the
students (the labels' baseline and one per teacher weight), and stage 2 started from a stage 1 that
an earlier call of the runner finished."""
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "experiments"))

import judge_campaign as jc  # noqa: E402
import judge_distill as jd  # noqa: E402
from experiments.tests.test_judge_campaign import fake_pairs  # noqa: E402


def test_teachers_are_every_fold_of_every_seed_beside_stage_one():
    todo = jd.teachers([42, 1], 3)
    names = [j["name"] for j in todo]
    assert names == ["built-s42", "built-s1", "teach-f0-s42", "teach-f1-s42", "teach-f2-s42",
                     "teach-f0-s1", "teach-f1-s1", "teach-f2-s1"]
    by = {j["name"]: j for j in todo}
    assert by["teach-f2-s1"]["sets"] == ["distill.folds=3", "distill.fold=2"]
    assert by["teach-f2-s1"]["recipe"] == jc.RECIPES["human"] and not by["teach-f2-s1"]["built"]
    assert by["built-s1"]["built"] and by["built-s1"]["after"] is None


def test_teacher_overrides_reach_the_fold_teachers_only():
    todo = {j["name"]: j for j in jd.teachers([7], 2, "clauses", extra=["crossencoder.card=false"])}
    assert todo["teach-f1-s7"]["sets"] == ["distill.folds=2", "distill.fold=1", "distill.fold_read=clauses",
                                           "crossencoder.card=false"]
    assert todo["built-s7"]["sets"] == []


def test_students_per_weight_from_their_seeds_stage_one(tmp_path):
    todo = {j["name"]: j for j in jd.students([7], [1.0, 0.25], tmp_path / "t.jsonl", True)}
    assert sorted(todo) == ["2stage-kd100-s7", "2stage-kd25-s7", "2stage-s7", "human-kd100-s7",
                            "human-kd25-s7"]
    assert todo["2stage-s7"]["sets"] == [] and todo["2stage-kd25-s7"]["after"] == "built-s7"
    assert todo["2stage-kd25-s7"]["sets"] == [f"distill.teacher={tmp_path / 't.jsonl'}",
                                              "distill.teacher_weight=0.25"]
    assert todo["human-kd25-s7"]["after"] is None
    line = " ".join(jc.command(todo["2stage-kd100-s7"], tmp_path, None, []))
    assert f"model.name_or_path={tmp_path / 'built-s7' / 'final'}" in line
    assert "distill.teacher_weight=1.0" in line


def test_a_stage_one_finished_by_an_earlier_call_starts_stage_two(tmp_path, monkeypatch):
    human, built = fake_pairs(tmp_path)
    out = tmp_path / "runs"
    (out / "built-s7").mkdir(parents=True)
    (out / "built-s7" / "train_summary.json").write_text("{}")

    def fake_command(job, out_, base, sets):
        run = out_ / job["name"]
        return [sys.executable, "-c", f"open({str(run / 'train_summary.json')!r}, 'w').write('{{}}')"]

    monkeypatch.setattr(jc, "command", fake_command)
    failed = jc.run_all(jd.students([7], [0.5], tmp_path / "t.jsonl", False), out, None, [], 2, 1,
                        human, built)
    assert failed == []
    assert json.loads((out / "2stage-kd50-s7" / "train_summary.json").read_text()) == {}


def test_student_overrides_reach_the_students_only_and_name_their_rows(tmp_path):
    teacher = tmp_path / "t.jsonl"
    todo = {j["name"]: j for j in jd.students([7], [0.5], teacher, True,
                                              extra=["crossencoder.num_layers=2"], name="l2")}
    assert sorted(todo) == ["2stage-kd50-l2-s7", "2stage-l2-s7", "human-kd50-l2-s7"]
    assert todo["2stage-l2-s7"]["sets"] == ["crossencoder.num_layers=2"]
    assert todo["2stage-l2-s7"]["row"] == "2stage-l2"
    assert todo["2stage-kd50-l2-s7"]["sets"] == [f"distill.teacher={teacher}",
                                                 "distill.teacher_weight=0.5", "crossencoder.num_layers=2"]
    assert todo["2stage-kd50-l2-s7"]["after"] == "built-s7"
    line = " ".join(jc.command(todo["human-kd50-l2-s7"], tmp_path, None, []))
    assert "crossencoder.num_layers=2" in line and "distill.teacher_weight=0.5" in line
    assert all("num_layers" not in " ".join(j["sets"]) for j in jd.teachers([7], 2))


def test_transfer_students_train_on_human_and_built_pairs_from_the_transfer_file(tmp_path):
    transfer = tmp_path / "teacher-transfer.jsonl"
    todo = {j["name"]: j for j in jd.students([7], [0.5], tmp_path / "t.jsonl", False,
                                              transfer=transfer, built_max=3000)}
    assert sorted(todo) == ["2stage-kd50-s7", "2stage-mixed-kd50-s7", "2stage-s7", "mixed-kd50-s7"]
    mixed = todo["mixed-kd50-s7"]
    assert mixed["recipe"] == jc.RECIPES["human"] and mixed["built"] and mixed["after"] is None
    assert mixed["sets"] == [f"distill.teacher={transfer}", "distill.teacher_weight=0.5",
                             "crossencoder.built_max=3000"]
    line = jc.command(mixed, tmp_path, None, [])
    assert f"crossencoder.built=[{tmp_path / 'mixed-kd50-s7' / 'pairs'}]" in line
    assert todo["2stage-kd50-s7"]["sets"][0] == f"distill.teacher={tmp_path / 't.jsonl'}"
    two = todo["2stage-mixed-kd50-s7"]  # built then human, the human stage with the transfer pairs
    assert two["recipe"] == jc.RECIPES["2stage"] and two["after"] == "built-s7" and two["built"]
    assert two["sets"] == mixed["sets"]
    line = jc.command(two, tmp_path, None, [])
    assert f"model.name_or_path={tmp_path / 'built-s7' / 'final'}" in line
    assert f"crossencoder.built=[{tmp_path / '2stage-mixed-kd50-s7' / 'pairs'}]" in line


def test_student_rows_keep_only_the_rows_asked_for(tmp_path):
    import pytest

    todo = jd.students([7, 8], [0.5], tmp_path / "t.jsonl", False,
                       transfer=tmp_path / "x.jsonl", built_max=10)
    assert jd.only_rows(todo, None) == todo
    kept = jd.only_rows(todo, "2stage-mixed-kd50, mixed-kd50")
    assert [j["name"] for j in kept] == ["mixed-kd50-s7", "mixed-kd50-s8",
                                         "2stage-mixed-kd50-s7", "2stage-mixed-kd50-s8"]
    with pytest.raises(SystemExit, match="no such row mixed-kd25 .*this call's students: 2stage, "):
        jd.only_rows(todo, "mixed-kd50,mixed-kd25")


def test_a_transfer_run_scores_the_build_with_every_fold_teacher_then_trains_students(
        tmp_path, monkeypatch, capsys):
    """``--transfer`` end to end with the runs faked: the merged teacher file gets the build's
    pairs read by all the fold teachers, and the mixed students are handed that file."""
    from citetrain.nli.base import NLIResult
    from tests.judge_training.test_built_pairs import write_built

    built = write_built(tmp_path / "built", 10)  # 5 train pairs, all distinct
    out = tmp_path / "runs"
    started = []

    def fake_run_all(todo, out_, base, sets, parallel, threads, human, built_, dest=None):
        for j in todo:
            started.append(j)
            run = out_ / j["name"]
            (run / "final").mkdir(parents=True, exist_ok=True)
            (run / "final" / "config.json").write_text("{}")
            if j["name"].startswith("teach-"):
                (run / "fold_scores.jsonl").write_text(json.dumps(
                    {"key": f"human-{j['name']}", "probs": [0.2, 0.3, 0.5]}) + "\n")
        return []

    class Fixed:
        def results(self, pairs):
            return [NLIResult(0.6, True, (0.6, 0.3, 0.1)) for _ in pairs]

    monkeypatch.setattr(jd, "prepare", lambda human: None)
    monkeypatch.setattr(jd, "run_all", fake_run_all)
    monkeypatch.setattr("citetrain.judge_training.card.load_judge",
                        lambda final, read="whole", dtype="auto": Fixed())
    monkeypatch.setattr("judge_seeds.print_table", lambda table: None)
    monkeypatch.setattr(sys, "argv", ["judge_distill.py", "--out", str(out), "--seeds", "7",
                                      "--folds", "2", "--weights", "0.5", "--transfer",
                                      "--built", str(built), "--built-max", "3",
                                      "--human", str(tmp_path / "h" / "dataset")])
    jd.main()
    said = capsys.readouterr().out
    assert "[distill] transfer: {'pairs': 5, 'teachers': 2, 'weight': 1.0, 'resumed': 0}" in said
    rows = [json.loads(x) for x in (out / "teacher-transfer.jsonl").read_text().splitlines()]
    assert [r.get("weight") for r in rows] == [None, None] + [1.0] * 5
    assert all(r["probs"] == [0.1, 0.3, 0.6] for r in rows[2:])  # (no, partial, full)
    assert not (out / "transfer.tmp").exists()
    mixed = next(j for j in started if j["name"] == "mixed-kd50-s7")
    assert f"distill.teacher={out / 'teacher-transfer.jsonl'}" in mixed["sets"]
    assert "crossencoder.built_max=3" in mixed["sets"] and mixed["built"]
    assert {j["name"] for j in started} >= {"2stage-mixed-kd50-s7", "built-s7", "teach-f1-s7"}
    # --transfer-drawn: a fresh call scores only the 3 built pairs seed 7's students draw
    from citetrain.judge_training.transfer import drawn_keys

    monkeypatch.setattr(sys, "argv", sys.argv[:2] + [str(tmp_path / "drawn")] + sys.argv[3:]
                        + ["--transfer-drawn"])
    jd.main()
    assert "[distill] transfer: {'pairs': 3, 'teachers': 2," in capsys.readouterr().out
    rows = [json.loads(x) for x in (tmp_path / "drawn" / "teacher-transfer.jsonl").read_text()
            .splitlines()]
    assert {r["key"] for r in rows[2:]} == drawn_keys(built, 3, [7])
