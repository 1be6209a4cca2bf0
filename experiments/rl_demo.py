"""The CPU demonstration of issue 16: held-out citation scores of the tiny refiner before and after
GRPO and DPO, and GRPO's reward curve.

Reads the runs of ``recipes/tiny-sft.yaml``, ``recipes/tiny-grpo.yaml`` and ``recipes/tiny-dpo.yaml``
(train them first), generates greedily with each final adapter on every example of the synthetic
set's validation split (records never trained on), and scores the refined records with the shared
metrics (``alce`` and ``lenient`` through the lexical NLI, as the recipes' in-loop scoring does, on
the whole split instead of the in-loop subset). Rows: the records as generated (unrefined), SFT,
SFT + GRPO, SFT + DPO, plus exact-id F1 against the built gold ids. Writes ``table.md`` and
``reward_curve.png`` (mean reward per logged step, and its running mean) under ``--out``.
Run: ``python experiments/rl_demo.py`` (after the three ``citetrain train`` commands of the README).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

RUNS = {"SFT": "runs/tiny-sft", "SFT + GRPO": "runs/tiny-grpo", "SFT + DPO": "runs/tiny-dpo"}
SCORES = ("citation_rec", "citation_prec", "citation_f1", "lenient_f1", "ids_f1")


def refine_with(run: Path, base: Path, examples: list[dict], max_new_tokens: int) -> list[str]:
    """Greedy outputs of ``run``'s final adapter on ``base`` for every example."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from citetrain.models.generate import generate_texts

    tok = AutoTokenizer.from_pretrained(str(run / "final"))
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(str(base)),
                                      str(run / "final"))
    return generate_texts(model, tok, [ex["prompt"] for ex in examples],
                          max_new_tokens=max_new_tokens, batch_size=16, max_length=512)


def reward_curve(summary: dict, path: Path) -> None:
    """Mean reward per logged GRPO step and its running mean over 10 points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = summary["rewards"]
    steps = [summary["steps"] * (i + 1) / len(r) for i in range(len(r))]
    run = [sum(r[max(0, i - 9):i + 1]) / len(r[max(0, i - 9):i + 1]) for i in range(len(r))]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, r, lw=0.8, alpha=0.5, label="mean reward of the step's completions")
    ax.plot(steps, run, lw=2, label="running mean (10 logged steps)")
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("reward (recall + precision + 0.5 wellformed)")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=REPO / "data" / "tiny-refiner" / "dataset")
    ap.add_argument("--out", type=Path, default=REPO / "runs" / "rl-demo")
    ap.add_argument("--max-new-tokens", type=int, default=12)
    args = ap.parse_args(argv)
    import datasets

    from citetrain.io.writers import atomic_write_text
    from citetrain.metrics.evaluate import evaluate
    from citetrain.nli.registry import make_engine
    from citetrain.train.scoring import score_outputs
    from citetrain.train.components import load_records

    missing = [p for p in RUNS.values() if not (REPO / p / "final").is_dir()]
    if missing:
        print(f"train these first (README, preference and RL training): {', '.join(missing)}")
        return 2
    examples = [dict(r) for r in datasets.load_from_disk(str(args.data))["validation"]]
    records = load_records(args.data)
    engine = make_engine("lexical", progress=False)
    held = [records[i] for i in dict.fromkeys(ex["id"] for ex in examples)]
    report = evaluate(held, metrics=["alce", "lenient"], nli=engine, progress=False)
    rows = {"unrefined (records as generated)": {k: float(v) for g in report.scores.values()
                                                 for k, v in g.items() if v is not None}}
    base = REPO / RUNS["SFT"] / "base"
    for name, run in RUNS.items():
        outs = refine_with(REPO / run, base, examples, args.max_new_tokens)
        rows[name] = score_outputs("refiner", records, examples, outs, ["alce", "lenient"], engine)
    head = "| | " + " | ".join(SCORES) + " |\n|---|" + "---|" * len(SCORES) + "\n"
    body = "".join(f"| {name} | " + " | ".join(f"{s[k]:.1f}" if k in s else "-" for k in SCORES)
                   + " |\n" for name, s in rows.items())
    table = (f"{len(examples)} held-out statements of {len(held)} records "
             f"({args.data.name} validation split), lexical NLI\n\n{head}{body}")
    print(table)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "table.md", table)
    atomic_write_text(args.out / "scores.json", json.dumps(rows, indent=2) + "\n")
    summary = json.loads((REPO / RUNS["SFT + GRPO"] / "train_summary.json").read_text())
    if summary.get("rewards"):
        reward_curve(summary, args.out / "reward_curve.png")
        print(f"reward curve: {args.out / 'reward_curve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
