"""Figures: a weight soup of cross-encoder judges, one judge at one judge's cost.

The three seeds' judges averaged pair by pair (``experiments/judge_seeds.py --combine ensemble``) gain
0.04 ROC-AUC on WiCE over their mean, at three times the cost. Runs fine-tuned from the same
starting model (stage 2 from one stage-1 model, with different ``train.seed``) can instead have
their weights averaged (a uniform "model soup", Wortsman et al. 2022): one model, no extra cost at
inference. This script averages the ``final`` weights of the given runs (every floating tensor;
integer buffers from the first run), saves the soup as ``OUT/final`` with the first run's config
and tokenizer, scores it on the validation split of ``--dataset`` as a trained run is scored
(:func:`citetrain.judge_training.card.heldout_figures`, per-pair scores in
``OUT/heldout_scores.jsonl``) and writes ``OUT/train_summary.json``, so that
``experiments/judge_seeds.py --row soup=OUT,...`` reads it like any run.
Run: ``python experiments/judge_soup.py --out runs/soup-s42 runs/2stage-s42 runs/2stage-r1-s42``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

WEIGHTS = "model.safetensors"


def average(folders: list[Path]) -> dict:
    """The uniform average of the safetensors weights in ``folders`` (same names and shapes)."""
    from safetensors.torch import load_file

    states = [load_file(str(f / WEIGHTS)) for f in folders]
    names = set(states[0])
    for f, s in zip(folders[1:], states[1:]):
        if set(s) != names or any(s[k].shape != states[0][k].shape for k in names):
            raise SystemExit(f"[soup] {f}: weights differ in names or shapes from {folders[0]}")
    out = {}
    for k, first in states[0].items():
        if first.is_floating_point():
            out[k] = (sum(s[k].double() for s in states) / len(states)).to(first.dtype)
        else:
            out[k] = first.clone()
    return out


def soup(runs: list[Path], out: Path) -> Path:
    """Save the soup of ``runs``' final models as ``out/final`` (written beside, then renamed)."""
    from safetensors.torch import save_file

    from citetrain.io.writers import atomic_dir

    finals = [r / "final" if (r / "final").is_dir() else r for r in runs]
    for f in finals:
        if not (f / WEIGHTS).is_file():
            raise SystemExit(f"[soup] {f}: no {WEIGHTS}")
    with atomic_dir(out / "final") as tmp:
        for item in finals[0].iterdir():
            if item.is_file() and item.name != WEIGHTS and item.name != "README.md":
                shutil.copy(item, tmp / item.name)
        save_file(average(finals), str(tmp / WEIGHTS), metadata={"format": "pt"})
    return out / "final"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, help="runs (or their final folders) to average")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--dataset", type=Path,
                    default=REPO / "data" / "judge-crossencoder-tok" / "dataset",
                    help="the human pairs dataset whose validation split scores the soup")
    args = ap.parse_args()
    if len(args.runs) < 2:
        ap.error("give at least two runs to average")
    import datasets

    from citetrain.io.writers import atomic_write_text
    from citetrain.judge_training.card import heldout_figures

    start = time.perf_counter()
    final = soup(args.runs, args.out)
    validation = datasets.load_from_disk(str(args.dataset))["validation"]
    held = heldout_figures(final, validation, args.out / "heldout_scores.jsonl")
    summary = {"soup_of": [str(r) for r in args.runs], "heldout": held}
    atomic_write_text(args.out / "train_summary.json", json.dumps(summary, indent=2))
    figs = "  ".join(f"{s['source']} {s['model']:.3f} (lexical {s['lexical']:.3f})"
                     for s in held["sources"])
    print(f"[soup] {args.out}: {len(args.runs)} runs, {time.perf_counter() - start:.0f} s  {figs}",
          flush=True)


if __name__ == "__main__":
    main()
