"""A scripted NLI backend for the tests (a test double, not part of the library): entailment decided
by a table of passages.

``TableNLI({"hypothesis": [{"A"}, {"B", "C"}]})`` entails ``hypothesis`` iff the premise contains
every passage text of at least one listed set (monotone by construction). Passages are matched as
substrings of the premise, so premises built from ``"Title: ...\\ntext"`` work unchanged.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from citetrain.nli.base import NLIResult, Pair


class TableNLI:
    """Entailment from a table ``hypothesis -> list of supporting passage-text sets``."""

    is_baseline = True

    def __init__(
        self, table: Mapping[str, Iterable[Iterable[str]]], batch_size: int = 64,
        partial: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self.table = {h: [frozenset(s) for s in sets] for h, sets in table.items()}
        self.partial = {h: frozenset(v) for h, v in (partial or {}).items()}
        self.batch_size = batch_size
        self.model_id = "table"
        self.revision = str(abs(hash(tuple(sorted((h, tuple(map(tuple, map(sorted, s))))
                                                   for h, s in self.table.items())))))
        self.calls: list[Pair] = []

    def cost(self, pair: Pair) -> int:
        return len(pair[0]) + len(pair[1])

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        out = []
        for premise, hyp in pairs:
            self.calls.append((premise, hyp))
            ok = any(all(t in premise for t in s) for s in self.table.get(hyp, []))
            part = not ok and any(t in premise for t in self.partial.get(hyp, ()))
            out.append(NLIResult(1.0 if ok else (0.5 if part else 0.0), ok,
                                 (1.0, 0.0, 0.0) if ok else ((0.0, 1.0, 0.0) if part else (0.0, 0.0, 1.0))))
        return out
