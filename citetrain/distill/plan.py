"""The steps of a distillation chain (:class:`~citetrain.distill.chain.Step`), from its spec.

In order: the built pairs (``citetrain build``), the human pairs of the recipe, the teachers
(fold teacher runs, or an NLI / LLM engine) and their teacher file, the student, and, as the
spec asks, ``prune``, ``teach_back`` (the student's own reading, then one run from the pruned
judge) and ``export``. Every output lies under the spec's ``out``; the built pairs lie where the
build spec puts them, the human pairs where the recipe does (``data.dataset``), so other runs
share them.
"""
from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from citetrain.distill.chain import Step
from citetrain.distill.keys import overrides
from citetrain.distill.runs import train_argv
from citetrain.distill.spec import DistillSpec
from citetrain.errors import CitetrainError
from citetrain.io.chunks import partial_path
from citetrain.judge_training.teacher_scores import FOLD_SCORES
from citetrain.judge_training.teachers import part_path
from citetrain.train.card import SUMMARY


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
    cli: Callable[[list[str]], int] | None = None


def context(spec: DistillSpec, cli: Callable[[list[str]], int] | None = None) -> Context:
    """The :class:`Context` of a spec: the recipe and the build spec loaded and checked (every
    error at once, before anything runs). ``cli``: the ``citetrain`` entry point that runs the
    steps' commands in this process (``None``: each in a ``python -m citetrain`` process)."""
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
                   built.resolve(), build_spec, gpu, cli)


def run_command(ctx: Context, argv: list[str]) -> None:
    """Run a step's ``citetrain ...`` command line, exactly ``argv``: through the entry point
    of ``ctx`` in this process, or as ``python -m citetrain`` with the same arguments."""
    import subprocess

    if ctx.cli is None:
        code = subprocess.run([sys.executable, "-m", "citetrain", *argv[1:]]).returncode
    else:
        try:
            code = ctx.cli(argv[1:])
        except SystemExit as e:  # the command's parser refused the arguments
            code = e.code if isinstance(e.code, int) else 2
    if code:
        raise CitetrainError(f"`{shlex.join(argv)}` failed (exit {code}; its error is above)")


def pairs_step(ctx: Context) -> Step:
    """The built pairs: ``citetrain build`` (resumable from its finished shards), unless a
    finished build of the same settings is there already."""
    p = ctx.spec.pairs
    argv = ["citetrain", "build", str(p.spec)] + [x for s in p.set for x in ("--set", s)]

    def call() -> str:
        if finished_build(ctx.build_spec, ctx.built):
            return f"kept the finished build at {ctx.built} (its manifest matches the spec)"
        run_command(ctx, argv)
        counts = json.loads((ctx.built / "manifest.json").read_text(encoding="utf-8")).get(
            "counts", {})
        return "pairs: " + ", ".join(f"{split} {sum(c.values())}" for split, c in counts.items())

    return Step("pairs", f"the built pairs -> {ctx.built}", "", [ctx.built / "dataset"],
                {"build": ctx.build_spec.model_dump(mode="json")}, owned=False, call=call,
                argv=argv)


def finished_build(build_spec: Any, built: Path) -> bool:
    """Whether ``built`` holds a finished build of ``build_spec``: its manifest has the spec's
    settings and sources, and the source files are unchanged (by sha256)."""
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
                "", [run / SUMMARY, run / FOLD_SCORES],
                {"recipe": ctx.spec.recipe, "sets": sets}, after=["human"], train=sets,
                argv=train_argv(ctx.spec.recipe, sets),
                before=lambda run=run: _copy_human(ctx.human, run / "human"), clean=[run],
                group="teachers"))
    return steps


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
    part = part_path(out)
    return Step("teacher-file", f"{len(runs)} teachers' file -> {out}", "", [out],
                {"runs": [str(r) for r in runs], "built": str(ctx.built),
                 "weight": spec.transfer_weight, "dtype": t.dtype, "drawn": drawn},
                after=[s.name for s in teachers] + ["pairs"],
                call=lambda: run_command(ctx, argv), argv=argv,
                clean=[out, part, partial_path(part)])


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
                after=["human", "pairs"], call=call, clean=[out, partial_path(out)])
