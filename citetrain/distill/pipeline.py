"""``citetrain distill SPEC``: the whole chain of a distilled judge, planned, printed or run.

:func:`plan` turns a spec into its steps (:mod:`citetrain.distill.plan`,
:mod:`citetrain.distill.student`); :func:`show` prints them (``--dry-run``) with what each runs,
reads and writes and whether a finished earlier call keeps it; :func:`distill` runs them
(:class:`~citetrain.distill.chain.Chain`: finished steps kept, the rest run, teachers in parallel).
"""
from __future__ import annotations

from typing import Callable

from citetrain.distill.chain import Chain, Step
from citetrain.distill.plan import (Context, context, engine_file_step, fold_teacher_steps,
                                    folds_file_step, human_step, pairs_step)
from citetrain.distill.runs import describe, slots
from citetrain.distill.spec import DistillSpec
from citetrain.distill.student import (export_step, last_model, prune_step, student_step,
                                       teach_back_steps)


def plan(spec: DistillSpec, cli: Callable[[list[str]], int] | None = None
         ) -> tuple[Context, list[Step]]:
    """The spec's context and its steps, in the order they run; ``cli``: the ``citetrain`` entry
    point their commands run through (:func:`~citetrain.distill.plan.run_command`)."""
    ctx = context(spec, cli)
    steps = [pairs_step(ctx)] if ctx.build_spec is not None else []
    steps.append(human_step(ctx))
    if spec.teacher.folds is not None:
        teachers = fold_teacher_steps(ctx)
        steps += teachers + [folds_file_step(ctx, teachers)]
    else:
        steps.append(engine_file_step(ctx))
    steps.append(student_step(ctx))
    if spec.prune is not None:
        steps.append(prune_step(ctx))
    if spec.teach_back is not None:
        steps += teach_back_steps(ctx)
    if spec.export is not None:
        steps.append(export_step(ctx, steps[-1].name))
    return ctx, steps


def serve_line(ctx: Context) -> str:
    """How to judge answers with the chain's judge, read with lexical recall."""
    model = ctx.out / "export" if ctx.spec.export is not None else last_model(ctx)
    return (f"citetrain judge PREDICTIONS.jsonl --judge 'nli:mean:classifier:{model}+lexical' "
            "--union-first")


def _envs(ctx: Context) -> Callable[[int], list[dict[str, str]]]:
    return lambda n: slots(ctx.spec.parallel, n, ctx.gpu)


def show(ctx: Context, steps: list[Step], say: Callable[[str], None] = print) -> None:
    """The plan: each step with its state, what it runs and what it writes."""
    chain = Chain(steps, ctx.out, ctx.spec.recipe, say)
    state = {"kept": "kept", "todo": "to run", "changed": "to run again: its settings changed"}
    teachers = sum(s.group == "teachers" for s in steps)
    say(f"distill {ctx.spec.name}: {len(steps)} steps -> {ctx.out}")
    for k, step in enumerate(steps, 1):
        say(f"{k:>2}. {step.name} [{state[chain.state(step)]}]: {step.what}")
        say(f"      $ {step.command}")
        say(f"      -> {', '.join(str(p) for p in step.outputs)}")
    if teachers:
        say(f"teacher runs: {describe(slots(ctx.spec.parallel, teachers, ctx.gpu))}"
            f"{' (GPU)' if ctx.gpu else ' (CPU)'}")
    say(f"then judge with it: {serve_line(ctx)}")


def distill(spec: DistillSpec, dry_run: bool = False, say: Callable[[str], None] = print,
            cli: Callable[[list[str]], int] | None = None) -> dict[str, str]:
    """Print the plan (``dry_run``) or run the chain; returns ``{step: kept | run}`` (empty for
    a dry run). Every step with a command line runs exactly the one the plan prints: training
    runs as processes, ``citetrain`` commands through ``cli`` (the command line's entry point,
    in this process) or as ``python -m citetrain`` processes."""
    ctx, steps = plan(spec, cli)
    if dry_run:
        show(ctx, steps, say)
        return {}
    say(f"distill {spec.name}: {len(steps)} steps -> {ctx.out}")
    done = Chain(steps, ctx.out, spec.recipe, say).run(_envs(ctx))
    kept = [n for n, s in done.items() if s == "kept"]
    say(f"done: {len(done) - len(kept)} steps run, {len(kept)} kept"
        + (f" ({', '.join(kept)})" if kept else ""))
    say(f"judge with it: {serve_line(ctx)}")
    return done
