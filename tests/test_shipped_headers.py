"""What speaks to users names no project issue and sends no one into the lab.

The shipped folders (what the wheel carries and `citetrain ls` prints headers of) and the model
card a trained cross-encoder judge gets name no project issue numbers and no path into
`experiments/` or `bench/`, neither of which the wheel ships. README.md and the guides name no
issue and no `experiments/` path either; they may name `bench/` (the README links the benchmarks'
index), but run no `bench/` script (tests/test_docs.py checks that)."""
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHIPPED = ("recipes", "data_builders", "eval", "launch", "examples", "distill")
FILES = sorted(p for d in SHIPPED for p in (REPO / d).glob("*")
               if p.suffix in (".yaml", ".sbatch", ".jsonl"))
PAGES = [REPO / "README.md", *sorted((REPO / "docs" / "guides").glob("**/*.md"))]
ISSUE = re.compile(r"\bissues? #?\d+", re.I)
LAB = re.compile(r"(?<![\w/.-])experiments/")
BENCH = re.compile(r"(?<![\w/.-])bench/")


def test_every_shipped_folder_has_files():
    assert all(any(p.parent.name == d for p in FILES) for d in SHIPPED)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_files_name_no_issue_and_no_experiment(path):
    text = path.read_text()
    assert not ISSUE.search(text), f"{path.name}: names a project issue"
    assert not LAB.search(text), f"{path.name}: points into experiments/"
    assert not BENCH.search(text), f"{path.name}: points into bench/, which the wheel does not ship"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_readme_and_guides_name_no_issue_and_no_experiment(path):
    text = path.read_text(encoding="utf-8")
    assert not ISSUE.search(text), f"{path.name}: names a project issue: {ISSUE.search(text).group(0)}"
    found = [text[max(0, m.start() - 40):m.end() + 30] for m in LAB.finditer(text)]
    assert not found, f"{path.name}: points into experiments/: {found}"


def _card_texts() -> list[str]:
    """The judge card's generated sections, with every optional part present."""
    from citetrain.judge_training.card import card_section, card_sections

    throughput = {"device": "cpu", "threads": 2, "pairs_per_s": 100.0, "timed_pairs": 64,
                  "fp32_pairs_per_s": 90.0, "int8_pairs_per_s": 150.0, "bf16_pairs_per_s": 120.0}
    heldout = {"sources": [{"source": "wice", "pairs": 10, "claims": 10, "model": 0.8,
                            "lexical": 0.7}], "throughput": throughput}
    texts = [card_section(heldout),
             card_section({**heldout, "throughput": {k: throughput[k] for k in
                                                     ("device", "threads", "pairs_per_s")}})]
    try:
        texts.append(card_sections({"heldout": heldout}))
    except (KeyError, TypeError):  # the summary's other keys are optional; the held-out part is enough
        pass
    return texts


def test_judge_card_names_no_issue_and_no_lab_path():
    import inspect

    from citetrain.judge_training import card

    for text in _card_texts():
        assert "Throughput" in text
        assert not ISSUE.search(text), text
        assert not LAB.search(text), text
        assert not BENCH.search(text), text
    # and no string the card module writes elsewhere names them either
    literals = " ".join(re.findall(r'"[^"\n]*"', inspect.getsource(card)))
    assert not ISSUE.search(literals) and not LAB.search(literals) and not BENCH.search(literals)
