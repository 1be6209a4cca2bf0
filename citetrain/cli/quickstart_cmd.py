"""``citetrain quickstart``: build, train, refine and score on the embedded synthetic data."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="the main job end to end on synthetic data: build, train a "
                       "LoRA refiner, refine held-out answers, score before/after (minutes on a CPU; "
                       "the README gives the measured time)",
                       description="Build refiner data with the lexical NLI from the project's "
                       "own synthetic records, train a LoRA pair refiner with in-loop citation "
                       "scores, refine held-out answers and score them before and after with "
                       "ALCE, lenient and ALiiCE; writes OUT/report.json and OUT/report.png. "
                       "Resumable: finished stages are reused.")
    p.add_argument("--out", default="quickstart", help="output folder (default: quickstart)")
    p.add_argument("--seed", type=int, default=0, help="seed of the synthetic worlds and training")
    p.add_argument("--fast", action="store_true", help="a smaller, quicker run, for CI")
    p.add_argument("--dry-run", action="store_true", help="print the plan and the stages, run nothing")
    p.add_argument("--no-progress", action="store_true", help="no progress bars (the terminal "
                   "has none anyway unless citetrain --verbose)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.quickstart.plan import make_plan
    from citetrain.quickstart.pipeline import STAGES, run_quickstart

    plan = make_plan(args.out, args.seed, args.fast)
    if args.dry_run:
        print(f"citetrain quickstart: {plan.to_dict()}")
        for k, stage in enumerate(STAGES, 1):
            print(f"  {k}. {stage}")
        return 0
    run_quickstart(plan, progress=not args.no_progress)
    return 0
