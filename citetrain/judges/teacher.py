"""The teacher judge: an LLM over an OpenAI-compatible endpoint with CiteEval-Auto's prompts.

Stage 1 asks every record's context-attribution prompt (F.2,
:func:`~citetrain.metrics.itercoe.render_context_prompt`), stage 2 its editing-and-rating prompt
(F.3, :func:`~citetrain.metrics.itercoe.render_citeeval_prompt`); each stage is one batched
:meth:`~citetrain.llm.client.CachedChat.complete` call across all records, so every answer is
stored as it arrives and a killed run asks only for the rest when it runs again. The outputs are
read by :func:`~citetrain.metrics.itercoe.parse_context_labels` and
:func:`~citetrain.metrics.itercoe.parse_itercoe` and scored by
:func:`~citetrain.metrics.citeeval.citeeval_from_judgements`: what cannot be read is reported per
statement (``status`` / ``reason``) and counted in ``info``; the rest of the record still counts.
Both prompts carry every statement of the response (F.3's answers for non-retrieval statements
are masked when scoring, as the paper does).
"""
from __future__ import annotations

import os
from collections import Counter
from typing import Any, Literal, Sequence

from citetrain.judges.base import JudgeResult, timed
from citetrain.llm.teacher_chat import DEFAULT_MAX_TOKENS, teacher_chat
from citetrain.metrics.base import MetricResult, skipped_info
from citetrain.metrics.citeeval import Scenario, citeeval_from_judgements
from citetrain.metrics.itercoe import (
    parse_context_labels, parse_itercoe, render_citeeval_prompt, render_context_prompt,
)
from citetrain.records import Record
from citetrain.text.marks import Statement
from citetrain.text.statements import statements

Rating = Literal["itercoe", "editdist", "ensemble"]
RATINGS = ("itercoe", "editdist", "ensemble")
class TeacherJudge:
    """CiteEval-Auto with a teacher LLM: ``score(records)`` → CiteEval Full / Cited ratings.

    Parameters
    ----------
    model : the model name the endpoint serves.
    base_url : endpoint root ending in ``/v1`` (default ``$OPENAI_BASE_URL`` or OpenAI's).
    api_key_env : environment variable with the key; read per request, never stored or shown.
    cache_path : the SQLite answer cache (default :func:`citetrain.llm.teacher_chat.default_cache_path`).
    max_tokens, concurrency, tries, retry_delay, timeout : the chat client's settings.
    rating : ``"itercoe"`` ((r − 1) / 4), ``"editdist"`` (EDITDIST of the edits) or
        ``"ensemble"`` (their mean).
    contexts : ask F.2 first (otherwise every statement counts as retrieval).
    scenario : ``"full"``, ``"cited"`` or ``"both"``.
    first_line_only : cut outputs at the first newline (CiteEval does not).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        cache_path: str | os.PathLike[str] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        concurrency: int = 4,
        tries: int = 5,
        retry_delay: float = 1.0,
        timeout: float = 120.0,
        rating: Rating = "itercoe",
        contexts: bool = True,
        scenario: Scenario = "both",
        first_line_only: bool = False,
    ) -> None:
        if rating not in RATINGS:
            raise ValueError(f"rating must be 'itercoe', 'editdist' or 'ensemble', got {rating!r}")
        self.chat = teacher_chat(model, base_url=base_url, api_key_env=api_key_env,
                                 cache_path=cache_path, max_tokens=max_tokens,
                                 concurrency=concurrency, tries=tries, retry_delay=retry_delay,
                                 timeout=timeout)
        self.name = f"teacher:{model}"
        self.rating: Rating = rating
        self.contexts = bool(contexts)
        self.scenario: Scenario = scenario
        self.first_line_only = bool(first_line_only)

    @classmethod
    def from_settings(cls, settings: Any, **overrides: Any) -> "TeacherJudge":
        """A judge from any object with ``model`` and some of the keyword arguments as
        attributes (e.g. a build spec's ``TeacherSpec``); ``overrides`` win."""
        names = ("base_url", "api_key_env", "cache_path", "max_tokens", "concurrency", "tries",
                 "retry_delay", "timeout", "rating", "contexts", "scenario", "first_line_only")
        kwargs = {n: getattr(settings, n) for n in names if getattr(settings, n, None) is not None}
        kwargs.update(overrides)
        return cls(settings.model, **kwargs)

    def __repr__(self) -> str:
        return f"TeacherJudge({self.chat!r}, rating={self.rating!r}, contexts={self.contexts})"

    def _statements(self, records: Sequence[Record]) -> list[list[Statement]]:
        return [statements(r.output, first_line_only=self.first_line_only) for r in records]

    def label(self, records: Sequence[Record], *, progress: bool = True) -> list[dict[str, Any]]:
        """The teacher's raw outputs per record (for distillation), in order: ``id``,
        ``statements`` (texts), ``context_prompt`` / ``context_output`` (``None`` without
        contexts) and ``citeeval_prompt`` / ``citeeval_output``; all ``None`` for a record
        without statements (nothing is asked for it)."""
        sts = self._statements(records)
        todo = [k for k, s in enumerate(sts) if s]
        out: list[dict[str, Any]] = [
            {"id": r.id, "statements": [s.text for s in sts[k]], "context_prompt": None,
             "context_output": None, "citeeval_prompt": None, "citeeval_output": None}
            for k, r in enumerate(records)]
        stages = (("context", render_context_prompt),) if self.contexts else ()
        for stage, render in (*stages, ("citeeval", render_citeeval_prompt)):
            prompts = [render(records[k], sts[k]) for k in todo]
            for k, prompt, answer in zip(todo, prompts, self.chat.complete(prompts, progress)):
                out[k][f"{stage}_prompt"], out[k][f"{stage}_output"] = prompt, answer
        return out

    def score(self, records: Sequence[Record], *, progress: bool = True) -> JudgeResult:
        """Rate every statement of every record (records without statements are skipped and
        counted in ``info``)."""
        return timed(self.name, lambda: self._score(records, progress))

    def _score(self, records: Sequence[Record], progress: bool) -> MetricResult:
        before = (self.chat.stats.requests, self.chat.stats.cache_hits)
        labels = self.label(records, progress=progress)
        judgements, contexts = [], []
        context_unparsed: Counter[str] = Counter()
        for lab in labels:
            n = len(lab["statements"])
            judgements.append(parse_itercoe(lab["citeeval_output"] or "", n) if n else [])
            if self.contexts:
                parsed = parse_context_labels(lab["context_output"] or "", n) if n else []
                context_unparsed.update(c.reason for c in parsed if c.status != "ok")
                contexts.append(parsed)
        result = citeeval_from_judgements(
            records, judgements, self.scenario, contexts=contexts if self.contexts else None,
            rating=self.rating, first_line_only=self.first_line_only)
        result.info.update({
            "judge": self.name, "model": self.chat.client.model, "contexts": self.contexts,
            **skipped_info([lab["id"] for lab in labels if not lab["statements"]]),
            "context_unparsed": sum(context_unparsed.values()),
            "context_unparsed_reasons": dict(context_unparsed),
            "requests": self.chat.stats.requests - before[0],
            "cache_hits": self.chat.stats.cache_hits - before[1],
        })
        return result


__all__ = ["TeacherJudge"]
