"""``citetrain``: the command-line front. Each subcommand lives in its own small module."""
from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module

from citetrain import __version__

COMMANDS = {
    "eval": "citetrain.cli.eval_cmd",
    "meta-eval": "citetrain.cli.meta_eval_cmd",
    "build": "citetrain.cli.build_cmd",
    "synth": "citetrain.cli.synth_cmd",
    "merge": "citetrain.cli.merge_cmd",
    "refine": "citetrain.cli.refine_cmd",
    "judge": "citetrain.cli.judge_cmd",
    "train": "citetrain.cli.train_cmd",
    "validate": "citetrain.cli.validate_cmd",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citetrain", description="Train and evaluate citation models.")
    parser.add_argument("--version", action="version", version=f"citetrain {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        import_module(module).add_parser(sub, name)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; user errors print one line on stderr and exit 2 (``--debug`` re-raises)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    from citetrain.errors import CitetrainError

    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("citetrain: interrupted", file=sys.stderr)
        return 130
    except (CitetrainError, OSError) as e:
        if args.debug:
            raise
        msg = str(e) if isinstance(e, CitetrainError) else f"{getattr(e, 'filename', '') or ''}: {e.strerror or e}"
        print(f"citetrain {args.command}: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
