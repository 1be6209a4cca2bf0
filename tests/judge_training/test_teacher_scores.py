"""Distillation of cross-encoder judges (:mod:`citetrain.judge_training.teacher_scores`): folds of whole claims,
teacher runs that score the fold they left out, the merged teacher file, and a student trained
on it, end to end on a tiny BERT (its targets and loss: tests/judge_training/test_targets.py)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from citetrain.config import ConfigError
from citetrain.errors import CitetrainError
from citetrain.judge_training.teacher_scores import (claim_keys, fold_of, fold_split, merge_teachers, missing_folds,
                                     read_teacher)
from citetrain.train.recipe import validate_recipe
from tests.judge_training.test_trainer import recipe_data, wice_oracle_rows, write_jsonl


def _rows(groups: list[str]):
    import datasets

    return datasets.Dataset.from_dict({
        "premise": [f"p {g} {i}" for i, g in enumerate(groups)],
        "hypothesis": [f"h {g}" for g in groups], "label": [i % 3 for i in range(len(groups))],
        "group": groups, "source": ["x:y"] * len(groups)})


def test_folds_cut_whole_claims_and_cover_every_pair_once():
    groups = [f"c{i // 3}" for i in range(300)]  # 100 claims of 3 pairs
    data = _rows(groups)
    seen = []
    for k in range(4):
        train, held = fold_split(data, 4, k, seed=0)
        assert len(train) + len(held) == 300
        assert not set(train["group"]) & set(held["group"])  # a claim is on one side
        assert {fold_of(g, 4, 0) for g in held["group"]} == {k}
        seen += list(held["premise"])
    assert sorted(seen) == sorted(data["premise"])  # every pair held out by exactly one fold
    assert {fold_of(g, 4, 0) for g in groups} == {0, 1, 2, 3}
    assert [fold_of(g, 4, 1) for g in groups] != [fold_of(g, 4, 0) for g in groups]  # seeded


def test_a_statement_under_two_ids_is_one_claim_in_one_fold():
    # b repeats a's statement (case and spaces aside); c shares b's id; d stands alone
    keys = claim_keys(["a", "b", "b", "c", "d"],
                      ["The sky is blue.", "the  sky is blue.", "Grass is green.", "x", "y"])
    assert keys == ["a", "a", "a", "c", "d"]
    chain = claim_keys(["b", "a", "b"], ["s1", "s1", "s2"])  # b - s1 - a: the smallest id keys it
    assert chain == ["a", "a", "a"]
    import datasets

    data = datasets.Dataset.from_dict({
        "premise": [f"p{i}" for i in range(40)], "label": [0] * 40, "source": ["x:y"] * 40,
        "group": [f"g{i}" for i in range(40)],
        "hypothesis": [f"claim {i // 2}" for i in range(40)]})  # pairs of ids share a statement
    for k in range(3):
        _, held = fold_split(data, 3, k, seed=0)
        texts = list(held["hypothesis"])
        assert all(texts.count(t) == 2 for t in texts)  # both copies held out together


def test_a_fold_that_leaves_nothing_is_a_clear_error():
    one_claim = _rows(["only"] * 4)
    k = fold_of("only", 2, 0)
    with pytest.raises(CitetrainError, match=f"distill.fold={k} of distill.folds=2 leaves no training"):
        fold_split(one_claim, 2, k, seed=0)
    with pytest.raises(CitetrainError, match="leaves no held-out pair"):
        fold_split(one_claim, 2, 1 - k, seed=0)


def test_merge_averages_each_pair_over_teachers(tmp_path):
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text(json.dumps({"key": "k1", "probs": [0.2, 0.2, 0.6]}) + "\n"
                 + json.dumps({"key": "k2", "probs": [1.0, 0.0, 0.0]}) + "\n")
    b.write_text(json.dumps({"key": "k1", "probs": [0.6, 0.2, 0.2]}) + "\n\n"
                 + json.dumps({"key": "k1", "probs": [0.6, 0.2, 0.2]}) + "\n")  # read twice
    out = tmp_path / "teacher.jsonl"
    info = merge_teachers([a, b], out)
    assert info == {"pairs": 2, "files": 2, "teachers_per_pair": [1, 2]}
    got = read_teacher(out)
    assert got["k1"] == pytest.approx([0.4, 0.2, 0.4]) and got["k2"] == [1.0, 0.0, 0.0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"key": "k1", "probs": [0.5, 0.5]}) + "\n")
    with pytest.raises(CitetrainError, match=r"bad.jsonl:1: probs has 2 values"):
        merge_teachers([bad], out)
    bad.write_text("{\"key\": 1}\n")
    with pytest.raises(CitetrainError, match=r"bad.jsonl:1: not a fold-score line"):
        merge_teachers([bad], out)


def _teacher_run(folder: Path, seed: int, folds: int, fold: int, split_seed: int = 0) -> Path:
    folder.mkdir(parents=True)
    recipe = {"distill": {"folds": folds, "fold": fold},
              "crossencoder": {"split_seed": split_seed}, "train": {"seed": seed}}
    (folder / "citetrain_run.json").write_text(json.dumps({"recipe": recipe, "world_size": 1}))
    (folder / "fold_scores.jsonl").write_text(
        json.dumps({"key": f"k{fold}", "probs": [0.2, 0.3, 0.5]}) + "\n")
    return folder


def test_missing_folds_are_named_per_seed_and_split(tmp_path, capsys):
    from citetrain.cli.main import main

    runs = [_teacher_run(tmp_path / f"f{k}-s42", 42, 4, k) for k in range(4)]  # seed 42: complete
    runs += [_teacher_run(tmp_path / f"f{k}-s1", 1, 4, k) for k in (0, 2)]     # seed 1: 1 and 3 gone
    runs += [_teacher_run(tmp_path / "f0-s2-split7", 2, 2, 0, split_seed=7)]   # another split
    assert missing_folds(runs[:4]) == []
    assert missing_folds(runs) == [
        "train.seed 1 (distill.folds 4, crossencoder.split_seed 0): no fold 1, 3",
        "train.seed 2 (distill.folds 2, crossencoder.split_seed 7): no fold 1"]
    assert missing_folds([r / "fold_scores.jsonl" for r in runs]) == []  # files: not checked
    assert main(["teacher", *map(str, runs[4:6]), "--out", str(tmp_path / "t.jsonl")]) == 0
    err = capsys.readouterr().err
    assert ("teacher: warning: train.seed 1 (distill.folds 4, crossencoder.split_seed 0): no fold "
            "1, 3") in err
    assert main(["teacher", *map(str, runs[:4]), "--out", str(tmp_path / "t.jsonl")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_distillation_recipe_rules(tmp_path):
    base = recipe_data(tmp_path, ["wice_oracle:x.jsonl"], tmp_path)

    def errors(**distill) -> str:
        try:
            validate_recipe({**base, "distill": distill})
        except ConfigError as e:
            return str(e)
        return ""

    assert "distill.folds and distill.fold go together" in errors(folds=4)
    assert "distill.fold: 4 is not below distill.folds (4)" in errors(folds=4, fold=4)
    assert "distill.teacher: nope.jsonl not found" in errors(teacher="nope.jsonl")
    teacher = tmp_path / "t.jsonl"
    teacher.write_text("")
    assert "choose one" in errors(teacher=str(teacher), folds=3, fold=0)


def test_teachers_score_their_fold_and_a_student_trains_on_them(tiny_bert, tmp_path, capsys):
    from datasets import load_from_disk

    from citetrain.runner import run_recipe as train

    wice = write_jsonl(tmp_path / "wice.jsonl", wice_oracle_rows(40))
    files = []
    for k in range(2):
        data = recipe_data(tiny_bert, [f"wice_oracle:{wice}"], tmp_path / f"t{k}", max_steps=2)
        data["distill"] = {"folds": 2, "fold": k, "fold_read": "clauses"}
        data["data"]["dataset"] = str(tmp_path / "pairs" / "dataset")
        summary = train(validate_recipe(data))
        rows = [json.loads(x) for x in (tmp_path / f"t{k}" / "run" / "fold_scores.jsonl")
                .read_text().splitlines()]
        assert summary["fold"] == {"fold": k, "folds": 2, "pairs": len(rows), "read": "clauses"}
        assert {r["read"] for r in rows} == {"clauses"}
        assert f"Fold {k} of 2 of the training claims left out" in (
            Path(summary["final"]) / "README.md").read_text()
        assert {fold_of(r["group"], 2, 0) for r in rows} == {k}
        assert all(sum(r["probs"]) == pytest.approx(1.0, abs=1e-5) for r in rows)
        assert all(r["source"] == "wice_oracle" for r in rows)
        assert all(set(r) == {"key", "group", "source", "probs", "read"} for r in rows)
        total = len(load_from_disk(str(tmp_path / "pairs" / "dataset"))["train"])
        assert summary["train_pairs"] + len(rows) == total  # the fold is out of training
        files.append(tmp_path / f"t{k}" / "run")
    _fold_read_clause_by_clause(files[0] / "final", tmp_path)
    teacher = tmp_path / "teacher.jsonl"
    from citetrain.cli.main import main

    assert main(["teacher", *map(str, files), "--out", str(teacher)]) == 0
    said = capsys.readouterr().out
    merged = read_teacher(teacher)
    info = {"pairs": len(merged)}
    # one seed: each pair scored by the one teacher whose fold held it out
    assert (f"teacher: {len(merged)} pairs from 2 runs (teachers per pair: 1; read clause by "
            "clause)") in said

    student = recipe_data(tiny_bert, [f"wice_oracle:{wice}"], tmp_path / "s", max_steps=2)
    student["distill"] = {"teacher": str(teacher), "teacher_weight": 0.5}
    student["data"]["dataset"] = str(tmp_path / "pairs" / "dataset")
    summary = train(validate_recipe(student))
    from citetrain.io.readers import sha256_file

    assert summary["teacher"] == {"file": str(teacher), "pairs": info["pairs"], "weight": 0.5,
                                  "sha256": sha256_file(teacher)}
    card = (Path(summary["final"]) / "README.md").read_text()
    assert f"## Distilled (`distill.teacher`)\n\n{info['pairs']} training pairs read 0.5·teacher" in card
    assert str(teacher) in card and sha256_file(teacher) in card
    assert summary["train_pairs"] == info["pairs"]  # every training pair was out of some fold
    assert all(math.isfinite(x) for x in summary["losses"])
    assert (Path(summary["final"]) / "config.json").is_file()
    other = tmp_path / "other.jsonl"  # a teacher file of other training pairs
    other.write_text(json.dumps({"key": "0" * 20, "probs": [0.2, 0.3, 0.5], "teachers": 1}) + "\n")
    student = recipe_data(tiny_bert, [f"wice_oracle:{wice}"], tmp_path / "s2", max_steps=2)
    student["distill"] = {"teacher": str(other)}
    student["data"]["dataset"] = str(tmp_path / "pairs" / "dataset")
    with pytest.raises(CitetrainError, match=r"distill.teacher: .*other.jsonl has none of the "
                       rf"{info['pairs']} training pairs"):
        train(validate_recipe(student))


def _fold_read_clause_by_clause(final: Path, tmp_path: Path) -> None:
    """A teacher that reads its fold clause by clause (``distill.fold_read: clauses``) writes, per
    pair, half its support of the whole statement and half the mean over the clause segments,
    marks the lines, and its file is not merged with whole-statement teachers."""
    import datasets

    from citetrain.text.segments import clause_segments
    from citetrain.judge_training.teacher_scores import write_fold_scores
    from citetrain.judge_training.card import load_judge

    two = "claim 3 says w3, and claim 4 says w4 which is chunk 1"
    held = datasets.Dataset.from_dict({
        "premise": ["chunk 1 of w3 . chunk 2 of w4 .", "chunk 0 of w5 ."],
        "hypothesis": [two, "claim 5 says w5"], "label": [1, 2], "group": ["a", "b"],
        "source": ["wice_oracle:x.jsonl"] * 2})
    whole, clauses = tmp_path / "whole.jsonl", tmp_path / "clauses.jsonl"
    assert write_fold_scores(final, held, whole) == 2
    assert write_fold_scores(final, held, clauses, read="clauses") == 2
    w = [json.loads(x) for x in whole.read_text().splitlines()]
    c = [json.loads(x) for x in clauses.read_text().splitlines()]
    assert "read" not in w[0] and [r["read"] for r in c] == ["clauses", "clauses"]
    segments = clause_segments(two)
    assert len(segments) >= 2
    engine = load_judge(final)
    parts = [engine.results([(held["premise"][0], x)])[0].support for x in segments]
    no = [sum(s[2] for s in parts) / len(parts), w[0]["probs"][0]]
    full = [sum(s[0] for s in parts) / len(parts), w[0]["probs"][2]]
    assert c[0]["probs"][0] == pytest.approx(sum(no) / 2, abs=1e-5)  # levels: no, partial, full
    assert c[0]["probs"][2] == pytest.approx(sum(full) / 2, abs=1e-5)
    assert c[0]["probs"][2] != pytest.approx(w[0]["probs"][2], abs=1e-6)
    assert c[1]["probs"] == pytest.approx(w[1]["probs"], abs=1e-6)  # one segment: read whole
    assert merge_teachers([clauses], tmp_path / "t.jsonl")["read"] == "clauses"
    assert "read" not in merge_teachers([whole], tmp_path / "t.jsonl")
    with pytest.raises(CitetrainError, match=r"read the statements differently \(whole in "
                       r".*whole.jsonl; clauses in .*clauses.jsonl\)"):
        merge_teachers([whole, clauses], tmp_path / "t.jsonl")
    with pytest.raises(CitetrainError, match="a judge is read whole or clauses, not 'parts'"):
        load_judge(final, "parts")
    bf16 = load_judge(final, dtype="bf16")  # transfer pairs read faster (citetrain teacher --dtype)
    assert str(bf16.backend.model.dtype) == "torch.bfloat16" and "+bf16" in bf16.backend.revision
    assert bf16.results([(held["premise"][0], two)])[0].support == pytest.approx(
        engine.results([(held["premise"][0], two)])[0].support, abs=0.03)

