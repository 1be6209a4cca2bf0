"""The chain's later steps: the student, and the judge made smaller and exported from it.

``student``: the recipe trained on the teacher file and the built pairs. ``prune``: its
feed-forward blocks narrowed without training (:func:`~citetrain.judges.narrow.prune_judge`).
``teach-back-file`` and ``teach-back``: the student reads the pairs
(:func:`~citetrain.judge_training.teachers.write_self_teacher`), and the pruned judge trains on that
reading at teacher weight 1. ``export``: the last judge as ONNX or OpenVINO
(:func:`~citetrain.judges.export.export_judge`).
"""
from __future__ import annotations

from pathlib import Path

from citetrain.distill.chain import Step
from citetrain.distill.keys import overrides
from citetrain.distill.plan import Context, run_command
from citetrain.distill.runs import train_argv
from citetrain.io.chunks import partial_path
from citetrain.train.card import SUMMARY


def student_step(ctx: Context) -> Step:
    """The student: ``teacher_weight``·teacher on the human pairs, and ``built_max`` built
    pairs as the teachers read them."""
    s, run = ctx.spec.student, ctx.out / "student"
    sets = list(ctx.spec.set) + list(s.set) + overrides(
        dataset=ctx.human, output_dir=run, seed=s.seed, teacher=ctx.out / "teacher.jsonl",
        teacher_weight=s.teacher_weight, built=[str(ctx.built)], built_max=s.built_max)
    return Step("student", f"the student, seed {s.seed}", "",
                [run / SUMMARY, run / "final" / "config.json"],
                {"recipe": ctx.spec.recipe, "sets": sets}, after=["teacher-file", "pairs"],
                train=sets, argv=train_argv(ctx.spec.recipe, sets), clean=[run])


def _widths(widths: int | list[int]) -> str:
    return ",".join(map(str, widths)) if isinstance(widths, list) else str(widths)


def prune_step(ctx: Context) -> Step:
    """``citetrain prune`` of the student, fitted on the human and the built pairs."""
    p, model, out = ctx.spec.prune, ctx.out / "student" / "final", ctx.out / "pruned"
    calibration = [ctx.human, ctx.built / "dataset"]
    argv = ["citetrain", "prune", str(model), "--out", str(out), "--intermediate-size",
            _widths(p.widths)] + [x for c in calibration for x in ("--calibration", str(c))]
    argv += ["--token-pairs", str(p.token_pairs), "--head-pairs", str(p.head_pairs),
             "--seed", str(p.seed)]
    return Step("prune", f"the student's feed-forward blocks narrowed -> {out}", "",
                [out / "config.json"], p.model_dump(mode="json"), after=["student"],
                call=lambda: run_command(ctx, argv), argv=argv, clean=[out])


def teach_back_steps(ctx: Context) -> list[Step]:
    """The student's own reading of the pairs, then the pruned judge trained on it."""
    t, s = ctx.spec.teach_back, ctx.spec.student
    judge, file, run = ctx.out / "student", ctx.out / "teach-back.jsonl", ctx.out / "teach-back"

    def call() -> str:
        from citetrain.judge_training.teachers import write_self_teacher

        write_self_teacher(judge, file, ctx.human, ctx.built, [s.seed], s.built_max, t.dtype)
        return f"the student's reading -> {file}"

    read = Step("teach-back-file", f"the student reads the human and built pairs -> {file}",
                "(in process) citetrain.judge_training.teachers.write_self_teacher: the student "
                f"reads the train splits of {ctx.human} and {ctx.built}",
                [file], {"dtype": t.dtype, "seed": s.seed, "built_max": s.built_max},
                after=["student", "pairs"], call=call,
                clean=[file, file.with_suffix(".tmp"), partial_path(file)])
    sets = list(ctx.spec.set) + list(t.set) + overrides(
        base=ctx.out / "pruned", dataset=ctx.human, output_dir=run, seed=s.seed, teacher=file,
        teacher_weight=1.0, built=[str(ctx.built)], built_max=s.built_max, epochs=t.epochs,
        learning_rate=t.learning_rate)
    train = Step("teach-back", "the pruned judge learns the student's reading", "",
                 [run / SUMMARY, run / "final" / "config.json"],
                 {"recipe": ctx.spec.recipe, "sets": sets},
                 after=["prune", "teach-back-file"], train=sets,
                 argv=train_argv(ctx.spec.recipe, sets), clean=[run])
    return [read, train]


def last_model(ctx: Context) -> Path:
    """The chain's judge before its export: taught back, pruned, or the student."""
    if ctx.spec.teach_back is not None:
        return ctx.out / "teach-back" / "final"
    if ctx.spec.prune is not None:
        return ctx.out / "pruned"
    return ctx.out / "student" / "final"


def export_step(ctx: Context, after: str) -> Step:
    """``citetrain export`` of the last judge (OpenVINO int8 calibrated on the human pairs)."""
    e, model, out = ctx.spec.export, last_model(ctx), ctx.out / "export"
    calibration = ctx.human if e.runtime == "openvino" and e.int8 else None
    argv = ["citetrain", "export", str(model), "--out", str(out), "--runtime", e.runtime]
    argv += ["--int8"] if e.int8 else []
    argv += ["--calibration", str(calibration)] if calibration else []
    argv += ["--calibration-pairs", str(e.calibration_pairs)] if e.calibration_pairs else []
    return Step("export", f"{model} as {e.runtime}{' int8' if e.int8 else ''} -> {out}", "",
                [out / "config.json"], {**e.model_dump(mode="json"), "model": str(model)},
                after=[after], call=lambda: run_command(ctx, argv), argv=argv, clean=[out])
