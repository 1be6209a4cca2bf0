"""One huge response (2.1 MB, over spaCy's 1,000,000-character limit) is scored, never an
internal error, with the default splitter (Punkt) and with spaCy chosen."""
import json

import pytest

from citetrain.cli.main import main
from citetrain.text import splitter

FILLER = ("z" * 999 + " ") * 2100  # few tokens, so that even spaCy's parse stays cheap


@pytest.fixture
def huge_file(tmp_path):
    huge = {"id": "huge", "question": "How tall is the tower?",
            "docs": [{"title": "Tower", "text": "The tower is tall and old."}],
            "output": "The tower is tall [1]. " + FILLER + "It is old [1]."}
    small = {"id": "small", "question": "q", "docs": [{"title": "T", "text": "The tower is tall."}],
             "output": "The tower is tall [1]."}
    assert len(huge["output"]) > 2_100_000
    path = tmp_path / "huge.jsonl"
    path.write_text(json.dumps(huge) + "\n" + json.dumps(small) + "\n")
    return path


@pytest.mark.parametrize("name", ["punkt", "spacy"])
def test_a_huge_response_is_scored(huge_file, tmp_path, monkeypatch, capsys, name):
    monkeypatch.setenv(splitter.ENV_VAR, name)
    out = tmp_path / "out"
    assert main(["eval", str(huge_file), "--nli", "lexical", "--out", str(out), "--no-progress"]) == 0
    assert "error" not in capsys.readouterr().err
    report = json.loads((out / "report.json").read_text())
    assert report["info"]["splitter"].startswith(f"{name}:")
    assert report["info"]["n_records"] == 2
    rows = [json.loads(x) for x in (out / "statements.jsonl").read_text().splitlines()]
    for metric in ("alce", "lenient", "aliice"):
        assert metric in report["scores"]
        sentences = [r["sentence"] for r in rows if r["metric"] == metric and r["id"] == "huge"]
        if metric != "aliice":  # ALiiCE's rows are claims, not sentences
            assert sentences == ["The tower is tall [1].", FILLER + "It is old [1]."]
