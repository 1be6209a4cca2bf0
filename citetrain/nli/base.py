"""The NLI protocol (docs/concepts/nli.md): pairs in, entailment probabilities and decisions out."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence, runtime_checkable

Pair = tuple[str, str]  # (premise, hypothesis)


@dataclass(frozen=True)
class NLIResult:
    """One judgement: P(entailment), the backend's decision, and three-way support if it has one.

    ``support`` is ``(full, partial, no)`` probabilities for three-way models, else ``None``.
    """

    prob: float
    label: bool
    support: tuple[float, float, float] | None = None

    @property
    def expected(self) -> float:
        """:func:`expected_support` of a three-way result; ``prob`` for a two-way one."""
        return self.prob if self.support is None else expected_support(*self.support[:2])


def expected_support(full: Any, partial: Any) -> Any:
    """``P(full) + ½·P(partial)``: the expected support level on a 0-1 scale (no 0, partial ½,
    full 1), the score that ranks pairs against three-way human labels; for a two-way model
    (``partial`` 0) it is P(full). Floats or arrays."""
    return full + 0.5 * partial


@runtime_checkable
class NLIBackend(Protocol):
    """What a model must provide; the :class:`~citetrain.nli.engine.NLIEngine` does the rest.

    ``model_id`` and ``revision`` key the cache; ``is_baseline`` marks heuristic backends so that
    reports label them; ``predict`` answers one batch; ``cost`` orders pairs for length-sorted
    batching (a token count, or any monotone proxy). A backend that sorts its own rows by
    length and cuts them into batches (the classifier) may also say ``call_size``: the pairs it
    takes in one ``predict`` (else the engine hands it ``batch_size`` pairs at a time).
    """

    model_id: str
    revision: str
    batch_size: int
    is_baseline: bool

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]: ...

    def cost(self, pair: Pair) -> int: ...
