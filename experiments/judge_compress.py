"""Figures: a judge compressed into a smaller, faster student that learns the judge's own reading,
over seeds, and how far the student's held-out ROC-AUC falls from the judge's (issue 14: within
0.005).

1. ``OUT/teacher.jsonl``, as ``citetrain teacher JUDGE --out FILE --transfer HUMAN --transfer BUILT
   --drawn SEEDS --built-max N`` makes it: the judge's model reads the human training pairs whole
   and the built pairs that the students draw (:func:`citetrain.judge_training.transfer.drawn_keys`).
2. Students ``small-sS``, one per seed: ``recipes/judge-crossencoder.yaml`` from the judge's final
   model, cut by the ``--student-set`` overrides (default: layers 0, 2, 4, 5 and 192 feed-forward
   units, README "Every other layer"), learning ``distill.teacher`` at weight 1 on the human
   pairs and ``--built-max`` built pairs.
   With ``--start DIR`` the students start from DIR instead, uncut (unless ``--student-set``):
   the judge pruned by ``citetrain prune`` (README "Narrower feed-forward blocks without
   training"), which the same file teaches back to its judge's reading.
3. The table (``experiments/judge_seeds.py``'s): the judge and the students, alone and read with lexical
   recall ((e + r) / 2), and per set the students' mean minus the judge's against ``--tolerance``,
   and how closely the students' held-out scores follow the judge's (:func:`follows`).

Runs go through ``experiments/judge_campaign.py``'s runner (resumable: a finished student is not run
again, a finished teacher file is kept). Run: ``python experiments/judge_compress.py --judge
runs/c16/mixed-kd50-s42 --out runs/c16-small --set data.max_length=128 --set train.bf16=true``;
a pruned copy, one epoch at a quarter of the recipe's rate: ``... --out runs/c16-p1024 --start
runs/c16/ffn1024-c0 --set train.epochs=1 --set train.learning_rate=2e-5`` and the same two sets.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from judge_campaign import RECIPES, prepare, run_all, runner_args  # noqa: E402

STUDENT = ["crossencoder.layers=[0,2,4,5]", "crossencoder.intermediate_size=192"]


def student_jobs(judge: Path, teacher: Path, seeds: list[int], built_max: int,
                 extra: list[str], start: Path | None = None) -> list[dict]:
    """One ``small-sS`` run per seed (module docstring, step 2), from ``start`` when given."""
    sets = [f"model.name_or_path={start or judge / 'final'}", f"distill.teacher={teacher}",
            "distill.teacher_weight=1.0"]
    jobs = [dict(name=f"small-s{s}", row="small", seed=s, recipe=RECIPES["human"], after=None,
                 built=True, sets=list(sets)) for s in seeds]
    for job in jobs:  # the runner reads OUT/NAME/pairs, its copy of the built pairs
        job["sets"] += [f"crossencoder.built_max={built_max}"] + extra
    return jobs


def self_teacher(judge: Path, teacher: Path, human: Path, built: Path, seeds: list[int],
                 built_max: int, dtype: str) -> None:
    """Step 1, unless ``teacher`` is there already: the package's teach-back teacher file."""
    from citetrain.judge_training.teachers import write_self_teacher

    write_self_teacher(judge, teacher, human, built, seeds, built_max, dtype)


def gaps(figs: dict[str, dict[str, dict[str, dict[str, float]]]], judge: str,
         student: str) -> dict[str, float]:
    """Per source, the mean over ``student``'s runs minus the mean over ``judge``'s."""
    def mean(row: str, src: str) -> float:
        return statistics.mean(f[src]["model"] for f in figs[row].values())

    first = next(iter(figs[judge].values()))
    return {s: mean(student, s) - mean(judge, s) for s in first}


def follows(judge: Path, runs: list[Path]) -> dict[str, tuple[float, float]]:
    """Per source, how closely the students' held-out scores follow the judge's: the mean over
    runs of the Pearson correlation and of the mean absolute difference (``model`` scores of
    ``heldout_scores.jsonl``, the same pairs in the same order)."""
    from judge_seeds import read_scores, same_pairs
    from scipy.stats import pearsonr

    tables = read_scores([judge] + runs)
    same_pairs(tables, "--judge and its students")
    out: dict[str, tuple[float, float]] = {}
    for src in dict.fromkeys(x["source"] for x in tables[0]):
        j = [x["model"] for x in tables[0] if x["source"] == src]
        per = [([x["model"] for x in t if x["source"] == src]) for t in tables[1:]]
        out[src] = (statistics.mean(pearsonr(j, s)[0] for s in per),
                    statistics.mean(statistics.mean(abs(a - b) for a, b in zip(j, s)) for s in per))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--judge", required=True, help="the judge's run folder (RUN/final, and its "
                    "heldout_scores.jsonl from its card)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", default="42,1,2")
    ap.add_argument("--built-max", type=int, default=4000)
    ap.add_argument("--dtype", default="bf16", help="the judge's weights as it reads the pairs")
    ap.add_argument("--student-set", action="append", metavar="KEY=VAL",
                    help=f"how the student is cut (default: {' '.join(STUDENT)}; none with "
                    "--start)")
    ap.add_argument("--start", help="the students' model instead of the judge's final model, "
                    "uncut: a pruned copy of the judge (citetrain prune)")
    ap.add_argument("--tolerance", type=float, default=0.005)
    runner_args(ap)
    args = ap.parse_args()
    judge, out = Path(args.judge).resolve(), Path(args.out).resolve()
    start = Path(args.start).resolve() if args.start else None
    if start is not None and not (start / "config.json").is_file():
        sys.exit(f"[compress] --start {args.start}: not a model folder (no config.json)")
    out.mkdir(parents=True, exist_ok=True)
    seeds = [int(s) for s in args.seeds.split(",")]
    human, built = Path(args.human).resolve(), Path(args.built).resolve()
    prepare(human)
    teacher = out / "teacher.jsonl"
    self_teacher(judge, teacher, human, built, seeds, args.built_max, args.dtype)
    cut = args.student_set or ([] if start else STUDENT)
    todo = student_jobs(judge, teacher, seeds, args.built_max, cut, start)
    failed = run_all(todo, out, None, args.set, args.parallel, args.threads, human, built)
    from judge_seeds import combined, figures, print_table

    runs = [out / j["name"] for j in todo if (out / j["name"] / "train_summary.json").is_file()]
    if runs:
        figs = {"judge": {str(judge): figures(judge, human)},
                "student": {str(r): figures(r, human) for r in runs},
                "judge:lexmean": combined([judge], "lexmean"),
                "student:lexmean": combined(runs, "lexmean")}
        print_table(figs, target="student:lexmean")
        for how in ("", ":lexmean"):
            d = gaps(figs, f"judge{how}", f"student{how}")
            print(f"student{how} minus judge{how}: "
                  + ", ".join(f"{s} {x:+.3f}" for s, x in d.items())
                  + f"; within {args.tolerance}: "
                  + ("all" if all(x >= -args.tolerance for x in d.values()) else
                     "not " + ", ".join(s for s, x in d.items() if x < -args.tolerance)))
        print("students follow the judge (held-out scores, alone): " + ", ".join(
            f"{s} Pearson {r:.3f}, |difference| {m:.3f}" for s, (r, m) in follows(judge, runs).items()))
    if failed:
        sys.exit(f"[compress] failed: {', '.join(failed)} (logs: OUT/NAME/run.log)")


if __name__ == "__main__":
    main()
