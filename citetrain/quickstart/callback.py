"""In-loop citation scores of a pair refiner: at each evaluation of a ``kind: crossencoder``
run, refine a fixed set of validation records with the model being trained and score them."""
from __future__ import annotations

from typing import Any, Sequence

from transformers import TrainerCallback

from citetrain.records import Record
from citetrain.refine.pairs import model_support, pair_refine


class PairRefinerScoreCallback(TrainerCallback):
    """Logs ``eval_citation_f1`` and ``eval_lenient_f1`` of the refined validation records;
    :attr:`history` keeps ``{"step", "citation_f1", "lenient_f1"}`` per evaluation and
    :attr:`losses` ``{"step", "loss"}`` per logging step."""

    def __init__(self, records: Sequence[Record], tokenizer: Any, engine: Any, *,
                 max_length: int = 128, batch_size: int = 64) -> None:
        self.records, self.tokenizer, self.engine = list(records), tokenizer, engine
        self.max_length, self.batch_size = max_length, batch_size
        self.history: list[dict[str, float]] = []
        self.losses: list[dict[str, float]] = []

    def f1(self, records: Sequence[Record]) -> dict[str, float]:
        """ALCE and lenient citation F1 of ``records``."""
        from citetrain.metrics.alce import alce
        from citetrain.metrics.lenient import lenient

        return {"citation_f1": alce(records, self.engine).scores["citation_f1"],
                "lenient_f1": lenient(records, self.engine).scores["lenient_f1"]}

    def scores(self, model: Any) -> dict[str, float]:
        """:meth:`f1` of the validation records refined by ``model``."""
        support = model_support(model, self.tokenizer, max_length=self.max_length,
                                batch_size=self.batch_size)
        refined = pair_refine(self.records, support)[0]
        from citetrain.text.statements import statements

        cited = sum(bool(s.citations) for r in refined for s in statements(r.output))
        return {**self.f1(refined), "cited_statements": float(cited)}

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            self.losses.append({"step": state.global_step, "loss": float(logs["loss"])})

    def on_evaluate(self, args, state, control, metrics=None, model=None, **kwargs):
        scores = self.scores(model)
        if metrics is not None:
            metrics.update({f"eval_{k}": v for k, v in scores.items()})
        self.history.append({"step": state.global_step, **scores})
        why = ("; the refiner cites no passage yet (none reaches P(supported) >= 0.5)"
               if not scores["cited_statements"] else "")
        print(f"[citetrain] step {state.global_step}: in-loop citation scores of "
              f"{len(self.records)} validation records refined by the model being trained: "
              f"citation_f1={scores['citation_f1']:.2f}, lenient_f1={scores['lenient_f1']:.2f}"
              f"{why}", flush=True)
