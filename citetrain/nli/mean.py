"""Several NLI backends read as one: their three-way support averaged pair by pair.

``mean:SPEC+SPEC+...`` averages the members' support ``(full, partial, no)``; a member given as
``SPEC*W`` weighs ``W`` (default 1). A two-way member (lexical recall, a binary classifier) counts
as ``(p, 0, 1 − p)``, so its expected level is its probability. For weights ``w_i`` and members'
support ``s_i``::

    support = Σ w_i · s_i / Σ w_i        expected level = Σ w_i · e_i / Σ w_i

since the expected level ``full + partial/2`` is linear in the support. Two readings that the
judge's measurements single out (experiments/studies/ensembles-and-soups.md):

- ``mean:classifier:A+classifier:B+classifier:C``: an ensemble of judges trained with different
  seeds (three times one judge's cost);
- ``mean:classifier:A+classifier:B+classifier:C+lexical*3``: that ensemble averaged with lexical
  recall, ``(ē + r) / 2``; ``mean:classifier:A+lexical`` is one judge's ``(e + r) / 2``.

``prob`` is the averaged P(full). ``label``, the decision the judges' rounds act on, is the
models' (``decide="models"``, the default): a baseline member such as lexical recall moves the
score, not the decision. With one model member its own decision; with several, full being the most
probable level of their weighted mean support; with baselines only, of all members'.
``decide="all"`` (the rule before 2026-11-28) takes the most probable level of every member's
averaged support, lexical recall's ``(r, 0, 1 − r)`` included. Lexical recall is the share of the
statement's words the premise holds, not a probability of support: counted as one, it calls far
more premises supporting than the judge does. On the judge recipe's validation claims (the
sixteen clause teachers' CPU-trained students, seeds 42 / 1), its decision "fully supported"
agreed with the human labels no better than the model's own (balanced accuracy, all members
against models: WiCE 0.670 / 0.665 against 0.724 / 0.671, AttributionBench 0.674 / 0.689 against
0.675 / 0.699, ExpertQA 0.571 / 0.592 against 0.570 / 0.583), and it made the CiteEval judge ask
2.3× the pairs on ExpertQA answers (experiments/studies/fewer-pairs.md). The score (``expected``,
what meta-evaluation ranks) is the same under both rules, and so is the judges' "partially
supports" (P(partial) ≥ 0.5 of the averaged support).

Member names must not hold ``+`` (nor end in ``*NUMBER``).
"""
from __future__ import annotations

from typing import Any, Callable, Literal, Sequence

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


Decide = Literal["models", "all"]


class MeanNLI:
    """The weighted mean of the members' three-way support; the decision the models' unless
    ``decide="all"`` (see the module docstring)."""

    def __init__(self, members: Sequence[tuple[NLIBackend, float]], decide: Decide = "models") -> None:
        if decide not in ("models", "all"):
            raise CitetrainError(f"NLI mean: decide must be 'models' or 'all', not {decide!r}")
        self.members = list(members)
        self.weights = [w for _, w in self.members]
        self.is_baseline = all(b.is_baseline for b, _ in self.members)
        models = [i for i, (b, _) in enumerate(self.members) if not b.is_baseline]
        self.decide = decide
        self.deciders = models if decide == "models" and models else list(range(len(self.members)))
        self.batch_size = min(b.batch_size for b, _ in self.members)
        self.call_size = min(getattr(b, "call_size", b.batch_size) for b, _ in self.members)
        self.model_id = "mean(" + " + ".join(
            f"{b.model_id}{'@' + b.revision if b.revision else ''}" + (f"*{w:g}" if w != 1 else "")
            for b, w in self.members) + ")"
        self.revision = "v2" if decide == "models" else "v1"  # the cache keeps decisions

    @property
    def cut_statements(self) -> int:
        """Statements the members read cut to their max_length (``meta-eval`` reports them)."""
        return sum(getattr(b, "cut_statements", 0) for b, _ in self.members)

    def cost(self, pair: Pair) -> int:
        return max(b.cost(pair) for b, _ in self.members)

    def forget(self) -> None:
        """Each member's own memory of answers, where it has one (``NLIEngine.forget``)."""
        for b, _ in self.members:
            if callable(getattr(b, "forget", None)):
                b.forget()

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        answers = [b.predict(pairs) for b, _ in self.members]
        everyone = list(range(len(self.members)))
        out = []
        for i in range(len(pairs)):
            full, partial, no = self._mean(answers, i, everyone)
            if len(self.deciders) == 1:
                label = answers[self.deciders[0]][i].label
            else:
                f, p, n = ((full, partial, no) if self.deciders == everyone
                           else self._mean(answers, i, self.deciders))
                label = f >= p and f >= n
            out.append(NLIResult(full, label, (full, partial, no)))
        return out

    def _mean(self, answers: list[list[NLIResult]], i: int, which: list[int]) -> list[float]:
        """The weighted mean ``(full, partial, no)`` of pair ``i`` over the members ``which``."""
        total = sum(self.weights[m] for m in which)
        return [sum(self.weights[m] * three_way(answers[m][i])[k] for m in which) / total
                for k in range(3)]


def make_mean(arg: str, make: Callable[..., Any], **options: Any) -> MeanNLI:
    """The backend of ``mean:ARG``, each member made by ``make(name, **options)``."""
    return MeanNLI([(make(name, **options), w) for name, w in parse_members(arg)])
