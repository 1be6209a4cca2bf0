"""A judge that reads a statement whole and clause by clause: ``clauses:SPEC``.

For a pair (premise, statement) with clause segments c_1 … c_n
(:func:`~citetrain.text.segments.clause_segments`), the backend ``SPEC`` rates the whole
statement and every segment against the same premise, and the three-way supports are averaged::

    support = ½ · s(statement) + ½ · (1/n) · Σ_i s(c_i)        (n ≥ 2)
    support = s(statement)                                       (one segment)

so the expected level is ``(e_whole + mean_i e_i) / 2`` (it is linear in the support). The whole
statement decides full against partial support; the segments' mean counts how much of the
statement the premise supports, which is what ranks partially supported claims above unsupported
ones (WiCE's three levels). Each segment is read with the backend's own premise handling, so a
long premise yields each segment its own best evidence (``premise: select``). A two-way backend
counts as ``(p, 0, 1 − p)``, as in :mod:`citetrain.nli.mean`.

Cost: a statement of n ≥ 2 segments asks n + 1 pairs. ``clauses:SPEC`` composes with the other
kinds: ``mean:clauses:classifier:PATH+lexical`` averages it with lexical recall.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from citetrain.nli.base import NLIBackend, NLIResult, Pair
from citetrain.nli.engine import NLIEngine
from citetrain.nli.mean import three_way
from citetrain.text.memo import TextMemo
from citetrain.text.segments import clause_segments

READS = ("whole", "clauses")  # how a saved judge reads a statement: whole, or as ``clauses:SPEC``


class ClausesNLI:
    """``inner`` read on the whole statement and its clause segments (module docstring)."""

    def __init__(self, inner: NLIBackend, min_words: int = 3) -> None:
        self.inner = inner
        self.min_words = min_words
        self.is_baseline = inner.is_baseline
        self.batch_size = inner.batch_size
        self.call_size = getattr(inner, "call_size", inner.batch_size)
        rev = f"@{inner.revision}" if inner.revision else ""
        self.model_id = f"clauses({inner.model_id}{rev})"
        self.revision = f"v1-w{min_words}"

    def __getattr__(self, name: str) -> Any:
        # device, truncates, cut_statements, forget: the inner backend's
        if name in ("device", "truncates", "cut_statements", "forget"):
            return getattr(self.inner, name)
        raise AttributeError(name)

    def segments(self, statement: str) -> list[str]:
        """The statement's clause segments (``[statement]`` when it has one); cut once for the
        engine's cost and the prediction."""
        return list(_segments(statement, self.min_words))

    def cost(self, pair: Pair) -> int:
        premise, statement = pair
        parts = self.segments(statement)
        extra = sum(self.inner.cost((premise, c)) for c in parts) if len(parts) > 1 else 0
        return self.inner.cost(pair) + extra

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        parts = [self.segments(h) for _, h in pairs]
        asks = [tuple(p) for p in pairs] + [(p, c) for (p, _), cs in zip(pairs, parts)
                                            if len(cs) > 1 for c in cs]
        # the engine's dedup and length-sorted batches; a fresh one keeps no answers between calls
        answers = dict(zip(asks, NLIEngine(self.inner, progress=False).results(asks)))
        out = []
        for (p, h), cs in zip(pairs, parts):
            whole = three_way(answers[(p, h)])
            if len(cs) > 1:
                segs = [three_way(answers[(p, c)]) for c in cs]
                whole = tuple(0.5 * whole[k] + 0.5 * sum(s[k] for s in segs) / len(segs)
                              for k in range(3))
            full, partial, no = whole
            out.append(NLIResult(full, full >= partial and full >= no, (full, partial, no)))
        return out


def _segments_of(key: tuple[str, int]) -> tuple[str, ...]:
    return tuple(clause_segments(*key))


# a statement's clauses, remembered per process within a byte cap (the statement and its pieces)
_segment_memo = TextMemo(_segments_of, 16 << 20, "clauses",
                         lambda key, out: 3 * len(key[0]) + 64 * len(out) + 200)


def _segments(statement: str, min_words: int) -> tuple[str, ...]:
    return _segment_memo((statement, min_words))


def make_clauses(arg: str, make: Callable[..., Any], **options: Any) -> ClausesNLI:
    """The backend of ``clauses:SPEC``; ``SPEC`` made by ``make(SPEC, **options)``."""
    return ClausesNLI(make(arg, **options))
