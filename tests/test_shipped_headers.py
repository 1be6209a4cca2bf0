"""The shipped folders (what the wheel carries and `citetrain ls` prints headers of) speak to
users: no project issue numbers, and no path into `experiments/`, which the wheel does not ship."""
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHIPPED = ("recipes", "data_builders", "eval", "launch", "examples", "distill")
FILES = sorted(p for d in SHIPPED for p in (REPO / d).glob("*")
               if p.suffix in (".yaml", ".sbatch", ".jsonl"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_files_name_no_issue_and_no_experiment(path):
    text = path.read_text()
    assert not re.search(r"\bissues? \d+", text), f"{path.name}: names a project issue"
    assert "experiments/" not in text, f"{path.name}: points into experiments/"
