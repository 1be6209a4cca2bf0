"""``citetrain refine-eval DATA --format F``: refiners scored against human citations."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="score refiners against the human citations of a data set",
                       description="Make refiner inputs from records with reference citations "
                       "(QuoteSum's human marks, WiCE's evidence: --format wice_evidence, any "
                       "file with a gold field): marks removed, wrong, or half wrong; refine each "
                       "with the no-model baselines (baseline:trivial, lexical, baseline:cover) "
                       "and every --refiner; print P / R / F1 / exact against the reference.")
    p.add_argument("data", help="record file with reference citations (any supported format)")
    p.add_argument("--format", default="auto", help="input format (default auto)")
    p.add_argument("--refiner", action="append", default=[], metavar="X",
                   help="another refiner row: a checkpoint, lexical or baseline:NAME (repeatable)")
    p.add_argument("--inputs", default="removed,wrong,half", help="input variants, comma-separated")
    p.add_argument("--seed", type=int, default=0, help="seed of the wrong ids (default 0)")
    p.add_argument("--limit", type=int, default=None, help="only the first N records")
    p.add_argument("--threshold", type=float, default=0.5,
                   help="pair refiners (lexical too): cite P(supported) >= this (default 0.5)")
    p.add_argument("--max-ids", type=int, default=3, help="pair refiners: at most this many ids")
    p.add_argument("--batch-size", type=int, default=8, help="checkpoint refiners' batch size")
    p.add_argument("--out", default=None, metavar="DIR", help="write DIR/refine_eval.json")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict
    from functools import partial
    from pathlib import Path

    from citetrain.io.writers import atomic_write_text
    from citetrain.refine.benchmark import (DEFAULT_REFINERS, format_notes, format_table,
                                            read_gold_records, run_benchmark)
    from citetrain.refine.inputs import parse_variants
    from citetrain.refine.load import load_refiner

    variants = parse_variants(args.inputs)
    records, data = read_gold_records(args.data, args.format, args.limit)
    print(f"{args.data} ({data['format']}): {data['records']} records with reference citations "
          f"from {data['lines']} lines ({data['lines_without_record']} gave no record)")
    load = partial(load_refiner, threshold=args.threshold, max_ids=args.max_ids,
                   batch_size=args.batch_size)
    rows, made = run_benchmark(records, [*DEFAULT_REFINERS, *args.refiner], variants, args.seed,
                               load)
    print("\n".join([format_table(rows), *format_notes(rows, made)]))
    if args.out:
        report = {"data": data, "seed": args.seed, "inputs": made,
                  "rows": [asdict(r) for r in rows]}
        path = atomic_write_text(Path(args.out) / "refine_eval.json", json.dumps(report, indent=1))
        print(f"wrote {path}")
    return 0
