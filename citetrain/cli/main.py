"""``citetrain``: the command-line front. Each subcommand lives in its own small module."""
from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module

from citetrain import __version__
from citetrain.errors import run_reporting

COMMANDS = {
    "eval": "citetrain.cli.eval_cmd",
    "meta-eval": "citetrain.cli.meta_eval_cmd",
    "build": "citetrain.cli.build_cmd",
    "synth": "citetrain.cli.synth_cmd",
    "merge": "citetrain.cli.merge_cmd",
    "refine": "citetrain.cli.refine_cmd",
    "refine-eval": "citetrain.cli.refine_eval_cmd",
    "fit-ranker": "citetrain.cli.fit_ranker_cmd",
    "teacher": "citetrain.cli.teacher_cmd",
    "judge": "citetrain.cli.judge_cmd",
    "train": "citetrain.cli.train_cmd",
    "validate": "citetrain.cli.validate_cmd",
    "quickstart": "citetrain.cli.quickstart_cmd",
    "ls": "citetrain.cli.ls_cmd",
    "cp": "citetrain.cli.cp_cmd",
    "serve": "citetrain.cli.serve_cmd",
    "export": "citetrain.cli.export_cmd",
    "prune": "citetrain.cli.prune_cmd",
    "distill": "citetrain.cli.distill_cmd",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citetrain", description="Train and evaluate citation models.")
    parser.add_argument("--version", action="version", version=f"citetrain {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--verbose", action="store_true", help="show the libraries' messages, "
                        "warnings and progress bars too (otherwise in the run folder's log)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        import_module(module).add_parser(sub, name)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; an error prints one line on stderr and exits 2 (the user's: bad input, a
    missing file, a full disk) or 1 (a bug); ``--debug`` re-raises it with its traceback."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    if args.verbose:
        from citetrain.io.console import VERBOSE_ENV

        os.environ[VERBOSE_ENV] = "1"  # training subprocesses inherit it
    return run_reporting(f"citetrain {args.command}", lambda: args.run(args), args.debug)


if __name__ == "__main__":
    sys.exit(main())
