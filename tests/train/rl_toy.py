"""A toy refiner set for GRPO / DPO tests: every statement is supported by its record's second
passage alone (the lexical NLI says so), while the SFT targets are ids drawn at random, so a
model fine-tuned on them writes well-formed marks that are mostly wrong and a citation reward has
room to rise."""
from __future__ import annotations

import json
import random
from pathlib import Path

from citetrain.records import Doc, Record
from citetrain.text.prompts import refiner_prompt, render_ids

NAMES = ["Arlo", "Bexa", "Corin", "Dalma", "Evon", "Fira", "Galen", "Hessa", "Ivor", "Jura"]
THINGS = ["river", "tower", "market", "bridge", "garden", "harbour", "school", "castle"]
COLOURS = ["red", "blue", "green", "amber", "white", "black", "violet", "grey"]


def _sentence(rng: random.Random) -> str:
    return f"The {rng.choice(THINGS)} of {rng.choice(NAMES)} is {rng.choice(COLOURS)}."


def write_toy_set(root: Path, n: int = 120, seed: int = 0) -> Path:
    """``root/dataset`` (train / validation) and ``root/records.jsonl``; the dataset folder."""
    import datasets

    rng = random.Random(seed)
    records, rows = [], {"train": [], "validation": []}
    for i in range(n):
        claim = _sentence(rng)
        others = [s for s in (_sentence(rng) for _ in range(8)) if s != claim][:2]
        docs = [Doc(title="A", text=others[0]), Doc(title="B", text=claim),
                Doc(title="C", text=others[1])]
        rec = Record(id=f"toy-{i}", question="What colour is it?", docs=docs, output=claim)
        records.append(rec)
        split = "validation" if i % 6 == 0 else "train"
        rows[split].append({"id": rec.id, "question": rec.question, "unit": "statement 0",
                            "perturbed": False, "prompt": refiner_prompt(rec.question, docs, claim),
                            "completion": " " + render_ids([rng.randint(1, 3)])})
    datasets.DatasetDict({k: datasets.Dataset.from_list(v) for k, v in rows.items()}).save_to_disk(
        str(root / "dataset"))
    (root / "records.jsonl").write_text("".join(json.dumps(r.model_dump()) + "\n" for r in records))
    return root / "dataset"
