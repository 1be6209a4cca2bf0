"""``citetrain merge ADAPTER --out DIR``: merge a LoRA adapter into its base model."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="merge a LoRA / QLoRA adapter into its base model",
                       description="Merge an adapter into its (dequantised) base model; checks "
                       "that merged and unmerged logits agree before saving.")
    p.add_argument("adapter", help="adapter folder (e.g. runs/refiner/final)")
    p.add_argument("--out", required=True, help="folder for the merged model")
    p.add_argument("--base", help="base model path or hub id (default: the adapter's own)")
    p.add_argument("--atol", type=float, default=1e-3, help="largest allowed logit difference")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.train.merge import merge_adapter

    got = merge_adapter(args.adapter, args.out, args.base, args.atol)
    print(f"merged into {got['out']} (base {got['base']}; max logit difference "
          f"{got['max_logit_diff']:.2e})")
    return 0
