"""``citetrain eval``: score a predictions file, or a checkpoint named by ``model:`` / ``--model``."""
from __future__ import annotations

import argparse

from citetrain.evaluation.inputs import RunOptions, load_target, out_dir
from citetrain.metrics.suites import Suite


def run_eval(args: argparse.Namespace) -> int:
    """The ``citetrain eval`` command with parsed ``args`` (:mod:`citetrain.evaluation.args`)."""
    suite = load_target(args)
    opts = RunOptions.from_args(args)
    if getattr(args, "dry_run", False):
        from citetrain.evaluation.dry_run import dry_run

        return dry_run(suite, opts)
    if suite.model is not None:
        from citetrain.evaluation.checkpoint import run_checkpoint

        return run_checkpoint(suite, opts)
    return score_predictions(suite, opts)


def score_predictions(suite: Suite, opts: RunOptions) -> int:
    """Score the suite's predictions files, streamed in chunks (resumable, data-parallel under
    ``accelerate launch``), and write the report (:mod:`citetrain.evaluation.stream`)."""
    from citetrain.evaluation.stream import run_streamed

    run_streamed(suite, opts, out_dir(suite, opts), opts.score_chunk)
    return 0
