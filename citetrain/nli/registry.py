"""Make an :class:`NLIEngine` from a name given on the command line or in a suite.

Names: ``lexical`` (or ``lexical:0.6`` for another threshold); ``seq2seq:PATH_OR_HUB_ID`` (TRUE-style
T5; ``true`` is ``seq2seq:google/t5_xxl_true_nli_mixture``); ``classifier:PATH_OR_HUB_ID`` (MNLI-style);
``llm:MODEL`` (OpenAI-compatible endpoint from ``--nli-url`` / ``OPENAI_BASE_URL``, key from
``OPENAI_API_KEY``); ``mean:SPEC+SPEC[*W]...`` (the members' support averaged, e.g. an ensemble of
judges and lexical recall: :mod:`citetrain.nli.mean`); ``clauses:SPEC`` (``SPEC`` read on the whole
statement and its clause segments, averaged: :mod:`citetrain.nli.clauses`); and any kind a package registers in the ``citetrain.nli`` entry-point group
(``KIND = "module:factory"``, called as ``factory(ARG, **options)``). citetrain registers ``judge``
that way: ``judge:JUDGE`` is any judge name of :mod:`citetrain.judges.registry` (e.g.
``judge:generative:PATH``: the judge's rating of the hypothesis citing the premise), so the NLI
layer never imports the judges built above it.
"""
from __future__ import annotations

__all__ = ["make_engine"]

from importlib.metadata import entry_points
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.nli.cache import NLICache
from citetrain.nli.engine import NLIEngine

ALIASES = {"true": "seq2seq:google/t5_xxl_true_nli_mixture"}
BUILT_IN = ("lexical", "seq2seq", "classifier", "llm", "mean", "clauses")
PLUGIN_GROUP = "citetrain.nli"


def plugin_kinds() -> dict[str, Any]:
    """``{kind: entry point}`` of the ``citetrain.nli`` group (installed packages)."""
    return {ep.name: ep for ep in entry_points(group=PLUGIN_GROUP)}


def make_backend(name: str, **options: Any):
    """The backend a name stands for (models are loaded here, not earlier)."""
    name = ALIASES.get(name, name)
    kind, _, arg = name.partition(":")
    if kind == "lexical":
        from citetrain.nli.lexical import LexicalNLI

        return LexicalNLI(threshold=float(arg) if arg else options.get("threshold", 0.7))
    plugins = {} if kind in BUILT_IN else plugin_kinds()
    if (kind in BUILT_IN[1:] or kind in plugins) and not arg:
        example = {"mean": "mean:classifier:PATH+lexical",
                   "clauses": "clauses:classifier:PATH"}.get(kind, f"{kind}:PATH")
        raise CitetrainError(f"NLI '{name}': give a model after the colon, e.g. {example}")
    if kind == "seq2seq":
        from citetrain.nli.seq2seq import Seq2SeqNLI

        return Seq2SeqNLI(arg, **options)
    if kind == "classifier":
        from citetrain.nli.classifier import ClassifierNLI

        return ClassifierNLI(arg, **options)
    if kind == "llm":
        from citetrain.nli.llm import LLMNLI

        return LLMNLI(arg, **options)
    if kind == "mean":
        from citetrain.nli.mean import make_mean

        return make_mean(arg, make_backend, **options)
    if kind == "clauses":
        from citetrain.nli.clauses import make_clauses

        return make_clauses(arg, make_backend, **options)
    if kind in plugins:
        return plugins[kind].load()(arg, **options)
    kinds = (*BUILT_IN, *sorted(plugins))
    raise CitetrainError(f"unknown NLI '{name}': use one of {', '.join(kinds)} (e.g. seq2seq:PATH)")


def make_engine(
    name: str,
    cache: bool | str | None = None,
    batch_size: int | None = None,
    progress: bool = True,
    **options: Any,
) -> NLIEngine:
    """Engine for ``name``. ``cache``: a path, True for the default path, False for none; by
    default on for model backends and off for the lexical one (cheaper to compute than to look up).
    ``batch_size``: pairs per engine call and, for the built-in model kinds, per model forward.
    """
    if batch_size is not None and ALIASES.get(name, name).partition(":")[0] in BUILT_IN[1:]:
        options.setdefault("batch_size", batch_size)
    backend = make_backend(name, **options)
    if cache is None:
        cache = not backend.is_baseline
    store = NLICache(cache if isinstance(cache, str) else None) if cache else None
    return NLIEngine(backend, cache=store, batch_size=batch_size, progress=progress)
