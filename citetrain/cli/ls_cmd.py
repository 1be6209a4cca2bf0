"""``citetrain ls``: the recipes, build specs, eval suites, launch configs, example predictions and
distillation specs citetrain ships."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    from citetrain.io.assets import KINDS

    p = sub.add_parser(name, help="list the shipped recipes, build specs, suites, launch configs "
                       "and distillation specs",
                       description="List what citetrain ships, by kind, with each file's one-line "
                       "header. A bare NAME works wherever such a file is expected "
                       "(citetrain train refiner); citetrain cp NAME copies one out to edit.")
    p.add_argument("kind", nargs="?", help=f"only this kind: {', '.join(KINDS)} "
                   "(default: every kind)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.errors import CitetrainError
    from citetrain.io.assets import KINDS, asset_root, header, shipped

    kinds = [args.kind] if args.kind else list(KINDS)
    if args.kind and args.kind not in KINDS:
        raise CitetrainError(f"unknown kind {args.kind!r}: choose from {', '.join(KINDS)}")
    print(f"shipped with citetrain ({asset_root()}):")
    for kind in kinds:
        files = shipped(kind)
        print(f"\n{kind}: {KINDS[kind][1]}")
        width = max((len(p.stem) for p in files), default=0)
        for path in files:
            print(f"  {path.stem:<{width}}  {header(path)[:100]}")
    return 0
