"""``citetrain synth``: write the project's seeded synthetic citation records (no downloads)."""
from __future__ import annotations

import argparse

from citetrain.synth.records import DOCS


def _docs(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition(",")
    try:
        return int(lo), int(hi or lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MIN,MAX, got {text!r}") from None


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="write seeded synthetic records (fictional world, injected "
                       "citation errors)", description="Generate RAG answers over invented "
                       "passages with gold supporting ids and a citation case per statement.")
    p.add_argument("--n", type=int, default=2000, help="number of records (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="world and record seed (default 0)")
    p.add_argument("--docs", type=_docs, default=DOCS, metavar="MIN,MAX",
                   help=f"passages per record (default {DOCS[0]},{DOCS[1]})")
    p.add_argument("--out", default="data/synth.jsonl", help="output .jsonl / .json file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.errors import CitetrainError
    from citetrain.io.writers import write_records
    from citetrain.synth.records import CASES, case_counts, synth_records

    if args.n < 1:
        raise CitetrainError(f"--n must be at least 1, got {args.n}")
    try:
        records = synth_records(args.n, args.seed, n_docs=args.docs)
    except ValueError as e:
        raise CitetrainError(str(e)) from None
    path = write_records(records, args.out)
    counts = case_counts(records)
    total = sum(counts.values())
    print(f"wrote {len(records)} records ({total} statements) to {path}")
    for case in CASES:
        print(f"  {case:<20} {counts[case]:>6}  {100 * counts[case] / max(total, 1):5.1f}%")
    return 0
