"""A tiny three-way judge with citetrain's preprocessing keys saved, and labelled pairs written for
the export tests (ONNX and OpenVINO)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.nli.tiny_models import build_bert_classifier

LEVELS = ("not_supported", "partially_supported", "supported")
FACTS = ["the cat sat on the mat .", "the dog ran in the park .", "water boils at 100 degrees .",
         "paris is the capital of france .", "the river runs to the sea .", "the bird sang at dawn ."]


def validation_pairs() -> tuple[list[tuple[str, str]], list[int], list[str]]:
    """Labelled pairs written for this test: each fact against a passage holding it (2), holding
    it cut in half (1) and holding another fact (0); one group per fact."""
    pairs, labels, groups = [], [], []
    for i, fact in enumerate(FACTS):
        other = FACTS[(i + 1) % len(FACTS)]
        half = " ".join(fact.split()[: len(fact.split()) // 2])
        for passage, label in ((f"{other} {fact}", 2), (f"{other} {half}", 1), (other, 0)):
            pairs.append((passage, fact))
            labels.append(label)
            groups.append(f"g{i}")
    return pairs, labels, groups


def build_export_judge(root: Path) -> Path:
    """A tiny three-way classifier under ``root`` with premise select and hint uncovered."""
    path = build_bert_classifier(root / "model", LEVELS, seed=3)
    config = json.loads((path / "config.json").read_text())
    config.update({"citetrain_premise": "select", "citetrain_hint": "uncovered"})
    (path / "config.json").write_text(json.dumps(config))
    return path
