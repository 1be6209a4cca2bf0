"""``citetrain teacher RUN... --out FILE``: merge teacher runs' out-of-fold scores for distillation."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="merge teacher runs' out-of-fold scores into a teacher file",
                       description="Average the fold_scores.jsonl of cross-encoder teacher runs "
                       "(distill.folds / distill.fold; every fold, any number of seeds) per training "
                       "pair, for a student's distill.teacher.")
    p.add_argument("runs", nargs="+", help="teacher run folders (train.output_dir) or their "
                   "fold_scores.jsonl files")
    p.add_argument("--out", required=True, help="the teacher file (JSON lines)")
    p.add_argument("--transfer", metavar="BUILD", action="append", help="also score the train "
                   "split of this kind: pairs build (or any dataset folder with premise and "
                   "hypothesis columns) with every run's model (transfer pairs, for a student with "
                   "crossencoder.built; citetrain.judge_training.transfer); repeatable. With runs that have no "
                   "fold scores, the teacher file holds these pairs alone: a teacher to compress "
                   "the runs' judge into a smaller one (default: none)")
    p.add_argument("--transfer-weight", type=float, default=1.0, metavar="W",
                   help="the transfer pairs' own teacher weight (default 1.0: the teachers alone)")
    p.add_argument("--transfer-limit", type=int, metavar="N", help="the first N transfer pairs (default: every "
                   "pair)")
    p.add_argument("--drawn", metavar="SEED,...", type=_seeds, help="only the transfer pairs "
                   "that students of these train.seed values draw with crossencoder.built_max "
                   "--built-max (the rest are never read; applies to every --transfer build, and one of at "
                   "most --built-max pairs is read whole; default: every pair)")
    p.add_argument("--built-max", type=int, metavar="N", help="the students' crossencoder.built_max "
                   "(with --drawn; default: none)")
    p.add_argument("--dtype", default="auto", help="the teachers' weights when they read the "
                   "transfer pairs: auto (fp32 on a CPU), bf16 (about 3x faster on a CPU with "
                   "AVX512-BF16 / AMX; answers within a rounding of fp32's), fp16")
    p.set_defaults(run=run)


def _seeds(text: str) -> list[int]:
    """``--drawn 42,1,2`` as seeds."""
    return [int(x) for x in text.split(",") if x.strip()]


def run(args: argparse.Namespace) -> int:
    import sys

    from citetrain.errors import CitetrainError
    from citetrain.judge_training.teachers import write_teacher_file

    if (args.drawn is None) != (args.built_max is None):
        raise CitetrainError("--drawn and --built-max go together: the seeds and the sample size "
                             "of the students' built pairs")
    builds = args.transfer or []
    drawn = (args.drawn, args.built_max) if args.drawn else None
    t = write_teacher_file(args.runs, args.out, builds, args.transfer_weight,
                           args.transfer_limit, args.dtype, drawn)
    info, read = t["merged"], t["read"]
    if info is None:
        print(f"teacher: {len(args.runs)} runs without fold scores: their models read the "
              f"transfer pairs alone (a teacher to compress them) -> {args.out}")
    else:
        for line in t["warnings"]:
            print(f"teacher: warning: {line}; those pairs lack that seed's teacher score",
                  file=sys.stderr)
        print(f"teacher: {info['pairs']} pairs from {info['files']} runs "
              f"(teachers per pair: {', '.join(map(str, info['teachers_per_pair']))}"
              f"{'; read clause by clause' if read == 'clauses' else ''}) -> {args.out}")
    for build, x in zip(builds, t["transfers"]):
        print(f"transfer: {x['pairs']} pairs of {build} read by {x['teachers']} teachers"
              f"{' clause by clause' if read == 'clauses' else ''}"
              f"{f' in {args.dtype}' if args.dtype != 'auto' else ''}, "
              f"weight {x['weight']:g} -> {args.out}"
              + (f" ({x['resumed']} of them scored by an earlier, killed run)" if x["resumed"] else ""))
    return 0
