"""Figures: a judge distilled from an ensemble of judges with out-of-fold teacher scores
(:mod:`citetrain.judge_training.teacher_scores`), against the same recipe trained on the labels, over seeds.

1. Teachers: ``recipes/judge-crossencoder.yaml`` (human pairs) once per fold and seed
   (``teach-fK-sS``, ``distill.folds=--folds``, ``distill.fold=K``), beside stage 1 of the two-stage
   judge (``built-sS``); each teacher scores the training claims it left out.
2. ``OUT/teacher.jsonl`` (as ``citetrain teacher OUT/teach-* --out OUT/teacher.jsonl`` makes it):
   every training pair's probabilities averaged over the teachers that held it out (one per seed).
3. Students, per seed: ``2stage-sS`` (stage 2 on the labels, the baseline, same machine) and
   ``2stage-kdW-sS`` for every ``--weights`` W (stage 2 on ``W·teacher + (1 − W)·label``), both
   from ``built-sS``; with ``--human-students``, ``human-kdW-sS`` too (no stage 1).

Runs go through ``experiments/judge_campaign.py``'s runner (concurrent processes, resumable, ``--collect``);
the table is ``experiments/judge_seeds.py``'s.
Run: ``python experiments/judge_distill.py --out runs/distill --set train.use_cpu=false --parallel 15``;
smaller students of the same teachers: add ``--student-set crossencoder.num_layers=2`` (rows ``...-l2``;
the finished teachers are not run again). ``--transfer``: the teachers also score the built pairs'
train split (``OUT/teacher-transfer.jsonl``, :mod:`citetrain.judge_training.transfer`) and students
``mixed-kdW-sS`` train on human and ``--built-max`` built pairs, both read from it, in one stage,
and ``2stage-mixed-kdW-sS`` the same as stage 2 from ``built-sS`` (built then human, the issue's
row). ``--student-rows ROW,...`` trains only those students (the teachers always run first).
``--read clauses``: the teachers read their folds and the transfer pairs clause by clause
(``distill.fold_read``, :mod:`citetrain.nli.clauses`); the students learn that reading of a whole
statement.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from judge_campaign import RECIPES, REPO, collect, prepare, run_all, runner_args  # noqa: E402

from citetrain.nli.clauses import READS  # noqa: E402


def job(name: str, row: str, seed: int, recipe: str, after: str | None = None,
        built: bool = False, sets: list[str] | None = None) -> dict:
    return dict(name=name, row=row, seed=seed, recipe=RECIPES[recipe], after=after, built=built,
                sets=sets or [])


def teachers(seeds: list[int], folds: int, read: str = "whole",
             teacher_seeds: list[int] | None = None, stage1: bool = True,
             extra: list[str] | None = None) -> list[dict]:
    """Stage 1 of every seed (unless ``stage1`` is false: no ``2stage`` student), and the
    fold teachers of ``teacher_seeds`` (default ``seeds``), reading their fold ``read``, with the
    ``extra`` overrides (e.g. ``crossencoder.card=false``: no held-out scoring of a teacher)."""
    out = [job(f"built-s{s}", "built", s, "built", built=True) for s in seeds] if stage1 else []
    out += [job(f"teach-f{k}-s{s}", f"teach-f{k}", s, "human",
                sets=[f"distill.folds={folds}", f"distill.fold={k}"]
                + ([f"distill.fold_read={read}"] if read != "whole" else []) + list(extra or []))
            for s in (teacher_seeds or seeds) for k in range(folds)]
    return out


def students(seeds: list[int], weights: list[float], teacher: Path, human: bool,
             extra: list[str] | None = None, name: str = "",
             transfer: Path | None = None, built_max: int = 6000) -> list[dict]:
    """The baseline stage 2 and the distilled ones, per seed; ``extra`` overrides go to every
    student (e.g. ``crossencoder.num_layers=2``), whose rows then end in ``-NAME`` so that they
    sit beside the full-size students of the same teachers. With ``transfer`` (a teacher file
    that also holds the built pairs, scored by the teachers), one stage on human and
    ``built_max`` built pairs, all read from that file: ``mixed-kdW-sS``."""
    extra = list(extra or [])
    end = f"-{name}" if name else ""
    out = [job(f"2stage{end}-s{s}", f"2stage{end}", s, "2stage", after=f"built-s{s}", sets=extra)
           for s in seeds]
    for w in weights:
        tag = f"kd{round(w * 100)}{end}"
        sets = [f"distill.teacher={teacher}", f"distill.teacher_weight={w}"] + extra
        out += [job(f"2stage-{tag}-s{s}", f"2stage-{tag}", s, "2stage", after=f"built-s{s}",
                    sets=sets) for s in seeds]
        if human:
            out += [job(f"human-{tag}-s{s}", f"human-{tag}", s, "human", sets=sets) for s in seeds]
        if transfer is not None:
            mixed = [f"distill.teacher={transfer}", f"distill.teacher_weight={w}",
                     f"crossencoder.built_max={built_max}"] + extra
            out += [job(f"mixed-{tag}-s{s}", f"mixed-{tag}", s, "human", built=True, sets=mixed)
                    for s in seeds]
            out += [job(f"2stage-mixed-{tag}-s{s}", f"2stage-mixed-{tag}", s, "2stage",
                        after=f"built-s{s}", built=True, sets=mixed) for s in seeds]
    return out


def only_rows(todo: list[dict], rows: str | None) -> list[dict]:
    """The jobs whose row is one of ``rows`` (comma-separated, e.g. ``mixed-kd50,2stage-mixed-kd50``);
    all of them when ``rows`` is empty; a clear exit for a row no job has."""
    if not rows:
        return todo
    want = [r.strip() for r in rows.split(",") if r.strip()]
    have = list(dict.fromkeys(j["row"] for j in todo))
    if unknown := [r for r in want if r not in have]:
        sys.exit(f"[distill] --student-rows: no such row {', '.join(unknown)} "
                 f"(this call's students: {', '.join(have)})")
    return [j for j in todo if j["row"] in want]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(REPO / "runs" / "distill"))
    ap.add_argument("--seeds", default="42,1,2")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--teacher-seeds", help="the fold teachers' seeds (default --seeds)")
    ap.add_argument("--weights", default="1.0,0.5", help="teacher weights of the students")
    ap.add_argument("--read", choices=READS, default="whole",
                    help="clauses: the teachers read their folds and the transfer pairs clause "
                    "by clause (distill.fold_read; citetrain.nli.clauses), the students whole")
    ap.add_argument("--human-students", action="store_true",
                    help="also students without stage 1 (human-kdW-sS)")
    ap.add_argument("--student-set", action="append", default=[], metavar="KEY=VAL",
                    help="an override for the students only (e.g. crossencoder.num_layers=2: six-layer "
                    "teachers, two-layer students); their rows end in -l2 (see --student-name)")
    ap.add_argument("--transfer", action="store_true",
                    help="also score the built pairs (--built) with every teacher and train "
                    "students on human + built pairs from that file (mixed-kdW-sS; "
                    "citetrain.judge_training.transfer)")
    ap.add_argument("--transfer-weight", type=float, default=1.0,
                    help="the built pairs' own teacher weight (default 1.0)")
    ap.add_argument("--built-max", type=int, default=6000, help="built pairs per mixed student")
    ap.add_argument("--transfer-dtype", default="auto",
                    help="the teachers' weights when they read the transfer pairs (bf16: about 3x "
                    "faster on a CPU with native bf16; citetrain teacher --dtype)")
    ap.add_argument("--transfer-drawn", action="store_true",
                    help="score only the built pairs the students of --seeds draw (--built-max "
                    "each; citetrain.judge_training.transfer.drawn_keys) instead of the whole train split")
    ap.add_argument("--student-rows", metavar="ROW,...",
                    help="only these students' rows (e.g. mixed-kd50,2stage-mixed-kd50; default all)")
    ap.add_argument("--student-name", default="",
                    help="suffix of the students' rows (default: lN from crossencoder.num_layers=N)")
    ap.add_argument("--teacher-set", action="append", default=[], metavar="KEY=VAL",
                    help="an override for the fold teachers only (e.g. crossencoder.card=false: they skip "
                    "their held-out scoring and model card, and the table leaves them out)")
    runner_args(ap)
    args = ap.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    base = str(Path(args.base).resolve()) if args.base and Path(args.base).exists() else args.base
    seeds = [int(s) for s in args.seeds.split(",")]
    weights = [float(w) for w in args.weights.split(",") if w]
    human, built = Path(args.human).resolve(), Path(args.built).resolve()
    dest = Path(args.collect) if args.collect else None
    prepare(human)
    stage1 = not args.student_rows or any(r.strip().startswith("2stage")
                                          for r in args.student_rows.split(","))
    teacher_seeds = [int(s) for s in args.teacher_seeds.split(",")] if args.teacher_seeds else None
    first = teachers(seeds, args.folds, args.read, teacher_seeds, stage1, args.teacher_set)
    failed = run_all(first, out, base, args.set, args.parallel, args.threads, human, built, dest)
    if failed:
        sys.exit(f"[distill] failed: {', '.join(failed)} (logs: OUT/NAME/run.log)")
    from citetrain.judge_training.teachers import start_teacher

    teacher = out / "teacher.jsonl"
    teach = [out / j["name"] for j in first if j["name"].startswith("teach-")]
    started = start_teacher(teach, teacher, [built] if args.transfer else None)
    info = started["merged"]
    print(f"[distill] teacher: {info}", flush=True)
    for line in started["warnings"]:
        print(f"[distill] warning: {line}", flush=True)
    transfer = None
    if args.transfer:
        from citetrain.judge_training.transfer import add_transfers

        transfer = out / f"{teacher.stem}-transfer.jsonl"
        if not transfer.is_file():  # a resumed call keeps the scored file
            shutil.copy(teacher, out / "transfer.tmp")
            t = add_transfers(out / "transfer.tmp", teach, [built], args.transfer_weight,
                              read=info.get("read", "whole"), dtype=args.transfer_dtype,
                              drawn=(seeds, args.built_max) if args.transfer_drawn else None)[0]
            os.replace(out / "transfer.tmp", transfer)
            print(f"[distill] transfer: {t}", flush=True)
    name = args.student_name or "".join(f"l{kv.partition('=')[2]}" for kv in args.student_set
                                        if kv.partition("=")[0] == "crossencoder.num_layers")
    if args.student_set and not name:
        sys.exit("[distill] --student-set without crossencoder.num_layers needs --student-name")
    second = only_rows(students(seeds, weights, teacher, args.human_students, args.student_set,
                                name, transfer, args.built_max), args.student_rows)
    failed = run_all(second, out, base, args.set, args.parallel, args.threads, human, built, dest)
    if dest is not None:
        collect([j["name"] for j in first + second], out, dest)
    from judge_seeds import figures, print_table

    rows: dict[str, list[Path]] = {}
    for j in first + second:
        summary = out / j["name"] / "train_summary.json"
        if j["row"] != "built" and summary.is_file() and (
                not j["row"].startswith("teach") or "heldout" in json.loads(summary.read_text())):
            rows.setdefault(j["row"].split("-f")[0] if j["row"].startswith("teach") else j["row"],
                            []).append(out / j["name"])
    print_table({name: {str(r): figures(r, human) for r in runs} for name, runs in rows.items()})
    if failed:
        sys.exit(f"[distill] failed: {', '.join(failed)} (logs: OUT/NAME/run.log)")


if __name__ == "__main__":
    main()
