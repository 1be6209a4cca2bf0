"""The NLI protocol (DESIGN §3): pairs in, entailment probabilities and decisions out."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable

Pair = tuple[str, str]  # (premise, hypothesis)


@dataclass(frozen=True)
class NLIResult:
    """One judgement: P(entailment), the backend's decision, and three-way support if it has one.

    ``support`` is ``(full, partial, no)`` probabilities for three-way models, else ``None``.
    """

    prob: float
    label: bool
    support: tuple[float, float, float] | None = None


@runtime_checkable
class NLIBackend(Protocol):
    """What a model must provide; the :class:`~citetrain.nli.engine.NLIEngine` does the rest.

    ``model_id`` and ``revision`` key the cache; ``is_baseline`` marks heuristic backends so that
    reports label them; ``predict`` answers one batch; ``cost`` orders pairs for length-sorted
    batching (a token count, or any monotone proxy).
    """

    model_id: str
    revision: str
    batch_size: int
    is_baseline: bool

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]: ...

    def cost(self, pair: Pair) -> int: ...
