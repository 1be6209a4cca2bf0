"""Validation ROC-AUC of a cross-encoder judge on WiCE, AttributionBench and ExpertQA, one pass.

    python experiments/crossencoder_eval.py runs/judge-crossencoder/final [--premise select] [--lexical]

Reads the three human-labelled sets in ``../shared/data`` (the validation part, by the recipe's
split rule: hash of the claim text, fraction 0.3, seed 0), scores each pair once with the
``classifier:`` NLI and prints the one-vs-one mean ROC-AUC of P(supported) — what ``citetrain
meta-eval`` reports — and of the expected support level P(supported) + P(partial) / 2. The
figures of record come from ``citetrain meta-eval``; this is the quick look between runs.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
SETS = {
    "wice": ("wice", ["wice/entailment_retrieval_claim/dev.jsonl"]),
    "attributionbench": ("attributionbench", ["attributionbench/dev_all_subset_balanced.jsonl"]),
    "expertqa": ("expertqa", [f"expertqa/annotated_splits/{s}.jsonl"
                              for s in ("rand_val", "rand_test", "domain_val", "domain_test")]),
}


def auc(result: dict) -> float:
    """The ROC-AUC meta-eval reports first: binary, else the one-vs-one mean."""
    return float(result.get("roc_auc", result.get("roc_auc_mean", float("nan"))))


def main() -> None:
    import torch

    from citetrain.io.labelled import read_labelled
    from citetrain.metrics.meta import meta_evaluate
    from citetrain.nli.classifier import ClassifierNLI
    from citetrain.nli.lexical import LexicalNLI
    from citetrain.judge_training.pairs import split_pairs

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--premise", choices=["windows", "select", "cut"])
    ap.add_argument("--lexical", action="store_true", help="also the lexical baseline")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    nli = ClassifierNLI(args.model, device="cpu", batch_size=32, premise=args.premise)
    out = {}
    for name, (fmt, files) in SETS.items():
        pairs = read_labelled([DATA / f for f in files], fmt)
        pairs = split_pairs(pairs, 0.3, 0, "validation")
        labels, groups = [p.label for p in pairs], [p.group for p in pairs]
        start = time.time()
        res = nli.predict([(p.premise, p.hypothesis) for p in pairs])
        row = {"n": len(pairs), "p_supported": auc(meta_evaluate([r.prob for r in res], labels,
                                                                 groups)),
               "seconds": round(time.time() - start, 1)}
        if nli.three_way:
            exp = [r.support[0] + r.support[1] / 2 for r in res]
            row["expected_support"] = auc(meta_evaluate(exp, labels, groups))
        if args.lexical:
            lex = LexicalNLI().predict([(p.premise, p.hypothesis) for p in pairs])
            row["lexical"] = auc(meta_evaluate([r.prob for r in lex], labels, groups))
        out[name] = row
        print(name, json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
