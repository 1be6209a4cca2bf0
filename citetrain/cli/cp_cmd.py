"""``citetrain cp NAME [DEST]``: copy a shipped recipe, spec, suite or launch config out to edit."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="copy a shipped recipe, spec, suite or launch config to edit",
                       description="Copy the shipped file NAME (see citetrain ls) to DEST (a "
                       "folder or a file; default: the current folder). Never overwrites.")
    p.add_argument("name", help="a name from citetrain ls, e.g. refiner, quickstart, zero3")
    p.add_argument("dest", nargs="?", help="folder or file to copy to (default: here)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.io.assets import copy_out

    print(f"wrote {copy_out(args.name, args.dest)}")
    return 0
