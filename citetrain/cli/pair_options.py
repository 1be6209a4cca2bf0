"""Options shared by the refiner commands: the pair refiner's (``citetrain refine``,
``citetrain refine-eval``) and the reference data's (``refine-eval``, ``fit-ranker``)."""
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


def add_gold_data_options(p: argparse.ArgumentParser, split: str) -> None:
    """``data``, ``--format`` and the judge recipes' split (``--split``, default ``split``;
    ``--split-fraction``, ``--split-seed``)."""
    p.add_argument("data", help="record file with reference citations (any supported format)")
    p.add_argument("--format", default="auto", help="input format (default auto)")
    p.add_argument("--split", choices=("all", "train", "validation"), default=split,
                   help="only the records of this side of the judge recipes' split by statement "
                   f"text (--split-fraction, --split-seed; default {split})")
    p.add_argument("--split-fraction", type=float, default=0.3, help="validation share (0.3)")
    p.add_argument("--split-seed", type=int, default=0, help="split seed (0)")


def read_gold_data(args: argparse.Namespace, limit: int | None = None) -> tuple[list, dict[str, Any]]:
    """The records of ``args.data`` with their reference, on ``args.split``'s side, and what was
    read (:func:`~citetrain.refine.benchmark.read_gold_records`; ``records_read`` before the
    split, ``records`` after)."""
    from citetrain.refine.benchmark import read_gold_records, split_records

    records, data = read_gold_records(args.data, args.format, limit)
    data["records_read"] = len(records)
    if args.split != "all":
        records = split_records(records, args.split, args.split_fraction, args.split_seed)
        data.update(split=args.split, split_fraction=args.split_fraction,
                    split_seed=args.split_seed, records=len(records))
    return records, data
