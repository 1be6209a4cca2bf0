"""Silver labels of one statement from its gold analysis (docs/concepts/support.md), shared by
the builders and the ``citeeval`` metric.

The analysis, in rounds batched across every statement given:

1. context: ``query`` if φ(question, s); else ``response`` if φ(earlier statements, s); each
   asked only where the premise holds at least ``query_recall`` (default 1.0) or
   ``response_recall`` (0.8) of the statement's content words (:func:`context_candidates`);
2. for the statements that need it, the minimal supporting subsets
   (:mod:`citetrain.analysis.subsets`: each doc alone, the union of the rest, pairs, triples ...);
3. a statement not labelled in 1 is ``retrieval`` when some docs entail it, else ``model``;
4. φ of the cited set C (distinct in-range ids) and of C minus each citation: for every searched
   statement (builders, whose rows carry them), or for the retrieval statements only (the
   metric: only their edits read them), then edits (:func:`silver_edits`) and the EDITDIST
   rating for retrieval statements.

Every round's answers decide only what later rounds read, so asking a statement's response
context only when the question does not entail it, and its cited set only once it is known to be
a retrieval statement, gives the same contexts, edits and ratings under any NLI model.

``subsets="needed"`` (the metric only) asks, of a statement's docs alone, only those its edits
can read (:func:`edits_plan`): the cited docs first; when every one of them entails alone, only
the first uncited docs that entail alone up to the credibility cap (in id order); with nothing
cited, the docs one at a time until one entails; and then no pair or triple, since none could
change an edit (a cited doc that entails alone is relevant, never partial, never redundant, and a
single doc is the supporting subset that needs the fewest additions). It does not ask the cited
set less a citation that entails alone either (the edits read that only for a citation that does
not). The contexts, edits and ratings are the whole search's under any model, in either order
(``union_first`` or not); the rows' ``support`` then lists only the subsets found.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence, get_args

from citetrain.analysis.subsets import SubsetSearch, is_covered, run_searches
from citetrain.analysis.editdist import (
    PUBLISHED_WEIGHTS,
    Action,
    Edit,
    Weights,
    editdist_score,
)
from citetrain.nli.base import NLIResult, Pair
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record, doc_parts, docs_premise
from citetrain.text.joined import Joined, Parts, is_blank
from citetrain.text.statements import statements

CONTEXTS = ("query", "retrieval", "response", "model")
_WORD = re.compile(r"\w")
# add-credibility stops once the edited citations number this many (F.3: "at most 3 citations")
CREDIBILITY_CAP = 3
PARTIAL_THRESHOLD = 0.5  # three-way backends: a doc with P(partial) >= this partially supports
# the share of a statement's content words that the question (query context) or the earlier
# statements (response context) must hold before φ is asked (context_candidates; chosen on
# ExpertQA rand_val against the experts' citation-worthiness)
QUERY_RECALL = 1.0
RESPONSE_RECALL = 0.8
Subsets = Literal["all", "needed"]
SUBSETS = get_args(Subsets)


def silver_edits(
    cites: Sequence[int],
    n_docs: int,
    single: Sequence[bool],
    partial: Sequence[bool],
    joint: bool,
    loo: Mapping[int, bool],
    support: Sequence[frozenset[int]],
    *,
    credibility_cap: int = CREDIBILITY_CAP,
) -> list[Edit]:
    """CiteEval edits of one retrieval statement from its gold analysis (docs/concepts/support.md).

    ``cites``: the statement's citation ids as written; ``single[d-1]`` / ``partial[d-1]``: doc d
    entails alone / partially supports (three-way backends); ``joint``: the distinct in-range
    cited set C entails; ``loo[c]``: C∖{c} entails; ``support``: minimal supporting subsets.

    Rules, in this order: an out-of-range id -> delete-misleading, a repeated id ->
    delete-redundant; a cited doc in no supporting subset and not partially supporting ->
    delete-misleading; a cited doc that does not entail alone while the rest of C still entails
    (``loo``; once C has lost docs, a supporting subset among the kept ones) -> delete-redundant,
    greedily in citation order; a partially supporting cited doc while an uncited doc entails
    alone -> delete-substandard + add-refinement (each better doc added once); if C does not
    entail and nothing was refined -> add-evidence for the docs of the supporting subset that
    needs the fewest additions (then the smallest, then the lowest ids), or id 0 when no subset of
    size ≤ k entails; if C entails -> add-credibility for uncited docs that entail alone, in id
    order, until the citations number ``credibility_cap``. Everything else is kept.
    """
    edits: list[Edit] = []
    valid: dict[int, None] = {}  # distinct in-range ids in order (a dict: a mark costs O(1))
    for c in cites:
        if not 1 <= c <= n_docs:
            edits.append((Action.DELETE_MISLEADING, c))
        elif c in valid:
            edits.append((Action.DELETE_REDUNDANT, c))
        else:
            valid[c] = None
    relevant = {d for s in support for d in s}
    in_joint = {d for s in support if len(s) > 1 for d in s}

    def is_partial(d: int) -> bool:
        return not single[d - 1] and (d in in_joint or partial[d - 1])

    kept = []
    for c in valid:
        if c not in relevant and not is_partial(c):
            edits.append((Action.DELETE_MISLEADING, c))
        else:
            kept.append(c)
    for c in list(kept):
        rest = [k for k in kept if k != c]
        if single[c - 1] or not rest:
            continue
        ok = loo.get(c, False) if set(rest) == set(valid) - {c} else is_covered(rest, support)
        if ok:
            edits.append((Action.DELETE_REDUNDANT, c))
            kept.remove(c)
    better = [d for d in range(1, n_docs + 1) if single[d - 1] and d not in valid]
    added: list[int] = []
    refined = False
    for c in list(kept):
        if is_partial(c) and better:
            edits.append((Action.DELETE_SUBSTANDARD, c))
            kept.remove(c)
            refined = True
            spare = [d for d in better if d not in added]
            if spare:
                edits.append((Action.ADD_REFINEMENT, spare[0]))
                added.append(spare[0])
    if not joint and not refined:
        if support:
            have = set(valid)
            best = min(support, key=lambda s: (len(s - have), len(s), sorted(s)))
            for d in sorted(best - have):
                edits.append((Action.ADD_EVIDENCE, d))
                added.append(d)
        else:
            edits.append((Action.ADD_EVIDENCE, 0))
    if joint:
        for d in better:
            if len(kept) + len(added) >= credibility_cap:
                break
            if d not in added:
                edits.append((Action.ADD_CREDIBILITY, d))
                added.append(d)
    return edits


@dataclass
class StatementAnalysis:
    """One statement and everything the NLI rounds found out about it."""

    rid: str
    index: int
    text: str
    question: str
    earlier: str | Joined  # the statements before it, joined by a space (lazily)
    docs: list[Doc]
    cites: tuple[int, ...]
    context: str | None = None
    search: SubsetSearch | None = None
    joint: bool = False
    loo: dict[int, bool] = field(default_factory=dict)
    truncated: bool = False
    edits: list[Edit] = field(default_factory=list)
    rating: float | None = None
    raw: str = ""  # the sentence as written, marks included
    passages: Parts | None = None  # the record's formatted docs, shared by its statements

    def premise(self, ids: Sequence[int]) -> Joined:
        """The premise of the docs ``ids`` (1-based, in that order): :func:`join_docs`'s text,
        built only if the NLI backend reads text (:mod:`citetrain.text.joined`)."""
        if self.passages is None:
            self.passages = doc_parts(self.docs)
        return docs_premise(self.passages, ids)

    @property
    def valid(self) -> list[int]:
        """Distinct in-range cited ids, in order of first appearance."""
        return [c for c in dict.fromkeys(self.cites) if 1 <= c <= len(self.docs)]

    @property
    def single(self) -> list[bool]:
        return self.search.single if self.search else [False] * len(self.docs)

    @property
    def partial(self) -> list[bool]:
        """Docs a three-way backend calls partially supporting (P(partial) ≥ 0.5) on their own."""
        if self.search is None:
            return [False] * len(self.docs)
        return [bool(r is not None and not r.label and r.support is not None
                     and r.support[1] >= PARTIAL_THRESHOLD) for r in self.search.single_results]

    @property
    def support(self) -> list[frozenset[int]]:
        return self.search.support if self.search else []

    @property
    def gold(self) -> list[int]:
        """Gold citations: the union of the minimal supporting subsets."""
        return self.search.gold if self.search else []


def is_empty_statement(text: str) -> bool:
    """A statement with no word left once its marks are removed (e.g. ``[1][2].``)."""
    return _WORD.search(text) is None


def analyses_of(record: Record, at_most: int | None = None,
                first_line_only: bool = False, language: str = "auto"
                ) -> list[StatementAnalysis]:
    """The record's statements (split in ``language``), their citations (cut to ``at_most``) and
    the text before them (a lazy premise over the statements: linear in the response)."""
    found = statements(record.output, first_line_only, language)
    texts = Parts([st.text for st in found], " ")
    passages = doc_parts(record.docs)
    out: list[StatementAnalysis] = []
    for i, st in enumerate(found):
        cites = st.citations[:at_most] if at_most is not None else st.citations
        out.append(StatementAnalysis(record.id, i, st.text, record.question, texts.prefix(i),
                                     record.docs, tuple(cites), raw=st.raw, passages=passages))
    return out


Job = tuple[StatementAnalysis, Any, Pair]


def _ask(engine: NLIEngine, jobs: list[Job]) -> list[NLIResult]:
    """One engine call for a whole round; marks statements whose premises were cut."""
    if not jobs:
        return []
    pairs = [pair for _, _, pair in jobs]
    for (s, _, _), cut in zip(jobs, engine.truncated(pairs)):
        s.truncated = s.truncated or cut
    return engine.results(pairs)


def context_premise(s: StatementAnalysis, kind: str) -> str | Joined:
    """What a statement is read against for context ``kind``: the question (``query``) or the
    earlier statements of its response joined by a space (``response``)."""
    return s.question if kind == "query" else s.earlier


def context_candidates(stmts: Sequence[StatementAnalysis], kind: str, least: float) -> list[bool]:
    """Whether each statement may be ``kind`` context (``query`` / ``response``): its premise
    (:func:`context_premise`) holds at least ``least`` of its content words (lexical recall,
    :mod:`citetrain.nli.lexical`); ``least`` 0 allows every statement (φ alone).

    CiteEval's guideline (appendix A.2): query sentences "iterate or rephrase the user query
    without making new claims or involving new facts"; response sentences are "solely derived
    from preceding sentences". A question asserts nothing, and an NLI model trained on evidence
    reads a question or a response's own sentences out of its training distribution: the judge
    trained here calls 589 of the 1,399 statements of ExpertQA's rand_val entailed by their
    question, and 588 of the 1,180 that have earlier statements entailed by those, most of them
    claims the experts call citation-worthy (experiments/studies/context-gates.md). A statement
    with content words its premise lacks makes a new claim, so it is not asked against that
    premise at all."""
    from citetrain.nli.lexical import recall_in

    if least <= 0:
        return [True] * len(stmts)
    return [recall_in(s.text, context_premise(s, kind))[0] >= least for s in stmts]


def _context_round(stmts: Sequence[StatementAnalysis], engine: NLIEngine,
                   query_recall: float = QUERY_RECALL,
                   response_recall: float = RESPONSE_RECALL) -> None:
    """Context ``query`` where φ(question, s), else ``response`` where φ(earlier statements, s),
    each asked only of the statements :func:`context_candidates` allows: two rounds, so a
    statement the question entails is not asked against the earlier ones."""
    for s in stmts:
        if is_empty_statement(s.text):
            s.context = "model"
    for kind, least in (("query", query_recall), ("response", response_recall)):
        open_ = [s for s in stmts if s.context is None and not is_blank(context_premise(s, kind))]
        jobs: list[Job] = [(s, kind, (context_premise(s, kind), s.text))
                           for s, ok in zip(open_, context_candidates(open_, kind, least)) if ok]
        for (s, _, _), r in zip(jobs, _ask(engine, jobs)):
            if r.label:
                s.context = kind


def _cited_round(stmts: Sequence[StatementAnalysis], engine: NLIEngine,
                 needed: bool = False) -> None:
    """φ of each statement's cited set C and of C minus each citation (``loo``); ``needed``
    (after the subset search): not C minus a citation that entails alone, which the edits never
    read (:func:`silver_edits` keeps such a citation without asking)."""
    jobs: list[Job] = []
    for s in stmts:
        valid = s.valid
        if valid:
            jobs.append((s, 0, (s.premise(valid), s.text)))
        if len(valid) > 1:
            single = s.single if needed else [False] * len(s.docs)
            jobs += [(s, c, (s.premise([v for v in valid if v != c]), s.text))
                     for c in valid if not single[c - 1]]
    for (s, c, _), r in zip(jobs, _ask(engine, jobs)):
        if c == 0:
            s.joint = r.label
        else:
            s.loo[c] = r.label


def edits_plan(valid: Sequence[int], credibility_cap: int = CREDIBILITY_CAP):
    """A :class:`SubsetSearch` ``plan`` for a statement citing the docs ``valid`` (distinct, in
    range): the docs alone its edits (:func:`silver_edits`) can still read, given the answers.

    The cited docs first. When every one of them entails alone, the edits read of the others
    only the first ``credibility_cap - |valid|`` that entail alone, in id order (add-credibility;
    nothing is partial, redundant or missing): those are asked that many at a time, and the search
    stops once they are found or none is left. With nothing cited, the edits read only the first
    doc that entails alone (add-evidence: a single doc needs the fewest additions): the docs are
    asked one at a time in id order until one does. Otherwise every doc alone and the whole search
    (``None``)."""
    cited = tuple(valid)

    def plan(search: SubsetSearch) -> list[int] | None:
        results, single = search.single_results, search.single
        unasked = [d for d in range(1, search.n_docs + 1) if results[d - 1] is None]
        first = [c for c in cited if results[c - 1] is None]
        if first:
            return first
        if cited and not all(single[c - 1] for c in cited):
            return None
        if cited:
            found = sum(single[d - 1] for d in range(1, search.n_docs + 1) if d not in cited)
            need = credibility_cap - len(cited) - found
            return unasked[:need] if need > 0 else []
        if any(single):
            return []
        return unasked[:1] or None

    return plan


def analyse(
    stmts: Sequence[StatementAnalysis],
    engine: NLIEngine,
    *,
    max_size: int = 3,
    exhaustive: bool = False,
    search_all: bool = True,
    weights: Weights = PUBLISHED_WEIGHTS,
    union_first: bool = False,
    query_recall: float = QUERY_RECALL,
    response_recall: float = RESPONSE_RECALL,
    subsets: Subsets = "all",
) -> None:
    """Run every round for ``stmts`` (in place). ``search_all``: search supporting subsets for
    every non-empty statement (builders: gold targets for all); ``False`` only for statements
    that are neither query nor response context (the metric: fewer calls). ``union_first``: ask
    the cited docs alone, then the union of all docs unless one of them entails, before the
    other docs alone (:class:`SubsetSearch`; the judge's order).
    ``query_recall`` / ``response_recall``: :func:`context_candidates` (0: φ alone,
    docs/concepts/support.md).
    ``subsets``: ``"all"`` searches every minimal supporting subset; ``"needed"`` (only with
    ``search_all=False``) stops each search once the edits are settled (module docstring)."""
    if subsets not in SUBSETS:
        raise ValueError(f"subsets must be 'all' or 'needed', got {subsets!r}")
    if subsets == "needed" and search_all:
        raise ValueError("subsets='needed' is for the metric (search_all=False): builders keep "
                         "every supporting subset as a gold target")
    needed = subsets == "needed"
    _context_round(stmts, engine, query_recall, response_recall)
    todo = [s for s in stmts if not is_empty_statement(s.text)
            and (search_all or s.context is None)]
    if search_all:  # the builders' rows carry the cited set's entailment for every statement
        _cited_round(todo, engine)
    for s in todo:
        s.search = SubsetSearch(len(s.docs), max_size, exhaustive, union_first=union_first,
                                cited=tuple(s.valid),
                                plan=edits_plan(s.valid) if needed else None)

    def ask(jobs: list[tuple[int, tuple[int, ...]]]) -> list[NLIResult]:
        return _ask(engine, [(todo[i], q, (todo[i].premise(q), todo[i].text)) for i, q in jobs])

    run_searches([s.search for s in todo], ask)  # type: ignore[misc]
    for s in todo:
        if s.context is None:
            s.context = "retrieval" if s.search.supported else "model"  # type: ignore[union-attr]
    if not search_all:  # the cited set is read by the edits of retrieval statements only
        _cited_round([s for s in todo if s.context == "retrieval"], engine, needed)
    for s in stmts:
        if s.context == "retrieval":
            s.edits = silver_edits(s.cites, len(s.docs), s.single, s.partial, s.joint, s.loo,
                                   s.support)
            s.rating = editdist_score(s.cites, s.edits, weights)


def action_counts(stmts: Sequence[StatementAnalysis]) -> dict[str, int]:
    """Edit actions by name; retrieval statements without edits count as ``keep``."""
    counts = Counter(a.value for s in stmts for a, _ in s.edits)
    counts["keep"] = sum(1 for s in stmts if s.context == "retrieval"
                         for edited in [{d for _, d in s.edits}] for c in s.valid if c not in edited)
    return dict(counts)


def analysis_row(s: StatementAnalysis) -> dict[str, Any]:
    """A finished analysis as plain JSON data (what build shards store per statement)."""
    search = s.search
    return {
        "id": s.rid, "statement": s.index, "text": s.text, "raw": s.raw,
        "citations": list(s.cites), "context": s.context,
        "single": s.single, "partial": s.partial,
        "support": [sorted(x) for x in s.support], "gold": s.gold,
        "supported": bool(search and search.supported), "joint": s.joint,
        "loo": {str(k): v for k, v in s.loo.items()},
        "edits": [[a.value, c] for a, c in s.edits], "rating": s.rating,
        "calls": search.calls if search else 0, "truncated": s.truncated,
    }
