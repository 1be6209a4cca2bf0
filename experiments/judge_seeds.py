"""Figures: the cross-encoder judge's held-out ROC-AUC over training seeds, per row and source.

Each ``--row NAME=RUN[,RUN...]`` names trained runs (``train.output_dir`` folders) of one way of
training, one per seed; a run's figures are the ``heldout`` of its ``train_summary.json`` (written
with ``crossencoder.card: true``: ROC-AUC of the expected support level on every validation pair
of a source, the mean of the one-vs-one ROC-AUCs on three-level sources; see
:mod:`citetrain.judge_training.card`), or computed here from its ``final`` model on the validation
split of ``--dataset`` when the summary lacks them. Prints per source the lexical baseline and each
row's mean ± sd (sample sd over seeds) with the seeds' values, and whether the last row clears the
issue's bar: above lexical on WiCE, AttributionBench and ExpertQA, and on WiCE by ``--margin``.
``--measure ps_vs_ns`` (or ``fs_vs_ns``, ``fs_vs_ps``): one of the one-vs-one ROC-AUCs instead of
their mean, on the three-level sources, from the runs' saved per-pair scores (where a judge loses
to lexical recall: which levels it confuses). ``--bootstrap N``: how sure the last row's margins over lexical
recall are, from N resamples of the held-out claims (:func:`bootstrap_margins`). ``--read
clauses``: every run's ``final`` model read as ``clauses:classifier:PATH`` (the
whole statement and its clause segments averaged, :mod:`citetrain.nli.clauses`) on the validation
split of ``--dataset``, its per-pair scores written to ``heldout_scores_clauses.jsonl`` in the run
(what ``--combine`` and ``--measure`` then read; a later call reads the file instead of the model).
Run: ``python experiments/judge_seeds.py --row human=runs/a,runs/b --row 2stage=runs/c,runs/d``.
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
CLAUSE_SCORES = "heldout_scores_clauses.jsonl"


def figures(run: Path, dataset: Path) -> dict[str, dict[str, float]]:
    """``{source: {"model": auc, "lexical": auc}}`` of one run's saved judge."""
    summary = json.loads((run / "train_summary.json").read_text())
    held = summary.get("heldout")
    if not held:
        import datasets

        from citetrain.judge_training.card import heldout_figures

        held = heldout_figures(run / "final", datasets.load_from_disk(str(dataset))["validation"])
    return {s["source"]: {"model": s["model"], "lexical": s["lexical"]} for s in held["sources"]}


def clause_figures(run: Path, dataset: Path) -> dict[str, dict[str, float]]:
    """``{source: {"model": auc, "lexical": auc}}`` of a run's model read clause by clause
    (``clauses:classifier:RUN/final``, alone), its per-pair scores written to
    ``RUN/heldout_scores_clauses.jsonl``; a run whose file is newer than its model is read from
    the file (delete it to score again)."""
    saved, weights = run / CLAUSE_SCORES, run / "final" / "model.safetensors"
    if saved.is_file() and (not weights.is_file() or saved.stat().st_mtime > weights.stat().st_mtime):
        return combined([run], "alone", scores=CLAUSE_SCORES)[str(run)]
    import datasets
    import torch

    from citetrain.nli.registry import make_engine
    from citetrain.judge_training.card import heldout_figures

    device = "cpu" if not torch.cuda.is_available() else "auto"
    engine = make_engine(f"clauses:classifier:{run / 'final'}", cache=False, progress=False,
                         device=device)
    held = heldout_figures(run / "final", datasets.load_from_disk(str(dataset))["validation"],
                           scores_to=run / CLAUSE_SCORES, model=engine)
    return {s["source"]: {"model": s["model"], "lexical": s["lexical"]} for s in held["sources"]}


def read_scores(runs: list[Path], scores: str = "heldout_scores.jsonl") -> list[list[dict]]:
    """Each run's saved per-pair held-out scores (``scores``, JSON lines)."""
    return [[json.loads(x) for x in (r / scores).read_text().splitlines()] for r in runs]


def same_pairs(tables: list[list[dict]], what: str) -> None:
    """Exit when the runs' score files are not of the same held-out pairs, in the same order."""
    keys = [[(x["source"], x["group"], x["label"]) for x in t] for t in tables]
    if any(k != keys[0] for k in keys):
        raise SystemExit(f"{what}: the runs scored different held-out pairs")


def combined(runs: list[Path], how: str, size: int | None = None,
             measure: str | None = None,
             scores: str = "heldout_scores.jsonl") -> dict[str, dict[str, dict[str, float]]]:
    """Figures of other readings of the runs, from the per-pair held-out scores they saved
    (``heldout_scores.jsonl``): ``lexmean`` (each run's expected level averaged with lexical
    recall's, (e + r) / 2: a parameter-free hybrid), ``ensemble`` (one judge: the runs' expected
    levels averaged pair by pair) or ``ensemble+lexmean`` (that averaged with lexical recall).
    With ``size`` K the ensembles are of K runs each, the runs taken K at a time in their order
    (disjoint groups, so the spread over groups is one of independent ensembles); ``alone``: each
    run's saved expected level as it is. ``measure``: another key of
    :func:`~citetrain.metrics.meta.meta_evaluate` than the ROC-AUC (e.g. ``ps_vs_ns``)."""
    from citetrain.judge_training.card import source_figures

    tables = read_scores(runs, scores)
    if how.startswith("ensemble"):
        same_pairs(tables, "ensemble")
        k = size or len(runs)
        if k < 1 or len(runs) % k:
            raise SystemExit(f"--ensemble-size {k}: {len(runs)} runs do not split into groups of {k}")
        groups = [range(i, i + k) for i in range(0, len(runs), k)]
        tables = [[dict(x, model=statistics.mean(tables[j][i]["model"] for j in g))
                   for i, x in enumerate(tables[g[0]])] for g in groups]
        labels = ["+".join(runs[j].name for j in g) for g in groups]
    else:
        labels = [str(r) for r in runs]
    out = {}
    for label, rows in zip(labels, tables):
        model = [(x["model"] + x["lexical"]) / 2 if how.endswith("lexmean") else x["model"]
                 for x in rows]
        held = source_figures([x["source"] for x in rows], [x["label"] for x in rows],
                              [x["group"] for x in rows],
                              {"model": model, "lexical": [x["lexical"] for x in rows]}, measure)
        out[label] = {s["source"]: {"model": s["model"], "lexical": s["lexical"]} for s in held}
    return out


def bootstrap_margins(runs: list[Path], how: str = "alone", resamples: int = 1000, seed: int = 0,
                      margin: float = 0.03,
                      scores: str = "heldout_scores.jsonl") -> dict[str, dict[str, float]]:
    """How sure the verdict is: per source of ``MAIN``, the runs' mean ROC-AUC minus lexical
    recall's (``how``: each run's model alone, or ``lexmean``, (e + r) / 2), with a paired cluster
    bootstrap over the held-out claims (:func:`~citetrain.metrics.meta.bootstrap_auc_difference`:
    a claim with all its pairs, the same claims for every run and for lexical recall). Per source:
    ``margin`` (observed), ``sd``, ``low`` / ``high`` (95 %) and ``p``, the fraction of resamples
    that clear that source's part of the bar (WiCE by ``margin``, the others above 0); ``bar``
    holds ``p`` of all three at once, their product, since each source is resampled on its own."""
    import numpy as np

    from citetrain.metrics.meta import bootstrap_auc_difference

    tables = read_scores(runs, scores)
    same_pairs(tables, "--bootstrap")
    out: dict[str, dict[str, float]] = {}
    bar = 1.0
    for src in MAIN:
        idx = [i for i, x in enumerate(tables[0]) if x["source"] == src]
        if not idx:
            continue
        rows = [tables[0][i] for i in idx]
        models = [[(t[i]["model"] + t[i]["lexical"]) / 2 if how == "lexmean" else t[i]["model"]
                   for i in idx] for t in tables]
        res = bootstrap_auc_difference(models, [x["lexical"] for x in rows],
                                       [x["label"] for x in rows], [x["group"] for x in rows],
                                       resamples=resamples, seed=seed)
        dist = res["distribution"]
        p = float(np.mean(dist >= margin) if src == "wice" else np.mean(dist > 0))
        bar *= p
        out[src] = {"margin": res["difference"], "sd": res["sd"], "low": res["low"],
                    "high": res["high"], "p": p}
    if set(out) == set(MAIN):
        out["bar"] = {"p": bar}
    return out


def print_bootstrap(name: str, runs: list[Path], how: str, resamples: int, seed: int,
                    margin: float, scores: str) -> None:
    """:func:`bootstrap_margins` of one row, one line per source and the bar's line."""
    res = bootstrap_margins(runs, how, resamples, seed, margin, scores)
    print(f"\nbootstrap over the held-out claims ({resamples} resamples, seed {seed}): {name}"
          f"{':' + how if how != 'alone' else ''} minus lexical, mean over its {len(runs)} runs")
    for src, r in res.items():
        if src == "bar":
            print(f"  clears the bar (WiCE by {margin}, the others above 0) in {r['p']:.0%} "
                  "of resamples")
            continue
        need = f">= {margin}" if src == "wice" else "> 0"
        print(f"  {src:<18}{r['margin']:+.4f}  sd {r['sd']:.4f}  95% [{r['low']:+.4f}, "
              f"{r['high']:+.4f}]  P({need}) {r['p']:.2f}")


def spread(values: list[float]) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.3f} ± {sd:.3f}"


def print_table(figs: dict[str, dict[str, dict[str, dict[str, float]]]],
                margin: float = 0.03, target: str | None = None) -> bool:
    """Print per source lexical and each row's mean ± sd over its runs (``{row: {run: figures}}``),
    the runs' values, and whether row ``target`` (default: the last) clears the bar in the mean
    over its runs; returns whether it does."""
    first = next(iter(next(iter(figs.values())).values()))
    sources = sorted(first, key=lambda s: (s not in MAIN, MAIN.index(s) if s in MAIN else 0, s))
    print(f"{'source':<18}{'lexical':>9}" + "".join(f"{n:>24}" for n in figs))
    means = {}
    for src in sources:
        lex = first[src]["lexical"]
        cells = []
        for name, runs in figs.items():
            vals = [f[src]["model"] for f in runs.values() if src in f]
            if not vals:  # a row trained and validated without this source
                cells.append(f"{'-':>24}")
                continue
            means[name, src] = statistics.mean(vals)
            cells.append(f"{spread(vals):>24}")
        print(f"{src:<18}{lex:>9.3f}" + "".join(cells))
    print("\nper seed:")
    for name, runs in figs.items():
        for run, f in runs.items():
            print(f"  {name:<24}{run:<44}" + "  ".join(f"{s} {f[s]['model']:.3f}" for s in sources if s in f))
    last = target or list(figs)[-1]
    wins = {s: means[last, s] - first[s]["lexical"] for s in MAIN if (last, s) in means}
    line = f"\n{last} minus lexical: " + ", ".join(f"{s} {d:+.3f}" for s, d in wins.items())
    if set(wins) != set(MAIN):  # a measure that some of the three sets lack: no verdict
        print(line)
        return False
    ok = all(d > 0 for d in wins.values()) and wins["wice"] >= margin
    print(line + f"; target (above on all three, WiCE by {margin}) {'met' if ok else 'not met'}")
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--row", action="append", required=True, metavar="NAME=RUN[,RUN...]")
    ap.add_argument("--dataset", default=str(REPO / "data" / "judge-crossencoder-tok" / "dataset"))
    ap.add_argument("--margin", type=float, default=0.03)
    ap.add_argument("--combine", action="append", default=[],
                    choices=("lexmean", "ensemble", "ensemble+lexmean"),
                    help="also print each row read this way (from the runs' heldout_scores.jsonl)")
    ap.add_argument("--measure", choices=("fs_vs_ns", "fs_vs_ps", "ps_vs_ns"),
                    help="one of the one-vs-one ROC-AUCs (full/partial/no support) instead of their "
                    "mean, from the runs' heldout_scores.jsonl; three-level sources only")
    ap.add_argument("--ensemble-size", type=int, metavar="K",
                    help="ensembles of K runs each (disjoint, in the row's order): mean ± sd over them")
    ap.add_argument("--bootstrap", type=int, metavar="N",
                    help="also N resamples of the held-out claims: how sure the last row's margins "
                    "over lexical recall are (alone, and as each --combine lexmean)")
    ap.add_argument("--bootstrap-seed", type=int, default=0)
    ap.add_argument("--read", choices=("clauses",),
                    help="read every run's model clause by clause (clauses:classifier:RUN/final)")
    args = ap.parse_args()
    scores = CLAUSE_SCORES if args.read else "heldout_scores.jsonl"
    figs = {}
    for spec in args.row:
        name, _, names = spec.partition("=")
        runs = [Path(r) for r in names.split(",") if r]
        if args.read:  # computed here; the per-pair scores saved for --combine / --measure
            figs[name] = {str(r): clause_figures(r, Path(args.dataset)) for r in runs}
            if args.measure:
                figs[name] = combined(runs, "alone", measure=args.measure, scores=scores)
        elif args.measure:  # from the saved per-pair scores
            figs[name] = combined(runs, "alone", measure=args.measure)
        else:
            figs[name] = {str(r): figures(r, Path(args.dataset)) for r in runs}
        for how in args.combine:
            figs[f"{name}:{how}"] = combined(runs, how, args.ensemble_size, args.measure, scores)
    print_table(figs, args.margin, args.row[-1].partition("=")[0])
    if args.bootstrap:
        name, _, names = args.row[-1].partition("=")
        runs = [Path(r) for r in names.split(",") if r]
        for how in ["alone"] + [c for c in args.combine if c == "lexmean"]:
            print_bootstrap(name, runs, how, args.bootstrap, args.bootstrap_seed, args.margin, scores)


if __name__ == "__main__":
    main()
