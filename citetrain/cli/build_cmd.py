"""``citetrain build SPEC``: build a training set from QA data under an NLI model."""
from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="build spec (data_builders/*.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a spec key, e.g. --set max_subset=2 --set refiner.perturb=0.3")
    p.add_argument("--out", help="output folder (default: the spec's out, else data/<name>)")
    p.add_argument("--fresh", action="store_true",
                   help="discard finished shards and start again (default: resume)")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="build refiner / generator / judge / pairs training data",
                       description="Build a training set (datasets on disk + manifest) from QA "
                       "data under an NLI model. Resumable; data-parallel with "
                       "`accelerate launch -m citetrain.build SPEC`.")
    add_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.builders.pipeline import build
    from citetrain.builders.stages import launcher_ranks
    from citetrain.builders.spec import load_spec

    spec = load_spec(args.spec, args.set)
    if args.out:
        spec.out = args.out
    build(spec, ranks=launcher_ranks(), progress=not args.no_progress, fresh=args.fresh)
    return 0
