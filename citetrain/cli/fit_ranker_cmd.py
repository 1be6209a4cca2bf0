"""``citetrain fit-ranker DATA --out FILE``: fit the evidence ranker (citetrain/refine/evidence.py)
on records with reference citations; ``--refiner ranker:FILE`` uses it."""
from __future__ import annotations

import argparse

from citetrain.cli.pair_options import add_gold_data_options, read_gold_data


def _seeds(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()] or [0]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="fit the evidence ranker on reference citations",
                       description="Fit the word-overlap evidence ranker (a logistic regression "
                       "over BM25, rank, recall, quotes, neighbours, position, length, numbers) on the "
                       "records of DATA that carry reference citations (QuoteSum's marks, WiCE's "
                       "evidence: --format wice_evidence, a gold field), and write it to --out; "
                       "refine or refine-eval with --refiner ranker:FILE. The default --split "
                       "train leaves refine-eval --split validation the unseen side.")
    add_gold_data_options(p, "train")
    p.add_argument("--inputs", choices=("removed", "half", "wrong"), default="removed",
                   help="fit on the records with their marks removed (default: the ranker then "
                   "ignores the marks it is given), half right or all wrong (refine-eval's "
                   "inputs, seeded by --seed): with half, it learns how far to trust given marks")
    p.add_argument("--seed", type=int, default=0, help="seed of --inputs (0)")
    p.add_argument("--out", required=True, help="ranker file to write (JSON)")
    p.add_argument("--C", type=float, default=1.0, help="inverse L2 strength (1.0)")
    p.add_argument("--max-ids", type=int, default=10, help="at most this many ids (10)")
    p.add_argument("--cv", type=int, default=0, metavar="K",
                   help="first cross-validate: K folds by record, over --cv-seeds (0: off)")
    p.add_argument("--cv-seeds", type=_seeds, default=[0, 1, 2], help="seeds of the folds (0,1,2)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.refine.evidence import cross_validate, fit_ranker
    from citetrain.refine.inputs import make_inputs

    records, data = read_gold_data(args)
    records = make_inputs(records, args.inputs, args.seed)
    cv = None
    if args.cv:
        cv = cross_validate(records, folds=args.cv, seeds=args.cv_seeds, C=args.C,
                            max_ids=args.max_ids)
        for s in cv["per_seed"]:
            print(f"cv seed {s['seed']}: P {s['precision']} R {s['recall']} F1 {s['f1']}")
        print(f"cv {cv['folds']} folds over {cv['records']} records: F1 {cv['f1_mean']} +- "
              f"{cv['f1_sd']} (mean +- sd over {len(args.cv_seeds)} seeds)")
    ranker = fit_ranker(records, C=args.C, max_ids=args.max_ids)
    if cv:
        ranker.fitted_on["cv"] = cv
    ranker.fitted_on.update(data=str(args.data), format=data["format"], inputs=args.inputs,
                            seed=args.seed, split=args.split,
                            split_fraction=args.split_fraction, split_seed=args.split_seed)
    ranker.save(args.out)
    fit = ranker.fitted_on
    print(f"wrote {args.out}: fitted on {fit['statements']} statements ({args.split} side of "
          f"{data['records_read']} records), {fit['passages']} passages, {fit['evidence']} cited; "
          f"threshold {ranker.threshold} (F1 {fit['train_f1']} on them)")
    return 0
