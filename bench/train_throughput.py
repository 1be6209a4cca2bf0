"""Training throughput with and without ``data.packing``, through the real training code path.

Builds a refiner dataset from synthetic records in a temp folder (as ``tests/train/conftest.py``
does), then runs :func:`citetrain.runner.run_recipe` on ``recipes/tiny-cpu.yaml`` (LoRA on a tiny
Llama built from a config) twice, ``data.packing=false`` and ``true``, with in-loop scoring off.
A ``TrainerCallback`` hooks the model's forward and times the optimizer steps after a few
warm-up steps (excluded). Per timed step it counts, from the batches the model is given:

* real tokens: non-padding tokens (the attention mask's sum; packed batches are padding-free,
  so every token is real),
* padded tokens: every position the model computes (``input_ids.numel()``),
* trained tokens: completion tokens with a label (the loss is on the completion only),

and prints them per second, and the packed / unpacked ratios. ``cores``: CPU cores the run kept
busy while timed; well under ``--threads`` means other load on the machine skewed the timing
(``--repeats N`` alternates the runs and keeps the fastest of each).

With CUDA it repeats this for a model of realistic shape built from a config (Llama 3.2 1B's
layer shapes: hidden 2048, 16 layers, LoRA, bf16, sequences up to 2048 tokens) and prints MFU as
``6 * (trainable + frozen params) * real tokens/s / peak`` (``--peak-tflops``: dense bf16 peak,
989 for an H100 SXM); without CUDA it prints "skipped: no GPU".

Prints figures only; never asserts a timing.
Run: ``python bench/train_throughput.py [--steps 30] [--warmup 3] [--threads 2] [--repeats 1]``.
"""
from __future__ import annotations

import argparse
import contextlib
import io
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

from citetrain.train.recipe import load_recipe  # noqa: E402
from citetrain.runner import run_recipe as train  # noqa: E402

RECIPE = REPO / "recipes" / "tiny-cpu.yaml"
# Llama 3.2 1B's layer shapes (its vocabulary is the tokenizer trained on the benchmark data)
REALISTIC = {"model.tiny.hidden_size": 2048, "model.tiny.intermediate_size": 8192,
             "model.tiny.num_hidden_layers": 16, "model.tiny.num_attention_heads": 32,
             "model.tiny.num_key_value_heads": 8, "model.tiny.vocab_size": 32000,
             "model.tiny.max_position_embeddings": 4096}


class Meter(TrainerCallback):
    """Counts the tokens of every training forward and times steps ``warmup+1 .. warmup+steps``."""

    def __init__(self, warmup: int, steps: int) -> None:
        self.warmup, self.steps = warmup, steps
        self.real = self.padded = self.trained = self.examples = self.forwards = 0
        self.t0: float | None = None
        self.t1: float | None = None
        self.cpu0 = self.cpu1 = 0.0  # this process's CPU seconds, to show contention
        self.hook: Any = None
        self.params = 0
        self.trainable = 0
        self.rows = 0

    def _count(self, module, args, kwargs) -> None:
        if self.t0 is None or self.t1 is not None or not module.training:
            return
        ids = kwargs.get("input_ids", args[0] if args else None)
        mask, labels = kwargs.get("attention_mask"), kwargs.get("labels")
        self.padded += ids.numel()
        self.real += int(mask.sum()) if mask is not None else ids.numel()
        if labels is not None:
            self.trained += int((labels != -100).sum())
        pos = kwargs.get("position_ids")
        self.examples += int((pos == 0).sum()) if mask is None and pos is not None else ids.shape[0]
        self.forwards += 1

    def on_train_begin(self, args, state, control, model=None, train_dataloader=None, **kw):
        self.params = sum(p.numel() for p in model.parameters())
        self.trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        self.rows = len(train_dataloader.dataset) if train_dataloader is not None else 0
        self.hook = model.register_forward_pre_hook(self._count, with_kwargs=True)

    def on_step_end(self, args, state, control, **kw):
        if state.global_step in (self.warmup, self.warmup + self.steps):
            if torch.cuda.is_available() and not args.use_cpu:
                torch.cuda.synchronize()
            now, cpu = time.perf_counter(), time.process_time()
            if state.global_step == self.warmup:
                self.t0, self.cpu0 = now, cpu
            else:
                self.t1, self.cpu1 = now, cpu

    def on_train_end(self, args, state, control, **kw):
        if self.hook is not None:
            self.hook.remove()

    @property
    def seconds(self) -> float:
        return (self.t1 or 0.0) - (self.t0 or 0.0)

    @property
    def cores(self) -> float:
        """CPU cores this process kept busy while timed (less than the threads: contention)."""
        return (self.cpu1 - self.cpu0) / max(self.seconds, 1e-9)


def build_data(root: Path, n: int, seed: int) -> Path:
    from citetrain.builders.pipeline import build
    from citetrain.builders.spec import BuildSpec

    spec = BuildSpec.model_validate({
        "name": "bench", "kind": "refiner", "sources": [{"synthetic": {"n": n, "seed": seed}}],
        "nli": "lexical", "max_subset": 2, "refiner": {"perturb": 0.3},
        "split": {"validation": 0.2}, "out": str(root / "built")})
    build(spec, progress=False, log=lambda s: None)
    return root / "built" / "dataset"


def run_once(data: Path, out: Path, packing: bool, extra: dict[str, Any], args) -> tuple[Meter, dict]:
    """One training run through ``citetrain.runner.run_recipe``; its own output goes to a log."""
    sets = {"data.dataset": str(data), "train.output_dir": str(out), "train.resume": "never",
            "eval.enabled": False, "eval.best_metric": None,
            "train.max_steps": args.warmup + args.steps, "train.save_steps": 100000,
            "train.logging_steps": 100000, "data.packing": packing, **extra}
    overrides = [f"{k}={'null' if v is None else str(v).lower() if isinstance(v, bool) else v}"
                 for k, v in sets.items()]
    recipe = load_recipe(RECIPE, overrides)
    meter = Meter(args.warmup, args.steps)
    log = io.StringIO()
    sink = contextlib.nullcontext() if args.verbose else contextlib.ExitStack()
    with sink as stack:
        if stack is not None:
            stack.enter_context(contextlib.redirect_stdout(log))
            stack.enter_context(contextlib.redirect_stderr(log))
        try:
            summary = train(recipe, extra_callbacks=(meter,))
        except BaseException:
            sys.__stderr__.write(log.getvalue()[-4000:])
            raise
    return meter, summary


def report(label: str, m: Meter, summary: dict) -> dict[str, float]:
    s = m.seconds
    rates = {"real": m.real / s, "padded": m.padded / s, "trained": m.trained / s,
             "examples": m.examples / s, "step_s": s / m.steps}
    print(f"  {label:<9} {rates['real']:>10,.0f} {rates['padded']:>10,.0f} "
          f"{m.real / max(m.padded, 1):>6.1%} {rates['trained']:>9,.0f} {rates['examples']:>8.1f} "
          f"{m.padded / max(m.forwards, 1):>9,.0f} {rates['step_s'] * 1000:>8.0f} "
          f"{m.cores:>6.2f} {summary['train_loss']:>7.3f}")
    return rates


def compare(title: str, data: Path, extra: dict[str, Any], args, peak: float | None = None) -> None:
    print(f"\n{title}")
    results: dict[bool, tuple[Meter, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.repeats):  # alternating, best of each: less skew from other load
            for packing in ((False, True) if rep % 2 == 0 else (True, False)):
                m, summary = run_once(data, Path(tmp) / "run", packing, extra, args)
                if packing not in results or m.seconds < results[packing][0].seconds:
                    results[packing] = (m, summary)
    m0 = results[False][0]
    print(f"  params {m0.params / 1e6:,.2f}M ({m0.trainable / 1e6:,.2f}M trainable), train rows: "
          f"{m0.rows} examples unpacked, {results[True][0].rows} packed rows; timed "
          f"{args.steps} steps after {args.warmup} warm-up steps, best of {args.repeats}")
    print(f"  {'':<9} {'real tok/s':>10} {'padded/s':>10} {'real%':>6} {'trained/s':>9} "
          f"{'ex/s':>8} {'tok/fwd':>9} {'ms/step':>8} {'cores':>6} {'loss':>7}")
    rates = {p: report("packed" if p else "unpacked", *results[p]) for p in (False, True)}
    a, b = rates[False], rates[True]
    print(f"  packed/unpacked: real tok/s {b['real'] / a['real']:.2f}x, padded tok/s "
          f"{b['padded'] / a['padded']:.2f}x, examples/s {b['examples'] / a['examples']:.2f}x")
    if peak:
        for p in (False, True):
            m = results[p][0]
            mfu = 6 * m.params * rates[p]["real"] / (peak * 1e12)
            print(f"  MFU {'packed' if p else 'unpacked':<9} {mfu:6.1%} of {peak:g} TFLOPs "
                  f"(6 * {m.params / 1e9:.3f}B params * real tok/s; LoRA skips the frozen "
                  f"weights' gradients, so about 2/3 of that is work done)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=30, help="timed optimizer steps per run")
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1,
                    help="runs per setting, alternating; the fastest is reported")
    ap.add_argument("--records", type=int, default=300, help="synthetic records to build from")
    ap.add_argument("--batch-size", type=int, default=None, help="default: the recipe's")
    ap.add_argument("--attn", default=None,
                    help="model.attn_implementation on the CPU (default: the recipe's)")
    ap.add_argument("--peak-tflops", type=float, default=989.0,
                    help="dense bf16 peak of the GPU, for MFU (H100 SXM: 989)")
    ap.add_argument("--gpu-seq", type=int, default=2048, help="data.max_length on the GPU")
    ap.add_argument("--gpu-batch-size", type=int, default=4)
    ap.add_argument("--gpu-attn", default="sdpa", help="model.attn_implementation on the GPU")
    ap.add_argument("--verbose", action="store_true", help="show the training runs' own output")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    import datasets

    datasets.disable_progress_bars()

    import transformers
    import trl

    print(f"torch {torch.__version__}, transformers {transformers.__version__}, trl "
          f"{trl.__version__}; threads {torch.get_num_threads()}")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        data = build_data(Path(tmp), args.records, 0)
        print(f"data: {args.records} synthetic records (seed 0) -> {data.parent} "
              f"in {time.perf_counter() - t0:.1f}s")
        cpu = {} if args.batch_size is None else {"train.batch_size": args.batch_size}
        if args.attn:
            cpu["model.attn_implementation"] = args.attn
        r = load_recipe(RECIPE, [f"{k}={v}" for k, v in cpu.items()])
        tiny = r.model.tiny
        compare(f"tiny recipe {RECIPE.relative_to(REPO)} on CPU: Llama hidden {tiny.hidden_size}, "
                f"{tiny.num_hidden_layers} layers, LoRA r {r.lora.r} (+{r.lora.modules_to_save}), "
                f"fp32, attention {r.model.attn_implementation or 'default (sdpa)'}, batch "
                f"{r.train.batch_size}, max_length {r.data.max_length}", data, cpu, args)

        if not torch.cuda.is_available():
            print("\nrealistic shape on GPU (Llama hidden 2048, 16 layers, LoRA, bf16, seq "
                  f"{args.gpu_seq}): skipped: no GPU")
            return
        gpu = {**REALISTIC, "train.use_cpu": False, "model.dtype": "bf16", "train.bf16": True,
               "model.attn_implementation": args.gpu_attn, "lora.modules_to_save": None,
               "lora.r": 16, "lora.alpha": 32, "train.learning_rate": 2e-4,
               "data.max_length": args.gpu_seq, "train.batch_size": args.gpu_batch_size}
        compare(f"realistic shape on {torch.cuda.get_device_name()}: Llama hidden 2048, 16 "
                f"layers, 32/8 heads, LoRA r 16 all-linear, bf16, attention {args.gpu_attn}, "
                f"batch {args.gpu_batch_size}, max_length {args.gpu_seq}", data, gpu, args,
                peak=args.peak_tflops)


if __name__ == "__main__":
    main()
