"""GRPO at a realistic shape on one GPU: completions/s and where a step's time goes.

Issue 16. ``kind: grpo``'s training path (:mod:`citetrain.train.grpo`: the reward columns, the
recipe's reward mix through :class:`citetrain.rewards.CitationRewards`, ``grpo_config`` and trl's
``GRPOTrainer``, LoRA r 16 on all linear layers as ``recipes/refiner-grpo.yaml``) on a model built
from a real config with random weights (``--shape``: Llama-3-8B or Qwen2-1.5B; speed does not
depend on the weights; the tokenizer is a 32k BPE trained on the data, so prompt lengths are
realistic), on the prompts of a built refiner set (``--data``; its ``records.jsonl`` gives the
passages). The base is built in bf16 on the GPU and handed to the trainer, as
``bench/gpu_train.py`` does; everything else is the recipe's.

The reward NLI (``--nli``): ``lexical`` (word overlap on the CPU), or ``t5-large`` /
``t5-xxl``: a seq2seq NLI of that shape (random weights, bf16, on the same GPU; TRUE is T5-XXL),
read through ``seq2seq:PATH`` as a recipe's ``rl.nli`` would be.

Per timed step (after ``--warmup``): the step's wall time, and inside it, CUDA-synchronized,
``generate`` (sampling the group's completions with HF ``generate``; trl can use vLLM instead)
and ``rewards`` (the reward functions: one ALCE call through the NLI engine for recall and
precision, and the cheap ones); the rest is the policy's forward and backward. Random weights
seldom write a mark, so the run's rewards ask the NLI little: the reward mix is also timed on
as many completions that cite (the gold ids of distinct examples, a fresh engine). Prints
completions/s, prompts/s, the split, peak GPU memory and the mean reward.

``--smoke``: CPU, a tiny Llama and a synthetic refiner set; checks the path in seconds
(``tests/bench/test_gpu_grpo_smoke.py``). Figures only; nothing asserted. ``--json PATH`` writes
them (temp file + rename).
Run on a GPU: ``python bench/gpu_grpo.py --data data/gpu-bench/dataset --json out.json``.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from transformers import TrainerCallback  # noqa: E402

from bench.gpu_train import LLAMA3_8B, SMOKE, build_model, device_line, quiet  # noqa: E402
from bench.nli_engine import BIG  # noqa: E402
from bench.train_throughput import build_data  # noqa: E402
from citetrain.train import components as S  # noqa: E402
from citetrain.train.recipe import load_recipe  # noqa: E402

RECIPE = REPO / "recipes" / "refiner-grpo.yaml"
QWEN2_1_5B = dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                  num_attention_heads=12, num_key_value_heads=2, vocab_size=151936,
                  max_position_embeddings=32768, rope_theta=1000000.0, rms_norm_eps=1e-6)
SHAPES = {"llama8b": LLAMA3_8B, "qwen1.5b": QWEN2_1_5B}
# TRUE's T5 shapes (bench/nli_engine.py), and a tiny one for --smoke
T5 = {f"t5-{k}": v for k, v in BIG.items()} | {
    "t5-tiny": {"d_model": 32, "d_ff": 64, "d_kv": 8, "num_layers": 2, "num_heads": 4}}


def sync() -> float:
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.perf_counter()


class Timer:
    """Seconds spent in wrapped calls, per name, from the first timed step on."""

    def __init__(self) -> None:
        self.on, self.seconds = False, {"generate": 0.0, "rewards": 0.0}

    def wrap(self, name: str, fn):
        @functools.wraps(fn)
        def timed(*a, **kw):
            t0 = sync()
            try:
                return fn(*a, **kw)
            finally:
                if self.on:
                    self.seconds[name] += sync() - t0
        return timed


class Steps(TrainerCallback):
    """Wall time of the optimizer steps after ``warmup``; turns the timer on with them."""

    def __init__(self, warmup: int, timer: Timer) -> None:
        self.warmup, self.timer, self.t0, self.seconds = warmup, timer, None, 0.0

    def on_step_begin(self, args, state, control, **kw):
        if state.global_step == self.warmup:
            self.timer.on, self.t0 = True, sync()

    def on_train_end(self, args, state, control, **kw):
        if self.t0 is not None:
            self.seconds = sync() - self.t0


def t5_nli(shape: str, texts: list[str], folder: Path, device: str, vocab: int) -> str:
    """A random seq2seq NLI model of ``shape`` with a BPE tokenizer of the data, saved; its
    engine name (``seq2seq:PATH``)."""
    from transformers import T5Config, T5ForConditionalGeneration

    from citetrain.models.tiny import train_tokenizer

    tok = train_tokenizer(texts + ["premise: hypothesis: 0 1"], vocab)
    cfg = T5Config(vocab_size=len(tok), feed_forward_proj="relu", **T5[shape],
                   pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                   decoder_start_token_id=tok.pad_token_id, tie_word_embeddings=False)
    torch.manual_seed(0)
    with torch.device(device):
        model = T5ForConditionalGeneration(cfg).to(torch.bfloat16 if device == "cuda" else torch.float32)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return f"seq2seq:{folder}"


def gold_rewards_seconds(rl, examples, records, n: int) -> float:
    """Seconds the reward mix takes on ``n`` completions that cite: the gold ids of ``n``
    distinct examples (random weights rarely write a mark, so the run's own completions ask the
    NLI almost nothing); a fresh engine without cache, after one warm-up batch."""
    from citetrain.rewards.preference import reward_columns
    from citetrain.nli.registry import make_engine
    from citetrain.rewards.citation import CitationRewards

    engine = make_engine(rl.nli, cache=False, progress=False, **rl.nli_options)
    funcs, _ = CitationRewards(engine, at_most_citations=rl.at_most_citations).mix(**rl.rewards)
    seconds = 0.0
    for lo in (0, n):  # warm-up, then timed
        part = [examples[i] for i in range(lo, min(lo + n, len(examples)))]
        rows = reward_columns(part, records, rl.task)
        cols = {k: [r[k] for r in rows] for k in rows[0] if k not in ("prompt", "id", "unit")}
        t0 = sync()
        for fn in funcs:
            fn([r["prompt"] for r in rows], [ex["completion"] for ex in part], **cols)
        seconds = sync() - t0
    return seconds


def overrides(data: Path, out: Path, args, nli: str) -> list[str]:
    sets: dict[str, Any] = {
        "data.dataset": str(data), "train.output_dir": str(out / "grpo"), "train.resume": "never",
        "eval.enabled": "false", "eval.best_metric": "null", "train.max_steps": args.warmup + args.steps,
        "train.save_steps": 100000, "train.logging_steps": 1, "logging.report_to": "[none]",
        "train.batch_size": args.batch, "train.grad_accum": 1, "rl.num_generations": args.generations,
        "rl.max_completion_length": args.max_completion, "rl.nli": nli,
        "model.name_or_path": str(out / "unused"), "model.adapter": "null"}
    if args.smoke:
        sets.update({"train.use_cpu": "true", "data.max_length": 512})
    return [f"{k}={v}" for k, v in sets.items()]


def run(args) -> dict[str, Any]:
    from trl import GRPOTrainer

    from citetrain.train.grpo import grpo_config, reward_dataset, reward_functions
    from citetrain.models.tiny import train_tokenizer

    device = "cpu" if args.smoke else "cuda"
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        out = Path(tmp)
        data = args.data or build_data(out, 40, 0)
        records = S.load_records(data)
        nli = args.nli
        recipe = load_recipe(RECIPE, overrides(data, out, args, "lexical"))
        train_set, _ = S.load_splits(recipe, data)
        texts = [r["prompt"] + r["completion"] for r in train_set]
        t0 = time.perf_counter()
        tokenizer = train_tokenizer(texts, 2000 if args.smoke else 32000)
        if nli.startswith("t5-"):
            nli = t5_nli(nli, texts, out / "nli", device, 2000 if args.smoke else 32000)
        recipe = load_recipe(RECIPE, overrides(data, out, args, nli))
        train_set = S.drop_long(train_set, tokenizer,
                                recipe.data.max_length - recipe.rl.max_completion_length, "train",
                                None)
        model = build_model(SMOKE if args.smoke else SHAPES[args.shape], tokenizer, device)
        built_s = time.perf_counter() - t0
        rl = recipe.rl
        timer = Timer()
        funcs, weights = reward_functions(rl)
        funcs = [timer.wrap("rewards", f) for f in funcs]
        steps = Steps(args.warmup, timer)
        if torch.cuda.is_available() and not args.smoke:
            torch.cuda.reset_peak_memory_stats()
        with quiet(args.verbose):
            trainer = GRPOTrainer(model=model, reward_funcs=funcs,
                                  args=grpo_config(recipe, False, weights),
                                  train_dataset=reward_dataset(train_set, records, rl),
                                  processing_class=tokenizer, peft_config=S.peft_config(recipe),
                                  callbacks=[steps])
            trainer._generate = timer.wrap("generate", trainer._generate)
            trainer.train()
        gold_s = gold_rewards_seconds(rl, train_set, records, args.batch)
        rewards = [h["reward"] for h in trainer.state.log_history if "reward" in h]
        lengths = [h["completions/mean_length"] for h in trainer.state.log_history
                   if "completions/mean_length" in h]
        n = args.steps * args.batch  # completions in the timed steps (one process)
        wall = steps.seconds
        return {**device_line(), "shape": "tiny Llama (smoke)" if args.smoke else args.shape,
                "nli": args.nli, "date": time.strftime("%Y-%m-%d"), "build_s": built_s,
                "prompts": len(train_set), "completions_per_step": args.batch,
                "group": args.generations, "max_completion": args.max_completion,
                "max_length": recipe.data.max_length, "steps": args.steps, "step_s": wall / args.steps,
                "completions_s": n / wall, "prompts_s": n / args.generations / wall,
                "generate_s": timer.seconds["generate"] / args.steps,
                "rewards_s": timer.seconds["rewards"] / args.steps, "rewards_gold_s": gold_s,
                "train_s": (wall - sum(timer.seconds.values())) / args.steps,
                "mean_completion_tokens": sum(lengths[-args.steps:]) / max(len(lengths[-args.steps:]), 1),
                "mean_reward": sum(rewards[-args.steps:]) / max(len(rewards[-args.steps:]), 1),
                "peak_gib": (torch.cuda.max_memory_allocated() / 2**30
                             if torch.cuda.is_available() and not args.smoke else None)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="a built refiner dataset")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="llama8b")
    ap.add_argument("--nli", default="lexical", help="lexical, t5-large or t5-xxl")
    ap.add_argument("--batch", type=int, default=32, help="completions per step (per device)")
    ap.add_argument("--generations", type=int, default=8, help="group size")
    ap.add_argument("--max-completion", type=int, default=32)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.nli not in ("lexical", *T5):
        ap.error(f"--nli: lexical, {', '.join(T5)}")
    if not args.smoke and not torch.cuda.is_available():
        print("no GPU: run with --smoke on a CPU")
        return 2
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    row = run(args)
    print(f"{row['device']} | {row['shape']} LoRA, reward NLI {row['nli']} | "
          f"{row['completions_per_step']} completions/step (group {row['group']}, <= "
          f"{row['max_completion']} tokens, mean {row['mean_completion_tokens']:.1f})")
    print(f"  {row['step_s']:.2f} s/step: generate {row['generate_s']:.2f} s, rewards "
          f"{row['rewards_s']:.3f} s, forward+backward+rest {row['train_s']:.2f} s")
    print(f"  rewards on {row['completions_per_step']} completions that cite (gold ids): "
          f"{row['rewards_gold_s']:.3f} s")
    print(f"  {row['completions_s']:.1f} completions/s, {row['prompts_s']:.2f} prompts/s, "
          f"mean reward {row['mean_reward']:.3f}, peak {row['peak_gib'] or 0:.1f} GiB")
    if args.json:
        from citetrain.io.writers import atomic_write_text

        atomic_write_text(args.json, json.dumps(row, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
