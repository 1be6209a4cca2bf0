"""experiments/context_attribution.py: applicability against the experts' citation-worthiness, computed
by hand, and the smoke run on ExpertQA (skipped where ../shared/data is absent)."""
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "experiments"))

import context_attribution as ca  # noqa: E402

from citetrain.records import Doc, Record  # noqa: E402


def test_scores_by_hand():
    # worthy: T T T F; applicable: T F T T -> tp 2, fp 1, fn 1, tn 0
    s = ca.applicability_scores([True, False, True, True], [True, True, True, False])
    assert s["precision"] == pytest.approx(2 / 3) and s["recall"] == pytest.approx(2 / 3)
    assert s["f1"] == pytest.approx(2 / 3)
    assert s["balanced_accuracy"] == pytest.approx((2 / 3 + 0) / 2)


def test_worthiness_matches_sentences_as_written():
    rec = Record(id="a", question="q?", docs=[Doc(title="t", text="x")],
                 output="Cats purr [1]. Dogs bark. Birds sing.",
                 annotations=[{"claim": "Cats purr [1].", "worthiness": "Yes"},
                              {"claim": "Dogs  bark.", "worthiness": "No"},
                              {"claim": "Birds sing.", "worthiness": None}])
    assert ca.worthiness([rec]) == {("a", 0): True, ("a", 1): False}


def test_smoke_on_expertqa():
    if not ca.SPLITS.joinpath("rand_val.jsonl").is_file():
        pytest.skip(f"{ca.SPLITS} absent (ExpertQA, ../shared/data)")
    out = subprocess.run([sys.executable, str(REPO / "experiments" / "context_attribution.py"), "--smoke"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("rand_val")]
    assert [r[1] for r in rows] == ["0/0", "1/0.8"]
    assert all(0.0 <= float(x) <= 1.0 for r in rows for x in r[-4:])
