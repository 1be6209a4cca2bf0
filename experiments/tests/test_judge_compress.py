"""experiments/judge_compress.py (issue 14): the judge's own reading of the human pairs and of the built
pairs its students draw, one student per seed cut from the judge, and the students' gap to it."""
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "experiments"))

import judge_campaign as jc  # noqa: E402
import judge_compress as jcomp  # noqa: E402


def test_students_start_from_the_judge_and_learn_its_file(tmp_path):
    judge, teacher = tmp_path / "judge", tmp_path / "out" / "teacher.jsonl"
    out = tmp_path / "out"
    todo = jcomp.student_jobs(judge, teacher, [42, 1], 4000, jcomp.STUDENT)
    assert [j["name"] for j in todo] == ["small-s42", "small-s1"]
    assert all(j["built"] and j["after"] is None and j["row"] == "small" for j in todo)
    line = " ".join(jc.command(todo[1], out, None, ["data.max_length=128"]))
    for want in (f"model.name_or_path={judge / 'final'}", f"distill.teacher={teacher}",
                 "distill.teacher_weight=1.0", "crossencoder.built_max=4000", "crossencoder.layers=[0,2,4,5]",
                 "crossencoder.intermediate_size=192", "train.seed=1", "data.max_length=128",
                 f"crossencoder.built=[{out / 'small-s1' / 'pairs'}]"):
        assert want in line


def test_students_from_a_pruned_copy_start_there_uncut(tmp_path):
    judge, teacher, out = tmp_path / "judge", tmp_path / "out" / "teacher.jsonl", tmp_path / "out"
    pruned = tmp_path / "ffn1024"
    todo = jcomp.student_jobs(judge, teacher, [2], 4000, [], start=pruned)
    args = jc.command(todo[0], out, None, [])
    sets = [args[i + 1] for i, a in enumerate(args) if a == "--set"]
    assert f"model.name_or_path={pruned}" in sets
    assert f"model.name_or_path={judge / 'final'}" not in sets
    assert f"distill.teacher={teacher}" in sets and "distill.teacher_weight=1.0" in sets
    assert not any(x.startswith(("crossencoder.layers", "crossencoder.intermediate_size")) for x in sets)


def test_start_must_be_a_model_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["judge_compress.py", "--judge", str(tmp_path / "j"),
                                      "--out", str(tmp_path / "o"), "--start", str(tmp_path)])
    monkeypatch.setattr(jcomp, "prepare", lambda human: pytest.fail("read the pairs"))
    with pytest.raises(SystemExit, match="--start .*not a model folder"):
        jcomp.main()
    assert not (tmp_path / "o").exists()  # nothing written before the check


def test_the_teacher_file_holds_every_human_pair_and_the_drawn_built_ones(tmp_path, monkeypatch):
    from citetrain.nli.base import NLIResult
    from citetrain.judge_training.teacher_scores import pair_key, read_teacher_rows
    from citetrain.judge_training.transfer import drawn_keys, transfer_pairs
    from tests.judge_training.test_built_pairs import write_built

    human = write_built(tmp_path / "h", 12) / "dataset"  # 7 training pairs
    built = write_built(tmp_path / "b", 45)  # 40, of which each student draws 5
    judge = tmp_path / "judge"
    (judge / "final").mkdir(parents=True)
    (judge / "final" / "config.json").write_text("{}")
    loads = []

    class Fixed:
        def results(self, pairs):
            return [NLIResult(0.7, True, (0.7, 0.2, 0.1)) for _ in pairs]

    monkeypatch.setattr("citetrain.judge_training.transfer._load",
                        lambda final, read="whole", dtype="auto": loads.append(dtype) or Fixed())
    teacher = tmp_path / "out" / "teacher.jsonl"
    teacher.parent.mkdir()
    jcomp.self_teacher(judge, teacher, human, built, [42, 1], 5, "bf16")
    rows = read_teacher_rows(teacher)
    want = {pair_key(p, h) for p, h in transfer_pairs(human)} | drawn_keys(built, 5, [42, 1])
    assert set(rows) == want
    assert all(probs == [0.1, 0.2, 0.7] and weight == 1.0 for probs, weight in rows.values())
    assert loads == ["bf16", "bf16"] and not teacher.with_suffix(".tmp").exists()
    monkeypatch.setattr("citetrain.judge_training.transfer._load", lambda *a: pytest.fail("read again"))
    jcomp.self_teacher(judge, teacher, human, built, [42, 1], 5, "bf16")  # kept as it is


def _fixed_judge(tmp_path, monkeypatch):
    from citetrain.nli.base import NLIResult

    judge = tmp_path / "judge"
    (judge / "final").mkdir(parents=True)
    (judge / "final" / "config.json").write_text("{}")
    read: list[int] = []

    class Fixed:
        def results(self, pairs):
            read.append(len(pairs))
            return [NLIResult(0.7, True, (0.7, 0.2, 0.1)) for _ in pairs]

    monkeypatch.setattr("citetrain.judge_training.transfer._load", lambda *a, **k: Fixed())
    return judge, read


def test_a_killed_teacher_file_resumes_without_reading_again(tmp_path, monkeypatch):
    from citetrain.judge_training.teacher_scores import read_teacher_rows
    from citetrain.judge_training.teachers import start_teacher
    from citetrain.judge_training.transfer import add_transfers
    from tests.judge_training.test_built_pairs import write_built

    human = write_built(tmp_path / "h", 12) / "dataset"
    built = write_built(tmp_path / "b", 45)
    judge, read = _fixed_judge(tmp_path, monkeypatch)
    teacher = tmp_path / "out" / "teacher.jsonl"
    teacher.parent.mkdir()
    part = teacher.with_suffix(".tmp")  # killed after the human pairs were read
    start_teacher([judge], part, builds=[human, built])
    add_transfers(part, [judge], [human], dtype="bf16")
    assert read == [7]
    jcomp.self_teacher(judge, teacher, human, built, [42, 1], 5, "bf16")
    assert read[1:] and sum(read[1:]) <= 10  # the drawn built pairs alone
    assert len(read_teacher_rows(teacher)) == 7 + sum(read[1:])


def test_follows_is_the_mean_correlation_and_difference_per_source(tmp_path):
    import json

    def run(name, scores):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "heldout_scores.jsonl").write_text("".join(
            json.dumps({"source": s, "group": f"g{i}", "label": i % 2, "model": x}) + "\n"
            for i, (s, x) in enumerate(scores)))
        return folder

    judge = run("j", [("a", 0.1), ("a", 0.5), ("a", 0.9), ("b", 0.2), ("b", 0.4)])
    same = run("s1", [("a", 0.2), ("a", 0.6), ("a", 1.0), ("b", 0.4), ("b", 0.2)])
    got = jcomp.follows(judge, [same])
    assert got["a"] == pytest.approx((1.0, 0.1)) and got["b"] == pytest.approx((-1.0, 0.2))
    other = run("s2", [("a", 0.1), ("a", 0.5), ("a", 0.9), ("b", 0.2), ("b", 0.4)])
    got = jcomp.follows(judge, [same, other])
    assert got["a"] == pytest.approx((1.0, 0.05)) and got["b"] == pytest.approx((0.0, 0.1))
    moved = run("s3", [("a", 0.1), ("b", 0.5), ("a", 0.9), ("b", 0.2), ("b", 0.4)])
    with pytest.raises(SystemExit, match="different held-out pairs"):
        jcomp.follows(judge, [moved])


def test_gaps_are_the_students_mean_minus_the_judges():
    figs = {"judge": {"j": {"wice": {"model": 0.80}, "expertqa": {"model": 0.60}}},
            "student": {"a": {"wice": {"model": 0.79}, "expertqa": {"model": 0.62}},
                        "b": {"wice": {"model": 0.80}, "expertqa": {"model": 0.60}}}}
    assert jcomp.gaps(figs, "judge", "student") == pytest.approx({"wice": -0.005,
                                                                  "expertqa": 0.01})
