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
                   "deduplicated by pair id), or LLM-AggreFact's test split (JSONL, JSON, CSV or "
                   "Parquet rows of dataset, doc, claim, label): then its protocol, balanced "
                   "accuracy per dataset with the threshold tuned on the dev split, and the average")
    p.add_argument("--format", default="auto", help="wice | wice_oracle | attributionbench | "
                   "expertqa | aggrefact (default auto: from the keys or columns)")
    p.add_argument("--dev", action="append", metavar="FILE", help="aggrefact: LLM-AggreFact's "
                   "dev split, where each dataset's threshold is tuned (repeat for several files; "
                   "without it: the rows' 'split' column, dev or test, when they have one; a "
                   "dataset with no dev rows takes 0.5; default: none)")
    p.add_argument("--nli", default="lexical", help="one or more NLI names, comma-separated, "
                   "compared side by side (default lexical)")
    p.add_argument("--score", choices=["expected", "entail"], default="expected",
                   help="what is ranked against the labels: expected (P(full) + P(partial)/2 for a "
                   "three-way model, P(entailment) for others; default) or entail (P(entailment))")
    p.add_argument("--limit", type=int, help="use only the first N labelled pairs (default: every "
                   "pair)")
    p.add_argument("--split", choices=["train", "validation"],
                   help="keep only the pairs that fall in this split by the rule a crossencoder "
                   "recipe splits its crossencoder.labelled with (hash of the claim; default: every pair)")
    p.add_argument("--split-fraction", type=float, default=0.3, metavar="F",
                   help="with --split: the recipe's crossencoder.validation_fraction (default 0.3)")
    p.add_argument("--split-seed", type=int, default=0, metavar="S",
                   help="with --split: the recipe's crossencoder.split_seed (default 0)")
    p.add_argument("--skip-invalid", action="store_true", help="skip bad rows instead of stopping")
    p.add_argument("--out", help="write meta_eval.json here (folder; default: none, "
                   "printed only)")
    p.add_argument("--no-cache", action="store_true", help="do not use the NLI cache")
    p.add_argument("--dtype", help="model backends: auto, fp32, bf16, fp16 or int8 (CPU serving "
                   "formats of a cross-encoder judge: bf16 where native, int8 Linear layers; default: the "
                   "model's own, auto)")
    p.add_argument("--compile", action="store_true", help="classifier backends: torch.compile "
                   "the model (the first batch compiles)")
    p.add_argument("--bootstrap", type=int, metavar="N", help="also each scorer's ROC-AUC minus "
                   "the first one's, with sd and 95%% interval from N resamples of the claims (default: "
                   "off)")
    p.add_argument("--bootstrap-seed", type=int, default=0, metavar="S",
                   help="seed of the --bootstrap resamples (default 0)")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.errors import CitetrainError
    from citetrain.io.labelled import aggrefact_columns, read_labelled
    from citetrain.io.writers import atomic_write_text
    from citetrain.evaluation.meta import (agreement_of, agreement_table, cut_notice,
                                           difference_rows, scores_of)
    from citetrain.nli.registry import make_engine

    if args.format == "aggrefact" or (args.format == "auto" and aggrefact_columns(args.labelled[0])):
        return run_aggrefact(args)
    if args.dev:
        raise CitetrainError("--dev is the dev split of LLM-AggreFact (--format aggrefact); "
                             f"{args.labelled[0]} is not in that format")
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


def run_aggrefact(args: argparse.Namespace) -> int:
    """LLM-AggreFact's protocol (:mod:`citetrain.metrics.aggrefact`) for each ``--nli``."""
    from citetrain.errors import CitetrainError
    from citetrain.evaluation.meta import cut_notice, scores_of
    from citetrain.io.labelled import read_aggrefact
    from citetrain.io.writers import atomic_write_text
    from citetrain.metrics.aggrefact import aggrefact_protocol, aggrefact_table
    from citetrain.nli.registry import make_engine

    for flag, value in (("--split", args.split), ("--bootstrap", args.bootstrap)):
        if value:
            raise CitetrainError(f"{flag} does not apply to LLM-AggreFact, which has its own dev "
                                 "and test splits (--dev)")
    test = read_aggrefact(args.labelled, skip_invalid=args.skip_invalid)
    skipped = list(test.skipped)
    if args.dev:
        dev = read_aggrefact(args.dev, skip_invalid=args.skip_invalid)
        skipped += dev.skipped
        dev_from = " ".join(args.dev)
    else:  # the rows' own split column, when they have one
        sides = {p.meta.get("split", "test") for p in test}
        if not sides <= {"dev", "test"}:
            raise CitetrainError(f"{args.labelled[0]}: column 'split' has "
                                 f"{sorted(sides - {'dev', 'test'})}; expected dev or test")
        dev = [p for p in test if p.meta.get("split") == "dev"]
        test = [p for p in test if p.meta.get("split", "test") == "test"]
        dev_from = "the 'dev' rows of the split column" if dev else ""
    if args.limit:
        test, dev = test[: args.limit], dev[: args.limit]
    if not test:
        raise CitetrainError(f"{' '.join(args.labelled)}: no test rows")
    datasets = list(dict.fromkeys(p.meta["dataset"] for p in test))
    print(f"LLM-AggreFact: {len(test)} test claims in {len(datasets)} datasets from "
          f"{' '.join(args.labelled)}; " + (f"thresholds tuned on {len(dev)} dev claims from "
                                            f"{dev_from}" if dev else "no dev split: threshold 0.5")
          + f"; score: {args.score}")
    if skipped:
        print(f"skipped {len(skipped)} bad rows (--skip-invalid)")
    results: dict[str, dict] = {}
    for name in [n.strip() for n in args.nli.split(",") if n.strip()]:
        options = {"dtype": args.dtype} if args.dtype else {}  # the lexical NLI ignores them
        options.update({"compile": True} if args.compile else {})
        engine = make_engine(name, cache=False if args.no_cache else None,
                             progress=not args.no_progress, **options)
        scores = scores_of(engine, [*dev, *test], args.score)
        rows = [(p.meta["dataset"], s, p.label > 0) for p, s in zip([*dev, *test], scores)]
        result = aggrefact_protocol(rows[len(dev):], rows[: len(dev)])
        results[engine.name] = result
        print(f"\n{engine.name}")
        print(aggrefact_table(result))
        if notice := cut_notice(engine):
            print(notice)
    if args.out:
        out = Path(args.out) / "meta_eval.json"
        report = {"format": "aggrefact", "input": list(args.labelled), "dev": args.dev,
                  "score": args.score, "n": len(test), "dev_n": len(dev), "results": results}
        atomic_write_text(out, json.dumps(report, indent=2, default=str) + "\n")
        print(f"\nwrote {out}")
    return 0
