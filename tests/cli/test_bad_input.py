"""Every command, given a bad path, a bad recipe key or a malformed input line, exits 2 with one
line on stderr naming the problem (file, line, field) and no traceback; ``--debug`` shows it.

Run as real processes (``python -m citetrain``), so that whatever a library prints counts too.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
import yaml

from citetrain.cli.main import COMMANDS

REPO = Path(__file__).resolve().parents[2]
GOOD = {"id": "a", "question": "q", "docs": [{"title": "t", "text": "x"}], "output": "x [1]."}
WICE = {"label": "supported", "supporting_sentences": [[0]], "claim": "c", "evidence": ["e"],
        "meta": {"id": "w1"}}

Case = Callable[[Path], tuple[list[str], list[str]]]  # tmp -> (argv, what the line must name)


def citetrain(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "citetrain", *argv], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


def jsonl(path: Path, *lines: str) -> str:
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def bad_json(tmp: Path, row: dict = GOOD) -> str:
    return jsonl(tmp / "in.jsonl", json.dumps(row), '{"id": "b", oops}')


def bad_field(tmp: Path) -> str:
    return jsonl(tmp / "in.jsonl", json.dumps(GOOD), json.dumps({**GOOD, "id": "b", "docs": 5}))


def spec(tmp: Path, source: str, **extra) -> str:
    data = {"name": "t", "kind": "refiner", "sources": [{"path": source}], "nli": "lexical",
            "out": str(tmp / "out"), **extra}
    (tmp / "spec.yaml").write_text(yaml.safe_dump(data))
    return str(tmp / "spec.yaml")


def recipe_with_bad_key(tmp: Path) -> str:
    data = yaml.safe_load((REPO / "recipes" / "tiny-cpu.yaml").read_text())
    data["train"]["max_stepz"] = 3
    (tmp / "recipe.yaml").write_text(yaml.safe_dump(data))
    return str(tmp / "recipe.yaml")


def a_file(tmp: Path) -> Path:
    (tmp / "afile").write_text("x")
    return tmp / "afile"


def teacher_run(tmp: Path) -> Path:
    """A teacher run folder: its fold scores and a (stand-in) saved model."""
    (tmp / "run" / "final").mkdir(parents=True)
    (tmp / "run" / "final" / "config.json").write_text("{}")
    jsonl(tmp / "run" / "fold_scores.jsonl", '{"key": "k", "probs": [1, 0, 0]}')
    return tmp / "run"


MISSING = "missing.jsonl"
BAD_PATH: dict[str, Case] = {
    "eval": lambda t: (["eval", MISSING], [f"{MISSING}: file not found"]),
    "meta-eval": lambda t: (["meta-eval", MISSING], [f"{MISSING}: file not found"]),
    "build": lambda t: (["build", "missing.yaml"], ["missing.yaml: no such file"]),
    "synth": lambda t: (["synth", "--n", "2", "--out", str(a_file(t) / "x.jsonl")],
                        [f"cannot create its folder, {t / 'afile'} is a file"]),
    "merge": lambda t: (["merge", "missing", "--out", "m"],
                        ["missing: not an adapter folder (no adapter_config.json)"]),
    "refine": lambda t: (["refine", MISSING, "--refiner", ".", "--out", "o.jsonl"],
                         [f"{MISSING}: file not found"]),
    "judge": lambda t: (["judge", MISSING, "--judge", "nli:lexical"], [f"{MISSING}: file not found"]),
    "refine-eval": lambda t: (["refine-eval", MISSING], [f"{MISSING}: file not found"]),
    "fit-ranker": lambda t: (["fit-ranker", MISSING, "--out", "r.json"], [f"{MISSING}: file not found"]),
    "teacher": lambda t: (["teacher", "missing", "--out", "t.jsonl"], ["missing: no fold_scores.jsonl"]),
    "train": lambda t: (["train", "missing.yaml"], ["missing.yaml: no such file"]),
    "validate": lambda t: (["validate", "missing.yaml"], ["missing.yaml: no such file"]),
    "quickstart": lambda t: (["quickstart", "--out", str(a_file(t) / "qs")],
                             [f"{t / 'afile' / 'qs'}: Not a directory"]),
    "ls": lambda t: (["ls", "recipez"], ["unknown kind 'recipez'", "recipe, spec"]),
    "cp": lambda t: (["cp", "zero3", str(a_file(t))], [f"{t / 'afile'} exists"]),
    "serve": lambda t: (["serve", "crossencoder:missing"],
                        ["judge 'crossencoder:missing': missing does not exist"]),
    "export": lambda t: (["export", "missing", "--out", "o"], ["missing: not a model folder"]),
    "distill": lambda t: (["distill", "missing.yaml"], ["missing.yaml: no such file"]),
    "prune": lambda t: (["prune", "missing", "--out", "o", "--intermediate-size", "8",
                         "--calibration", "d"], ["missing: not a model folder"]),
}
OTHER_BAD_PATHS: dict[str, Case] = {
    "teacher-bad-line": lambda t: (
        ["teacher", jsonl(t / "f.jsonl", '{"key": "k", "probs": [1, 0, 0]}', '{"key": "k"}'),
         "--out", "t.jsonl"], [f"{t / 'f.jsonl'}:2: not a fold-score line"]),
    "teacher-transfer": lambda t: (
        ["teacher", str(teacher_run(t)), "--out", "t.jsonl", "--transfer", str(t / "nope")],
        [f"--transfer: {t / 'nope'} is not a pairs build"]),
    "teacher-transfer-model": lambda t: (
        ["teacher", jsonl(t / "f.jsonl", '{"key": "k", "probs": [1, 0, 0]}'), "--out", "t.jsonl",
         "--transfer", str(t / "nope")], [f"{t / 'f.jsonl'}: no saved model"]),
    "eval-folder": lambda t: (["eval", str(t)], [f"{t}: is a directory, not a record file"]),
    "build-folder": lambda t: (["build", str(t)], [f"{t}: is a folder, not a YAML file"]),
    "eval-out-under-a-file": lambda t: (
        ["eval", str(REPO / "examples" / "predictions.jsonl"), "--metrics", "alce",
         "--out", str(a_file(t) / "o"), "--no-progress"],
        [f"cannot create its folder, {t / 'afile'} is a file"]),
    "eval-nli-model": lambda t: (["eval", jsonl(t / "in.jsonl", json.dumps(GOOD)), "--nli",
                                  f"classifier:{t / 'missing'}", "--no-progress"],
                                 [f"{t / 'missing'}: no such model directory"]),
    "refine-refiner": lambda t: (["refine", jsonl(t / "in.jsonl", json.dumps(GOOD)), "--refiner",
                                  "missing", "--out", "o.jsonl"], ["missing is not a folder"]),
    "judge-model": lambda t: (["judge", jsonl(t / "in.jsonl", json.dumps(GOOD)), "--judge",
                               f"crossencoder:{t / 'missing'}"], [f"{t / 'missing'}: no such model directory"]),
    "train-dataset": lambda t: (["train", str(REPO / "recipes" / "tiny-cpu.yaml"), "--set",
                                 f"data.dataset={t / 'nope'}", "--set", "data.build=null"],
                                [f"data.dataset: {t / 'nope'} is not a dataset folder"]),
}
BAD_KEY: dict[str, Case] = {
    "train": lambda t: (["train", recipe_with_bad_key(t), "--dry-run"],
                        ["train.max_stepz: unknown key; did you mean 'max_steps'?"]),
    "train --set": lambda t: (["train", str(REPO / "recipes" / "tiny-cpu.yaml"), "--dry-run",
                               "--set", "train.max_stepz=3"], ["train.max_stepz: unknown key"]),
    "validate": lambda t: (["validate", recipe_with_bad_key(t)],
                           ["train.max_stepz: unknown key; did you mean 'max_steps'?"]),
    "validate --set": lambda t: (["validate", str(REPO / "recipes" / "tiny-cpu.yaml"),
                                  "--set", "lora.rank=4"], ["lora.rank: unknown key"]),
    "build": lambda t: (["build", spec(t, "in.jsonl", max_subsett=2)],
                        ["spec.yaml: max_subsett: unknown key; did you mean 'max_subset'?"]),
    "build --set": lambda t: (["build", spec(t, "in.jsonl"), "--set", "refiner.perturbb=0.1"],
                              ["refiner.perturbb: unknown key"]),
    "eval": lambda t: (["eval", str(_suite(t, metrcs=["alce"]))],
                       ["suite.yaml: metrcs: unknown key; did you mean 'metrics'?"]),
    "eval --set": lambda t: (["eval", str(_suite(t)), "--set", "nli_optons={}"],
                             ["nli_optons: unknown key"]),
    # metric options are checked when the suite is read: the missing data file is never reached
    "eval option range": lambda t: (
        ["eval", str(_suite(t, data=[{"path": MISSING}],
                            options={"alce": {"at_most_citations": 0}}))],
        ["suite.yaml: options.alce.at_most_citations: must be >= 1 or null/None, got 0"]),
    "eval option typo": lambda t: (
        ["eval", str(_suite(t, data=[{"path": MISSING}],
                            options={"alce": {"at_most_citation": 2}}))],
        ["suite.yaml: options.alce.at_most_citation: unknown option; "
         "did you mean 'at_most_citations'?"]),
    "eval option --set": lambda t: (
        ["eval", str(_suite(t, data=[{"path": MISSING}])), "--set",
         "options.citeeval.max_subset_size=0"],
        ["suite.yaml: options.citeeval.max_subset_size: must be >= 1, got 0"]),
}
MALFORMED: dict[str, Case] = {
    "eval json": lambda t: (["eval", bad_json(t), "--no-progress"], ["in.jsonl:2: malformed JSON"]),
    "eval field": lambda t: (["eval", bad_field(t), "--no-progress"],
                             ["in.jsonl:2: field 'docs' must be a list, got int"]),
    "judge json": lambda t: (["judge", bad_json(t), "--judge", "nli:lexical"],
                             ["in.jsonl:2: malformed JSON"]),
    "judge field": lambda t: (["judge", bad_field(t), "--judge", "nli:lexical"],
                              ["in.jsonl:2: field 'docs' must be a list"]),
    "refine json": lambda t: (["refine", bad_json(t), "--refiner", ".", "--out", "o.jsonl"],
                              ["in.jsonl:2: malformed JSON"]),
    "refine field": lambda t: (["refine", bad_field(t), "--refiner", ".", "--out", "o.jsonl"],
                               ["in.jsonl:2: field 'docs' must be a list"]),
    "build json": lambda t: (["build", spec(t, bad_json(t)), "--no-progress"],
                             ["in.jsonl:2: malformed JSON"]),
    "build field": lambda t: (["build", spec(t, bad_field(t)), "--no-progress"],
                              ["in.jsonl:2: field 'docs' must be a list"]),
    "meta-eval json": lambda t: (["meta-eval", bad_json(t, WICE), "--no-progress"],
                                 ["in.jsonl:2: malformed JSON"]),
    "meta-eval field": lambda t: (["meta-eval", jsonl(t / "in.jsonl", json.dumps(WICE), json.dumps(
        {**WICE, "label": "maybe"})), "--no-progress"], ["in.jsonl:2: field 'label' unknown label"]),
    "yaml": lambda t: (["validate", str(_write(t / "r.yaml", "a: [\n"))], ["r.yaml:2: invalid YAML"]),
}


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _suite(tmp: Path, **extra) -> Path:
    data = {"name": "s", "data": [{"path": str(REPO / "examples" / "predictions.jsonl")}], **extra}
    return _write(tmp / "suite.yaml", yaml.safe_dump(data))


def check_one_line(tmp: Path, case: Case) -> None:
    argv, names = case(tmp)
    run = citetrain(argv, tmp)
    lines = run.stderr.splitlines()
    assert run.returncode == 2, run.stderr
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert lines[0].startswith(f"citetrain {argv[0]}: error: "), lines[0]
    for name in names:
        assert name in lines[0], lines[0]


def test_every_command_has_a_bad_path_case():
    assert set(BAD_PATH) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(BAD_PATH))
def test_bad_path(command, tmp_path):
    check_one_line(tmp_path, BAD_PATH[command])


@pytest.mark.parametrize("case", sorted(OTHER_BAD_PATHS))
def test_other_bad_paths(case, tmp_path):
    check_one_line(tmp_path, OTHER_BAD_PATHS[case])


@pytest.mark.parametrize("case", sorted(BAD_KEY))
def test_bad_recipe_key(case, tmp_path):
    check_one_line(tmp_path, BAD_KEY[case])


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_input_names_file_line_and_field(case, tmp_path):
    check_one_line(tmp_path, MALFORMED[case])


def test_debug_shows_the_traceback(tmp_path):
    argv, _ = BAD_PATH["eval"](tmp_path)
    run = citetrain(["--debug", *argv], tmp_path)
    assert run.returncode == 1 and "Traceback (most recent call last)" in run.stderr


@pytest.mark.parametrize("command", sorted(BAD_PATH))
def test_debug_lets_the_error_through(command, tmp_path, monkeypatch):
    """``--debug`` re-raises, so Python prints the traceback (one command runs as a process above)."""
    from citetrain.cli.main import main

    argv, _ = BAD_PATH[command](tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Exception) as caught:
        main(["--debug", *argv])
    assert not isinstance(caught.value, SystemExit)


def test_an_unexpected_error_is_one_line_too(monkeypatch, capsys):
    from citetrain.cli import main as cli

    def boom(args):
        raise KeyError("x\ny")

    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: _with_run(parser(), boom))
    assert cli.main(["validate", "r.yaml"]) == 1
    err = capsys.readouterr().err
    assert err == ("citetrain validate: internal error: KeyError: 'x\\ny' (run with --debug for "
                   "the traceback and report it)\n")
    with pytest.raises(KeyError):
        cli.main(["--debug", "validate", "r.yaml"])


def _with_run(parser, run):
    for action in parser._subparsers._group_actions:
        for sub in action.choices.values():
            sub.set_defaults(run=run)
    return parser


def test_a_cache_database_error_is_the_users(monkeypatch, capsys):
    import sqlite3

    from citetrain.cli import main as cli

    def full(args):
        raise sqlite3.OperationalError("database or disk is full")

    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: _with_run(parser(), full))
    assert cli.main(["eval", "x.jsonl"]) == 2
    assert capsys.readouterr().err == "citetrain eval: error: cache database: database or disk is full\n"


@pytest.mark.parametrize("case", ["teacher-transfer", "teacher-transfer-model"])
def test_teacher_writes_nothing_when_it_cannot_score_the_transfer_pairs(case, tmp_path):
    check_one_line(tmp_path, OTHER_BAD_PATHS[case])
    assert not (tmp_path / "t.jsonl").exists()
