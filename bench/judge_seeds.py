"""Figures: the cross-encoder judge's held-out ROC-AUC over training seeds, per row and source.

Each ``--row NAME=RUN[,RUN...]`` names trained runs (``train.output_dir`` folders) of one way of
training, one per seed; a run's figures are the ``heldout`` of its ``train_summary.json`` (written
with ``eval.card: true``: ROC-AUC of the expected support level on every validation pair of a
source, the mean of the one-vs-one ROC-AUCs on three-level sources; see
:mod:`citetrain.train.judge_card`), or computed here from its ``final`` model on the validation
split of ``--dataset`` when the summary lacks them. Prints per source the lexical baseline and each
row's mean ± sd (sample sd over seeds) with the seeds' values, and whether the last row clears the
issue's bar: above lexical on WiCE, AttributionBench and ExpertQA, and on WiCE by ``--margin``.
A run whose recipe set ``eval.stack`` counts as saved, stacked with lexical recall; ``--row
NAME:alone=RUNS`` reads the same runs' models alone.
Run: ``python bench/judge_seeds.py --row human=runs/a,runs/b --row 2stage=runs/c,runs/d``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

MAIN = ("wice", "attributionbench", "expertqa")


def figures(run: Path, dataset: Path, alone: bool = False) -> dict[str, dict[str, float]]:
    """``{source: {"model": auc, "lexical": auc}}`` of one run: the judge as it is saved (stacked
    with lexical recall when its recipe set ``eval.stack``), or with ``alone`` its model alone."""
    summary = json.loads((run / "train_summary.json").read_text())
    held = summary.get("heldout")
    if not held:
        import datasets

        from citetrain.train.judge_card import heldout_figures

        held = heldout_figures(run / "final", datasets.load_from_disk(str(dataset))["validation"])
    pick = "model" if alone else "stacked"
    return {s["source"]: {"model": s.get(pick, s["model"]), "lexical": s["lexical"]}
            for s in held["sources"]}


def spread(values: list[float]) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.3f} ± {sd:.3f}"


def print_table(rows: dict[str, list[Path]], dataset: Path, margin: float = 0.03,
                alone: tuple[str, ...] = ()) -> bool:
    """Print per source lexical and each row's mean ± sd over its runs, the seeds' values, and
    whether the last row clears the bar; returns whether it does. Rows named in ``alone`` read
    stacked judges without their stack."""
    figs = {name: {str(r): figures(Path(r), dataset, name in alone) for r in runs}
            for name, runs in rows.items()}
    first = next(iter(next(iter(figs.values())).values()))
    sources = sorted(first, key=lambda s: (s not in MAIN, MAIN.index(s) if s in MAIN else 0, s))
    print(f"{'source':<18}{'lexical':>9}" + "".join(f"{n:>24}" for n in figs))
    means = {}
    for src in sources:
        lex = first[src]["lexical"]
        cells = []
        for name, runs in figs.items():
            vals = [f[src]["model"] for f in runs.values() if src in f]
            means[name, src] = statistics.mean(vals)
            cells.append(f"{spread(vals):>24}")
        print(f"{src:<18}{lex:>9.3f}" + "".join(cells))
    print("\nper seed:")
    for name, runs in figs.items():
        for run, f in runs.items():
            print(f"  {name:<10}{run:<40}" + "  ".join(f"{s} {f[s]['model']:.3f}" for s in sources if s in f))
    last = list(figs)[-1]
    wins = {s: means[last, s] - first[s]["lexical"] for s in MAIN if s in first}
    ok = all(d > 0 for d in wins.values()) and wins.get("wice", -1) >= margin
    print(f"\n{last} minus lexical: " + ", ".join(f"{s} {d:+.3f}" for s, d in wins.items())
          + f"; target (above on all three, WiCE by {margin}) {'met' if ok else 'not met'}")
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--row", action="append", required=True, metavar="NAME=RUN[,RUN...]")
    ap.add_argument("--dataset", default=str(REPO / "data" / "judge-crossencoder-tok" / "dataset"))
    ap.add_argument("--margin", type=float, default=0.03)
    args = ap.parse_args()
    rows, alone = {}, []
    for spec in args.row:
        name, _, runs = spec.partition("=")
        if name.endswith(":alone"):  # NAME:alone=RUNS: stacked judges read without the stack
            alone.append(name)
        rows[name] = [Path(r) for r in runs.split(",") if r]
    print_table(rows, Path(args.dataset), args.margin, tuple(alone))


if __name__ == "__main__":
    main()
