"""``citetrain variants DATASET --out DIR``: variants of labelled pairs, inputs for a student."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    from citetrain.train.variants import EDITS

    p = sub.add_parser(name, help="make variants of labelled pairs (inputs a student learns its "
                       "judge's reading on)",
                       description="Edit each pair of a pairs dataset (claim words dropped, "
                       "swapped or taken from the premise; a premise sentence dropped; another "
                       "premise) into up to --per-pair variants, saved as a data.built set for "
                       "citetrain teacher --transfer (citetrain.train.variants).")
    p.add_argument("dataset", help="a pairs DatasetDict folder, or a folder holding one in "
                   "dataset/ (the human pairs of a cross-encoder recipe, a kind: pairs build)")
    p.add_argument("--out", required=True, help="the variants' folder (OUT/dataset, "
                   "OUT/manifest.json)")
    p.add_argument("--per-pair", type=int, default=2, metavar="N",
                   help="variants of each pair, each by another edit (default 2)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--split", default="train", help="the split whose pairs are edited")
    p.add_argument("--edits", default=",".join(EDITS),
                   help=f"comma-separated, of {', '.join(EDITS)} (default all)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.train.variants import write_variants

    edits = [e.strip() for e in args.edits.split(",") if e.strip()]
    man = write_variants(args.dataset, args.out, args.per_pair, args.seed, args.split, edits)
    counts = ", ".join(f"{k} {v}" for k, v in man["by_transform"]["train"].items())
    print(f"variants: {man['pairs']['train']} of {man['pairs']['input']} {args.split} pairs "
          f"({counts}) -> {args.out}")
    return 0
