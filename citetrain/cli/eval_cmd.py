"""``citetrain eval PREDICTIONS|SUITE.yaml``: score predictions, or a checkpoint's (``model:`` in
the suite, or ``--model CKPT``), and write a report (:mod:`citetrain.evaluation`)."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    from citetrain.cli.eval_args import add_arguments

    p = sub.add_parser(name, help="score predictions (or a checkpoint's) with citation metrics",
                       description="Score a predictions file (or an eval/SUITE.yaml) with citation "
                       "metrics; writes report.json, statements.jsonl and table.txt. With a "
                       "checkpoint (the suite's model: key, or --model): a generator's predictions "
                       "are generated first (OUT/predictions.jsonl; resumable by chunk; "
                       "data-parallel with `accelerate launch -m citetrain.evaluation SUITE`), a "
                       "refiner's refinement is scored before and after, a judge is "
                       "meta-evaluated on labelled data.")
    add_arguments(p)
    p.set_defaults(run=run_eval)


def run_eval(args: argparse.Namespace) -> int:
    """The ``citetrain eval`` command with parsed ``args`` (:mod:`citetrain.cli.eval_args`)."""
    from citetrain.evaluation.inputs import RunOptions, load_target

    suite = load_target(args)
    opts = RunOptions.from_args(args)
    if getattr(args, "dry_run", False):
        from citetrain.evaluation.dry_run import dry_run

        return dry_run(suite, opts)
    if suite.model is not None:
        from citetrain.evaluation.checkpoint import run_checkpoint

        return run_checkpoint(suite, opts)
    from citetrain.evaluation.stream import score_predictions

    return score_predictions(suite, opts)
