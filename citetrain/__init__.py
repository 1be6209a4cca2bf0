"""citetrain: train and evaluate citation models."""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "evaluate", "Record", "Doc"]

from citetrain.records import Doc, Record  # noqa: E402


def __getattr__(name: str):  # lazy: keep `import citetrain` light
    if name == "evaluate":
        from citetrain.metrics.evaluate import evaluate

        return evaluate
    raise AttributeError(name)
