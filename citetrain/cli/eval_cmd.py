"""``citetrain eval PREDICTIONS|SUITE.yaml``: score predictions, or a checkpoint's (``model:`` in
the suite, or ``--model CKPT``), and write a report (:mod:`citetrain.evaluation`)."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    from citetrain.evaluation.args import add_arguments

    p = sub.add_parser(name, help="score predictions (or a checkpoint's) with citation metrics",
                       description="Score a predictions file (or an eval/SUITE.yaml) with citation "
                       "metrics; writes report.json, statements.jsonl and table.txt. With a "
                       "checkpoint (the suite's model: key, or --model): a generator's predictions "
                       "are generated first (OUT/predictions.jsonl; resumable by chunk; "
                       "data-parallel with `accelerate launch -m citetrain.evaluation SUITE`), a "
                       "refiner's refinement is scored before and after, a judge is "
                       "meta-evaluated on labelled data.")
    add_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.evaluation.run import run_eval

    return run_eval(args)
