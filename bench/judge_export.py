"""Benchmark: the exported (ONNX) judge against the PyTorch one, on the held-out claims.

Exports ``--crossencoder PATH`` (default ``runs/judge-crossencoder/final``) with ``citetrain
export`` as fp32 and int8 ONNX, then scores the validation split of ``--recipe`` (default
``recipes/judge-crossencoder.yaml``: the held-out claims of WiCE, AttributionBench and ExpertQA in
``../shared/data``) with each through citetrain's reader (``classifier:PATH``, preprocessing and
stack as saved), and prints per row: pairs/s, the largest |Δ| of any label probability against
PyTorch fp32, and the ROC-AUC per source (the model card's figure). Figures only.
Run: ``python bench/judge_export.py [--threads 2] [--crossencoder PATH]``.
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--crossencoder", default=str(REPO / "runs" / "judge-crossencoder" / "final"))
    ap.add_argument("--recipe", default="recipes/judge-crossencoder.yaml")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    import torch

    from citetrain.io.console import quiet_libraries
    from citetrain.judges.export import export_onnx
    from citetrain.metrics.meta import meta_evaluate
    from citetrain.nli.registry import make_engine
    from citetrain.train import setup as S
    from citetrain.train.crossencoder import ensure_pairs
    from citetrain.train.judge_card import auc
    from citetrain.train.recipe import load_recipe

    quiet_libraries(None)
    torch.set_num_threads(args.threads)
    recipe = load_recipe(REPO / args.recipe if not Path(args.recipe).exists() else args.recipe)
    _, val = S.load_splits(recipe, ensure_pairs(recipe, True))
    pairs = list(zip(val["premise"], val["hypothesis"]))
    labels, groups = list(val["label"]), list(val["group"])
    sources = [s.partition(":")[0] for s in val["source"]]
    names = sorted(set(sources))
    tmp = Path(tempfile.mkdtemp(prefix="citetrain-export-"))
    rows = [("PyTorch fp32", args.crossencoder, "fp32"), ("PyTorch int8 (torch dynamic)", args.crossencoder, "int8")]
    for int8 in (False, True):
        out = tmp / ("onnx-int8" if int8 else "onnx-fp32")
        start = time.perf_counter()
        export_onnx(args.crossencoder, out, int8=int8)
        print(f"exported {out.name} in {time.perf_counter() - start:.1f} s")
        rows.append((f"ONNX Runtime {'int8' if int8 else 'fp32'}", str(out), "auto"))
    print(f"\n{len(pairs)} held-out pairs ({args.recipe}), torch threads {args.threads}\n")
    print(f"{'judge':<30}{'pairs/s':>8}{'max |Δp|':>10}" + "".join(f"{n[:12]:>13}" for n in names))
    reference = None
    for name, path, dtype in rows:
        engine = make_engine(f"classifier:{path}", cache=False, progress=False, device="cpu", dtype=dtype)
        start = time.perf_counter()
        res = engine.results(pairs)
        rate = len(pairs) / (time.perf_counter() - start)
        probs = [r.support or (r.prob,) for r in res]
        reference = reference or probs
        diff = max(abs(x - y) for a, b in zip(probs, reference) for x, y in zip(a, b))
        aucs = []
        for n in names:
            idx = [i for i, s in enumerate(sources) if s == n]
            aucs.append(auc(meta_evaluate([res[i].expected for i in idx], [labels[i] for i in idx],
                                          [groups[i] for i in idx])))
        print(f"{name:<30}{rate:>8.1f}{diff:>10.2e}" + "".join(f"{a:>13.4f}" for a in aucs))


if __name__ == "__main__":
    main()
