"""Benchmark: the exported (ONNX, OpenVINO) judge against the PyTorch one, on the held-out claims.

Exports ``--crossencoder PATH`` (default ``runs/judge-crossencoder/final``) with ``citetrain
export`` as fp32 and int8 ONNX and as fp32 and int8 OpenVINO (int8 calibrated on the recipe's
training pairs, ``--calibration-pairs``; both read in fp32 and, on a CPU that multiplies bf16
natively, in bf16), then scores the validation split of ``--recipe`` (default
``recipes/judge-crossencoder.yaml``: the held-out claims of WiCE, AttributionBench and ExpertQA in
``../shared/data``) with each through citetrain's reader (``classifier:PATH``, preprocessing as
saved), and prints per row: pairs/s, the largest |Δ| of any label probability against
PyTorch fp32, and the ROC-AUC per source, alone (the model card's figure) / read with lexical
recall ((e + r) / 2, as the production judge is served). Figures only.
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
    ap.add_argument("--runtimes", default="onnx,openvino", help="which exports (comma-separated)")
    ap.add_argument("--calibration-pairs", type=int, default=300)
    args = ap.parse_args()
    import torch

    from citetrain.io.console import quiet_libraries
    from citetrain.judges.export import RUNTIME_NAMES, export_judge
    from citetrain.metrics.meta import meta_evaluate
    from citetrain.nli.hf import cpu_has_bf16
    from citetrain.nli.registry import make_engine
    from citetrain.train import components as S
    from citetrain.judge_training.pairs import ensure_pairs
    from citetrain.judge_training.card import auc
    from citetrain.train.recipe import load_recipe

    quiet_libraries(None)
    torch.set_num_threads(args.threads)
    recipe = load_recipe(REPO / args.recipe if not Path(args.recipe).exists() else args.recipe)
    dataset = ensure_pairs(recipe, True)
    _, val = S.load_splits(recipe, dataset)
    pairs = list(zip(val["premise"], val["hypothesis"]))
    labels, groups = list(val["label"]), list(val["group"])
    sources = [s.partition(":")[0] for s in val["source"]]
    names = sorted(set(sources))
    tmp = Path(tempfile.mkdtemp(prefix="citetrain-export-"))
    bf16 = cpu_has_bf16()
    rows = [("PyTorch fp32", args.crossencoder, "fp32"), ("PyTorch int8 (torch dynamic)", args.crossencoder, "int8")]
    rows += [("PyTorch bf16", args.crossencoder, "bf16")] if bf16 else []
    for runtime in args.runtimes.split(","):
        for int8 in (False, True):
            out = tmp / f"{runtime}-{'int8' if int8 else 'fp32'}"
            start = time.perf_counter()
            calib = dict(calibration=dataset, calibration_size=args.calibration_pairs) if (
                int8 and runtime == "openvino") else {}
            export_judge(args.crossencoder, out, runtime=runtime, int8=int8, **calib)
            print(f"exported {out.name} in {time.perf_counter() - start:.1f} s")
            name = f"{RUNTIME_NAMES[runtime]} {'int8' if int8 else 'fp32'}"
            rows.append((name, str(out), "fp32"))
            if runtime == "openvino" and bf16:
                rows.append((f"{name}, bf16 rest" if int8 else "OpenVINO bf16", str(out), "bf16"))
    print(f"\n{len(pairs)} held-out pairs ({args.recipe}), torch threads {args.threads}\n")
    print(f"{'judge':<34}{'pairs/s':>8}{'max |Δp|':>10}" + "".join(f"{n[:14]:>15}" for n in names))
    lexical = [r.expected for r in make_engine("lexical", cache=False, progress=False).results(pairs)]
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
            truth = [labels[i] for i in idx], [groups[i] for i in idx]
            alone = auc(meta_evaluate([res[i].expected for i in idx], *truth))
            mean = auc(meta_evaluate([(res[i].expected + lexical[i]) / 2 for i in idx], *truth))
            aucs.append(f"{alone:.4f}/{mean:.4f}")
        print(f"{name:<34}{rate:>8.1f}{diff:>10.2e}" + "".join(f"{a:>15}" for a in aucs))


if __name__ == "__main__":
    main()
