"""Figures: the two-stage judge's table of issue 14 (rows × training seeds) and its ablation of the
built transformations, trained as concurrent processes (one GPU runs many of these small jobs at
once; on a CPU use ``--parallel 1``).

Rows, each one run per seed (``RUN = OUT/ROW-sSEED``):

- ``human``: ``recipes/judge-crossencoder.yaml`` (human pairs only);
- ``built``: ``recipes/judge-crossencoder-built.yaml`` (built pairs only, zero-shot on humans);
- ``2stage``: ``recipes/judge-crossencoder-2stage.yaml`` from that seed's ``built`` model;
- ``mixed``: the human recipe with the built pairs added (one stage, ``crossencoder.built_max`` of them);
- ``ablation``: for each group of transformations, ``built-noGROUP`` (stage 1 without them) and
  ``2stage-noGROUP`` (stage 2 from it), on ``--ablation-seeds``;
- ``--variant NAME=KEY=VAL;KEY=VAL``: ``2stage-NAME``, stage 2 with these overrides from the
  ``built`` run of the same seed (a sweep of stage 2's settings on the validation claims).

Every run gets its own copy of the pairs datasets (no two processes share a ``datasets`` cache),
writes its log beside it and is skipped when its ``train_summary.json`` is already there, so a
killed campaign resumes. ``--collect DIR`` copies what the table needs (summaries, per-pair
held-out scores, cards, logs; not the models) to DIR. The table is printed with
``experiments/judge_seeds.py``'s reader.
Run: ``python experiments/judge_campaign.py --out runs/campaign --set train.use_cpu=false --parallel 8``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "experiments"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

RECIPES = {"human": "recipes/judge-crossencoder.yaml", "built": "recipes/judge-crossencoder-built.yaml",
           "2stage": "recipes/judge-crossencoder-2stage.yaml"}
# groups of citetrain.builders.transforms, by what they teach
GROUPS = {"hard": ["swap_entity", "negate", "swap_roles"],  # not supported, high overlap
          "easy": ["other_passage", "unrelated"],  # not supported, a word the passage lacks
          "partial": ["add_fact", "alter_one"],
          "rewrites": ["drop_modifiers", "merge", "reorder", "pronoun"]}  # supported, less overlap
KEEP = ("train_summary.json", "heldout_scores.jsonl", "citetrain_run.json", "run.log",
        "final/README.md")


def jobs(rows: list[str], seeds: list[int], ablation_seeds: list[int],
         variants: dict[str, list[str]] | None = None) -> list[dict]:
    """``{name, row, seed, recipe, after, built, sets}`` for every run, in the order of ``rows``
    (each over the seeds), stage 1 before its stage 2."""
    out = []
    for row in rows:
        if row == "ablation":
            for seed in ablation_seeds:
                for g, names in GROUPS.items():
                    ex = f"crossencoder.built_exclude=[{','.join(names)}]"
                    out.append(dict(name=f"built-no{g}-s{seed}", row=f"built-no{g}", seed=seed,
                                    recipe=RECIPES["built"], built=True, sets=[ex]))
                    out.append(dict(name=f"2stage-no{g}-s{seed}", row=f"2stage-no{g}", seed=seed,
                                    recipe=RECIPES["2stage"], after=f"built-no{g}-s{seed}"))
            continue
        for seed in seeds:
            if row in ("human", "built"):
                out.append(dict(name=f"{row}-s{seed}", row=row, seed=seed, recipe=RECIPES[row],
                                built=row == "built"))
            elif row == "2stage":
                out.append(dict(name=f"2stage-s{seed}", row=row, seed=seed, recipe=RECIPES["2stage"],
                                after=f"built-s{seed}"))
            elif row == "mixed":
                out.append(dict(name=f"mixed-s{seed}", row=row, seed=seed, recipe=RECIPES["human"],
                                built=True, sets=["crossencoder.built_max=6000"]))
            else:
                sys.exit(f"[campaign] unknown row {row!r}: human, built, 2stage, mixed, ablation")
    for name, sets in (variants or {}).items():  # stage 2 with other settings, same stage 1
        for seed in seeds:
            out.append(dict(name=f"2stage-{name}-s{seed}", row=f"2stage-{name}", seed=seed,
                            recipe=RECIPES["2stage"], after=f"built-s{seed}", sets=sets))
    for j in out:
        j.setdefault("after", None)
        j.setdefault("sets", [])
        j.setdefault("built", False)
    return out


def command(job: dict, out: Path, base: str | None, sets: list[str]) -> list[str]:
    """The ``python -m citetrain.train`` line of one run, on its own copies of the pairs."""
    run = out / job["name"]
    args = [sys.executable, "-m", "citetrain.train", str(REPO / job["recipe"]),
            "--set", f"train.output_dir={run}", "--set", f"train.seed={job['seed']}",
            "--set", f"data.dataset={run / 'human' / 'dataset'}"]
    if job["after"]:
        args += ["--set", f"model.name_or_path={out / job['after'] / 'final'}"]
    elif base:
        args += ["--set", f"model.name_or_path={base}"]
    if job["built"]:
        args += ["--set", f"crossencoder.built=[{run / 'pairs'}]"]
    for s in job["sets"] + sets:
        args += ["--set", s]
    return args


def stage(job: dict, out: Path, human: Path, built: Path) -> None:
    """Copy the pairs a run reads into its folder (once)."""
    run = out / job["name"]
    run.mkdir(parents=True, exist_ok=True)
    if not (run / "human").exists():
        shutil.copytree(human.parent, run / "human.tmp")
        os.replace(run / "human.tmp", run / "human")
    if job["built"] and not (run / "pairs").exists():
        shutil.copytree(built / "dataset", run / "pairs.tmp" / "dataset")
        shutil.copy(built / "manifest.json", run / "pairs.tmp" / "manifest.json")
        os.replace(run / "pairs.tmp", run / "pairs")


def prepare(human: Path) -> None:
    """Build the human pairs dataset once (as the recipe would), before runs copy it."""
    from citetrain.judge_training.pairs import ensure_pairs
    from citetrain.train.recipe import load_recipe

    recipe = load_recipe(REPO / RECIPES["human"], [f"data.dataset={human}"])
    ensure_pairs(recipe, True)


def run_all(todo: list[dict], out: Path, base: str | None, sets: list[str], parallel: int,
            threads: int, human: Path, built: Path, dest: Path | None = None) -> list[str]:
    """Run the jobs, at most ``parallel`` at once, each after its stage 1, copying each finished
    run's figures to ``dest`` as it ends; returns the failed."""
    finished = {j["name"] for j in todo} | {j["after"] for j in todo if j["after"]}
    done = {n for n in finished if (out / n / "train_summary.json").is_file()}  # stage 1s too
    failed: list[str] = []
    running: dict[str, tuple[subprocess.Popen, float]] = {}
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    pending = [j for j in todo if j["name"] not in done]
    names = {j["name"] for j in todo}
    for job in pending:
        if job["after"] and job["after"] not in names | done:
            sys.exit(f"[campaign] {job['name']} starts from {job['after']}, which is neither done "
                     f"in {out} nor among --rows")
    while pending or running:
        for name, (proc, t0) in list(running.items()):
            if proc.poll() is not None:
                del running[name]
                ok = proc.returncode == 0 and (out / name / "train_summary.json").is_file()
                (done.add if ok else failed.append)(name)
                if dest is not None:
                    collect([name], out, dest)
                print(f"[campaign] {name}: {'done' if ok else 'FAILED'} in {time.time() - t0:.0f} s",
                      flush=True)
        for job in list(pending):
            if len(running) >= parallel:
                break
            if job["after"] in failed:
                pending.remove(job)
                failed.append(job["name"])
                print(f"[campaign] {job['name']}: skipped ({job['after']} failed)", flush=True)
            elif job["after"] is None or job["after"] in done:
                pending.remove(job)
                stage(job, out, human, built)
                log = open(out / job["name"] / "run.log", "a")
                proc = subprocess.Popen(command(job, out, base, sets), stdout=log,
                                        stderr=subprocess.STDOUT, env=env, cwd=REPO)
                running[job["name"]] = (proc, time.time())
                print(f"[campaign] {job['name']}: started", flush=True)
        time.sleep(1)
    return failed


def collect(names: list[str], out: Path, dest: Path) -> None:
    """Copy these runs' figures (not their models) to ``dest``."""
    for name in names:
        for rel in KEEP:
            src = out / name / rel
            if src.is_file():
                (dest / name / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(src, dest / name / rel)


def runner_args(ap: argparse.ArgumentParser) -> None:
    """The options of :func:`run_all` (also ``experiments/judge_distill.py``'s)."""
    ap.add_argument("--base", help="model.name_or_path of the runs that start from the base")
    ap.add_argument("--set", action="append", default=[], help="an override for every run")
    ap.add_argument("--parallel", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS of each run")
    ap.add_argument("--human", default=str(REPO / "data" / "judge-crossencoder-tok" / "dataset"))
    ap.add_argument("--built", default=str(REPO / "data" / "pairs"))
    ap.add_argument("--collect", help="copy the runs' figures (not the models) here")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(REPO / "runs" / "campaign"))
    ap.add_argument("--rows", default="human,built,2stage,mixed,ablation")
    ap.add_argument("--seeds", default="42,1,2")
    ap.add_argument("--ablation-seeds", default="42")
    runner_args(ap)
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=KEY=VAL[;KEY=VAL]",
                    help="a 2stage-NAME row: stage 2 with these overrides, from the built row")
    ap.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    if args.base and Path(args.base).exists():
        args.base = str(Path(args.base).resolve())
    variants = {v.partition("=")[0]: v.partition("=")[2].split(";") for v in args.variant}
    todo = jobs(args.rows.split(","), [int(s) for s in args.seeds.split(",")],
                [int(s) for s in args.ablation_seeds.split(",") if s], variants)
    if args.dry_run:
        for job in todo:
            print(" ".join(command(job, out, args.base, args.set)))
        return
    human = Path(args.human).resolve()
    prepare(human)
    dest = Path(args.collect) if args.collect else None
    if dest is not None:  # runs finished earlier too
        collect([j["name"] for j in todo], out, dest)
    failed = run_all(todo, out, args.base, args.set, args.parallel, args.threads, human,
                     Path(args.built).resolve(), dest)
    from judge_seeds import figures, print_table

    rows: dict[str, list[Path]] = {}
    for job in todo:
        if (out / job["name"] / "train_summary.json").is_file():
            rows.setdefault(job["row"], []).append(out / job["name"])
    if rows:
        print_table({name: {str(r): figures(r, human) for r in runs} for name, runs in rows.items()})
    if failed:
        sys.exit(f"[campaign] failed: {', '.join(failed)} (logs: OUT/NAME/run.log)")


if __name__ == "__main__":
    main()
