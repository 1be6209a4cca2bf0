"""Figures: how a CiteEval judge's context attribution agrees with ExpertQA's experts.

CiteEval rates only *retrieval* statements; the others (query, response, model) are N/A. ExpertQA
has no context labels, but its experts marked each claim citation-worthy or not (``worthiness``),
the nearest human label to CiteEval's applicability (whose paper scores context attribution by the
F1 of applicability, Table 7). For each split and each pair of context gates ``QUERY:RESPONSE``
(``query_recall`` / ``response_recall`` of :func:`citetrain.metrics.citeeval.citeeval`; ``0:0`` is
φ alone) this runs the metric with ``--nli`` (union first) and prints the contexts,
and the precision, recall, F1 and balanced accuracy of "applicable" against "citation-worthy" on
the statements whose claim carries a worthiness label (matched by the sentence as written).

Run: ``HF_HUB_OFFLINE=1 python experiments/context_attribution.py [--nli SPEC] [--dtype bf16]
[--splits rand_val] [--gates 0:0,1:0.8] [--limit N] [--json PATH]``; ``--smoke``: the lexical
NLI on the first 5 answers of rand_val. Needs ``../shared/data/expertqa``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SPLITS = REPO.parent / "shared" / "data" / "expertqa" / "annotated_splits"
JUDGE = f"mean:classifier:{REPO / 'runs/d4c-cpu/mixed-s42/final'}+lexical"


def _norm(text: str) -> str:
    return " ".join(text.split())


def worthiness(records) -> dict[tuple[str, int], bool]:
    """``(record id, statement index) -> citation-worthy`` for the statements whose sentence as
    written is one of the record's annotated claims with worthiness ``Yes`` or ``No``."""
    from citetrain.analysis.support import analyses_of

    out = {}
    for rec in records:
        labels = {_norm(a["claim"]): a.get("worthiness")
                  for a in rec.annotations or []}
        for s in analyses_of(rec):
            w = labels.get(_norm(s.raw or s.text))
            if w in ("Yes", "No"):
                out[rec.id, s.index] = w == "Yes"
    return out


def applicability_scores(applicable: Sequence[bool], worthy: Sequence[bool]) -> dict[str, float]:
    """Precision, recall, F1 and balanced accuracy of ``applicable`` (context retrieval) against
    ``worthy`` (the experts' citation-worthiness), as scikit-learn computes them."""
    from sklearn.metrics import balanced_accuracy_score, f1_score, precision_score, recall_score

    y, p = list(worthy), list(applicable)
    return {"precision": precision_score(y, p, zero_division=0.0),
            "recall": recall_score(y, p, zero_division=0.0),
            "f1": f1_score(y, p, zero_division=0.0),
            "balanced_accuracy": balanced_accuracy_score(y, p)}


def measure(records, engine, gates: tuple[float, float], labels: dict) -> dict:
    """Contexts and applicability figures of the ``citeeval`` metric with these gates."""
    from citetrain.metrics.citeeval import citeeval

    engine.forget()
    res = citeeval(records, engine, union_first=True, query_recall=gates[0],
                   response_recall=gates[1])
    rows = [(r["id"], r["statement"], r["context"]) for r in res.per_statement]
    known = [(labels[i, k], c == "retrieval") for i, k, c in rows if (i, k) in labels]
    return {"gates": list(gates), "statements": len(rows),
            "contexts": dict(Counter(c for _, _, c in rows)), "labelled": len(known),
            "worthy": sum(w for w, _ in known), "applicable": sum(a for _, a in known),
            **applicability_scores([a for _, a in known], [w for w, _ in known])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nli", default=JUDGE)
    ap.add_argument("--dtype", default="bf16", help="the NLI model's weights (classifier members)")
    ap.add_argument("--splits", default="rand_val")
    ap.add_argument("--gates", default="0:0,1:0.8", help="QUERY:RESPONSE recall gates, comma-separated")
    ap.add_argument("--limit", type=int, help="the first N answers of each split")
    ap.add_argument("--json")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.nli, args.limit, args.splits = "lexical", 5, "rand_val"
    import torch

    from citetrain.io.readers import read_records
    from citetrain.nli.registry import make_engine

    torch.set_num_threads(int(os.environ.get("THREADS", os.cpu_count() or 1)))
    options = {"dtype": args.dtype} if "classifier:" in args.nli else {}
    engine = make_engine(args.nli, cache=False, progress=False, **options)
    gates = [tuple(float(x) for x in g.split(":")) for g in args.gates.split(",")]
    print(f"NLI {engine.name}; union first; applicable = context retrieval, against ExpertQA worthiness")
    print(f"{'split':<12}{'gates':<10}{'query':>6}{'resp':>6}{'retr':>6}{'model':>6}"
          f"{'labelled':>9}{'prec':>7}{'rec':>7}{'F1':>7}{'bal.acc':>8}")
    out = []
    for split in args.splits.split(","):
        path = SPLITS / f"{split}.jsonl"
        if not path.is_file():
            sys.exit(f"{path}: not found (ExpertQA's annotated splits, ../shared/data)")
        records = read_records(str(path), "expertqa").records[: args.limit]
        labels = worthiness(records)
        for g in gates:
            row = {"split": split, **measure(records, engine, g, labels)}
            out.append(row)
            c = row["contexts"]
            print(f"{split:<12}{f'{g[0]:g}/{g[1]:g}':<10}" + "".join(
                f"{c.get(k, 0):>6}" for k in ("query", "response", "retrieval", "model"))
                + f"{row['labelled']:>9}{row['precision']:>7.3f}{row['recall']:>7.3f}"
                f"{row['f1']:>7.3f}{row['balanced_accuracy']:>8.3f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
