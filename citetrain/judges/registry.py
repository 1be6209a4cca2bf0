"""Make a judge from a name given on the command line, in a suite or in a recipe.

* ``nli:NAME`` — an NLI judge over any engine name of :mod:`citetrain.nli.registry`
  (``nli:lexical``, ``nli:true``, ``nli:classifier:PATH``);
* ``crossencoder:PATH`` — the same with a fine-tuned cross-encoder (``classifier:PATH``);
* ``generative:PATH`` — a trained causal-LM judge (adapter or merged folder);
* ``teacher:MODEL`` — an LLM over an OpenAI-compatible endpoint (``base_url`` option or
  ``$OPENAI_BASE_URL``, key from ``$OPENAI_API_KEY``).
"""
from __future__ import annotations

from typing import Any

from citetrain.errors import CitetrainError

KINDS = ("nli", "crossencoder", "generative", "teacher")
ENGINE_OPTIONS = ("dtype", "device", "batch_size", "max_length", "compile")  # the model's, not the judge's


def make_judge(name: str, *, progress: bool = True, cache: bool | None = None, **options: Any):
    """The judge ``name`` stands for; ``options`` go to its constructor. ``workers=N`` (``nli:``
    and ``crossencoder:``): the judge in N processes, each scoring a shard of the records
    (:class:`~citetrain.judges.workers.WorkerJudge`)."""
    kind, _, arg = name.partition(":")
    if kind not in KINDS:
        raise CitetrainError(f"unknown judge '{name}': use one of {', '.join(k + ':...' for k in KINDS)}")
    if not arg:
        raise CitetrainError(f"judge '{name}': give a {'model' if kind == 'teacher' else 'name or path'} "
                             f"after the colon, e.g. {kind}:PATH")
    workers = int(options.pop("workers", None) or 1)
    if workers > 1:
        if kind not in ("nli", "crossencoder"):
            raise CitetrainError(f"judge '{name}': workers are for nli: and crossencoder: judges")
        from functools import partial

        from citetrain.judges.workers import WorkerJudge

        return WorkerJudge(partial(make_judge, name, progress=False, cache=cache, **options), workers)
    if kind in ("nli", "crossencoder"):
        from citetrain.judges.nli import NLIJudge
        from citetrain.nli.registry import make_engine

        model_options = {k: options.pop(k) for k in ENGINE_OPTIONS if k in options}
        engine = make_engine(arg if kind == "nli" else f"classifier:{arg}", cache=cache,
                             progress=progress, **model_options)
        return NLIJudge(engine, **options)
    if kind == "generative":
        from citetrain.judges.generative import GenerativeJudge

        return GenerativeJudge.from_checkpoint(arg, **options)
    from citetrain.judges.teacher import TeacherJudge

    return TeacherJudge(arg, **options)
