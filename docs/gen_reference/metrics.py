"""The metrics reference: every registered metric's module docstring (its formulas and paper) and
its function's docstring (options and the scores it returns)."""
from __future__ import annotations

import inspect

from .markdown import code, rst


def metric_section(name: str) -> str:
    """One metric: its signature, what it computes and how to call it."""
    from citetrain.metrics.registry import DEFAULT_METRICS, METRICS, get_metric

    fn = get_metric(name)
    module = inspect.getmodule(fn)
    options = [p for p in inspect.signature(fn).parameters.values()
               if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "nlp"]
    default = " (a default metric)" if name in DEFAULT_METRICS else ""
    parts = [f"## {name}\n", f"`{METRICS[name]}`{default}\n",
             rst(inspect.cleandoc(module.__doc__ or "")) + "\n",
             "### Calling it\n", rst(inspect.getdoc(fn) or "") + "\n"]
    if options:
        parts.append(f"Options (a suite's `options: {{{name}: {{KEY: VALUE}}}}`, or `citetrain eval "
                     f"... --set options.{name}.KEY=VALUE`): "
                     + ", ".join(code(p.name) for p in options) + ".\n")
    return "\n".join(parts)


def render() -> str:
    """The page: the list of metrics, then one section each (read from the code at build time)."""
    from citetrain.metrics.registry import METRICS

    header = ("# Metrics\n\nEvery metric `citetrain eval` and suites (`metrics:`) can name, "
              "in the order of `citetrain.metrics.registry.METRICS`. Each section is the docstring "
              "of the metric's module (the formulas and the paper they come from) and of its "
              "function (the options and the scores it returns).\n")
    index = "\n".join(f"- [`{n}`](#{n})" for n in METRICS) + "\n"
    return "\n".join([header, index, *(metric_section(n) for n in METRICS)])
