"""The CPU demonstration of issue 77: SelfCite's context-ablation reward trains a tiny refiner to
cite better on synthetic records of several passages, measured on held-out records over seeds.

Per seed ``S`` (every stage is a ``citetrain`` command a user runs; a finished stage is kept, so a
killed run goes on where it stopped):

1. ``citetrain build data_builders/tiny.yaml`` on ``synthetic: {n, seed: S, docs: [4, 6]}``:
   refiner data from records of ``--docs`` passages whose supporting passages are known;
2. ``citetrain train recipes/tiny-sft.yaml`` with ``method: full``: the SFT refiner (the
   starting policy), the tiny model trained whole; with ``--scorer generator`` (the default) the
   same recipe as ``kind: generator`` trains the reward's scorer on the records' answers;
3. ``citetrain train recipes/tiny-selfcite.yaml``: DPO on SelfCite pairs, best over worst of
   ``rl.selfcite.candidates`` citation sets ranked by the scorer's reward;
4. ``citetrain synth --docs 4,6`` held-out records of another world (seed ``1000 + S``), then
   ``citetrain refine`` with the SFT refiner, the SFT refiner with ``--best-of 4`` (SelfCite
   best-of-N) and the DPO adapter.

Each answer file is scored with the SelfCite reward (mean over the statements of a record, then
over records; the scorer is the seed's generator, or its SFT refiner, for every row, so the rows
share one yardstick), ``longbench_cite`` F1 and ALCE citation F1, both under the lexical NLI.
Writes ``OUT/table-generator.md`` (mean ± sd over the seeds) and ``OUT/scores-generator.json``
(every seed; without the suffix for ``--scorer refiner``).
Run: ``python experiments/selfcite_demo.py --seeds 0 1 2 --jobs 3`` (three seeds at once).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROWS = ("unrefined (as generated)", "SFT", "SFT, best-of-4 by the SelfCite reward",
        "SFT + SelfCite DPO")
COLUMNS = ("selfcite_reward", "longbench_cite_f1", "citation_f1")


def citetrain(args: list[str], log: Path, threads: int) -> None:
    """One ``citetrain`` command, its output appended to ``log``; a failure stops the seed."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": str(threads)}
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"$ citetrain {' '.join(args)}\n")
        f.flush()
        done = subprocess.run([sys.executable, "-m", "citetrain", *args], cwd=REPO, env=env,
                              stdout=f, stderr=subprocess.STDOUT)
    if done.returncode:
        raise SystemExit(f"`citetrain {' '.join(args)}` exited {done.returncode}; see {log}")


def tag(a: argparse.Namespace) -> str:
    """The scorer's suffix of the files it ranked: ``""`` (the refiner) or ``"-generator"``."""
    return "" if a.scorer == "refiner" else f"-{a.scorer}"


def answer_files(a: argparse.Namespace) -> dict[str, str]:
    """Each row's answer file in a seed's folder."""
    return dict(zip(ROWS, ("heldout.jsonl", "refined-sft.jsonl",
                           f"refined-sft-bo4{tag(a)}.jsonl", f"refined-selfcite{tag(a)}.jsonl")))


def with_sets(recipe: str, sets: list[str]) -> list[str]:
    """``train RECIPE --set K=V ...``."""
    return ["train", recipe, *[x for s in sets for x in ("--set", s)]]


def build(spec: str, out: Path, seed: int, a: argparse.Namespace) -> list[str]:
    """``build SPEC`` on the seed's synthetic records of ``--docs`` passages, into ``out``."""
    lo, hi = a.docs
    source = f"sources=[{{synthetic: {{n: {a.records}, seed: {seed}, docs: [{lo}, {hi}]}}}}]"
    return ["build", spec, "--set", source, "--set", f"out={out}", "--no-progress"]


def run_seed(seed: int, a: argparse.Namespace) -> Path:
    """Stages 1-4 for one seed; returns its folder."""
    out = a.out / f"seed{seed}"
    out.mkdir(parents=True, exist_ok=True)
    log, t = out / "log.txt", a.threads
    lo, hi = a.docs
    data, sft = out / "data", out / "sft"
    long = [f"data.max_length={a.max_length}", f"train.seed={seed}"]
    # the tiny model is trained whole from its random start (LoRA on random weights never learns
    # to read the passages; experiments/studies/selfcite-demo.md)
    full = ["method=full", "lora.enabled=false", f"train.learning_rate={a.sft_lr}"]
    if not (data / "manifest.json").is_file():
        citetrain(build("data_builders/tiny.yaml", data, seed, a), log, t)
    if not (sft / "final").is_dir():
        citetrain(with_sets("recipes/tiny-sft.yaml", [
            *long, *full, f"data.dataset={data}/dataset", f"train.output_dir={sft}",
            f"train.max_steps={a.sft_steps}"]), log, t)
    scorer = []  # the reward's scorer: the refiner itself, or a tiny generator of the answers
    if a.scorer == "generator":
        gdata, gen = out / "gen-data", out / "generator"
        if not (gdata / "manifest.json").is_file():
            citetrain(build("data_builders/generator.yaml", gdata, seed, a), log, t)
        if not (gen / "final").is_dir():
            citetrain(with_sets("recipes/tiny-sft.yaml", [
                *long, *full, "kind=generator", f"data.dataset={gdata}/dataset",
                f"train.output_dir={gen}", f"train.max_steps={a.gen_steps}",
                "eval.enabled=false", "eval.best_metric=null"]), log, t)
        scorer = [f"{gen}/final"]
    dpo = out / f"selfcite{tag(a)}"
    if not (dpo / "final").is_dir():
        citetrain(with_sets("recipes/tiny-selfcite.yaml", [
            *long, f"data.dataset={data}/dataset", f"train.output_dir={dpo}",
            f"model.name_or_path={sft}/final", "model.adapter=null",
            f"train.max_steps={a.dpo_steps}", f"data.max_train_examples={a.pair_examples}",
            *[f"rl.selfcite.model={m}" for m in scorer]]), log, t)
    held = out / "heldout.jsonl"
    if not held.is_file():
        citetrain(["synth", "--n", str(a.heldout), "--seed", str(1000 + seed), "--docs",
                   f"{lo},{hi}", "--out", str(held)], log, t)
    _, plain, bo4, tuned = answer_files(a).values()
    for name, refiner, extra in (
            (plain, sft, []),
            (bo4, sft, ["--best-of", "4", "--seed", str(seed),
                        *[x for m in scorer for x in ("--selfcite-model", m)]]),
            (tuned, dpo, [])):
        if not (out / name).is_file():
            citetrain(["refine", str(held), "--refiner", f"{refiner}/final", "--out",
                       str(out / name), "--max-length", str(a.max_length), "--no-progress",
                       *extra], log, t)
    return out


def score_seed(out: Path, a: argparse.Namespace) -> dict[str, dict[str, float]]:
    """The three columns for every row of one seed, the reward scored by ``--scorer``."""
    from citetrain.io.readers import read_records
    from citetrain.metrics.evaluate import evaluate
    from citetrain.nli.registry import make_engine
    from citetrain.rewards.selfcite import SelfCiteReward

    scorer = out / ("sft" if a.scorer == "refiner" else a.scorer) / "final"
    reward = SelfCiteReward.from_pretrained(str(scorer), max_batch_tokens=16384)
    lexical = make_engine("lexical", progress=False)
    rows = {}
    for row, name in answer_files(a).items():
        records = read_records(out / name, "alce").records
        report = evaluate(records, metrics=["alce", "longbench_cite"], nli=lexical, progress=False)
        flat = {k: float(v) for g in report.scores.values() for k, v in g.items() if v is not None}
        # a record's reward: the mean over its statements (0 without any), as GRPO reads it
        per_record = reward.selfcite([""] * len(records), [r.output for r in records],
                                     [r.docs for r in records],
                                     question=[r.question for r in records])
        rows[row] = {"selfcite_reward": sum(per_record) / len(per_record),
                     "longbench_cite_f1": flat["longbench_cite_f1"],
                     "citation_f1": flat["citation_f1"]}
    return rows


def table(scores: dict[int, dict[str, dict[str, float]]], a: argparse.Namespace) -> str:
    """Mean ± sd over the seeds, one line per row."""
    seeds = sorted(scores)
    head = ("| | SelfCite reward | LongBench-Cite F1 (lexical) | ALCE citation F1 (lexical) |\n"
            "|---|---|---|---|\n")
    lines = []
    for row in ROWS:
        cells = []
        for col in COLUMNS:
            vals = [scores[s][row][col] for s in seeds]
            sd = statistics.stdev(vals) if len(vals) > 1 else 0.0
            cells.append(f"{statistics.mean(vals):.3f} ± {sd:.3f}" if col == "selfcite_reward"
                         else f"{statistics.mean(vals):.1f} ± {sd:.1f}")
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    lo, hi = a.docs
    return (f"{a.heldout} held-out synthetic records of {lo}-{hi} passages per seed, seeds "
            f"{', '.join(map(str, seeds))} (mean ± sd over seeds)\n\n" + head + "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--out", type=Path, default=REPO / "runs" / "selfcite-demo")
    ap.add_argument("--records", type=int, default=300, help="synthetic training records a seed")
    ap.add_argument("--docs", type=lambda s: tuple(int(x) for x in s.split(",")), default=(4, 6))
    ap.add_argument("--max-length", type=int, default=512)
    ap.add_argument("--sft-steps", type=int, default=600, help="steps of the SFT refiner")
    ap.add_argument("--gen-steps", type=int, default=300, help="steps of the generator scorer")
    ap.add_argument("--sft-lr", type=float, default=1e-3,
                    help="learning rate of the SFT refiner and of the generator (trained whole)")
    ap.add_argument("--dpo-steps", type=int, default=100)
    ap.add_argument("--pair-examples", type=int, default=400,
                    help="training statements ranked into SelfCite pairs")
    ap.add_argument("--heldout", type=int, default=60)
    ap.add_argument("--scorer", choices=["refiner", "generator"], default="generator",
                    help="the reward's scoring model: the SFT refiner itself, or a tiny generator "
                         "trained on the same records' answers (rl.selfcite.model)")
    ap.add_argument("--jobs", type=int, default=1, help="seeds run at once")
    args = ap.parse_args(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    args.threads = max(1, cores // args.jobs)
    with ThreadPoolExecutor(args.jobs) as pool:
        folders = dict(zip(args.seeds, pool.map(lambda s: run_seed(s, args), args.seeds)))
    scores = {s: score_seed(f, args) for s, f in folders.items()}
    from citetrain.io.writers import atomic_write_text

    text = table(scores, args)
    print(text)
    atomic_write_text(args.out / f"table{tag(args)}.md", text)
    atomic_write_text(args.out / f"scores{tag(args)}.json", json.dumps(scores, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
