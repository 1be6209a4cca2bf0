"""Minimal supporting subsets of a statement's docs under an NLI model (docs/concepts/support.md).

A subset S of the docs *supports* a statement when the NLI model says the concatenation of S's
passages (in id order, :func:`~citetrain.records.join_docs`) entails it; it is *minimal* when no
proper subset supports it. The gold citations of a statement are the union of its minimal
supporting subsets of size ≤ ``max_size``.

Pruned search (the default), one round per step, every round batched across all statements:

1. every doc alone (singletons that entail are minimal);
2. one call on the union of the *remaining* docs (those that do not entail alone), when there are
   at least two: if it does not entail, under monotonicity no subset of them will and the search
   stops (the answer also says whether the statement is supported by the docs at all);
3. when the union entails and holds three or more docs, the union minus each of its docs (a doc
   whose removal breaks entailment is in every supporting subset);
4. pairs among the remaining docs, then triples, ... up to ``max_size``, skipping any set that
   contains a supporting set already found and any set inside a set known to fail (monotonicity:
   a subset of a failing set fails).

``union_first=True`` (the judge's order, for data where most statements are unsupported) asks
the statement's ``cited`` docs alone first, then the union of all docs unless one of them entails
alone (the statement is then supported whatever the union says), or the union first when nothing
is cited: when the union does not entail, no subset will (monotonicity) and the search stops —
|cited| + 1 calls instead of n + 1; otherwise the docs not yet asked alone, and the search goes on
as above (step 2 is then answered already when no doc entails alone). Under a monotone judge the
subsets, the single-doc decisions of the cited docs and so the edits are the same; under any
judge, a statement with a cited doc that entails alone is searched exactly as in the docs-alone
order, without the union call.

**Many passages.** Pairs, triples, ... are enumerated among a *candidate pool*: all the remaining
docs when there are at most ``pool`` of them (the search above, exactly), else the ``pool``
remaining docs with the highest single-doc NLI score (ties by id). In the second case the union of
the pool is asked first (if it does not entail, the search stops: no subset of the pool can), then
the pool minus each doc, then pairs and triples within the pool. ``pool=None`` (the default) is
:func:`auto_pool`: the largest pool whose pairs, triples, ... up to ``max_size`` number at most
``max(2000, 5·n)``, so one statement asks at most about n (singles) + 2 + pool + 5·n subsets,
about linear in the passages; with 3 as ``max_size`` the pool is 22 docs up to 400 docs, 27 at
700 and every subset among 22 remaining docs is still searched.

Guarantee (under a monotone judge): when at most ``pool`` docs fail alone — every record of at
most 22 docs with ``max_size`` 3 — the subsets are exactly the exhaustive search's (the tests
compare them); with more, every subset found is a minimal supporting subset and the
single-doc decisions, ``supported`` and every supporting doc alone are exact, but a joint
supporting subset that needs a doc outside the pool is missed. ``bench/builder_subsets.py
--passages`` measures how often that changes the gold targets on many-passage records (with the
lexical NLI against the exhaustive search at ``max_size`` 2).

**A plan for the docs alone.** ``plan`` (a function of the search) names the docs to ask alone
in the next round, given the answers so far: ``None`` for every doc not asked yet (the search
above), an empty list when the statement's edits are settled and the search stops there. The
CiteEval metric's ``subsets="needed"`` (:func:`~citetrain.analysis.support.edits_plan`) asks the
cited docs first, then only the other docs the edits can read, so its ratings are those of the
whole search under any judge; only the reported subsets are incomplete.

``exhaustive=True`` asks every subset of size 1..``max_size`` (plus the union of all docs when
there are more docs than ``max_size``) in one round and keeps the minimal supporting ones. Under a
monotone judge (S supports ⇒ every superset supports) both give the same subsets; pruning spends
far fewer calls when most statements are supported by one doc or none.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import Callable, Sequence

from citetrain.nli.base import NLIResult

Subset = tuple[int, ...]  # 1-based doc ids, increasing


def exhaustive_calls(n_docs: int, max_size: int) -> int:
    """Σ_{i=1..max_size} C(n, i): the subsets an exhaustive enumeration asks for one statement
    (``SubsetSearch(exhaustive=True)`` asks the union of all docs too when n > max_size)."""
    return sum(comb(n_docs, i) for i in range(1, min(max_size, n_docs) + 1))


POOL_BUDGET, POOL_PER_DOC = 2000, 5


def auto_pool(n_docs: int, max_size: int) -> int:
    """The largest pool P with Σ_{i=2..max_size} C(P, i) <= max(POOL_BUDGET, POOL_PER_DOC·n)."""
    budget = max(POOL_BUDGET, POOL_PER_DOC * n_docs)
    size = max(max_size, 2)
    while sum(comb(size + 1, i) for i in range(2, max_size + 1)) <= budget and size < n_docs:
        size += 1
    return size


def is_covered(ids: Sequence[int], support: Sequence[frozenset[int]]) -> bool:
    """Whether the docs ``ids`` contain one of the supporting subsets."""
    have = set(ids)
    return any(s <= have for s in support)


def _holds_one(subset: Subset, found: set[frozenset[int]] | dict[frozenset[int], bool]) -> bool:
    """Whether some non-empty subset of the small ``subset`` (at most ``max_size`` ids) is in
    ``found``: O(2^|subset|), whatever the number of sets found."""
    return any(frozenset(c) in found for i in range(1, len(subset) + 1)
               for c in combinations(subset, i))


@dataclass
class SubsetSearch:
    """The search for one statement: ask :meth:`queries`, feed the answers to :meth:`answer`,
    until :attr:`done`. Results: :attr:`support` (minimal supporting subsets, by size then ids),
    :attr:`single` / :attr:`single_results` (each doc alone), :attr:`supported` and
    :attr:`calls` (subsets asked). :attr:`union_entails` is the union of the docs that fail
    alone (pruned) or of all docs (exhaustive)."""

    n_docs: int
    max_size: int = 3
    exhaustive: bool = False
    union_first: bool = False
    cited: tuple[int, ...] = ()
    single_results: list[NLIResult | None] = field(default_factory=list)
    known: dict[frozenset[int], bool] = field(default_factory=dict)
    union_entails: bool | None = None
    calls: int = 0
    pool: int | None = None  # candidate pool for pairs, triples, ...; None: auto_pool
    plan: Callable[[SubsetSearch], Sequence[int] | None] | None = None  # docs alone next
    _step: int = 0
    _asked: list[Subset] = field(default_factory=list)
    _pooled: tuple[int, ...] | None = None  # the pool, when the remaining docs exceed it

    def __post_init__(self) -> None:
        if self.max_size < 1:
            raise ValueError(f"max_size must be >= 1, got {self.max_size}")
        if self.pool is None:
            self.pool = auto_pool(self.n_docs, self.max_size)
        if self.pool < 2:
            raise ValueError(f"pool must be >= 2, got {self.pool}")
        self.single_results = [None] * self.n_docs

    @property
    def single(self) -> list[bool]:
        """Whether each doc entails alone (index d-1 for doc d)."""
        return [bool(r is not None and r.label) for r in self.single_results]

    @property
    def remaining(self) -> list[int]:
        """Docs that do not entail alone."""
        return [d for d in range(1, self.n_docs + 1) if not self.single[d - 1]]

    @property
    def support(self) -> list[frozenset[int]]:
        """Minimal supporting subsets of size ≤ ``max_size``, smallest first, then by ids."""
        hits = {s for s, ok in self.known.items() if ok and len(s) <= self.max_size}
        # a hit is minimal when no proper subset of it is a hit (hits hold at most max_size ids)
        minimal = [s for s in hits if not any(frozenset(c) in hits for i in range(1, len(s))
                                              for c in combinations(sorted(s), i))]
        return sorted(minimal, key=lambda s: (len(s), sorted(s)))

    @property
    def gold(self) -> list[int]:
        """The gold citations: the union of the minimal supporting subsets, in id order."""
        return sorted({d for s in self.support for d in s})

    @property
    def supported(self) -> bool:
        """Whether some docs entail the statement (a supporting subset, or the union of docs)."""
        return bool(self.support) or bool(self.union_entails)

    @property
    def done(self) -> bool:
        return self._step < 0

    def queries(self) -> list[Subset]:
        """The subsets to ask in the next round (empty once the search is done)."""
        while not self.done:
            asked = self._next()
            if asked:
                self._asked = asked
                self.calls += len(asked)
                return asked
        return []

    def _singles(self) -> list[Subset] | None:
        """The rounds of docs alone, read off what is known; ``[]`` with the search done (the
        union fails, or :attr:`plan` says the edits are settled), ``None`` once every doc alone
        the search needs is answered (it goes on from its step 1).

        With ``union_first`` (two or more docs): the cited docs alone (or, with none cited, the
        union of all docs); the union when no cited doc entails alone; then the other docs. The
        docs alone are those :attr:`plan` names (every one not asked yet when it names none)."""
        n = self.n_docs
        every = tuple(range(1, n + 1))
        if self.union_first and n >= 2:
            cited = sorted({d for d in self.cited if 1 <= d <= n})
            if not self.known:
                return [(d,) for d in cited] if cited else [every]
            union = self.known.get(frozenset(every))
            if union is False:  # nothing entails (monotone): the search stops here
                self.union_entails, self._step = False, -1
                return []
            if union is None and not any(self.single[d - 1] for d in cited):
                return [every]
        wanted = self.plan(self) if self.plan is not None else None
        if wanted is None:
            wanted = [d for d in every if self.single_results[d - 1] is None]
            return [(d,) for d in wanted] if wanted else None
        if not wanted:  # settled: nothing a larger subset or another doc could change
            self._step = -1
            return []
        return [(d,) for d in wanted]

    def _next(self) -> list[Subset]:
        n, k = self.n_docs, self.max_size
        if not self.exhaustive and self._step == 0:
            lead = self._singles()
            if lead is not None:
                return lead
            self._step = 1  # every doc alone the search needs is answered: on from step 1
        step, self._step = self._step, self._step + 1
        if self.exhaustive:
            if step > 0:
                self._step = -1
                return []
            subsets = [c for i in range(1, min(k, n) + 1) for c in combinations(range(1, n + 1), i)]
            if n > max(k, 1):
                subsets.append(tuple(range(1, n + 1)))
            return subsets
        rest = self.remaining
        if step == 1:
            if len(rest) < 2:  # no union to ask: one remaining doc failed alone, or none remain
                self.union_entails = False
                return []
            if frozenset(rest) in self.known:  # asked already (union first, no doc alone entails)
                self.union_entails = self.known[frozenset(rest)]
                return self._next()
            return [tuple(rest)]
        if not self.union_entails:
            self._step = -1
            return []
        if len(rest) > self.pool and k >= 2:  # many docs: search among the best-scored ones
            if self._pooled is None:
                scores = {d: self.single_results[d - 1].prob for d in rest}  # type: ignore[union-attr]
                best = sorted(rest, key=lambda d: (-scores[d], d))[: self.pool]
                self._pooled = tuple(sorted(best))
                return [self._pooled]
            if not self.known[frozenset(self._pooled)]:
                self._step = -1  # the pool fails together: no subset of it supports
                return []
            rest, step = list(self._pooled), step - 1
        if step == 2:  # the union minus each doc
            return [tuple(d for d in rest if d != x) for x in rest] if len(rest) >= 3 and k >= 2 else []
        size = step - 1  # step 3 asks pairs, step 4 triples, ...
        if size > min(k, len(rest)):
            self._step = -1
            return []
        found = set(self.support)
        failed = [f for f, ok in self.known.items() if not ok and len(f) > size]
        return [c for c in combinations(rest, size)
                if frozenset(c) not in self.known and not _holds_one(c, found)
                and not any(f.issuperset(c) for f in failed)]

    def answer(self, results: Sequence[NLIResult]) -> None:
        """The NLI results for the subsets of the last :meth:`queries`, in the same order."""
        if len(results) != len(self._asked):
            raise ValueError(f"{len(results)} answers for {len(self._asked)} queries")
        everything = frozenset(range(1, self.n_docs + 1))
        for subset, res in zip(self._asked, results):  # singles first: the remaining docs after
            if len(subset) == 1:
                self.single_results[subset[0] - 1] = res
        rest = frozenset(self.remaining)  # once per round, not per answer (O(n) each)
        for subset, res in zip(self._asked, results):
            key = frozenset(subset)
            self.known[key] = res.label
            if key == rest and len(subset) >= 2 and not self.exhaustive:
                self.union_entails = res.label
            elif key == everything and self.exhaustive:
                self.union_entails = res.label
        self._asked = []


Ask = Callable[[list[tuple[int, Subset]]], list[NLIResult]]


def run_searches(searches: Sequence[SubsetSearch], ask: Ask) -> int:
    """Drive every search to the end, one batched ``ask`` per round across all of them.

    ``ask`` gets ``(search index, subset)`` jobs and returns one result per job, in order.
    Returns the number of rounds."""
    rounds = 0
    while True:
        jobs = [(i, q) for i, s in enumerate(searches) if not s.done for q in s.queries()]
        if not jobs:
            return rounds
        rounds += 1
        results = ask(jobs)
        by_search: dict[int, list[NLIResult]] = {}
        for (i, _), r in zip(jobs, results):
            by_search.setdefault(i, []).append(r)
        for i, rs in by_search.items():
            searches[i].answer(rs)
