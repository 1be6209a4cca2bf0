"""The pair refiner's options, shared by ``citetrain refine`` and ``citetrain refine-eval``."""
from __future__ import annotations

import argparse
from typing import Any


def add_pair_options(p: argparse.ArgumentParser) -> None:
    """``--threshold``, ``--max-ids``, ``--joint`` and ``--candidates``."""
    p.add_argument("--threshold", type=float, default=0.5,
                   help="pair refiners (lexical too): cite P(supported) >= this (default 0.5)")
    p.add_argument("--max-ids", type=int, default=3, help="pair refiners: at most this many ids")
    p.add_argument("--joint", action="store_true",
                   help="pair refiners: cite the set of passages that supports each statement "
                   "together (greedy over unions of the best --candidates; keeps the given ids "
                   "when they support as well)")
    p.add_argument("--candidates", type=int, default=5,
                   help="--joint: passages kept by the word-overlap first pass (default 5)")


def pair_options(args: argparse.Namespace) -> dict[str, Any]:
    """``load_refiner`` keywords from the parsed options (``joint`` only with ``--joint``)."""
    from citetrain.errors import CitetrainError
    from citetrain.refine.joint import JointOptions

    joint = None
    if args.joint:
        try:
            joint = JointOptions(candidates=args.candidates, max_ids=args.max_ids,
                                 threshold=args.threshold)
        except ValueError as exc:
            raise CitetrainError(f"--joint: {exc}") from None
    return {"threshold": args.threshold, "max_ids": args.max_ids, "joint": joint}
