"""The ranges of metric options, stated once: a metric checks them when it is called, and a suite
(or ``evaluate(options=...)``) checks them without records through :mod:`citetrain.metrics.options`.

A rule maps a value (already of the parameter's annotated type) to a problem, e.g. ``"must be >= 1,
got 0"``, or ``None`` when the value is fine. A rule reaches a metric in one of two ways:

* :data:`SHARED_RULES`, by parameter name: a name that means the same in every metric
  (``at_most_citations``); metrics check it with the helper named after it
  (:func:`check_at_most_citations`);
* :func:`checked`, a decorator stating a metric's own rules
  (``@checked(max_subset_size=at_least(1))``).
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Iterable, TypeVar

Rule = Callable[[Any], "str | None"]
F = TypeVar("F", bound=Callable[..., Any])


def at_least(low: int, *, none_ok: bool = False) -> Rule:
    """A rule: ``value >= low`` (or ``None`` when ``none_ok``)."""
    text = f"must be >= {low}" + (" or null/None" if none_ok else "")

    def rule(value: Any) -> str | None:
        if value is None and none_ok:
            return None
        return None if value is not None and value >= low else f"{text}, got {value!r}"

    return rule


def between(low: float, high: float) -> Rule:
    """A rule: ``low <= value <= high``."""
    def rule(value: Any) -> str | None:
        ok = value is not None and low <= value <= high
        return None if ok else f"must be between {low:g} and {high:g}, got {value!r}"

    return rule


def one_of(*choices: Any) -> Rule:
    """A rule: the value is one of ``choices``."""
    names = [repr(c) for c in choices]
    text = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]

    def rule(value: Any) -> str | None:
        return None if value in choices else f"must be {text}, got {value!r}"

    return rule


def subset_of(choices: Iterable[str]) -> Rule:
    """A rule: every item of the value is one of ``choices``."""
    known = tuple(choices)

    def rule(value: Any) -> str | None:
        bad = ", ".join(repr(v) for v in value if v not in known)
        return f"unknown {bad}: choose from {', '.join(known)}" if bad else None

    return rule


AT_MOST_CITATIONS: Rule = at_least(1, none_ok=True)
SHARED_RULES: dict[str, Rule] = {"at_most_citations": AT_MOST_CITATIONS}


def check_option(name: str, value: Any, rule: Rule) -> None:
    """Raise ``ValueError("<name> <problem>")`` when ``rule`` finds a problem with ``value``."""
    problem = rule(value)
    if problem is not None:
        raise ValueError(f"{name} {problem}")


def check_at_most_citations(at_most_citations: int | None) -> None:
    """Raise ``ValueError`` unless ``at_most_citations`` is ``None`` or at least 1."""
    check_option("at_most_citations", at_most_citations, AT_MOST_CITATIONS)


def checked(**rules: Rule) -> Callable[[F], F]:
    """Decorate a metric with its own option rules: each is checked on every call, before any
    record is read, and ``fn.option_rules`` lets a suite check them without records."""

    def wrap(fn: F) -> F:
        sig = inspect.signature(fn)
        missing = set(rules) - set(sig.parameters)
        if missing:
            raise TypeError(f"{fn.__name__} has no parameter(s) {', '.join(sorted(missing))}")

        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, rule in rules.items():
                check_option(name, bound.arguments[name], rule)
            return fn(*args, **kwargs)

        inner.option_rules = dict(rules)  # type: ignore[attr-defined]
        return inner  # type: ignore[return-value]

    return wrap


def rules_of(fn: Callable[..., Any]) -> dict[str, Rule]:
    """Every rule that applies to ``fn``'s parameters: the shared ones it has, then its own."""
    params = inspect.signature(fn).parameters
    shared = {name: rule for name, rule in SHARED_RULES.items() if name in params}
    return {**shared, **getattr(fn, "option_rules", {})}
