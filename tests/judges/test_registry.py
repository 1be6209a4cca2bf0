"""Judges from names, and `citetrain judge` on the project's example file."""
import json
from pathlib import Path

import pytest

from citetrain.cli.main import main
from citetrain.errors import CitetrainError
from citetrain.judges.registry import make_judge

REPO = Path(__file__).resolve().parents[2]


def test_bad_judge_names_are_one_line_errors():
    with pytest.raises(CitetrainError, match="unknown judge 'bert'"):
        make_judge("bert")
    with pytest.raises(CitetrainError, match="after the colon"):
        make_judge("generative:")
    with pytest.raises(CitetrainError, match="generative judge: .*not a folder"):
        make_judge("generative:/no/such/folder")


def test_judge_cli_with_iterations(tmp_path, capsys):
    src = REPO / "examples" / "predictions.jsonl"
    out = tmp_path / "j"
    assert main(["judge", str(src), "--judge", "nli:lexical", "--iterations", "2", "--out", str(out),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "statements/s" in text and "iteration" in text
    report = json.loads((out / "judge_report.json").read_text())
    rows = [json.loads(x) for x in (out / "statements.jsonl").read_text().splitlines()]
    assert report["statements"] == len(rows) > 0 and report["iterations"][0]["iteration"] == 0
    assert report["citeeval_full"] == pytest.approx(report["iterations"][0]["citeeval_full"])
    improved = [json.loads(x) for x in (out / "improved.jsonl").read_text().splitlines()]
    assert [r["id"] for r in improved] == [json.loads(x)["id"] for x in src.read_text().splitlines()]


def test_judge_cli_bad_input_names_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "docs": [], "output": "x"}\n{"question": "q", "docs": 3}\n')
    assert main(["judge", str(bad), "--judge", "nli:lexical", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:2: field 'docs'" in err and len(err.strip().splitlines()) == 1


def test_union_first_and_dtype_reach_the_judge_and_its_engine():
    """``--union-first`` is the judge's option, ``--dtype`` the engine's (none for lexical);
    by default the NLI judge asks in the ``citeeval`` metric's order."""
    from citetrain.judges.registry import make_judge

    assert make_judge("nli:lexical", progress=False).union_first is False
    judge = make_judge("nli:lexical", progress=False, union_first=True, dtype="int8")
    assert judge.union_first is True and judge.engine.backend.is_baseline


def test_needed_subsets_from_the_command_line(tmp_path):
    """``citetrain judge --subsets needed``: the report says so and every statement's context,
    edits and rating are those of the whole search (the options reach the judge)."""
    src = REPO / "examples" / "predictions.jsonl"
    rows, reports = {}, {}
    for mode in ("all", "needed"):
        out = tmp_path / mode
        assert main(["judge", str(src), "--judge", "nli:lexical", "--union-first", "--subsets", mode,
                     "--out", str(out), "--no-progress"]) == 0
        reports[mode] = json.loads((out / "judge_report.json").read_text())
        rows[mode] = [json.loads(x) for x in (out / "statements.jsonl").read_text().splitlines()]
    key = lambda r: (r["context"], r["edits"], r["rating"])  # noqa: E731
    assert [key(r) for r in rows["all"]] == [key(r) for r in rows["needed"]]
    assert reports["needed"]["info"]["subsets"] == "needed"
    assert make_judge("nli:lexical", progress=False).subsets == "all"
    assert make_judge("nli:lexical", progress=False, subsets="needed").subsets == "needed"
