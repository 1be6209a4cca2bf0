"""Several NLI backends read as one: their three-way support averaged pair by pair.

``mean:SPEC+SPEC+...`` averages the members' support ``(full, partial, no)``; a member given as
``SPEC*W`` weighs ``W`` (default 1). A two-way member (lexical recall, a binary classifier) counts
as ``(p, 0, 1 − p)``, so its expected level is its probability. For weights ``w_i`` and members'
support ``s_i``::

    support = Σ w_i · s_i / Σ w_i        expected level = Σ w_i · e_i / Σ w_i

since the expected level ``full + partial/2`` is linear in the support. Two readings that the
judge's measurements single out (README, "Ensembles of the twelve"):

- ``mean:classifier:A+classifier:B+classifier:C``: an ensemble of judges trained with different
  seeds (three times one judge's cost);
- ``mean:classifier:A+classifier:B+classifier:C+lexical*3``: that ensemble averaged with lexical
  recall, ``(ē + r) / 2``; ``mean:classifier:A+lexical`` is one judge's ``(e + r) / 2``.

``prob`` is the averaged P(full) and ``label`` says that full is the averaged support's most probable
level. Member names must not hold ``+`` (nor end in ``*NUMBER``).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIBackend, NLIResult, Pair


def parse_members(arg: str) -> list[tuple[str, float]]:
    """``"A+B*2"`` -> ``[("A", 1.0), ("B", 2.0)]``; a clear error for an empty member or a
    weight that is not a positive number."""
    members = []
    for part in arg.split("+"):
        name, star, weight = part.strip().rpartition("*")
        if not star:
            name, weight = part.strip(), "1"
        try:
            w = float(weight)
        except ValueError:
            name, w = part.strip(), 1.0  # a '*' inside a name, not a weight
        if not name or not w > 0:
            raise CitetrainError(f"NLI 'mean:{arg}': each member is SPEC or SPEC*WEIGHT with a "
                                 f"positive weight, got {part!r}")
        members.append((name, w))
    if len(members) < 2:
        raise CitetrainError(f"NLI 'mean:{arg}': give two or more members joined by '+', "
                             "e.g. mean:classifier:A+lexical")
    return members


def three_way(r: NLIResult) -> tuple[float, float, float]:
    """A result's ``(full, partial, no)`` support; a two-way result counts as ``(p, 0, 1 − p)``."""
    return r.support if r.support is not None else (r.prob, 0.0, 1.0 - r.prob)


class MeanNLI:
    """The weighted mean of the members' three-way support (see the module docstring)."""

    def __init__(self, members: Sequence[tuple[NLIBackend, float]]) -> None:
        self.members = list(members)
        self.weights = [w for _, w in self.members]
        self.is_baseline = all(b.is_baseline for b, _ in self.members)
        self.batch_size = min(b.batch_size for b, _ in self.members)
        self.model_id = "mean(" + " + ".join(
            f"{b.model_id}{'@' + b.revision if b.revision else ''}" + (f"*{w:g}" if w != 1 else "")
            for b, w in self.members) + ")"
        self.revision = "v1"

    @property
    def cut_statements(self) -> int:
        """Statements the members read cut to their max_length (``meta-eval`` reports them)."""
        return sum(getattr(b, "cut_statements", 0) for b, _ in self.members)

    def cost(self, pair: Pair) -> int:
        return max(b.cost(pair) for b, _ in self.members)

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        answers = [b.predict(pairs) for b, _ in self.members]
        total = sum(self.weights)
        out = []
        for i in range(len(pairs)):
            sup = [sum(w * three_way(a[i])[k] for w, a in zip(self.weights, answers)) / total
                   for k in range(3)]
            full, partial, no = sup
            out.append(NLIResult(full, full >= partial and full >= no, (full, partial, no)))
        return out


def make_mean(arg: str, make: Callable[..., Any], **options: Any) -> MeanNLI:
    """The backend of ``mean:ARG``, each member made by ``make(name, **options)``."""
    return MeanNLI([(make(name, **options), w) for name, w in parse_members(arg)])
