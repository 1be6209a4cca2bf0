"""A tiny BERT judge base shared by the judge-training tests."""
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    """A two-layer BERT classifier with a tokenizer trained on the cross-encoder tests' toy rows."""
    from tests.judge_training.test_trainer import build_tiny_bert, toy_rows

    rows = toy_rows(40)
    corpus = [" ".join(r["references"]) + " " + r["claim"] for r in rows]
    corpus += ["claim chunk of says it"] * 3
    return build_tiny_bert(tmp_path_factory.mktemp("bert") / "base", corpus)
