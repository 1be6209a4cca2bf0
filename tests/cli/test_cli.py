"""The command line: help, eval on the example file and suites, and one-line errors."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from citetrain.cli.main import COMMANDS, main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "predictions.jsonl"


@pytest.mark.parametrize("command", [[], *[[c] for c in COMMANDS]])
def test_help_works_for_every_command(command, capsys):
    with pytest.raises(SystemExit) as e:
        main([*command, "--help"])
    assert e.value.code == 0
    assert "usage: citetrain" in capsys.readouterr().out


def test_console_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "citetrain", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("citetrain ")


def test_eval_example_writes_report(tmp_path, capsys):
    rc = main(["eval", str(EXAMPLE), "--metrics", "alce,lenient", "--nli", "lexical",
               "--out", str(tmp_path), "--no-progress"])
    assert rc == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert set(report["scores"]) == {"alce", "lenient"}
    assert "lexical baseline" in report["info"]["nli"]
    rows = [json.loads(x) for x in (tmp_path / "statements.jsonl").read_text().splitlines()]
    assert {r["metric"] for r in rows} == {"alce", "lenient"}
    assert "citation_rec" in (tmp_path / "table.txt").read_text()
    assert "citation_f1" in capsys.readouterr().out


def test_eval_suite(tmp_path):
    suite = tmp_path / "s.yaml"
    suite.write_text(f"name: t\ndata:\n  - path: {EXAMPLE}\nmetrics: [alce]\n")
    assert main(["eval", str(suite), "--out", str(tmp_path / "o"), "--no-progress"]) == 0
    assert json.loads((tmp_path / "o" / "report.json").read_text())["info"]["suite"] == "t"


def test_shipped_suites_validate():
    from citetrain.metrics.suites import load_suite

    for path in sorted((REPO / "eval").glob("*.yaml")):
        assert load_suite(path).metrics


def test_errors_are_one_line_and_nonzero(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default output folder, eval_results/, is in the cwd
    assert main(["eval", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("citetrain eval: error:") and "missing.jsonl" in err and "\n" not in err

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "q", "docs": [], "output": "x"}\n{"id": "b", oops}\n')
    assert main(["eval", str(bad), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "bad.jsonl:2" in err and "\n" not in err
    # a run that finished nothing leaves no work folder (nor the eval_results/ it made) behind
    assert not (tmp_path / "eval_results").exists()
    bad.write_text("{broken\n")  # every line skipped: nothing to score
    assert main(["eval", str(bad), "--metrics", "alce", "--skip-invalid", "--no-progress"]) == 2
    assert "no records to score" in capsys.readouterr().err
    assert not (tmp_path / "eval_results").exists()

    assert main(["eval", str(EXAMPLE), "--metrics", "alce,nope"]) == 2
    assert "unknown metric" in capsys.readouterr().err

    suite = tmp_path / "s.yaml"
    suite.write_text(f"name: t\ndata:\n  - path: {EXAMPLE}\nmetrcs: [alce]\n")
    assert main(["eval", str(suite)]) == 2
    assert "did you mean 'metrics'" in capsys.readouterr().err


def test_skip_invalid_reports_counts(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    good = EXAMPLE.read_text().splitlines()[0]
    bad.write_text(good + "\n{broken\n")
    assert main(["eval", str(bad), "--metrics", "alce", "--skip-invalid", "--out", str(tmp_path / "o"),
                 "--no-progress"]) == 0
    assert "skipped 1" in capsys.readouterr().err


def test_debug_shows_traceback(tmp_path):
    with pytest.raises(Exception):
        main(["--debug", "eval", str(tmp_path / "missing.jsonl")])
