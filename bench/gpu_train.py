"""SFT throughput, MFU and memory at 8B shape on one GPU, and the cost of in-loop scoring.

Issue 17 items 1 and 2. Runs ``recipes/refiner.yaml``'s settings (LoRA r 16 on all linear
layers, bf16, max_length 4096, per-device batch 4, activation checkpointing) on a model built
from Llama-3-8B's config in bf16 directly on the GPU (random weights: speed does not depend on
them; vocabulary 128,256, the tokenizer is a 32k BPE trained on the data, so prompt lengths in
tokens are realistic). The training path is the project's: ``citetrain.train.components``'s
``load_splits`` / ``drop_long`` / ``sft_config`` / ``peft_config`` and trl's ``SFTTrainer``, as
:func:`citetrain.runner.run_recipe` calls them; only the loading of the base weights is replaced
(building 8B once in memory instead of from a hub folder), and the model is reused between
settings (LoRA unloaded after each). ``qlora`` saves the base and loads it back 4-bit through
``setup.load_model``, the recipe path.

Settings (``--configs``, in this order):

* ``pad``: the recipe with ``data.packing: false`` (batches padded to their longest);
* ``pack``: ``data.packing: true`` (trl best-fit-decreasing, padding-free rows with per-example
  ``position_ids``: no token is padding), attention ``sdpa_varlen`` (the default with packing:
  each example attended on its own, :mod:`citetrain.models.attention`);
* ``pack-sdpa``: the same on plain ``sdpa``, whose block-diagonal mask over the whole row makes
  the kernel compute every pair of the row's tokens;
* ``pack-nockpt``: packing with activation checkpointing off, per-device batch ``--nockpt-batch``
  (4 packed rows of 4096 tokens without checkpointing need ~150 GB of activations);
* ``qlora``: ``method: qlora`` (bitsandbytes nf4), packing, checkpointing on.

Per setting it times ``--steps`` optimizer steps after ``--warmup`` (CUDA synchronized) and
prints real tokens/s (non-padding), padded tokens/s, peak GPU memory and

    MFU = 6 * N * real_tokens_per_s / peak_bf16_flops

with N every parameter of the model (frozen ones included; the usual 6N rule, which counts the
weight gradients LoRA skips and leaves out attention's own FLOPs and checkpointing's recompute).

In-loop scoring (item 2, ``--eval``): after ``pack``, one evaluation as
``CitationScoreCallback`` runs it at the recipe's settings: greedy generation of the eval subset
(``eval.subset`` examples, ``eval.max_new_tokens``) by the trained model, batched (``eval.batch_size``,
and ``--eval-batch`` for comparison), then the shared metrics on the outputs. Random weights generate garbage
ids, so the NLI load is counted on the gold completions instead (the pairs a trained refiner
makes the metrics ask), and its time is those pairs over ``--nli-pairs-per-s`` (the engine's rate
from ``bench/nli_engine.py`` on the same GPU) when given. The budget is the time between two
evaluations: ``eval.steps`` optimizer steps at the recipe's ``train.grad_accum``.

``--smoke``: CPU, a tiny Llama and a synthetic refiner set; checks the whole path in seconds.
Figures only; nothing asserted. ``--json PATH`` writes them (temp file + rename).
Run on a GPU: ``python bench/gpu_train.py --data data/gpu-bench/dataset --json out.json``.
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import io
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

from bench.train_throughput import Meter, build_data  # noqa: E402
from citetrain.models.attention import register  # noqa: E402
from citetrain.train import components as S  # noqa: E402
from citetrain.train.recipe import load_recipe  # noqa: E402

RECIPE = REPO / "recipes" / "refiner.yaml"
LLAMA3_8B = dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                 num_attention_heads=32, num_key_value_heads=8, vocab_size=128256,
                 max_position_embeddings=8192, rope_theta=500000.0, rms_norm_eps=1e-5)
SMOKE = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, vocab_size=2000, max_position_embeddings=4096)
# dense bf16 peak (TFLOP/s) by device name; --peak-tflops overrides
PEAKS = {"H100": 989.0, "H200": 989.0, "A100": 312.0, "L40S": 362.0, "A10G": 125.0}


def peak_tflops(name: str, given: float | None) -> float | None:
    if given:
        return given
    return next((v for k, v in PEAKS.items() if k in name), None)


def device_line() -> dict[str, str]:
    import transformers
    import trl

    name = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU"
    return {"device": name, "torch": torch.__version__, "transformers": transformers.__version__,
            "trl": trl.__version__}


def build_model(shape: dict[str, Any], tokenizer, device: str):
    """A Llama of ``shape`` with random weights, built where it will run (bf16 on CUDA)."""
    from transformers import AutoModelForCausalLM, LlamaConfig

    cfg = LlamaConfig(**shape, bos_token_id=tokenizer.bos_token_id,
                      eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                      tie_word_embeddings=False)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(cfg, dtype=dtype)
    return model


def overrides(data: Path, out: Path, name: str, args) -> list[str]:
    sets: dict[str, Any] = {
        "data.dataset": str(data), "data.build": "null", "train.output_dir": str(out / name),
        "train.resume": "never", "eval.enabled": "false", "eval.best_metric": "null",
        "train.max_steps": args.warmup + args.steps, "train.save_steps": 100000,
        "train.logging_steps": 100000, "train.grad_accum": args.grad_accum,
        "logging.report_to": "[none]", "train.warmup_ratio": "null", "train.warmup_steps": 0}
    if args.smoke:
        sets.update({"train.use_cpu": "true", "data.max_length": 512, "train.batch_size": 2})
    sets["data.packing"] = "false" if name == "pad" else "true"
    if name == "pack-sdpa":  # packing on sdpa's block-diagonal mask, as before sdpa_varlen
        sets["model.attn_implementation"] = "sdpa"
    if name == "pack-nockpt":
        sets.update({"model.gradient_checkpointing": "false", "train.batch_size": args.nockpt_batch})
    if name == "qlora":
        sets.update({"method": "qlora", "quantization.load_in_4bit": "true"})
    return [f"{k}={v}" for k, v in sets.items()]


@contextlib.contextmanager
def quiet(verbose: bool):
    if verbose:
        yield
        return
    log = io.StringIO()
    try:
        with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            yield
    except BaseException:
        sys.__stderr__.write(log.getvalue()[-4000:])
        raise


def train_setting(name: str, model, tokenizer, data: Path, out: Path, args) -> tuple[dict, Any]:
    """One timed run of the recipe's training path; returns its figures and the trainer."""
    from trl import SFTTrainer

    recipe = load_recipe(RECIPE, overrides(data, out, name, args))
    train_set, _ = S.load_splits(recipe, data)
    train_set = S.drop_long(train_set, tokenizer, recipe.data.max_length, "train")
    if name == "qlora":
        folder = out / "base-bf16"
        if not (folder / "config.json").is_file():
            model.save_pretrained(folder)
            tokenizer.save_pretrained(folder)
        model = S.load_model(recipe, str(folder), 0)
    else:  # the previous setting's checkpointing off (newer transformers 5: "activation_")
        off = getattr(model, "activation_checkpointing_disable", None) or model.gradient_checkpointing_disable
        off()
        impl = S.attention_implementation(recipe) or "sdpa"  # what load_model would give
        register(impl)
        model.set_attn_implementation(impl)
    meter = Meter(args.warmup, args.steps)
    callbacks: list[Any] = [meter] + ([Profile(args.warmup)] if name == args.profile else [])
    on_gpu = torch.cuda.is_available() and not args.smoke
    if on_gpu:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    with quiet(args.verbose):
        trainer = SFTTrainer(model=model, args=S.sft_config(recipe, False), train_dataset=train_set,
                             processing_class=tokenizer, peft_config=S.peft_config(recipe),
                             callbacks=callbacks)
        setup_s = time.perf_counter() - t0
        result = trainer.train()
    s = meter.seconds
    row = {"setting": name, "packing": recipe.data.packing, "method": recipe.method,
           "attention": model.config._attn_implementation,
           "checkpointing": recipe.model.gradient_checkpointing,
           "batch_size": recipe.train.batch_size, "grad_accum": recipe.train.grad_accum,
           "max_length": recipe.data.max_length, "steps": args.steps, "setup_s": setup_s,
           "step_s": s / args.steps, "real_tok_s": meter.real / s, "padded_tok_s": meter.padded / s,
           "real_share": meter.real / max(meter.padded, 1), "examples_s": meter.examples / s,
           "params": meter.params, "trainable": meter.trainable, "loss": result.training_loss,
           "peak_gib": torch.cuda.max_memory_allocated() / 2**30 if on_gpu else None}
    return row, trainer


class Profile(TrainerCallback):
    """torch.profiler over the optimizer step after ``warmup``: prints the top kernels."""

    def __init__(self, warmup: int) -> None:
        self.warmup, self.prof = warmup, None

    def on_step_begin(self, args, state, control, **kw):
        if state.global_step == self.warmup:
            from torch.profiler import ProfilerActivity, profile

            acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
            self.prof = profile(activities=acts)
            self.prof.__enter__()

    def on_step_end(self, args, state, control, **kw):
        if self.prof is not None and state.global_step == self.warmup + 1:
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            self.prof.__exit__(None, None, None)
            key = "cuda_time_total" if torch.cuda.is_available() else "cpu_time_total"
            sys.__stdout__.write(self.prof.key_averages().table(sort_by=key, row_limit=22,
                                                                max_name_column_width=60) + "\n")
            self.prof = None


def varlen_check(device: str) -> dict[str, Any]:
    """On the bench's device: a packed row through ``sdpa_varlen`` against its examples alone
    (bf16 Llama, hidden 512, 4 layers), and which kernel ran."""
    from transformers import AutoModelForCausalLM, LlamaConfig
    from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

    from citetrain.models import attention as A

    register(A.NAME)
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=1000, hidden_size=512, intermediate_size=1024, num_hidden_layers=4,
                      num_attention_heads=8, num_key_value_heads=2, pad_token_id=0)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation=A.NAME).eval()
    parts = [torch.randint(1, 1000, (n,)) for n in (300, 41, 1200, 7)]
    batch = DataCollatorForLanguageModeling(pad_token_id=0, padding_free=True)(
        [{"input_ids": torch.cat(parts[:2]).tolist(), "seq_lengths": [300, 41]},
         {"input_ids": torch.cat(parts[2:]).tolist(), "seq_lengths": [1200, 7]}])
    batch = {k: v.to(device) if torch.is_tensor(v) else v for k, v in batch.items() if k != "labels"}
    with torch.no_grad():
        packed = model(**batch, use_cache=False).logits[0].float()
        alone = torch.cat([model(input_ids=p[None].to(device), use_cache=False).logits[0]
                           for p in parts]).float()
    kernel = "varlen_attn" if device == "cuda" and A._varlen_kernel() is not None else "per-example sdpa"
    diff = float((packed - alone).abs().max())
    print(f"sdpa_varlen check on {device} ({kernel}): max |logit difference| packed vs alone "
          f"{diff:.3g} (logits' scale {float(alone.abs().max()):.3g})", flush=True)
    return {"kernel": kernel, "max_abs_diff": diff, "scale": float(alone.abs().max())}


def in_loop_cost(trainer, tokenizer, data: Path, out: Path, args, train_row: dict) -> dict:
    """One in-loop evaluation at the recipe's settings, against the time between two."""
    from citetrain.models.generate import generate_texts
    from citetrain.nli.registry import make_engine
    from citetrain.train.scoring import score_outputs

    recipe = load_recipe(RECIPE, overrides(data, out, "pack", args))
    _, eval_set = S.load_splits(recipe, data)
    eval_set = S.drop_long(eval_set, tokenizer, recipe.data.max_length, "eval")
    subset = [dict(r) for r in eval_set.select(S.whole_records(eval_set["id"], recipe.eval.subset))]
    records = S.load_records(data)
    prompts = [ex["prompt"] for ex in subset]
    e = recipe.eval
    gen: dict[str, float] = {}
    on_gpu = torch.cuda.is_available() and not args.smoke
    for bs in sorted({e.batch_size, args.eval_batch}):
        if on_gpu:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        # random weights: the outputs are no ids; the NLI load is counted on the gold below
        generate_texts(trainer.model, tokenizer, prompts, max_new_tokens=e.max_new_tokens,
                       batch_size=bs, max_length=recipe.data.max_length)
        if on_gpu:
            torch.cuda.synchronize()
        gen[str(bs)] = time.perf_counter() - t0
    engine = make_engine("lexical", progress=False)
    t0 = time.perf_counter()
    score_outputs(recipe.kind, records, subset, [ex["completion"] for ex in subset], e.metrics, engine)
    scoring_s = time.perf_counter() - t0
    pairs = engine.stats.model_pairs
    nli_s = pairs / args.nli_pairs_per_s if args.nli_pairs_per_s else None
    # the recipe's step: batch_size x its own grad_accum micro-batches (timed with --grad-accum)
    full_grad_accum = load_recipe(RECIPE).train.grad_accum
    between = e.steps * train_row["step_s"] * full_grad_accum / train_row["grad_accum"]
    cost = gen[str(e.batch_size)] + (nli_s or 0.0) + scoring_s  # at the recipe's batch
    return {"examples": len(subset), "max_new_tokens": e.max_new_tokens, "generate_s": gen,
            "recipe_eval_batch": e.batch_size, "lexical_scoring_s": scoring_s, "nli_pairs": pairs,
            "nli_pairs_per_s": args.nli_pairs_per_s, "nli_s": nli_s, "eval_steps": e.steps,
            "recipe_grad_accum": full_grad_accum, "train_between_s": between,
            "eval_s": cost, "eval_share": cost / (cost + between)}


def unload(trainer) -> Any:
    """The base model back without its LoRA layers; the trainer's memory freed."""
    base = trainer.model.unload() if hasattr(trainer.model, "unload") else trainer.model
    trainer.model = trainer.model_wrapped = trainer.optimizer = None
    del trainer
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return base


def print_table(head: dict, rows: list[dict], loop: dict | None) -> None:
    peak = head["peak_tflops"]
    # 4-bit weights count half their numel: N from the bf16 settings
    n = max(r["params"] for r in rows)
    print(f"\n{head['device']} · torch {head['torch']} · transformers {head['transformers']} · "
          f"trl {head['trl']} · {head['shape']} ({n / 1e9:.2f}B params, "
          f"{rows[0]['trainable'] / 1e6:.1f}M trainable) · {head['date']}")
    if peak:
        print(f"MFU = 6 * N * real tokens/s / {peak:g} TFLOP/s (N = {n / 1e9:.3f}B)")
    print(f"{'setting':<12} {'attention':<12} {'batch':>5} {'ckpt':>5} {'ms/step':>8} {'real tok/s':>10} "
          f"{'padded/s':>10} {'real%':>6} {'MFU':>6} {'peak GiB':>8} {'loss':>7}")
    for r in rows:
        mfu = 6 * n * r["real_tok_s"] / (peak * 1e12) if peak else None
        r["mfu"] = mfu
        gib = f"{r['peak_gib']:.1f}" if r["peak_gib"] is not None else "-"
        print(f"{r['setting']:<12} {r['attention'] or 'sdpa':<12} {r['batch_size']:>5} {str(r['checkpointing']):>5} "
              f"{r['step_s'] * 1000:>8.0f} {r['real_tok_s']:>10,.0f} {r['padded_tok_s']:>10,.0f} "
              f"{r['real_share']:>6.1%} {f'{mfu:.1%}' if mfu else '-':>6} {gib:>8} {r['loss']:>7.3f}")
    by = {r["setting"]: r for r in rows}
    if "pad" in by and "pack" in by:
        print(f"packing / padding, real tokens/s: {by['pack']['real_tok_s'] / by['pad']['real_tok_s']:.2f}x")
    if loop:
        gens = ", ".join(f"batch {k}: {v:.1f}s" for k, v in loop["generate_s"].items())
        nli = (f"{loop['nli_s']:.1f}s ({loop['nli_pairs']} pairs at {loop['nli_pairs_per_s']:.0f}/s)"
               if loop["nli_s"] is not None else f"{loop['nli_pairs']} pairs (no --nli-pairs-per-s)")
        print(f"in-loop eval: {loop['examples']} examples, generate {gens}; NLI {nli}; metrics "
              f"{loop['lexical_scoring_s']:.1f}s; = {loop['eval_s']:.1f}s vs {loop['eval_steps']} "
              f"steps x grad_accum {loop['recipe_grad_accum']} = {loop['train_between_s']:.0f}s of "
              f"training: {loop['eval_share']:.1%} of the time")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None,
                    help="a built refiner dataset (default: built from synthetic records)")
    ap.add_argument("--configs", default="pad,pack,pack-sdpa,pack-nockpt,qlora")
    ap.add_argument("--profile", default=None, help="a setting whose first timed step is profiled")
    ap.add_argument("--steps", type=int, default=5, help="timed optimizer steps per setting")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--grad-accum", type=int, default=1,
                    help="micro-batches per timed step (the recipe's 4 only lengthens the run)")
    ap.add_argument("--nockpt-batch", type=int, default=1)
    ap.add_argument("--eval", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--eval-batch", type=int, default=8,
                    help="a second generation batch size to compare (8: eval.batch_size's default)")
    ap.add_argument("--nli-pairs-per-s", type=float, default=None)
    ap.add_argument("--peak-tflops", type=float, default=None)
    ap.add_argument("--work", type=Path, default=None, help="scratch folder (default: temp)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--smoke", action="store_true", help="CPU, tiny model, synthetic data")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    import datasets

    datasets.disable_progress_bars()
    device = "cuda" if torch.cuda.is_available() and not args.smoke else "cpu"
    if device == "cpu" and not args.smoke:
        print("no GPU: run with --smoke on a CPU")
        return 2
    head = {**device_line(), "shape": "tiny Llama (smoke)" if args.smoke else "Llama-3-8B shape",
            "date": time.strftime("%Y-%m-%d")}
    configs = [c for c in args.configs.split(",") if c]
    if args.smoke:
        configs = [c for c in configs if c != "qlora"]
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        out = Path(tmp)
        data = args.data or build_data(out, 60, 0)
        from citetrain.models.tiny import train_tokenizer

        t0 = time.perf_counter()
        train_set, _ = S.load_splits(load_recipe(RECIPE, overrides(data, out, "pad", args)), data)
        tokenizer = train_tokenizer((r["prompt"] + r["completion"] for r in train_set),
                                    2000 if args.smoke else 32000)
        model = build_model(SMOKE if args.smoke else LLAMA3_8B, tokenizer, device)
        head["build_s"] = time.perf_counter() - t0
        head["varlen_check"] = varlen_check(device)
        print(f"{head['device']}: tokenizer and model built in {head['build_s']:.0f}s", flush=True)
        rows, loop = [], None
        for name in configs:
            try:
                row, trainer = train_setting(name, model, tokenizer, data, out, args)
            except Exception as exc:  # out of memory, or a library refusing: the others still run
                print(f"{name}: failed: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}",
                      flush=True)
                gc.collect()
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                continue
            rows.append(row)
            save(args.json, head, rows, loop)
            print(f"{name}: {row['step_s'] * 1000:.0f} ms/step, {row['real_tok_s']:,.0f} real "
                  f"tok/s, peak {row['peak_gib'] or 0:.1f} GiB", flush=True)
            if name == "pack" and args.eval:
                loop = in_loop_cost(trainer, tokenizer, data, out, args, row)
                save(args.json, head, rows, loop)
            if name == "qlora":
                del trainer
                gc.collect()
            else:
                model = unload(trainer)
    head["peak_tflops"] = None if args.smoke else peak_tflops(head["device"], args.peak_tflops)
    if rows:
        print_table(head, rows, loop)
    save(args.json, head, rows, loop)
    return 0 if rows else 1


def save(path: Path | None, head: dict, rows: list[dict], loop: dict | None) -> None:
    """The figures so far (after every setting: a run cut short keeps what finished)."""
    if path is not None:
        from citetrain.io.writers import atomic_write_text

        atomic_write_text(path, json.dumps({"head": head, "rows": rows, "in_loop": loop},
                                           indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
