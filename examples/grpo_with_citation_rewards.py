"""Your own trl GRPOTrainer, rewarded by citetrain's citation rewards.

``CitationRewards(nli).mix(...)`` gives trl's ``reward_funcs`` and ``reward_weights``: ALCE
citation recall and precision of each sampled answer (one NLI round per batch) and its
well-formedness. The dataset needs a ``prompt`` column and a ``docs`` column (the passages the
``[k]`` marks number); ``citetrain train`` with ``kind: grpo`` builds the same functions
(citetrain/train/grpo.py). Here, on CPU: a tiny Llama built from a config (no download), the
records of examples/predictions.jsonl, 2 steps, lexical NLI.

    HF_HUB_OFFLINE=1 python examples/grpo_with_citation_rewards.py
    python examples/grpo_with_citation_rewards.py --model Qwen/Qwen2.5-0.5B-Instruct --nli true --steps 200
"""
from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from citetrain.records import Record
from citetrain.rewards import CitationRewards
from citetrain.text.prompts import generator_prompt

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="a model id or folder (default: a tiny model)")
    ap.add_argument("--nli", default="lexical")
    ap.add_argument("--steps", type=int, default=2)
    args = ap.parse_args()

    lines = (HERE / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    records = [Record.model_validate(json.loads(line)) for line in lines if line.strip()]
    rows = [{"prompt": generator_prompt(r.question, r.docs),
             "docs": [{"title": d.title, "text": d.text} for d in r.docs]} for r in records]
    out = Path(tempfile.mkdtemp(prefix="citetrain-grpo-"))
    model = args.model
    if model is None:  # a 2-layer Llama and a BPE tokenizer trained on the prompts
        from citetrain.models.tiny import TinySpec, make_tiny_base

        model = str(make_tiny_base(TinySpec(vocab_size=400), [r["prompt"] for r in rows],
                                   out / "base"))

    funcs, weights = CitationRewards(nli=args.nli).mix(recall=1.0, precision=1.0, wellformed=0.5)
    config = GRPOConfig(output_dir=str(out / "run"), max_steps=args.steps, learning_rate=1e-4,
                        per_device_train_batch_size=4, num_generations=4,
                        max_completion_length=16, reward_weights=weights, logging_steps=1,
                        use_cpu=args.model is None, bf16=False, report_to=[], save_strategy="no")
    trainer = GRPOTrainer(model=model, reward_funcs=funcs, args=config,
                          train_dataset=Dataset.from_list(rows))
    trainer.train()
    logged = [h for h in trainer.state.log_history if "reward" in h]
    print(f"steps={trainer.state.global_step} mean reward per step: "
          f"{[round(h['reward'], 3) for h in logged]}")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
