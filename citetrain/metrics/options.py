"""Metric options checked without records: against the metric's own signature (its keyword-only
parameters, read at run time, so a new keyword is accepted as soon as the metric has it), their
annotated types, and the ranges of :mod:`citetrain.metrics.rules`.

Every problem is one line naming the key path, ``options.alce.at_most_citations: must be >= 1 or
null/None, got 0``; :func:`check_metric_options` raises them all at once as a
:class:`~citetrain.config.ConfigError`, as suite and recipe errors are reported.
"""
from __future__ import annotations

import difflib
import inspect
import typing
from typing import Any, Callable, Mapping

from pydantic import TypeAdapter, ValidationError
from pydantic.errors import PydanticSchemaGenerationError

from citetrain.config import ConfigError
from citetrain.metrics.registry import METRICS, get_metric
from citetrain.metrics.rules import rules_of

Options = Mapping[str, Mapping[str, Any]]


def metric_options(fn: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    """A metric's options: its keyword-only parameters (``records`` and ``engine`` come first)."""
    return {name: p for name, p in inspect.signature(fn).parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY}


def _adapter(fn: Callable[..., Any], name: str) -> TypeAdapter | None:
    """A validator for parameter ``name``'s annotation; ``None`` when there is none to check."""
    try:
        hint = typing.get_type_hints(fn).get(name, Any)
    except (NameError, TypeError):  # an annotation that does not resolve: no type check
        return None
    if hint is Any:
        return None
    try:
        return TypeAdapter(hint)
    except PydanticSchemaGenerationError:  # an arbitrary class (a spaCy pipeline, an engine)
        return None


def _type_problem(e: ValidationError, value: Any) -> str:
    """One line for a type error (a union's branches joined with 'or')."""
    msgs = list(dict.fromkeys(err["msg"].removeprefix("Value error, ") for err in e.errors()))
    return f"{' or '.join(msgs)}, got {value!r}"


def option_problem(fn: Callable[..., Any], name: str, value: Any) -> tuple[Any, str | None]:
    """``value`` as the metric takes it (a YAML ``"3"`` for an ``int`` is ``3``) and the problem
    with it, or ``None``: its annotated type first, then its range rule."""
    adapter = _adapter(fn, name)
    if adapter is not None:
        try:
            value = adapter.validate_python(value)
        except ValidationError as e:
            return value, _type_problem(e, value)
    rule = rules_of(fn).get(name)
    return value, (rule(value) if rule is not None else None)


def _unknown(metric: str, key: str, known: list[str]) -> str:
    """An unknown option, with the closest known one (or all of them)."""
    close = difflib.get_close_matches(key, known, n=1)
    if close:
        return f"unknown option; did you mean '{close[0]}'?"
    return f"unknown option; {metric} takes {', '.join(known) or 'no options'}"


def option_errors(options: Options, prefix: str = "options"
                  ) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The options as the metrics take them, and one line per problem (``prefix.metric.key:
    problem``), every metric and key checked."""
    checked: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    for metric, opts in options.items():
        if metric not in METRICS:
            close = difflib.get_close_matches(str(metric), list(METRICS), n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"choose from {', '.join(METRICS)}"
            errors.append(f"{prefix}.{metric}: unknown metric; {hint}")
            continue
        if not isinstance(opts, Mapping):
            errors.append(f"{prefix}.{metric}: expected a mapping of option: value, "
                          f"got {type(opts).__name__}")
            continue
        fn = get_metric(metric)
        known = metric_options(fn)
        checked[metric] = {}
        for key, value in opts.items():
            if key not in known:
                errors.append(f"{prefix}.{metric}.{key}: {_unknown(metric, str(key), list(known))}")
                continue
            checked[metric][key], problem = option_problem(fn, key, value)
            if problem is not None:
                errors.append(f"{prefix}.{metric}.{key}: {problem}")
    return checked, errors


def check_metric_options(options: Options | None, where: str) -> dict[str, dict[str, Any]]:
    """The checked options, or a :class:`ConfigError` (``where: prefix...: problem``) listing
    every problem; ``where`` names the suite file, or the Python call."""
    checked, errors = option_errors(options or {})
    if errors:
        raise ConfigError(where, errors)
    return checked
