"""``citetrain meta-eval LABELLED``: agreement of NLI scorers with human support labels."""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="agreement of a metric's NLI with human labels",
                       description="Correlation (Pearson/Spearman/Kendall), one-vs-one ROC-AUC and "
                       "NDCG@5/10/20 of NLI scores against human support labels (full 2, partial 1, no 0).")
    p.add_argument("labelled", nargs="+", help="labelled file(s): WiCE, AttributionBench or "
                   "ExpertQA format (several files of one format are read as one set, "
                   "deduplicated by pair id)")
    p.add_argument("--format", default="auto", help="wice | wice_oracle | attributionbench | expertqa (default auto)")
    p.add_argument("--nli", default="lexical", help="one or more NLI names, comma-separated, "
                   "compared side by side (default lexical)")
    p.add_argument("--score", choices=["expected", "entail"], default="expected",
                   help="what is ranked against the labels: expected (P(full) + P(partial)/2 for a "
                   "three-way model, P(entailment) for others; default) or entail (P(entailment))")
    p.add_argument("--limit", type=int, help="use only the first N labelled pairs")
    p.add_argument("--split", choices=["train", "validation"],
                   help="keep only the pairs that fall in this split by the rule a crossencoder "
                   "recipe splits its crossencoder.labelled with (hash of the claim)")
    p.add_argument("--split-fraction", type=float, default=0.3, metavar="F",
                   help="with --split: the recipe's crossencoder.validation_fraction (default 0.3)")
    p.add_argument("--split-seed", type=int, default=0, metavar="S",
                   help="with --split: the recipe's crossencoder.split_seed (default 0)")
    p.add_argument("--skip-invalid", action="store_true", help="skip bad rows instead of stopping")
    p.add_argument("--out", help="write meta_eval.json here (folder)")
    p.add_argument("--no-cache", action="store_true", help="do not use the NLI cache")
    p.add_argument("--dtype", help="model backends: auto, fp32, bf16, fp16 or int8 (CPU serving "
                   "formats of a cross-encoder judge: bf16 where native, int8 Linear layers)")
    p.add_argument("--compile", action="store_true", help="classifier backends: torch.compile "
                   "the model (the first batch compiles)")
    p.add_argument("--bootstrap", type=int, metavar="N", help="also each scorer's ROC-AUC minus "
                   "the first one's, with sd and 95%% interval from N resamples of the claims")
    p.add_argument("--bootstrap-seed", type=int, default=0, metavar="S")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.errors import CitetrainError
    from citetrain.io.labelled import read_labelled
    from citetrain.io.writers import atomic_write_text
    from citetrain.evaluation.meta import (agreement_of, agreement_table, cut_notice,
                                           difference_rows, scores_of)
    from citetrain.nli.registry import make_engine

    source = args.labelled[0] if len(args.labelled) == 1 else args.labelled
    pairs = read_labelled(source, args.format, skip_invalid=args.skip_invalid)
    if args.split:
        from citetrain.judge_training.pairs import split_pairs

        if not 0 < args.split_fraction < 1:
            raise CitetrainError(
                f"--split-fraction must be between 0 and 1, not {args.split_fraction}")
        pairs = split_pairs(pairs, args.split_fraction, args.split_seed, args.split)
        if not pairs:
            raise CitetrainError(f"no labelled pair falls in the {args.split} split")
    if args.limit:
        pairs = pairs[: args.limit]
    labels = [p.label for p in pairs]
    if args.bootstrap is not None and args.bootstrap < 1:
        raise CitetrainError(f"--bootstrap must be a positive number of resamples, not {args.bootstrap}")
    table: dict[str, dict[str, float]] = {}
    first: list[float] | None = None
    for name in [n.strip() for n in args.nli.split(",") if n.strip()]:
        options = {"dtype": args.dtype} if args.dtype else {}  # the lexical NLI ignores them
        options.update({"compile": True} if args.compile else {})
        engine = make_engine(name, cache=False if args.no_cache else None,
                             progress=not args.no_progress, **options)
        scores = scores_of(engine, pairs, args.score)
        table[engine.name] = agreement_of(scores, pairs)
        if first is None:  # the scorer the others are compared with
            first = scores
        elif args.bootstrap:
            table[engine.name].update(difference_rows(scores, first, pairs, args.bootstrap,
                                                      args.bootstrap_seed))
        if notice := cut_notice(engine):
            print(notice)
    where = " ".join(args.labelled) + (
        f" [{args.split} split, fraction {args.split_fraction}, seed {args.split_seed}]"
        if args.split else "")
    print(f"{len(pairs)} labelled pairs from {where}  "
          f"(full {labels.count(2)}, partial {labels.count(1)}, no {labels.count(0)}); score: {args.score}")
    print(agreement_table(table))
    if args.bootstrap and len(table) > 1:
        print(f"roc_auc_diff: ROC-AUC minus {next(iter(table))}'s, sd and 95% interval from "
              f"{args.bootstrap} resamples of the claims (paired, seed {args.bootstrap_seed})")
    if args.out:
        out = Path(args.out) / "meta_eval.json"
        report = {"input": source if isinstance(source, str) else list(source),
                  "split": args.split, "score": args.score, "n": len(pairs), "results": table}
        atomic_write_text(out, json.dumps(report, indent=2, default=str) + "\n")
        print(f"\nwrote {out}")
    return 0
