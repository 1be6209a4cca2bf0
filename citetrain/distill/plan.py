"""The steps of a distillation chain (:class:`~citetrain.distill.chain.Step`), from its spec.

In order: the built pairs (``citetrain build``), the human pairs of the recipe, the teachers
(fold teacher runs, or an NLI / LLM engine) and their teacher file, the student, and, as the
spec asks, ``prune``, ``teach_back`` (the student's own reading, then one run from the pruned
judge) and ``export``. Every output lies under the spec's ``out``; the built pairs lie where the
build spec puts them, the human pairs where the recipe does (``data.dataset``), so other runs
share them.
"""
from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citetrain.distill.chain import Step
from citetrain.distill.keys import overrides
from citetrain.distill.spec import DistillSpec
from citetrain.errors import CitetrainError


@dataclass
class Context:
    """What the steps are made from: the spec, its output folder, the recipe (with the spec's
    overrides), the human pairs dataset, the built pairs folder and the build spec (``None``
    for a finished build), and whether the runs train on GPUs."""

    spec: DistillSpec
    out: Path
    recipe: Any
    human: Path
    built: Path
    build_spec: Any
    gpu: bool


def context(spec: DistillSpec) -> Context:
    """The :class:`Context` of a spec: the recipe and the build spec loaded and checked (every
    error at once, before anything runs)."""
    import torch

    from citetrain.builders.stages import out_dir
    from citetrain.builders.spec import load_spec as load_build_spec
    from citetrain.train.recipe import load_recipe

    recipe = load_recipe(spec.recipe, list(spec.set))
    if recipe.kind != "crossencoder":
        raise CitetrainError(f"recipe: {spec.recipe} is of kind {recipe.kind}; a distilled judge "
                             "is a crossencoder recipe")
    build_spec = None
    if spec.pairs.spec is not None:
        build_spec = load_build_spec(spec.pairs.spec, list(spec.pairs.set))
        if build_spec.kind != "pairs":
            raise CitetrainError(f"pairs.spec: {spec.pairs.spec} is a build of kind "
                                 f"{build_spec.kind}, not pairs")
        built = out_dir(build_spec)
    else:
        built = Path(spec.pairs.folder or "")
        if not (built / "dataset" / "dataset_dict.json").is_file():
            raise CitetrainError(f"pairs.folder: {built} is not a pairs build (no "
                                 "dataset/dataset_dict.json; make one with citetrain build)")
    gpu = torch.cuda.is_available() and not recipe.train.use_cpu
    return Context(spec, Path(spec.out).resolve(), recipe, Path(recipe.data.dataset).resolve(),
                   built.resolve(), build_spec, gpu)


def train_command(recipe: str, sets: list[str]) -> str:
    """The training process a step starts, as a command line."""
    argv = [Path(sys.executable).name, "-m", "citetrain.train", recipe]
    for item in sets:
        argv += ["--set", item]
    return shlex.join(argv)


def pairs_step(ctx: Context) -> Step:
    """The built pairs, built here (resumable from its finished shards)."""
    from citetrain.builders.pipeline import build

    p = ctx.spec.pairs
    command = shlex.join(["citetrain", "build", str(p.spec)] + [x for s in p.set
                                                                for x in ("--set", s)])

    def call() -> str:
        if finished_build(ctx.build_spec, ctx.built):
            return f"kept the finished build at {ctx.built} (its manifest matches the spec)"
        counts = (build(ctx.build_spec) or {}).get("counts", {})
        return "pairs: " + ", ".join(f"{split} {sum(c.values())}" for split, c in counts.items())

    return Step("pairs", f"the built pairs -> {ctx.built}", command, [ctx.built / "dataset"],
                {"build": ctx.build_spec.model_dump(mode="json")}, owned=False, call=call)


def finished_build(build_spec: Any, built: Path) -> bool:
    """Whether ``built`` holds a finished build of ``build_spec``: its manifest has the spec's
    settings and sources, and the source files are unchanged (by sha256)."""
    import json

    from citetrain.io.readers import sha256_file

    man = built / "manifest.json"
    if not man.is_file() or not (built / "dataset" / "dataset_dict.json").is_file():
        return False
    try:
        old = json.loads(man.read_text(encoding="utf-8"))
    except ValueError:
        return False
    files = old.get("sources") or []
    paths = {str(s.path) for s in build_spec.sources if s.path}
    return (old.get("kind") == "pairs" and old.get("settings") == build_spec.settings()
            and bool(files) and {str(f.get("path")) for f in files} == paths
            and all(Path(f["path"]).is_file() and sha256_file(f["path"]) == f.get("sha256")
                    for f in files))


def human_step(ctx: Context) -> Step:
    """The recipe's human pairs dataset, made from its labelled files when absent."""
    from citetrain.judge_training.pairs import ensure_pairs

    def call() -> str:
        ensure_pairs(ctx.recipe, True)
        return f"human pairs at {ctx.human}"

    return Step("human", f"the recipe's human pairs -> {ctx.human}",
                "(the recipe's labelled files read into pairs, as citetrain train does)",
                [ctx.human / "dataset_dict.json"],
                {"recipe": ctx.spec.recipe, "set": ctx.spec.set, "dataset": str(ctx.human)},
                owned=False, call=call)


def _copy_human(human: Path, dest: Path) -> None:
    """The human pairs (dataset and manifest) into ``dest`` for one run, once: each concurrent
    run reads its own copy (files hard-linked where the disk allows), so no two share a
    datasets cache."""
    import os
    import shutil

    from citetrain.judge_training.pairs import MANIFEST

    if (dest / "dataset" / "dataset_dict.json").is_file():
        return
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(human, tmp / "dataset", copy_function=link)
    if (human.parent / MANIFEST).is_file():
        shutil.copy2(human.parent / MANIFEST, tmp / MANIFEST)
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)


def fold_teacher_steps(ctx: Context) -> list[Step]:
    """One training run per fold and seed, each on its own copy of the human pairs."""
    t = ctx.spec.teacher.folds
    steps = []
    for seed in t.seeds:
        for k in range(t.folds):
            run = ctx.out / "teachers" / f"f{k}-s{seed}"
            sets = list(ctx.spec.set) + list(t.set) + overrides(
                folds=t.folds, fold=k, fold_read=t.read if t.read != "whole" else None,
                seed=seed, output_dir=run, dataset=run / "human" / "dataset")
            steps.append(Step(
                f"teacher-f{k}-s{seed}", f"fold teacher {k} of {t.folds}, seed {seed}",
                train_command(ctx.spec.recipe, sets), [run / "train_summary.json",
                                                        run / "fold_scores.jsonl"],
                {"recipe": ctx.spec.recipe, "sets": sets}, after=["human"], train=sets,
                before=lambda run=run: _copy_human(ctx.human, run / "human"), clean=[run],
                group="teachers"))
    return steps


def partial_file(path: Path) -> Path:
    """The partial file of finished chunks a teacher file's scoring keeps beside ``path``
    (:class:`~citetrain.io.chunks.ChunkStore`)."""
    return path.with_name(f"{path.stem}.rank-0.partial.jsonl")


def _drawn(ctx: Context) -> tuple[list[int], int] | None:
    """The student's draw of the built pairs, where the teachers read only those."""
    s = ctx.spec.student
    return ([s.seed], s.built_max) if ctx.spec.teacher.drawn and s.built_max else None


def folds_file_step(ctx: Context, teachers: list[Step]) -> Step:
    """The fold teachers' teacher file: their out-of-fold scores merged, and the built pairs
    read by all of them (``citetrain teacher``)."""
    t, spec = ctx.spec.teacher.folds, ctx.spec.teacher
    runs = [ctx.out / "teachers" / s.name.removeprefix("teacher-") for s in teachers]
    out, drawn = ctx.out / "teacher.jsonl", _drawn(ctx)
    argv = ["citetrain", "teacher", *map(str, runs), "--out", str(out), "--transfer",
            str(ctx.built)]
    argv += ["--transfer-weight", f"{spec.transfer_weight:g}"] if spec.transfer_weight != 1 else []
    argv += ["--dtype", t.dtype] if t.dtype != "auto" else []
    argv += ["--drawn", ",".join(map(str, drawn[0])), "--built-max", str(drawn[1])] if drawn else []

    def call() -> str:
        return _folds_file(runs, out, ctx.built, spec.transfer_weight, t.dtype, drawn)

    part = out.with_name(out.stem + ".part.jsonl")

    return Step("teacher-file", f"{len(runs)} teachers' file -> {out}", shlex.join(argv), [out],
                {"runs": [str(r) for r in runs], "built": str(ctx.built),
                 "weight": spec.transfer_weight, "dtype": t.dtype, "drawn": drawn},
                after=[s.name for s in teachers] + ["pairs"], call=call,
                clean=[out, part, partial_file(part)])


def _folds_file(runs: list[Path], out: Path, built: Path, weight: float, dtype: str,
                drawn: tuple[list[int], int] | None) -> str:
    """Write the fold teachers' file through ``OUT.part.jsonl`` (its transfer chunks resume)."""
    import os

    from citetrain.judge_training.teachers import start_teacher
    from citetrain.judge_training.transfer import add_transfers

    part = out.with_name(out.stem + ".part.jsonl")
    started = start_teacher(runs, part, [built])
    for line in started["warnings"]:
        print(f"[distill] warning: {line}; those pairs lack that seed's teacher score",
              file=sys.stderr, flush=True)
    x = add_transfers(part, runs, [built], weight, read=started["read"], dtype=dtype,
                      drawn=drawn)[0]
    os.replace(part, out)
    info = started["merged"]
    return (f"{info['pairs']} training pairs from {info['files']} teachers, {x['pairs']} built "
            f"pairs read by {x['teachers']}" + (f" ({x['resumed']} of them by an earlier, killed "
                                                "run)" if x["resumed"] else ""))


def engine_file_step(ctx: Context) -> Step:
    """An NLI or LLM engine's teacher file: it reads the human training pairs and the built
    pairs (:mod:`citetrain.judge_training.teachers`)."""
    t = ctx.spec.teacher
    if t.nli is not None:
        name, options = t.nli.engine, dict(t.nli.options)
        batch = t.nli.batch_size
    else:
        name, batch = f"llm:{t.llm.model}", None
        options = {"api_key_env": t.llm.api_key_env, "concurrency": t.llm.concurrency,
                   **({"base_url": t.llm.base_url} if t.llm.base_url else {}), **t.llm.options}
    out, drawn = ctx.out / "teacher.jsonl", _drawn(ctx)
    cache = ctx.out / "teacher-cache.sqlite"

    def call() -> str:
        from citetrain.nli.registry import make_engine
        from citetrain.judge_training.teachers import write_engine_teacher
        from citetrain.judge_training.transfer import drawn_keys

        engine = make_engine(name, cache=str(cache), batch_size=batch, progress=False, **options)
        only = drawn_keys(ctx.built, drawn[1], drawn[0]) if drawn else None
        x = write_engine_teacher(out, engine, ctx.human, [ctx.built], t.transfer_weight, only)
        return (f"{x['human']} training pairs and {x['built']} built pairs read by {name}"
                + (f" ({x['resumed']} of them by an earlier, killed run)" if x["resumed"] else ""))

    return Step("teacher-file", f"{name} reads the training and built pairs -> {out}",
                f"(in process) {name} scores the train splits of {ctx.human} and {ctx.built}",
                [out], {"engine": name, "options": {k: v for k, v in options.items()},
                        "batch_size": batch, "human": str(ctx.human), "built": str(ctx.built),
                        "weight": t.transfer_weight, "drawn": drawn},
                after=["human", "pairs"], call=call, clean=[out, partial_file(out)])
