"""What a request will cost the judge, counted in what the judge reads, before any NLI call.

Every limit of :class:`~citetrain.serve.config.ServeConfig` here is refused with a 422 naming its
flag, and each is checked in one pass over the text:

* ``max_marks``: citation ids in the responses' marks (``[1]``, ``[1, 2]``); an id longer than
  :data:`MAX_ID_DIGITS` digits is refused too;
* ``max_statements``: the responses' sentences. Before any split, :func:`sentence_bound` counts
  the sentence ends of every script the splitter knows (``。！？`` too): a request whose bound
  passes twice the limit is refused unsplit; the others are split (linear) and counted;
* ``max_nli_calls``: the pairs sent, or for records an upper bound on the NLI judge's calls
  (:func:`calls_per_statement` for each statement with its record's passages);
* ``max_work``: the **characters the judge will read** (:class:`WorkModel`): every premise and
  hypothesis of every call it may make (subset premises and CiteEval contexts included), the
  passages and the text it splits. A judge that reads premises from their parts (the lexical
  one, :mod:`citetrain.text.joined`) reads each passage and statement once and each hypothesis
  per call; any other reads each premise whole, bounded here from the passages' lengths.
  Each NLI call also counts :data:`CALL_CHARS`, its bookkeeping in characters' worth.

A record of an NLI judge is then cut into **chunks** of its statements whose estimated work is at
most ``batch_work`` (a statement above it is a chunk alone): the batcher's items, so that a batch
lasts about as long as any other whatever the records' sizes (:mod:`citetrain.serve.batcher`).
Parsing runs under the request's deadline: past it, the parse stops at the next record (504).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from functools import cached_property
from math import comb
from typing import Any, Sequence

from citetrain.analysis.subsets import auto_pool
from citetrain.analysis.support import StatementAnalysis, analyses_of
from citetrain.records import Record
from citetrain.serve.bodies import RequestError
from citetrain.serve.config import ServeConfig, flag
from citetrain.serve.scoring import is_nli_judge
from citetrain.text.bounds import sentence_bound as _text_sentence_bound
from citetrain.text.joined import Parts
from citetrain.text.marks import MARK

MAX_ID_DIGITS = 18
# one NLI call's bookkeeping (engine, subset search, result) in characters' worth of reading:
# about 40 us a call against 1.5 us a character of unseen words (tokens and stems), nli:lexical
# on 2 cores (`citetrain serve nli:lexical --calibrate`, docs/guides/judge.md)
CALL_CHARS = 32
_DIGITS = re.compile(r"\d+")


def calls_per_statement(n_docs: int, max_size: int = 3) -> int:
    """An upper bound on one statement's NLI calls with ``n_docs`` passages: its two context
    premises, each passage alone, the unions (all docs, the remaining ones, the candidate pool),
    the pool minus each doc, its subsets of 2..``max_size`` docs, the cited set and the cited set
    minus each citation (:mod:`citetrain.analysis.subsets`, :mod:`citetrain.analysis.support`)."""
    pool = min(n_docs, auto_pool(n_docs, max_size))
    combos = sum(comb(pool, i) for i in range(2, max_size + 1))
    return 2 + n_docs + 3 + pool + combos + 1 + n_docs


def count_marks(text: str) -> tuple[int, int]:
    """``(ids, digits of the longest id)`` of the citation marks in ``text``."""
    ids = longest = 0
    for m in MARK.finditer(text):
        for d in _DIGITS.finditer(m.group(1)):
            ids += 1
            longest = max(longest, d.end() - d.start())
    return ids, longest


def sentence_bound(text: str) -> int:
    """At least as many as the sentences the judge's splitter finds in ``text``, in linear time:
    the sentence ends of every script it splits (``。！？…；`` too), counted as
    :func:`citetrain.text.bounds.sentence_bound` counts them for the splitter and language
    :func:`split_sentences` picks."""
    return _text_sentence_bound(text)


def check_marks(records: Sequence[Record], config: ServeConfig) -> None:
    """A 422 when the responses' marks hold more ids than ``max_marks``, or an id too long."""
    marks = 0
    for record in records:
        ids, longest = count_marks(record.output)
        if longest > MAX_ID_DIGITS:
            raise RequestError(422, f"record {record.id[:40]!r}: a citation mark's id has "
                                    f"{longest} digits; at most {MAX_ID_DIGITS}")
        marks += ids
    if marks > config.max_marks:
        raise RequestError(422, f"{marks} citation ids in the responses' marks; at most "
                                f"{config.max_marks} per request ({flag('max_marks')})")


def check_sentence_ends(records: Sequence[Record], limit: int) -> None:
    """A 422, before any split, when the responses' sentence ends pass twice ``limit``."""
    bound = sum(sentence_bound(t) for r in records if (t := r.output.strip()))
    if bound > 2 * limit:
        raise RequestError(422, f"{bound} sentence ends in the responses; at most {limit} "
                                f"statements per request ({flag('max_statements')})")


@dataclass(frozen=True)
class WorkModel:
    """The characters a judge reads for one record's statements (module docstring)."""

    n_docs: int
    passages: int  # characters of the formatted passages, all together
    longest: int  # of the longest passage
    max_size: int
    reads_parts: bool

    @classmethod
    def of(cls, stmts: Sequence[StatementAnalysis], judge: Any) -> WorkModel:
        lengths = [len(t) for t in stmts[0].passages.texts] if stmts and stmts[0].passages else []
        return cls(len(lengths), sum(lengths), max(lengths, default=0),
                   int(getattr(judge, "max_subset_size", 3)),
                   bool(getattr(judge.engine.backend, "reads_parts", False)))

    @cached_property
    def calls(self) -> int:
        """An upper bound on one statement's NLI calls (:func:`calls_per_statement`), counted
        once per record."""
        return calls_per_statement(self.n_docs, self.max_size)

    @cached_property
    def premises(self) -> int:
        """Characters of the subset premises one statement may ask, read whole: each passage
        alone, three unions, the pool less each doc, the pool's pairs and triples, the cited set
        and the cited set less each citation (at most all the passages each); the same for
        every statement of the record, so counted once per record."""
        p, m, n = self.passages, self.longest, self.n_docs
        pool = min(n, auto_pool(n, self.max_size))
        combos = sum(comb(pool, i) * min(p, i * m) for i in range(2, self.max_size + 1))
        return p + 3 * p + pool * min(p, (pool - 1) * m) + combos + (1 + n) * p

    def once(self, record: Record) -> int:
        """What the record costs whatever its statements: the text split and the question (a
        judge reading parts also reads each passage and statement once: :func:`_reads`)."""
        return len(record.output) + len(record.question)

    def statement(self, s: StatementAnalysis) -> int:
        """One statement: a call's bookkeeping per call and its hypothesis, read once by a judge
        reading parts (its words are looked up per call) and per call by any other, which also
        reads every premise it may be asked against whole."""
        if self.reads_parts:
            return len(s.text) + self.calls * CALL_CHARS
        return (self.calls * (len(s.text) + CALL_CHARS) + self.premises + len(s.question)
                + len(s.earlier))


@dataclass(eq=False)
class Chunk:
    """Statements of one record (``record``: its index in the request), scored in one batch;
    or, for a judge that reads parts, some of the record's parts read ahead of them (``reads``:
    (parts, ids) to tokenize), so that no batch reads a whole long record at once."""

    record: int
    statements: list[StatementAnalysis]
    reads: list[tuple[Parts, tuple[int, ...]]] = field(default_factory=list)


@dataclass
class Plan:
    """A request's records, the batcher's items for them (chunks, or the records themselves for
    a judge without an NLI engine) and each item's work."""

    records: list[Record]
    items: list[Any]
    costs: list[int]


def _past(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise RequestError(504, f"not parsed within the request's {flag('timeout_s')}")


def _refuse_work(work: int, calls: int, config: ServeConfig,
                 what: str = "up to {} NLI calls for these statements and passages") -> None:
    if calls > config.max_nli_calls:
        raise RequestError(422, f"{what.format(calls)}; at most {config.max_nli_calls} per "
                                f"request ({flag('max_nli_calls')}): send fewer")
    if work > config.max_work:
        raise RequestError(422, f"about {work} characters for the judge to read (passages, "
                                f"statements and every premise it may ask); at most "
                                f"{config.max_work} per request ({flag('max_work')}): send fewer "
                                "or shorter passages or statements")


def _reads(k: int, stmts: list[StatementAnalysis], batch_work: int
           ) -> tuple[list[Chunk], list[int]]:
    """Chunks that read the record's passages, then its statements, ahead of the statements'
    premises (a judge reading parts), each at most ``batch_work`` characters (a longer part
    alone)."""
    chunks: list[Chunk] = []
    costs: list[int] = []
    for parts in (stmts[0].passages, stmts[0].earlier.parts):
        for i, text in enumerate(parts.texts):
            if not chunks or costs[-1] + len(text) > batch_work:
                chunks.append(Chunk(k, []))
                costs.append(0)
            if not chunks[-1].reads or chunks[-1].reads[-1][0] is not parts:
                chunks[-1].reads.append((parts, ()))
            got, ids = chunks[-1].reads[-1]
            chunks[-1].reads[-1] = (got, (*ids, i))
            costs[-1] += len(text)
    return chunks, costs


def _chunks(k: int, stmts: list[StatementAnalysis], model: WorkModel, once: int,
            batch_work: int) -> tuple[list[Chunk], list[int]]:
    """The record's statements cut into chunks of at most ``batch_work`` (a costlier statement
    alone), after the chunks reading its parts (a judge reading parts); the record's own cost
    goes with its first chunk."""
    chunks: list[Chunk] = []
    costs: list[int] = []
    if model.reads_parts:
        chunks, costs = _reads(k, stmts, batch_work)
        costs[0] += once
        once = 0
    first = len(chunks)
    for s in stmts:
        cost = model.statement(s)
        if len(chunks) == first or costs[-1] + cost > batch_work:
            chunks.append(Chunk(k, []))
            costs.append(once if len(chunks) == first + 1 else 0)
        chunks[-1].statements.append(s)
        costs[-1] += cost
    return chunks, costs


def plan_records(records: Sequence[Record], config: ServeConfig, judge: Any,
                 deadline: float | None = None) -> Plan:
    """The records' statements split, counted and cut into chunks of bounded work; a 422 naming
    the limit a request exceeds, or a 504 past ``deadline`` (``time.monotonic()``)."""
    records = list(records)
    check_marks(records, config)
    check_sentence_ends(records, config.max_statements)
    if not is_nli_judge(judge):  # one prompt per record
        return Plan(records, records, [len(r.output) + len(r.question) + sum(
            len(d.title) + len(d.text) for d in r.docs) for r in records])
    split: list[list[StatementAnalysis]] = []
    for record in records:  # at most twice the cap in all (check_sentence_ends), linear each
        _past(deadline)
        split.append(analyses_of(record) if record.output.strip() else [])
    statements = sum(len(stmts) for stmts in split)
    if statements > config.max_statements:
        raise RequestError(422, f"{statements} statements in the responses; at most "
                                f"{config.max_statements} per request ({flag('max_statements')})")
    items: list[Any] = []
    costs: list[int] = []
    work = calls = 0
    for k, (record, stmts) in enumerate(zip(records, split)):
        if not stmts:
            continue
        model = WorkModel.of(stmts, judge)
        chunks, chunk_costs = _chunks(k, stmts, model, model.once(record), config.batch_work)
        calls += len(stmts) * model.calls
        work += sum(chunk_costs)
        _refuse_work(work, calls, config)
        items += chunks
        costs += chunk_costs
    return Plan(records, items, costs)


def pair_costs(pairs: Sequence[tuple[str, str]], config: ServeConfig) -> list[int]:
    """Each pair's work (its two texts and a call's bookkeeping); a 422 past the caps."""
    costs = [len(p) + len(h) + CALL_CHARS for p, h in pairs]
    _refuse_work(sum(costs), len(costs), config, "{} pairs")
    return costs
