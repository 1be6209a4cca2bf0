"""The three judgements LongBench-Cite asks (Zhang et al. 2024, LongCite §4), from an LLM or an NLI
engine.

* **support** of a statement by a snippet: fully 1, partially 0.5, none 0;
* **relevance** of one cited snippet to a statement: 1 or 0;
* **need_citation** of an uncited sentence of the response: 1 (it states a fact from the
  document) or 0 (an introduction, a transition, a summary or an inference).

LLM (:class:`LLMJudge`): one chat request per judgement; the inputs are laid out as LongBench-Cite
lays them out (``<question>``, ``<statement>``, ``<snippet>`` blocks; ``<question>``,
``<response>``, ``<sentence>`` for need_citation) and put in place of the template's ``{}``. The
verdict is the first ``[[...]]`` of the answer holding only letters, spaces and slashes:
support "fully" → 1, "partially" → 0.5, else 0; relevance "unrelevant" → 0, else 1;
need_citation "yes" → 1, else 0 (case-insensitive, substrings). An answer with no such verdict is
asked again, up to 5 tries: temperature 0 first, then 1; each request at most 10 new tokens,
stopping at "Analysis:". A judgement still without a verdict after its tries has no score
(``Verdict.score`` is ``None``: the metric leaves its statement unscored), or, with ``strict``,
raises. Every answer goes through the persistent answer cache (:class:`CachedChat`), stored as it
arrives and keyed by the prompt, the settings and the try's number; identical prompts are asked
once. A rerun, or a run resumed after a kill, thus sends no request twice. The default templates ask in the project's own words for the answer forms
LongBench-Cite's ask for; ``prompts`` loads other templates (e.g. LongBench-Cite's own).

NLI (:class:`NLIJudge`), premise the snippet and hypothesis the statement: support is the most
probable of (full, partial, no) for a three-way backend; for a two-way one, full when the backend
decides entailment, partial when ``prob >= partial_threshold``, else none. Relevance = support at
least partial. need_citation follows ``need_rule``: ``"new_content"`` (default) — 1 unless the
question and the response's earlier statements (joined by a newline and spaces) entail the
sentence; ``"always"`` — 1; ``"never"`` — 0.
"""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

from citetrain.errors import CitetrainError
from citetrain.llm.client import CachedChat
from citetrain.llm.estimate import RequestPlan
from citetrain.nli.base import NLIResult
from citetrain.nli.engine import NLIEngine

Kind = Literal["support", "relevance", "need_citation"]
KINDS: tuple[Kind, ...] = ("support", "relevance", "need_citation")
NeedRule = Literal["new_content", "always", "never"]
TRIES = 5  # LongBench-Cite asks up to five times for a readable verdict
MAX_NEW_TOKENS = 10
STOP = "Analysis:"

SUPPORT_PROMPT = """You are checking the quality of an AI assistant's answer. A user asked a question about a document they uploaded; the document is too long to show, so you see one snippet of it, the question, and one factual statement from the assistant's answer. Decide how well the snippet backs up the statement, on this scale:
- [[Fully supported]] - nearly all of the statement's information is found in, or taken from, the snippet; the statement and some part of the snippet say almost the same thing.
- [[Partially supported]] - more than half of the statement is backed by the snippet, but a smaller part is missing from it or disagrees with it (for instance, the statement makes two key points and the snippet backs only one).
- [[No support]] - the statement has little to do with the snippet, or most of its key points do not match the snippet.
Judge from the snippet alone, without outside knowledge. Give the rating first and your reasons after it, as "Rating: [[...]] Analysis: ...".

{}"""

RELEVANCE_PROMPT = """You are checking the quality of an AI assistant's answer. A user asked a question about a document they uploaded; the document is too long to show, so you see one snippet of it, the question, and one factual statement from the assistant's answer. Decide whether the snippet holds some of the key information of the statement:
- [[Relevant]] - some key points of the statement are backed by the snippet or taken from it.
- [[Unrelevant]] - the statement has almost nothing to do with the snippet, or every key point of the statement disagrees with the snippet.
Judge from the snippet alone, without outside knowledge. Give the rating first and your reasons after it, as "Rating: [[...]] Analysis: ...".

{}"""

NEED_CITATION_PROMPT = """You are checking the quality of an AI assistant's answer. A user asked a question about a document they uploaded (too long to show here); you see the question, the assistant's answer, which was based on the document, and one sentence of that answer. Decide whether the sentence states a fact taken from the document, and so needs a citation, rather than being an opening line, a transition, or a summary, reasoning or conclusion drawn from what the answer already said.
Use no information from outside what you are shown.
Give your decision first (answer with [[Yes]] or [[No]]), then your reasons, as "Need Citation: [[Yes/No]] Analysis: ...".

{}
"""

DEFAULT_TEMPLATES: dict[Kind, str] = {
    "support": SUPPORT_PROMPT, "relevance": RELEVANCE_PROMPT, "need_citation": NEED_CITATION_PROMPT,
}
_VERDICT = re.compile(r"\[\[([ /a-zA-Z]+)\]\]")


@dataclass(frozen=True)
class Ask:
    """One judgement to make. ``text``: the snippet (support, relevance) or the whole response
    without tags (need_citation); ``earlier``: the response's statements before this one (the NLI
    need rule); ``where``: names the record and statement in an error."""

    kind: Kind
    question: str
    statement: str
    text: str
    earlier: str = ""
    where: str = ""


@dataclass(frozen=True)
class Verdict:
    """A judgement's score (``None``: no readable verdict in its tries), and for an LLM its last
    answer and the tries it took."""

    score: float | None
    answer: str | None = None
    tries: int = 0


def verdict_score(kind: Kind, answer: str) -> float | None:
    """The score of the first ``[[...]]`` verdict in ``answer`` (module docstring); ``None`` when
    there is none."""
    m = _VERDICT.search(answer)
    if m is None:
        return None
    v = m.group(1).lower()
    if kind == "support":
        return 1.0 if "fully" in v else 0.5 if "partially" in v else 0.0
    if kind == "relevance":
        return 0.0 if "unrelevant" in v else 1.0
    return 1.0 if "yes" in v else 0.0


def inputs_block(ask: Ask) -> str:
    """The judgement's inputs as LongBench-Cite lays them out (question, statement, snippet; or
    question, response, sentence), each stripped."""
    q, s = ask.question.strip(), ask.statement.strip()
    if ask.kind == "need_citation":
        return (f"<question>\n{q}\n</question>\n\n<response>\n{ask.text.strip()}\n</response>\n\n"
                f"<sentence>\n{s}\n</sentence>")
    return (f"<question>\n{q}\n</question>\n\n<statement>\n{s}\n</statement>\n\n"
            f"<snippet>\n{ask.text.strip()}\n</snippet>\n\n")


def load_templates(prompts: str | Sequence[str] | None) -> dict[Kind, str]:
    """Templates for the three judgements: the defaults; a folder holding ``support.txt``,
    ``relevance.txt`` and ``need_citation.txt`` (a missing file keeps the default); or three
    files in that order. Each must hold ``{}`` where the inputs go."""
    if prompts is None:
        return dict(DEFAULT_TEMPLATES)
    if isinstance(prompts, str):
        folder = Path(prompts)
        if not folder.is_dir():
            raise CitetrainError(f"longbench_cite prompts: {folder} is not a folder")
        paths = {k: folder / f"{k}.txt" for k in KINDS if (folder / f"{k}.txt").is_file()}
    else:
        if len(prompts) != 3:
            raise CitetrainError("longbench_cite prompts: give a folder or three files (support, "
                                 f"relevance, need_citation), got {len(prompts)}")
        paths = {k: Path(p) for k, p in zip(KINDS, prompts)}
    out = dict(DEFAULT_TEMPLATES)
    for kind, path in paths.items():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise CitetrainError(f"longbench_cite prompts: {path}: {err.strerror or err}") from None
        try:
            ok = "{}" in text and text.format("") is not None
        except (IndexError, KeyError, ValueError):
            ok = False
        if not ok:
            raise CitetrainError(f"longbench_cite prompts: {path}: no {{}} where the inputs go, "
                                 "or other braces (write {{ and }} for a literal brace)")
        out[kind] = text
    return out


class LLMJudge:
    """The three judgements from a chat model (module docstring): ``chat`` sends the requests
    through its cache, ``concurrency`` judgements run at once; ``strict``: a judgement without a
    readable verdict after :data:`TRIES` raises instead of having no score."""

    def __init__(self, chat: CachedChat, templates: dict[Kind, str] | None = None,
                 concurrency: int = 4, strict: bool = False) -> None:
        self.chat = chat
        self.templates = templates or dict(DEFAULT_TEMPLATES)
        self.concurrency = max(1, int(concurrency))
        self.strict = bool(strict)

    @property
    def name(self) -> str:
        return f"llm:{self.chat.client.model}"

    def prompt(self, ask: Ask) -> str:
        """The request text of one judgement."""
        return self.templates[ask.kind].format(inputs_block(ask))

    @staticmethod
    def _settings(t: int) -> dict[str, Any]:
        """The request fields of try ``t`` (0-based): temperature 0, then 1."""
        return {"temperature": 0.0 if t == 0 else 1.0, "max_tokens": MAX_NEW_TOKENS,
                "attempt": t, "stop": STOP}

    def one(self, ask: Ask) -> Verdict:
        """Ask until the answer holds a verdict, at most :data:`TRIES` times; no score (or, when
        ``strict``, an error) without one."""
        prompt, answer = self.prompt(ask), ""
        for t in range(TRIES):
            choice = self.chat.choice(prompt, **self._settings(t))
            answer = str(choice["message"]["content"] or "")
            score = verdict_score(ask.kind, answer)
            if score is not None:
                return Verdict(score, answer, t + 1)
        if self.strict:
            raise CitetrainError(f"longbench_cite: {ask.where}: no [[...]] verdict to the "
                                 f"{ask.kind} question in {TRIES} tries (last answer "
                                 f"{answer[:60]!r})")
        return Verdict(None, answer, TRIES)

    def judge(self, asks: Sequence[Ask]) -> list[Verdict]:
        """Every judgement, in order; identical prompts are asked once."""
        first: dict[str, Ask] = {}
        for a in asks:
            first.setdefault(self.prompt(a), a)
        unique = list(first.values())
        if self.concurrency == 1 or len(unique) <= 1:
            got = [self.one(a) for a in unique]
        else:  # on an error no new judgement starts; those in flight finish and store answers
            pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(unique)))
            try:
                got = list(pool.map(self.one, unique))
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
        by_prompt = dict(zip(first, got))
        return [by_prompt[self.prompt(a)] for a in asks]

    def plan(self, asks: Sequence[Ask]) -> RequestPlan:
        """What :meth:`judge` would send (nothing is sent): per distinct prompt, the cached tries
        are read as the judge reads them; the first try not in the cache is one request to send
        (retries after an unreadable answer are not foreseen)."""
        prompts = {self.prompt(a): a.kind for a in asks}
        keys = {p: [self.chat.key(p, **self._settings(t)) for t in range(TRIES)] for p in prompts}
        stored = self.chat.cached([k for ks in keys.values() for k in ks])
        out = RequestPlan()
        for prompt, kind in prompts.items():
            for k in keys[prompt]:
                if k not in stored:
                    out.requests += 1
                    out.prompt_chars += len(prompt)
                    break
                out.cached += 1
                if verdict_score(kind, stored[k]) is not None:
                    break
        return out


def support_level(result: NLIResult, partial_threshold: float) -> float:
    """1, 0.5 or 0 from an NLI result (module docstring)."""
    if result.support is not None:
        full, partial, no = result.support
        best = max(full, partial, no)
        return 1.0 if full == best else 0.5 if partial == best else 0.0
    return 1.0 if result.label else 0.5 if result.prob >= partial_threshold else 0.0


class NLIJudge:
    """The three judgements from an NLI engine (module docstring)."""

    def __init__(self, engine: NLIEngine, partial_threshold: float = 0.5,
                 need_rule: NeedRule = "new_content") -> None:
        self.engine, self.partial_threshold, self.need_rule = engine, partial_threshold, need_rule

    @property
    def name(self) -> str:
        return f"nli:{self.engine.name}"

    def _pair(self, ask: Ask) -> tuple[str, str] | None:
        """The (premise, hypothesis) a judgement reads; ``None`` when the rule needs none."""
        if ask.kind != "need_citation":
            return ask.text.strip(), ask.statement.strip()
        if self.need_rule != "new_content":
            return None
        premise = "\n".join(x for x in (ask.question.strip(), ask.earlier.strip()) if x)
        return premise, ask.statement.strip()

    def judge(self, asks: Sequence[Ask]) -> list[Verdict]:
        """Every judgement, in order; the engine reads all pairs in one call."""
        pairs = [self._pair(a) for a in asks]
        wanted = [p for p in pairs if p is not None]
        results = iter(self.engine.results(wanted)) if wanted else iter(())
        out = []
        for ask, pair in zip(asks, pairs):
            if pair is None:
                out.append(Verdict(1.0 if self.need_rule == "always" else 0.0))
                continue
            res = next(results)
            if ask.kind == "need_citation":
                out.append(Verdict(0.0 if res.label else 1.0))
                continue
            level = support_level(res, self.partial_threshold)
            out.append(Verdict(level if ask.kind == "support" else float(level >= 0.5)))
        return out


__all__ = ["Ask", "DEFAULT_TEMPLATES", "KINDS", "LLMJudge", "NLIJudge", "TRIES", "Verdict",
           "inputs_block", "load_templates", "support_level", "verdict_score"]
