"""Citation rewards with TRL's reward-function signature, for GRPO and for ranking DPO pairs.

Each reward is ``fn(prompts, completions, **columns) -> list[float]``, one value in [0, 1] per
completion, as ``trl.GRPOTrainer(reward_funcs=[...])`` calls it (dataset columns arrive as keyword
lists, one entry per completion). A completion is either a whole answer with ``[k]`` marks, or,
when the dataset has a ``statement`` column (a refiner set: one statement per example), the marks
for that statement (``" [2][5]"``), read as ``statement`` with those marks before its final
punctuation. Passages come from the ``docs`` column: a list of texts or of ``{"title", "text"}``.
Conversational completions (``[{"role": "assistant", "content": ...}]``) are read by their last
message's content.

* ``citation_recall`` = ALCE's per-record citation recall of the completion: the mean over its
  sentences of NLI(concat(cited passages), sentence) (0 for a sentence without marks or with an id
  out of range; :func:`citetrain.metrics.alce.alce`, ``at_most_citations`` as set);
* ``citation_precision`` = ALCE's per-record citation precision: correct citations / counted
  citations (a citation is irrelevant when it does not entail alone and the others entail
  without it; all 0 when the cited passages do not entail);
* ``wellformed`` = 0 for an empty completion, and for a refiner completion that is anything but
  marks; else 1 − (marks out of range) / (marks), 1 without marks;
* ``gold`` (column ``gold``: the reference ids of a refiner example) = F1 of the completion's
  ids against the reference ids, 2·|pred ∩ gold| / (|pred| + |gold|), 1 when both are empty
  (a statement no document supports, answered ``[]``), 0 when only one is, and 0 for a
  completion that is anything but marks (text with no mark must not pass for ``[]``);
* ``preservation`` (refiners that rewrite a whole answer; column ``original``) = the similarity of
  the completion's words to the original's, marks removed on both sides
  (``difflib.SequenceMatcher.ratio`` over word lists: 2·matches / total words).

Recall and precision of one batch are one :func:`~citetrain.metrics.alce.alce` call over all its
completions (every NLI pair of the batch in one engine round, deduplicated and cached), shared by
the two functions. A user imports them into their own TRL script::

    funcs, weights = CitationRewards(nli="lexical").mix(recall=1.0, precision=1.0, wellformed=0.5)
    trainer = GRPOTrainer(..., reward_funcs=funcs, args=GRPOConfig(reward_weights=weights))
"""
from __future__ import annotations

__all__ = ["CitationRewards"]

import difflib
import re
from typing import Any, Callable, Sequence

from citetrain.metrics.alce import alce
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record
from citetrain.io.formats import attach_marks
from citetrain.text.marks import alce_ids, alce_remove, render_marks

NAMES = ("recall", "precision", "wellformed", "preservation", "gold")
_MARKS_ONLY = re.compile(r"^\s*(\[\d*\]\s*)*$")  # ``[]`` is a refiner's "no document"


def completion_text(completion: Any) -> str:
    """A completion as text: a string, or the content of a conversation's last message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    return str(completion)


def as_docs(docs: Any) -> list[Doc]:
    """The ``docs`` column entry as passages: texts, or ``{"title", "text"}`` objects."""
    out = []
    for d in docs or []:
        out.append(Doc(title=str(d.get("title", "")), text=str(d.get("text", "")))
                   if isinstance(d, dict) else Doc(text=str(d)))
    return out


def answer_with_marks(completion: str, statement: str | None) -> str:
    """The answer a completion stands for: itself, or ``statement`` with the completion's marks
    attached as the builders attach them (:func:`~citetrain.io.formats.attach_marks`: before the
    final punctuation)."""
    if statement is None:
        return completion
    ids = alce_ids(completion)
    return attach_marks(statement, render_marks(ids)) if ids else statement


class CitationRewards:
    """``CitationRewards(nli="lexical", at_most_citations=3, cache=None)``: the reward
    functions of the module docstring over one NLI engine (a name for
    :func:`~citetrain.nli.registry.make_engine`, or an engine)."""

    def __init__(self, nli: str | NLIEngine = "lexical", *, at_most_citations: int | None = 3,
                 cache: bool | str | None = None) -> None:
        if isinstance(nli, str):
            from citetrain.nli.registry import make_engine

            nli = make_engine(nli, cache=cache, progress=False)
        self.engine = nli
        self.at_most_citations = at_most_citations
        self._last: tuple[Any, list[tuple[float, float]]] | None = None

    def records(self, completions: Sequence[Any], docs: Sequence[Any],
                statement: Sequence[str] | None = None,
                question: Sequence[str] | None = None) -> list[Record]:
        """One record per completion (ids ``"0"``, ``"1"``, ...)."""
        return [Record(id=str(i), question=str(question[i]) if question else "",
                       docs=as_docs(docs[i]),
                       output=answer_with_marks(completion_text(c), statement[i] if statement else None))
                for i, c in enumerate(completions)]

    def _alce(self, completions, docs, statement=None, question=None) -> list[tuple[float, float]]:
        """(recall, precision) per completion, one ALCE call per batch (shared by both rewards)."""
        recs = self.records(completions, docs, statement, question)
        key = tuple((r.output, tuple((d.title, d.text) for d in r.docs)) for r in recs)
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        result = alce(recs, self.engine, at_most_citations=self.at_most_citations)
        by_id = {row["id"]: (row["citation_rec"], row["citation_prec"]) for row in result.per_record}
        values = [by_id.get(str(i), (0.0, 0.0)) for i in range(len(recs))]  # empty: skipped, 0
        self._last = (key, values)
        return values

    def recall(self, prompts: Sequence[Any], completions: Sequence[Any], docs: Sequence[Any],
               statement: Sequence[str] | None = None, question: Sequence[str] | None = None,
               **_: Any) -> list[float]:
        """ALCE citation recall of each completion (see the module docstring)."""
        return [r for r, _ in self._alce(completions, docs, statement, question)]

    def precision(self, prompts: Sequence[Any], completions: Sequence[Any], docs: Sequence[Any],
                  statement: Sequence[str] | None = None, question: Sequence[str] | None = None,
                  **_: Any) -> list[float]:
        """ALCE citation precision of each completion (see the module docstring)."""
        return [p for _, p in self._alce(completions, docs, statement, question)]

    def wellformed(self, prompts: Sequence[Any], completions: Sequence[Any], docs: Sequence[Any],
                   statement: Sequence[str] | None = None, **_: Any) -> list[float]:
        """1 − marks out of range / marks; 0 when empty or, for a refiner, not marks only."""
        out = []
        for i, c in enumerate(completions):
            text = completion_text(c)
            if not text.strip() and not statement:
                out.append(0.0)
                continue
            if statement and not _MARKS_ONLY.match(text):
                out.append(0.0)
                continue
            ids = alce_ids(text)
            n = len(as_docs(docs[i]))
            bad = sum(1 for k in ids if not 1 <= k <= n)
            out.append(1.0 - bad / len(ids) if ids else 1.0)
        return out

    def gold(self, prompts: Sequence[Any], completions: Sequence[Any], gold: Sequence[Sequence[int]],
             **_: Any) -> list[float]:
        """F1 of the completion's ids against the ``gold`` ids (1 when both are empty)."""
        out = []
        for c, g in zip(completions, gold):
            text = completion_text(c)
            pred, ref = set(alce_ids(text)), set(int(k) for k in g or [])
            if not _MARKS_ONLY.match(text):
                out.append(0.0)
            else:
                out.append(1.0 if not pred and not ref else 2 * len(pred & ref) / (len(pred) + len(ref)))
        return out

    def preservation(self, prompts: Sequence[Any], completions: Sequence[Any],
                     original: Sequence[str], **_: Any) -> list[float]:
        """Word similarity of the completion to ``original``, marks removed on both sides."""
        out = []
        for c, o in zip(completions, original):
            a, b = alce_remove(completion_text(c)).split(), alce_remove(str(o)).split()
            out.append(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() if a or b else 1.0)
        return out

    def mix(self, **weights: float) -> tuple[list[Callable[..., list[float]]], list[float]]:
        """``(reward_funcs, reward_weights)`` for the rewards named, e.g.
        ``mix(recall=1.0, precision=1.0, wellformed=0.5)``; names from :data:`NAMES`."""
        bad = [n for n in weights if n not in NAMES]
        if bad or not weights:
            raise ValueError(f"unknown or no reward(s) {bad}: choose from {', '.join(NAMES)}")
        return [getattr(self, n) for n in weights], [float(w) for w in weights.values()]
