"""``python -m citetrain.evaluation SUITE.yaml [options]``: ``citetrain eval`` as a module, so
that ``accelerate launch --num_processes N -m citetrain.evaluation SUITE.yaml`` generates a
checkpoint's predictions data-parallel (every process its share of the chunks; the main process
merges, scores and writes). Errors are one line on stderr, exit 2 (the user's) or 1 (a bug)."""
from __future__ import annotations

import argparse
import os
import sys

from citetrain.errors import run_reporting
from citetrain.cli.eval_args import add_arguments


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    p = argparse.ArgumentParser(prog="python -m citetrain.evaluation",
                                description="Score predictions or a checkpoint (citetrain eval).")
    add_arguments(p)
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    args = p.parse_args(argv)
    from citetrain.cli.eval_cmd import run_eval

    return run_reporting("citetrain eval", lambda: run_eval(args), args.debug)


if __name__ == "__main__":
    sys.exit(main())
