"""Transfer pairs for distillation (:mod:`citetrain.judge_training.transfer`): a pairs build's train split
scored by every teacher and appended to the teacher file with its own weight; end to end, a student
that trains on human and built pairs reads both from the file."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIResult
from citetrain.judge_training.teacher_scores import pair_key, read_teacher, read_teacher_rows
from citetrain.train.recipe import validate_recipe
from citetrain.judge_training.transfer import add_transfer, average_scores, teacher_finals, transfer_pairs
from tests.judge_training.test_built_pairs import write_built
from tests.judge_training.test_trainer import recipe_data, wice_oracle_rows, write_jsonl


class Fixed:
    """A judge that gives every pair the same support (full, partial, no)."""

    def __init__(self, support):
        self.support = support

    def results(self, pairs):
        return [NLIResult(prob=self.support[0] if self.support else 0.5, label=False,
                          support=self.support) for _ in pairs]


def _runs(tmp_path: Path, names: list[str]) -> list[Path]:
    out = []
    for n in names:
        (tmp_path / n / "final").mkdir(parents=True)
        (tmp_path / n / "final" / "config.json").write_text("{}")
        out.append(tmp_path / n)
    return out


def test_transfer_pairs_are_averaged_over_teachers_and_appended_with_their_weight(tmp_path):
    built = write_built(tmp_path / "built", 12)  # 7 train pairs
    pairs = transfer_pairs(built)
    assert len(pairs) == 7 and pairs == transfer_pairs(built / "dataset")
    teacher = tmp_path / "teacher.jsonl"
    human = json.dumps({"key": "human-1", "probs": [0.1, 0.2, 0.7], "teachers": 3})
    known = json.dumps({"key": pair_key(*pairs[0]), "probs": [0.3, 0.3, 0.4], "teachers": 3})
    teacher.write_text(human + "\n" + known + "\n")
    runs = _runs(tmp_path, ["t0", "t1"])
    by_run = {runs[0] / "final": Fixed((0.6, 0.3, 0.1)), runs[1] / "final": Fixed((0.2, 0.1, 0.7))}
    info = add_transfer(teacher, runs, built, 0.75, engine=by_run.__getitem__)
    assert info == {"pairs": 6, "teachers": 2, "weight": 0.75, "resumed": 0}  # the known pair is kept
    assert list(tmp_path.glob("*.partial.jsonl")) == []
    lines = teacher.read_text().splitlines()
    assert lines[:2] == [human, known]
    rows = read_teacher_rows(teacher)
    # levels are (no, partial, full): ((0.1 + 0.7) / 2, (0.3 + 0.1) / 2, (0.6 + 0.2) / 2)
    for p, h in pairs[1:]:
        probs, weight = rows[pair_key(p, h)]
        assert probs == pytest.approx([0.4, 0.2, 0.4]) and weight == 0.75
    assert rows[pair_key(*pairs[0])] == ([0.3, 0.3, 0.4], None)
    with pytest.raises(CitetrainError, match="no pairs of .* that .* lacks"):
        add_transfer(teacher, runs, built, engine=by_run.__getitem__)
    before = teacher.read_text()  # a resumed chain of builds: nothing to add, nothing changed
    assert add_transfer(teacher, runs, built, engine=by_run.__getitem__, missing_ok=True) == {
        "pairs": 0, "teachers": 2, "weight": 1.0, "resumed": 0}
    assert teacher.read_text() == before


class Counting:
    """A judge whose support of a pair is a function of its hypothesis; it counts the pairs it
    reads and fails once it has read ``fail_after`` of them."""

    def __init__(self, fail_after: int | None = None):
        self.read, self.fail_after = 0, fail_after

    def results(self, pairs):
        if self.fail_after is not None and self.read + len(pairs) > self.fail_after:
            raise KeyboardInterrupt
        self.read += len(pairs)
        out = []
        for _, h in pairs:
            full = (len(h) % 7) / 10
            out.append(NLIResult(prob=full, label=False, support=(full, 0.2, 0.8 - full)))
        return out


def test_a_killed_scoring_resumes_from_its_finished_chunks(tmp_path):
    built = write_built(tmp_path / "built", 12)  # 7 distinct train pairs
    human = json.dumps({"key": "human-1", "probs": [0.1, 0.2, 0.7], "teachers": 3}) + "\n"
    runs = _runs(tmp_path, ["t0", "t1"])
    whole = tmp_path / "whole.jsonl"
    whole.write_text(human)
    add_transfer(whole, runs, built, engine=lambda _: Counting(), chunk=3, progress=False)

    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text(human)
    judges = {runs[0] / "final": Counting(), runs[1] / "final": Counting(fail_after=4)}
    with pytest.raises(KeyboardInterrupt):  # the second teacher dies in the second chunk
        add_transfer(teacher, runs, built, engine=judges.__getitem__, chunk=3, progress=False)
    assert teacher.read_text() == human  # nothing appended yet
    partial = tmp_path / "teacher.rank-0.partial.jsonl"
    assert [json.loads(x)["chunk"] for x in partial.read_text().splitlines()[1:]] == [0]
    # another chunk size (or weight, build, teachers) is another run: refused, not mixed in
    with pytest.raises(CitetrainError, match="a partial run of another input, checkpoint or setting"):
        add_transfer(teacher, runs, built, engine=judges.__getitem__, chunk=2, progress=False)
    # teachers reading clause by clause are other teachers: the whole-statement chunk is not theirs
    with pytest.raises(CitetrainError, match="a partial run of another input, checkpoint or setting"):
        add_transfer(teacher, runs, built, engine=judges.__getitem__, chunk=3, progress=False,
                     read="clauses")
    # nor are teachers whose weights are another dtype
    with pytest.raises(CitetrainError, match="a partial run of another input, checkpoint or setting"):
        add_transfer(teacher, runs, built, engine=judges.__getitem__, chunk=3, progress=False,
                     dtype="bf16")
    again = {runs[0] / "final": Counting(), runs[1] / "final": Counting()}
    info = add_transfer(teacher, runs, built, engine=again.__getitem__, chunk=3, progress=False)
    assert info["pairs"] == 7 and info["resumed"] == 3
    assert [j.read for j in again.values()] == [4, 4]  # chunks 1 and 2 only
    assert teacher.read_text() == whole.read_text() and not partial.exists()


def test_limit_and_errors(tmp_path):
    built = write_built(tmp_path / "built", 12)
    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text(json.dumps({"key": "h", "probs": [0.0, 0.0, 1.0]}) + "\n")
    runs = _runs(tmp_path, ["t0"])
    info = add_transfer(teacher, runs, built, limit=3, engine=lambda _: Fixed((1.0, 0.0, 0.0)))
    assert info["pairs"] == 3 and len(read_teacher(teacher)) == 4
    with pytest.raises(CitetrainError, match="two-way judge"):
        average_scores(teacher_finals(runs), transfer_pairs(built), lambda _: Fixed(None))
    with pytest.raises(CitetrainError, match=r"nope: no saved model"):
        teacher_finals([tmp_path / "nope"])
    with pytest.raises(CitetrainError, match="is not a pairs build"):
        transfer_pairs(tmp_path / "t0")
    with pytest.raises(CitetrainError, match="no 'test' split"):
        transfer_pairs(built, "test")
    with pytest.raises(CitetrainError, match=r"--transfer-weight 2.0 is outside \[0, 1\]"):
        add_transfer(teacher, runs, built, 2.0)
    # a run named by its fold_scores.jsonl is the run
    (runs[0] / "fold_scores.jsonl").write_text("")
    assert teacher_finals([runs[0] / "fold_scores.jsonl"]) == [runs[0] / "final"]


def test_only_the_pairs_the_students_draw_are_scored(tmp_path):
    from citetrain.judge_training.pairs import training_pairs
    from citetrain.judge_training.transfer import drawn_keys

    built = write_built(tmp_path / "built", 25)  # 20 train pairs
    drawn = drawn_keys(built, 6, [42, 1])
    for seed in (42, 1):  # each seed's sample, as a student of that seed reads it
        rows = training_pairs(None, [str(built)], 6, False, seed)
        assert len(rows) == 6
        assert {pair_key(p, h) for p, h in zip(rows["premise"], rows["hypothesis"])} <= drawn
    assert 6 < len(drawn) <= 12  # two different samples of 6 of 20
    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text(json.dumps({"key": "h", "probs": [0.0, 0.0, 1.0]}) + "\n")
    info = add_transfer(teacher, _runs(tmp_path, ["t0"]), built, only=drawn,
                        engine=lambda _: Fixed((1.0, 0.0, 0.0)), progress=False)
    assert info["pairs"] == len(drawn)
    assert set(read_teacher(teacher)) == drawn | {"h"}


def test_a_student_reads_human_and_transfer_pairs_from_one_file(tiny_bert, tmp_path, capsys):
    """A fold teacher, its merged file with the build's pairs added (``citetrain teacher
    --transfer``), and a student on human + built pairs that reads both."""
    from citetrain.cli.main import main
    from citetrain.runner import run_recipe as train

    wice = write_jsonl(tmp_path / "wice.jsonl", wice_oracle_rows(30))
    built = write_built(tmp_path / "built", 25)  # 20 train pairs, 12 of them distinct
    data = recipe_data(tiny_bert, [f"wice_oracle:{wice}"], tmp_path / "t0", max_steps=2)
    data["distill"] = {"folds": 2, "fold": 0}
    data["data"]["dataset"] = str(tmp_path / "pairs" / "dataset")
    train(validate_recipe(data))
    teacher = tmp_path / "teacher.jsonl"
    run = tmp_path / "t0" / "run"
    assert main(["teacher", str(run), "--out", str(teacher), "--transfer", str(built),
                 "--transfer-weight", "0.9"]) == 0
    said = capsys.readouterr().out
    assert f"transfer: 12 pairs of {built} read by 1 teachers, weight 0.9 -> {teacher}" in said
    rows = read_teacher_rows(teacher)
    folds = [k for k, (_, w) in rows.items() if w is None]
    assert len(rows) == len(folds) + 12 and folds
    assert all(sum(p) == pytest.approx(1.0, abs=1e-5) for p, _ in rows.values())

    student = recipe_data(tiny_bert, [f"wice_oracle:{wice}"], tmp_path / "s", max_steps=2)
    student["distill"] = {"teacher": str(teacher), "teacher_weight": 0.5}
    student["crossencoder"]["built"] = [str(built)]
    student["data"]["dataset"] = str(tmp_path / "pairs" / "dataset")
    summary = train(validate_recipe(student))
    # all 20 built train pairs and the human pairs of the teacher's fold read the teacher
    assert summary["teacher"]["pairs"] == len(folds) + 20
    assert summary["teacher"]["transfer_pairs"] == 20
    card = (Path(summary["final"]) / "README.md").read_text()
    assert "; 20 of them transfer pairs, read with the file's own weight." in card
    assert "20 of them transfer pairs with their own weight" in capsys.readouterr().out
    assert summary["train_pairs"] > summary["teacher"]["pairs"]  # the other fold: labels
    assert all(math.isfinite(x) for x in summary["losses"])


def test_a_judge_compressed_into_a_narrower_student(tiny_bert, tmp_path, capsys, monkeypatch):
    """``citetrain teacher RUN --transfer ...`` on a run without fold scores: the run's own model
    reads the human training pairs and the build's pairs (a compression teacher), and a student
    pruned to fewer feed-forward units (``crossencoder.intermediate_size``) trains on all of them."""
    from transformers import AutoConfig

    from citetrain.cli.main import main
    from citetrain.runner import run_recipe as train

    wice = write_jsonl(tmp_path / "wice.jsonl", wice_oracle_rows(30))
    built = write_built(tmp_path / "built", 25)  # 20 train pairs, 12 of them distinct
    human = tmp_path / "pairs" / "dataset"
    data = recipe_data(tiny_bert, [f"wice_oracle:{wice}"], tmp_path / "j", max_steps=2)
    data["data"]["dataset"] = str(human)
    train(validate_recipe(data))
    run, teacher = tmp_path / "j" / "run", tmp_path / "teacher.jsonl"
    assert main(["teacher", str(run), "--out", str(teacher)]) == 2  # no fold scores, no transfer
    assert not teacher.exists()
    capsys.readouterr()
    import citetrain.judge_training.transfer as transfer

    loads, load = [], transfer._load
    monkeypatch.setattr(transfer, "_load", lambda *a: loads.append(a[0]) or load(*a))
    assert main(["teacher", str(run), "--out", str(teacher), "--transfer", str(human),
                 "--transfer", str(built)]) == 0
    assert loads == [run / "final"]  # one load serves both builds
    said = capsys.readouterr().out
    assert "1 runs without fold scores: their models read the transfer pairs alone" in said
    distinct = len(set(transfer_pairs(human)))
    assert f"transfer: {distinct} pairs of {human} read by 1 teachers" in said
    rows = read_teacher_rows(teacher)
    assert len(rows) == distinct + 12 and all(w == 1.0 for _, w in rows.values())
    drawn = tmp_path / "drawn.jsonl"  # only the 5 built pairs a seed-3 student draws
    assert main(["teacher", str(run), "--out", str(drawn), "--transfer", str(built),
                 "--drawn", "3"]) == 2
    assert "--drawn and --built-max go together" in capsys.readouterr().err
    assert main(["teacher", str(run), "--out", str(drawn), "--transfer", str(built),
                 "--drawn", "3", "--built-max", "5"]) == 0
    assert f"transfer: 5 pairs of {built} read by 1 teachers" in capsys.readouterr().out
    assert set(read_teacher_rows(drawn)) == transfer.drawn_keys(built, 5, [3])

    student = recipe_data(tiny_bert, [f"wice_oracle:{wice}"], tmp_path / "s", max_steps=2)
    student["crossencoder"].update(intermediate_size=24, built=[str(built)])  # 24 of 64 units
    student["distill"] = {"teacher": str(teacher), "teacher_weight": 0.5}
    student["data"]["dataset"] = str(human)
    summary = train(validate_recipe(student))
    assert "kept 24 of 64 feed-forward units per layer" in (said := capsys.readouterr().out)
    assert "warning: distill.teacher_weight 0.5 applies to no pair: every pair" in said
    assert summary["teacher"]["pairs"] == summary["train_pairs"]  # every pair read the teacher
    assert AutoConfig.from_pretrained(summary["final"]).intermediate_size == 24
    from citetrain.judge_training.card import load_judge

    assert load_judge(summary["final"]).results([("a page", "a claim")])[0].support is not None
    lora = {**student, "method": "lora", "lora": {"enabled": True}}
    with pytest.raises(CitetrainError, match="crossencoder.intermediate_size prunes the model"):
        validate_recipe(lora)
