"""The quickstart's sizes and seeds: one place, so the CLI, the report and the tests agree."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

METRICS = ("alce", "lenient", "aliice")
F1_KEYS = {"alce": "citation_f1", "lenient": "lenient_f1", "aliice": "aliice_f1"}


@dataclass(frozen=True)
class Plan:
    """What one quickstart run does. Records of the three parts come from different synthetic
    worlds (seeds ``seed``, ``seed + 1``, ``seed + 2``): the held-out answers share no entity with
    the training data and are never looked at before the final scoring."""

    out: Path
    seed: int = 0
    fast: bool = False
    train_records: int = 1000
    validation_records: int = 30   # in-loop citation scores (another world than the test)
    test_records: int = 200        # held out: refined and scored once, at the end
    max_steps: int = 160
    eval_steps: int = 40
    batch_size: int = 16

    @property
    def build_dir(self) -> Path:
        return self.out / "build"

    @property
    def run_dir(self) -> Path:
        return self.out / "run"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["out"] = str(self.out)
        return d


def make_plan(out: str | Path = "quickstart", seed: int = 0, fast: bool = False) -> Plan:
    """The default plan (about 5½ minutes on 2 idle CPU cores) or the ``--fast`` one (about
    3 minutes, for CI)."""
    if fast:
        return Plan(Path(out), seed, True, train_records=300, validation_records=15,
                    test_records=60, max_steps=100, eval_steps=50)
    return Plan(Path(out), seed)
