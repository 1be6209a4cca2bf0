"""``citetrain distill SPEC``: distill a cheap judge end to end (citetrain/distill/)."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="distill a judge end to end: built pairs, teachers, student, "
                       "prune, export (resumable)",
                       description="Run the chain a distillation spec (distill/*.yaml) names: the "
                       "built pairs, the teachers (fold teachers trained here, in parallel, or an "
                       "NLI / LLM engine) and their teacher file, the student and, as asked, "
                       "prune, teach-back and export. A finished step is kept when the chain runs "
                       "again; a killed one goes on from what it saved.")
    p.add_argument("spec", help="distillation spec (a path, or a shipped name: citetrain ls "
                   "distill)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a spec key, e.g. --set parallel=2 --set out=runs/judge2")
    p.add_argument("--dry-run", action="store_true",
                   help="print the chain's steps, their commands and outputs, and exit")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.cli.main import main
    from citetrain.distill.pipeline import distill
    from citetrain.distill.spec import load_spec

    def say(line: str) -> None:
        print(line if args.dry_run else f"[distill] {line}", flush=True)

    distill(load_spec(args.spec, args.set), dry_run=args.dry_run, say=say, cli=main)
    return 0
