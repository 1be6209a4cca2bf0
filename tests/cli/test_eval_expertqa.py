"""`citetrain eval` over the ExpertQA answers (read by the ExpertQA reader) with the lexical NLI."""
import json
from pathlib import Path

from citetrain.cli.main import main

SUITE = Path(__file__).resolve().parents[2] / "eval" / "expertqa-lexical.yaml"


def test_eval_expertqa_suite_lexical(shared_data, tmp_path, capsys):
    # 25 answers from each of the two ExpertQA splits keep the test short; the full suite is the
    # same code path (436 answers, ~90 s on 2 cores).
    rc = main(["eval", str(SUITE), "--limit", "25", "--out", str(tmp_path), "--no-progress"])
    assert rc == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["info"]["n_records"] == 50
    scores = {k: v for group in report["scores"].values() for k, v in group.items()}
    for key in ("citation_rec", "citation_prec", "lenient_f1", "aliice_f1", "cvcp", "citeeval_full"):
        assert 0.0 <= scores[key] <= 100.0, key
    assert report["info"]["metrics"]["alce"]["records"] == 50
    rows = [json.loads(line) for line in (tmp_path / "statements.jsonl").open()]
    assert {r["id"] for r in rows} and all(":" in r["id"] for r in rows)  # sha1(question):system ids
    assert "citation_f1" in (tmp_path / "table.txt").read_text()
    assert "records: 50" in capsys.readouterr().out
