"""``citetrain refine-eval DATA --format F``: refiners scored against human citations."""
from __future__ import annotations

import argparse

from citetrain.cli.pair_options import (add_gold_data_options, add_pair_options, pair_options,
                                        read_gold_data)


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="score refiners against the human citations of a data set",
                       description="Make refiner inputs from records with reference citations "
                       "(QuoteSum's human marks, WiCE's evidence: --format wice_evidence, any "
                       "file with a gold field): marks removed, wrong, or half wrong; refine each "
                       "with the no-model baselines (baseline:trivial, lexical, baseline:cover, "
                       "baseline:spans) and every --refiner; print P / R / F1 / exact against the "
                       "reference.")
    add_gold_data_options(p, "all")
    p.add_argument("--refiner", action="append", default=[], metavar="X",
                   help="another refiner row: a checkpoint, lexical, baseline:NAME or ranker:FILE "
                   "(repeatable)")
    p.add_argument("--inputs", default="removed,wrong,half", help="input variants, comma-separated")
    p.add_argument("--seed", type=int, default=0, help="seed of the wrong ids (default 0)")
    p.add_argument("--limit", type=int, default=None, help="only the first N records (default: every "
                   "record)")
    add_pair_options(p)
    p.add_argument("--batch-size", type=int, default=8, help="checkpoint refiners' batch size")
    p.add_argument("--out", default=None, metavar="DIR", help="write DIR/refine_eval.json (default: none, "
                   "printed only)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict
    from functools import partial
    from pathlib import Path

    from citetrain.io.writers import atomic_write_text
    from citetrain.refine.benchmark import (DEFAULT_REFINERS, format_notes, format_table,
                                            run_benchmark)
    from citetrain.refine.inputs import parse_variants
    from citetrain.refine.load import JOINT_SUFFIX, kind_of, load_refiner_row

    variants = parse_variants(args.inputs)
    records, data = read_gold_data(args, args.limit)
    print(f"{args.data} ({data['format']}): {data['records_read']} records with reference "
          f"citations from {data['lines']} lines ({data['lines_without_record']} gave no record)")
    if args.split != "all":
        print(f"{args.split} split (fraction {args.split_fraction}, seed {args.split_seed}, by "
              f"statement text): {len(records)} records")
    options = pair_options(args)
    joint = options.pop("joint")
    names = [*DEFAULT_REFINERS, *args.refiner]
    if joint is not None:  # a joint row beside each pair refiner's own
        names += [n + JOINT_SUFFIX for n in names if kind_of(n) == "pair"]
    load = partial(load_refiner_row, joint=joint, batch_size=args.batch_size, **options)
    rows, made = run_benchmark(records, names, variants, args.seed, load)
    print("\n".join([format_table(rows), *format_notes(rows, made)]))
    if args.out:
        report = {"data": data, "seed": args.seed, "inputs": made,
                  "rows": [asdict(r) for r in rows]}
        path = atomic_write_text(Path(args.out) / "refine_eval.json", json.dumps(report, indent=1))
        print(f"wrote {path}")
    return 0
