"""A classifier's support stacked with lexical recall: two ordinal logistic regressions.

Content-word recall (:mod:`citetrain.nli.lexical`) is the strongest cheap cue on WiCE-like data and
a small cross-encoder learns what it cannot see; a judge that reads both is better than either
(Wolpert's stacking). For a pair with model support ``(full, partial, no)`` and expected level
``e = full + partial/2``, and lexical recall ``r`` of the hypothesis in the whole premise::

    x = (logit(clip(e, 1e-4, 1 - 1e-4)), r)
    P(level >= 1) = σ(a1 + b1·x)      P(level >= 2) = σ(a2 + b2·x)
    stacked support = (P(>=2), max(P(>=1) - P(>=2), 0), 1 - max(P(>=1), P(>=2)))

so the stacked expected level is ``(P(>=1) + P(>=2)) / 2`` where the two do not cross. Each
regression is scikit-learn's L2 ``LogisticRegression`` (C = 1) fitted on calibration pairs the
model was not trained on; on two-level data (labels 0 and 2) both are the same fit. A stack is a
few numbers saved in the model's config (``citetrain_stack``), so every reader of the model
(``classifier:`` NLI, meta-eval, judges, the pair refiner) scores the same way.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

CONFIG_KEY = "citetrain_stack"
_CLIP = 1e-4


def model_feature(expected: float) -> float:
    """``logit(e)`` of the model's expected support level, clipped to [1e-4, 1 - 1e-4]."""
    e = min(max(float(expected), _CLIP), 1 - _CLIP)
    return math.log(e / (1 - e))


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


@dataclass(frozen=True)
class Stack:
    """Coefficients ``(intercept, w_model, w_lexical)`` of P(level >= 1) and P(level >= 2)."""

    partial: tuple[float, float, float]
    full: tuple[float, float, float]
    pairs: int = 0  # calibration pairs it was fitted on
    source: str = ""  # what they were

    def support(self, expected: float, lexical: float) -> tuple[float, float, float]:
        """``(full, partial, no)`` for a pair with model expected level and lexical recall."""
        x = (model_feature(expected), float(lexical))
        p1, p2 = (_sigmoid(c[0] + c[1] * x[0] + c[2] * x[1]) for c in (self.partial, self.full))
        return p2, max(p1 - p2, 0.0), 1.0 - max(p1, p2)

    def expected(self, expected: float, lexical: float) -> float:
        """The stacked expected level ``P(full) + P(partial)/2`` of :meth:`support`."""
        from citetrain.nli.base import expected_support

        return expected_support(*self.support(expected, lexical)[:2])

    def to_config(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_config(cls, data: dict[str, Any]) -> Stack:
        try:
            return cls(partial=tuple(map(float, data["partial"])), full=tuple(map(float, data["full"])),
                       pairs=int(data.get("pairs", 0)), source=str(data.get("source", "")))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{CONFIG_KEY} is not a stack ({exc})") from None

    @property
    def tag(self) -> str:
        """A short hash of the coefficients, for cache revisions."""
        raw = json.dumps([self.partial, self.full]).encode()
        return hashlib.sha256(raw).hexdigest()[:8]


def fit_stack(expected: Sequence[float], lexical: Sequence[float], levels: Sequence[int],
              source: str = "") -> Stack:
    """Fit the two regressions on calibration pairs (model expected level, lexical recall,
    human level 0 / 1 / 2). Raises ``ValueError`` when a cut has only one class."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    x = np.array([[model_feature(e), float(r)] for e, r in zip(expected, lexical)])
    y = np.asarray(levels, dtype=int)
    if len(x) != len(y) or not len(y):
        raise ValueError(f"{len(x)} scores but {len(y)} labels")
    coefs = []
    for cut in (1, 2):
        target = y >= cut
        if target.all() or not target.any():
            raise ValueError(f"calibration pairs have one class only at level >= {cut}")
        reg = LogisticRegression(C=1.0).fit(x, target)
        coefs.append((float(reg.intercept_[0]), float(reg.coef_[0][0]), float(reg.coef_[0][1])))
    return Stack(partial=coefs[0], full=coefs[1], pairs=len(y), source=source)
