"""Any judge as an NLI backend (``judge:generative:PATH``, ``judge:teacher:MODEL``): each
(premise, hypothesis) becomes a one-passage record whose response is the hypothesis citing that
passage (:func:`~citetrain.judges.base.pair_records`); P(support) is the judge's rating of it.
So metrics, ``meta-eval`` and the training loop's scoring can run on a judge like on any NLI model.
:func:`judge_backend` is registered as the ``judge`` kind of :mod:`citetrain.nli.registry` through
the ``citetrain.nli`` entry-point group (``pyproject.toml``).
"""
from __future__ import annotations

from typing import Any, Sequence

from citetrain.nli.base import NLIResult, Pair


class JudgeNLI:
    """NLI backend over a judge; ``label`` is ``rating >= threshold`` (default 0.5)."""

    is_baseline = False

    def __init__(self, judge, *, batch_size: int = 16, threshold: float = 0.5) -> None:
        self.judge = judge
        self.model_id = f"judge:{judge.name}"
        self.revision = "judge-v1"
        self.batch_size = batch_size
        self.threshold = threshold

    def cost(self, pair: Pair) -> int:
        return len(pair[0]) + len(pair[1])

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        from citetrain.judges.base import pair_records, support_from_result

        if not pairs:
            return []
        result = self.judge.score(pair_records(pairs), progress=False).result
        return [NLIResult(p, p >= self.threshold) for p in support_from_result(result, len(pairs))]


def judge_backend(name: str, **options: Any) -> JudgeNLI:
    """The NLI backend ``judge:NAME``: the judge ``name`` of :func:`~citetrain.judges.registry.make_judge`."""
    from citetrain.judges.registry import make_judge

    return JudgeNLI(make_judge(name, progress=False, **options))
