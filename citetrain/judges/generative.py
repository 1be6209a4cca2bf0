"""The generative judge: a causal LM distilled on the judge sets (``recipes/judge.yaml``), prompted
with CiteEval's editing-and-rating prompt (F.3) and read by the ITERCOE parser.

One prompt per response carries all its statements (numbered from 1); generation is batched,
greedy and left-padded (:func:`~citetrain.models.generate.generate_texts`). The parsed edits and
ratings are scored by :func:`~citetrain.metrics.citeeval.citeeval_from_judgements`; an output the
parser cannot read for a statement is reported on that statement (``status``, ``reason``) and
counted in ``info["unparsed"]``, and the rest of the file is still scored. The judge does not
label contexts: every statement counts as retrieval (use the teacher or an NLI judge for F.2).
"""
from __future__ import annotations

from typing import Any, Literal, Sequence

from citetrain.judges.base import JudgeResult, timed
from citetrain.metrics.base import MetricResult, skipped_info
from citetrain.metrics.citeeval import Scenario, citeeval_from_judgements
from citetrain.metrics.itercoe import parse_itercoe, render_citeeval_prompt
from citetrain.records import Record
from citetrain.text.statements import statements


class GenerativeJudge:
    """``GenerativeJudge(model, tokenizer, name=..., max_new_tokens=512, batch_size=4,
    max_length=None, rating="itercoe", scenario="both")``; :meth:`from_checkpoint` loads an
    adapter or merged folder."""

    def __init__(self, model: Any, tokenizer: Any, *, name: str = "generative", max_new_tokens: int = 512,
                 batch_size: int = 4, max_length: int | None = None,
                 rating: Literal["itercoe", "editdist", "ensemble"] = "itercoe",
                 scenario: Scenario = "both") -> None:
        self.model, self.tokenizer = model, tokenizer
        self.name = name
        self.max_new_tokens, self.batch_size, self.max_length = max_new_tokens, batch_size, max_length
        self.rating, self.scenario = rating, scenario

    @classmethod
    def from_checkpoint(cls, path: str, **options: Any) -> "GenerativeJudge":
        """A judge from a trained checkpoint (adapter with its base, or a full model)."""
        from citetrain.models.loading import load_causal_lm

        model, tokenizer = load_causal_lm(path, role="generative judge")
        return cls(model, tokenizer, name=f"generative:{path}", **options)

    def generate(self, prompts: Sequence[str], progress: bool) -> list[str]:
        """The model's outputs for ``prompts``, in order."""
        from citetrain.models.generate import generate_texts

        return generate_texts(self.model, self.tokenizer, prompts, max_new_tokens=self.max_new_tokens,
                              batch_size=self.batch_size, max_length=self.max_length, progress=progress)

    def score(self, records: Sequence[Record], *, progress: bool = True) -> JudgeResult:
        """Rate every statement of every record (records without statements skipped, counted)."""
        return timed(self.name, lambda: self._score(records, progress))

    def _score(self, records: Sequence[Record], progress: bool) -> MetricResult:
        sts = [statements(r.output, first_line_only=False) for r in records]
        todo = [k for k, s in enumerate(sts) if s]
        outs = self.generate([render_citeeval_prompt(records[k], sts[k]) for k in todo], progress)
        judgements: list[list] = [[] for _ in records]
        for k, out in zip(todo, outs):
            judgements[k] = parse_itercoe(out, len(sts[k]))
        result = citeeval_from_judgements(records, judgements, self.scenario, rating=self.rating)
        result.info.update({"judge": self.name, "contexts": False,
                            **skipped_info([r.id for r, s in zip(records, sts) if not s])})
        return result
