"""LLM judge NLI over an OpenAI-compatible chat endpoint (vLLM, TGI, OpenAI; docs/concepts/nli.md).

The prompt is AttrScore's (Yue et al. 2023, "Automatic Evaluation of Attribution by Large Language
Models"): is the claim *Attributable* to the reference, *Extrapolatory* (not inferable from it) or
*Contradictory*? ``label`` = the answer is Attributable; ``prob`` = 1.0 / 0.0, or, when
``logprobs=True`` and the server returns them, the probability mass of first tokens that begin
"Attributable". ``support`` = full / no for Attributable / the others (AttrScore has no partial).

Requests go through :class:`citetrain.llm.client.ChatClient`: the API key is read from an
environment variable (``OPENAI_API_KEY`` by default) at request time; it is never stored on the
object, logged, or put into an error message. Requests are retried with exponential backoff on
429, 5xx and connection errors; 401/403 fail at once. Every answer goes through the persistent
answer cache (:class:`~citetrain.llm.client.CachedChat`; ``chat_cache``, by default
``judge.sqlite`` beside ``$CITETRAIN_CACHE``), stored as it arrives: a rerun, or a run resumed
after a kill, sends no request twice, even for the pairs of a batch the NLI cache had not stored
yet. :meth:`LLMNLI.plan` counts what a run would send (``citetrain eval --dry-run``).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from citetrain.errors import CitetrainError
from citetrain.llm.cache import judge_cache_path
from citetrain.llm.client import DEFAULT_BASE_URL, CachedChat, ChatClient
from citetrain.llm.estimate import RequestPlan
from citetrain.nli.base import NLIResult, Pair
from citetrain.nli.hf import reject_unknown

ATTRSCORE_PROMPT = (
    "As an Attribution Validator, your task is to verify whether a given reference can support "
    "the given claim. A claim can be either a plain sentence or a question followed by its answer. "
    "Specifically, your response should clearly indicate the relationship: Attributable, "
    "Contradictory or Extrapolatory. A contradictory error occurs when you can infer that the "
    "answer contradicts the fact presented in the context, while an extrapolatory error means that "
    "you cannot infer the correctness of the answer based on the information provided in the "
    "context.\n\nClaim: {claim}\nReference: {reference}"
)
VERDICTS = ("attributable", "extrapolatory", "contradictory")
_NEGATED = re.compile(r"\b(?:not|non|un)[\s\-]?attributable\b", re.IGNORECASE)
__all__ = ["ATTRSCORE_PROMPT", "DEFAULT_BASE_URL", "LLMNLI", "VERDICTS", "parse_verdict"]


def parse_verdict(answer: str) -> str | None:
    """The first of Attributable / Extrapolatory / Contradictory named in ``answer`` (lower case);
    "not attributable" reads as extrapolatory; ``None`` when none is named."""
    text = _NEGATED.sub("extrapolatory", answer.lower())
    hits = [(text.find(v), v) for v in VERDICTS if v in text]
    return min(hits)[1] if hits else None


def _attributable_mass(logprobs: Any) -> float | None:
    """P(first token starts "Attributable") from an OpenAI-style ``logprobs`` block, if present."""
    try:
        first = logprobs["content"][0]
        tops = first.get("top_logprobs") or [first]
        mass = 0.0
        for item in tops:
            tok = str(item["token"]).strip().lower()
            if tok and "attributable".startswith(tok):
                mass += math.exp(float(item["logprob"]))
        return min(mass, 1.0)
    except (KeyError, IndexError, TypeError, ValueError):
        return None


class LLMNLI:
    """AttrScore-style LLM judge (see the module docstring).

    Parameters
    ----------
    model : the model name the endpoint serves.
    base_url : endpoint root ending in ``/v1``; default ``$OPENAI_BASE_URL`` or OpenAI's.
    api_key_env : the environment variable holding the key (unset: no Authorization header).
    batch_size : pairs per engine batch; ``concurrency`` requests run at once within a batch.
    tries : attempts per request; waits ``retry_delay * 2**i`` seconds between them.
    timeout : seconds per request. ``max_tokens``, ``temperature``: generation settings.
    logprobs : ask for first-token log-probabilities and use them as ``prob``.
    chat_cache : the answer cache: ``True`` (``judge.sqlite`` beside ``$CITETRAIN_CACHE``, else in
        ``~/.cache/citetrain``), a file, or ``False`` (none).
    """

    is_baseline = False

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        batch_size: int = 16,
        concurrency: int = 4,
        tries: int = 5,
        retry_delay: float = 1.0,
        timeout: float = 60.0,
        max_tokens: int = 16,
        temperature: float = 0.0,
        logprobs: bool = False,
        prompt: str = ATTRSCORE_PROMPT,
        chat_cache: bool | str = True,
        **unused: Any,
    ) -> None:
        reject_unknown("llm", unused)
        if tries < 1:
            raise CitetrainError(f"llm NLI: tries must be at least 1, got {tries}")
        if "{claim}" not in prompt or "{reference}" not in prompt:
            raise CitetrainError("llm NLI: the prompt must contain {claim} and {reference}")
        self.client = ChatClient(
            model, base_url=base_url, api_key_env=api_key_env, tries=tries,
            retry_delay=retry_delay, timeout=timeout, max_tokens=max_tokens,
            temperature=temperature, concurrency=concurrency)
        c = self.client
        where = None if chat_cache is False else judge_cache_path() if chat_cache is True else chat_cache
        self.chat = CachedChat(c, where)
        self.model_id = model
        self.base_url = c.base_url
        self.api_key_env = api_key_env
        self.batch_size = int(batch_size)
        self.concurrency = c.concurrency
        self.tries, self.retry_delay, self.timeout = c.tries, c.retry_delay, c.timeout
        self.max_tokens, self.temperature = c.max_tokens, c.temperature
        self.logprobs = bool(logprobs)
        self.prompt = prompt
        blob = json.dumps([prompt, model, temperature, max_tokens, logprobs])
        self.revision = "prompt-" + hashlib.sha256(blob.encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        return f"LLMNLI({self.model_id!r}, base_url={self.base_url!r}, key from ${self.api_key_env})"

    def cost(self, pair: Pair) -> int:
        """Approximate token count (characters / 4)."""
        return (len(pair[0]) + len(pair[1])) // 4

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        """One chat request per pair, ``concurrency`` at a time, answers in order."""
        if len(pairs) <= 1 or self.concurrency == 1:
            return [self._judge(p) for p in pairs]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(pairs))) as pool:
            return list(pool.map(self._judge, pairs))

    def _extra(self) -> dict[str, Any]:
        """The request fields beyond the client's settings."""
        return {"logprobs": True, "top_logprobs": 5} if self.logprobs else {}

    def plan(self, pairs: Sequence[Pair]) -> RequestPlan:
        """What :meth:`predict` would send for ``pairs`` (nothing is sent): one request per
        distinct prompt whose answer is not in the cache."""
        prompts = list(dict.fromkeys(self.prompt.format(claim=h, reference=p) for p, h in pairs))
        keys = [self.chat.key(p, **self._extra()) for p in prompts]
        stored = self.chat.cached(keys)
        todo = [p for p, k in zip(prompts, keys) if k not in stored]
        return RequestPlan(len(todo), sum(len(p) for p in todo), len(prompts) - len(todo))

    def _judge(self, pair: Pair) -> NLIResult:
        premise, hypothesis = pair
        prompt = self.prompt.format(claim=hypothesis, reference=premise)
        choice = self.chat.choice(prompt, **self._extra())
        verdict = parse_verdict(choice["message"]["content"] or "")
        label = verdict == "attributable"
        prob = _attributable_mass(choice.get("logprobs")) if self.logprobs else None
        if prob is None:
            prob = 1.0 if label else 0.0
        return NLIResult(prob, label, (1.0, 0.0, 0.0) if label else (0.0, 0.0, 1.0))
