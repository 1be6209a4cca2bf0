"""Your own trl SFTTrainer (a transformers Trainer) with citetrain's in-loop citation scores.

``CitationScoreCallback`` generates an answer for each eval example at every evaluation, scores
the answers with citetrain's metrics (here ALCE through the lexical NLI) and logs them as
``eval_citation_f1``, ... beside the eval loss, so ``metric_for_best_model="citation_f1"`` can
pick a checkpoint by citation quality. Each example needs ``id`` (its record's), ``unit``,
``prompt`` and ``completion``; ``records`` maps ids to the records the answers are scored on.
Here, on CPU: a tiny Llama built from a config (no download), trained as a generator on the
answers of examples/predictions.jsonl for 4 steps, scored at steps 2 and 4 (a model this small
scores 0: the script shows the wiring, not a result).

    HF_HUB_OFFLINE=1 python examples/trainer_with_inloop_scores.py
"""
from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from datasets import Dataset
from transformers import AutoTokenizer
from trl import SFTConfig, SFTTrainer

from citetrain.models.tiny import TinySpec, make_tiny_base
from citetrain.nli.registry import make_engine
from citetrain.records import Record
from citetrain.text.prompts import generator_prompt
from citetrain.train.callbacks import CitationScoreCallback

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=4)
    args = ap.parse_args()

    lines = (HERE / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    records = {r.id: r for r in (Record.model_validate(json.loads(x)) for x in lines if x.strip())}
    rows = [{"id": r.id, "unit": "response", "prompt": generator_prompt(r.question, r.docs),
             "completion": " " + r.output} for r in records.values() if r.output]
    out = Path(tempfile.mkdtemp(prefix="citetrain-sft-"))
    base = make_tiny_base(TinySpec(vocab_size=400), [r["prompt"] + r["completion"] for r in rows],
                          out / "base")
    tokenizer = AutoTokenizer.from_pretrained(base)

    scorer = CitationScoreCallback("generator", rows, records, tokenizer, metrics=["alce"],
                                   nli=make_engine("lexical", progress=False),
                                   max_new_tokens=24, batch_size=4, max_length=1024)
    config = SFTConfig(output_dir=str(out / "run"), max_steps=args.steps, learning_rate=1e-3,
                       per_device_train_batch_size=2, eval_strategy="steps", eval_steps=2,
                       logging_steps=1, save_strategy="no", use_cpu=True, bf16=False,
                       report_to=[], max_length=1024)
    data = Dataset.from_list(rows)
    trainer = SFTTrainer(model=str(base), args=config, train_dataset=data, eval_dataset=data,
                         processing_class=tokenizer, callbacks=[scorer])
    scorer.trainer = trainer  # so the scores go to the trainer's log (and its trackers)
    trainer.train()
    for h in scorer.history:
        print(f"step {h['step']}: citation_f1={h['citation_f1']:.2f} "
              f"citation_rec={h['citation_rec']:.2f} citation_prec={h['citation_prec']:.2f}")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
