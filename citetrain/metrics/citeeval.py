"""CiteEval citation ratings (Xu et al., "Principle-Driven Citation Evaluation for Source
Attribution"), with an NLI silver judge in place of CiteEval-Auto's LLM, and an aggregator for
parsed ITERCOE outputs.

A response (the whole output unless ``first_line_only``) is split into statements (general mark
parser). With φ(P, s) the NLI decision and ``docs`` the record's passages:

* context (DESIGN §5): *query* if φ(question, s); else *response* if φ(earlier statements joined
  by a space, s); else *retrieval* if φ(d, s) for some doc d or φ(all docs, s); else *model*.
  Only retrieval statements are applicable.
* gold analysis of a retrieval statement: φ of every doc alone, of the cited set C (distinct
  in-range ids in order), of C minus each citation, and the minimal supporting subsets of size
  ≤ ``max_subset_size`` (singletons, then pairs and triples among the docs that do not entail
  alone, skipping supersets of supporting sets; one round per size across all records).
* edits (:func:`silver_edits`, DESIGN §5) and rating = EDITDIST of those edits
  (:func:`~citetrain.metrics.editdist.editdist_score`).
* scenarios: **Full** — every retrieval statement, an uncited one scores 0; **Cited** — retrieval
  statements with citations only. Response score = mean over applicable statements; dataset score
  = 100 × mean over records with at least one applicable statement (``citeeval_full``,
  ``citeeval_cited``).

Two differences from the CiteEval repository's scripts, both as DESIGN §4 states: a cited statement
labelled query / response / model is N/A (the repository's metric evaluation forces cited
statements to retrieval), and a response with no applicable statement is left out of the dataset
mean (the repository gives it 1.0; ``info`` counts these records).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Literal, Mapping, Sequence

from citetrain.metrics.base import MetricResult, check_at_most_citations, mean, skipped_info
from citetrain.metrics.editdist import PUBLISHED_WEIGHTS, Action, Edit, Weights, editdist_score
from citetrain.metrics.itercoe import CONTEXT_LABELS, ContextJudgement, StatementJudgement
from citetrain.nli.base import NLIResult, Pair
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record, format_doc, join_docs
from citetrain.text.splitter import splitter_name
from citetrain.text.statements import statements

Scenario = Literal["full", "cited", "both"]
SCENARIOS = ("full", "cited")
# add-credibility stops once the edited citations number this many (F.3: "at most 3 citations")
CREDIBILITY_CAP = 3
PARTIAL_THRESHOLD = 0.5  # three-way backends: a doc with P(partial) >= this partially supports


def _covered(ids: Sequence[int], support: Sequence[frozenset[int]]) -> bool:
    """Whether the docs ``ids`` contain one of the supporting subsets."""
    have = set(ids)
    return any(s <= have for s in support)


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
    """CiteEval edits of one retrieval statement from its gold analysis (DESIGN §5).

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
    valid: list[int] = []
    for c in cites:
        if not 1 <= c <= n_docs:
            edits.append((Action.DELETE_MISLEADING, c))
        elif c in valid:
            edits.append((Action.DELETE_REDUNDANT, c))
        else:
            valid.append(c)
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
        ok = loo.get(c, False) if set(rest) == set(valid) - {c} else _covered(rest, support)
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
class _Stmt:
    """One statement's state through the NLI rounds."""

    rid: str
    index: int
    text: str
    question: str
    earlier: str
    docs: list[Doc]
    cites: tuple[int, ...]
    context: str | None = None
    single: list[bool] = field(default_factory=list)
    partial: list[bool] = field(default_factory=list)
    all_docs: bool = False
    joint: bool = False
    loo: dict[int, bool] = field(default_factory=dict)
    support: list[frozenset[int]] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    rating: float | None = None

    @property
    def valid(self) -> list[int]:
        """Distinct in-range cited ids, in order of first appearance."""
        return [c for c in dict.fromkeys(self.cites) if 1 <= c <= len(self.docs)]


Job = tuple[_Stmt, Any, Pair]


def _ask(engine: NLIEngine, jobs: list[Job]) -> list[NLIResult]:
    """One engine call for a whole round (none when the round is empty)."""
    return engine.results([pair for _, _, pair in jobs]) if jobs else []


def _prepare(record: Record, at_most: int | None, first_line_only: bool) -> list[_Stmt]:
    """The record's statements with their citations (cut to ``at_most``) and earlier text."""
    out: list[_Stmt] = []
    for i, st in enumerate(statements(record.output, first_line_only=first_line_only)):
        cites = st.citations[:at_most] if at_most is not None else st.citations
        earlier = " ".join(s.text for s in out)
        out.append(_Stmt(record.id, i, st.text, record.question, earlier, record.docs, cites))
    return out


def _context_round(stmts: list[_Stmt], engine: NLIEngine) -> None:
    """Round 1: query and response context for every statement."""
    jobs: list[Job] = []
    for s in stmts:
        if not s.text.strip():
            s.context = "model"
            continue
        if s.question.strip():
            jobs.append((s, "query", (s.question, s.text)))
        if s.earlier:
            jobs.append((s, "response", (s.earlier, s.text)))
    hits = {(id(s), kind) for (s, kind, _), r in zip(jobs, _ask(engine, jobs)) if r.label}
    for s in stmts:
        if s.context is None:
            s.context = next((k for k in ("query", "response") if (id(s), k) in hits), None)


def _gold_round(stmts: list[_Stmt], engine: NLIEngine) -> None:
    """Round 2: single docs, all docs, C and leave-one-out for the still unlabelled statements."""
    jobs: list[Job] = []
    for s in stmts:
        n = len(s.docs)
        s.single, s.partial = [False] * n, [False] * n
        jobs += [(s, ("single", d), (format_doc(s.docs[d - 1]), s.text)) for d in range(1, n + 1)]
        if n:
            jobs.append((s, ("all", 0), (join_docs(s.docs, list(range(1, n + 1))), s.text)))
        valid = s.valid
        if valid:
            jobs.append((s, ("joint", 0), (join_docs(s.docs, valid), s.text)))
        if len(valid) > 1:
            jobs += [(s, ("loo", c), (join_docs(s.docs, [v for v in valid if v != c]), s.text))
                     for c in valid]
    for (s, (kind, d), _), r in zip(jobs, _ask(engine, jobs)):
        if kind == "single":
            s.single[d - 1] = r.label
            s.partial[d - 1] = (not r.label and r.support is not None
                                and r.support[1] >= PARTIAL_THRESHOLD)
        elif kind == "all":
            s.all_docs = r.label
        elif kind == "joint":
            s.joint = r.label
        else:
            s.loo[d] = r.label
    for s in stmts:
        s.context = "retrieval" if any(s.single) or s.all_docs else "model"
        s.support = [frozenset({d}) for d in range(1, len(s.docs) + 1) if s.single[d - 1]]


def _subset_rounds(stmts: list[_Stmt], engine: NLIEngine, max_size: int) -> None:
    """Rounds 3..: minimal supporting subsets of each size among docs that fail alone."""
    for size in range(2, max_size + 1):
        jobs: list[Job] = []
        for s in stmts:
            cands = [d for d in range(1, len(s.docs) + 1) if not s.single[d - 1]]
            for combo in combinations(cands, size):
                if not _covered(combo, s.support):
                    jobs.append((s, frozenset(combo), (join_docs(s.docs, combo), s.text)))
        for (s, combo, _), r in zip(jobs, _ask(engine, jobs)):
            if r.label:
                s.support.append(combo)


def _aggregate(by_record: list[tuple[str, list[dict[str, Any]]]], scenario: Scenario):
    """Per-record means over applicable statements and the dataset scores (× 100)."""
    wanted = SCENARIOS if scenario == "both" else (scenario,)
    per_record, scores, counts = [], {}, {}
    for rid, mine in by_record:
        entry: dict[str, Any] = {"id": rid, "n_statements": len(mine)}
        for sc in wanted:
            vals = [r[sc] for r in mine if r[sc] is not None]
            entry[f"citeeval_{sc}"] = mean(vals) if vals else None
            entry[f"n_applicable_{sc}"] = len(vals)
        per_record.append(entry)
    for sc in wanted:
        vals = [e[f"citeeval_{sc}"] for e in per_record if e[f"citeeval_{sc}"] is not None]
        scores[f"citeeval_{sc}"] = 100 * mean(vals)
        counts[f"records_{sc}"] = len(vals)
        counts[f"records_not_applicable_{sc}"] = len(per_record) - len(vals)
    return scores, per_record, counts


def _check_scenario(scenario: str) -> None:
    if scenario not in ("full", "cited", "both"):
        raise ValueError(f"scenario must be 'full', 'cited' or 'both', got {scenario!r}")


def _scenario_values(context: str | None, cited: bool, rating: float | None) -> dict[str, Any]:
    """Full: retrieval statements, uncited ones 0; Cited: cited retrieval statements only."""
    retrieval = context == "retrieval"
    return {"full": (rating if cited else 0.0) if retrieval else None,
            "cited": rating if retrieval and cited else None}


def _silver_row(s: _Stmt, weights: Weights) -> dict[str, Any]:
    """Edits and rating of a statement once its rounds are done, as a per-statement row."""
    if s.context == "retrieval":
        s.edits = silver_edits(s.cites, len(s.docs), s.single, s.partial, s.joint, s.loo,
                               s.support)
        s.rating = editdist_score(s.cites, s.edits, weights)
    return {
        "id": s.rid, "statement": s.index, "text": s.text, "citations": list(s.cites),
        "context": s.context, "edits": [(a.value, c) for a, c in s.edits],
        "rating": s.rating, "support": [sorted(x) for x in s.support],
        **_scenario_values(s.context, bool(s.cites), s.rating),
    }


def citeeval(
    records: Sequence[Record],
    engine: NLIEngine,
    *,
    scenario: Scenario = "both",
    weights: Weights = PUBLISHED_WEIGHTS,
    at_most_citations: int | None = None,
    max_subset_size: int = 3,
    first_line_only: bool = False,
) -> MetricResult:
    """CiteEval Full / Cited ratings with an NLI silver judge (see the module docstring).

    Parameters
    ----------
    records : records with ``question``, ``docs`` and an ``output`` carrying ``[k]`` marks.
    engine : the NLI engine; every round is one call across all records.
    scenario : ``"full"``, ``"cited"`` or ``"both"``.
    weights : EDITDIST weights (the paper's by default, or :func:`fit_editdist_weights`'s).
    at_most_citations : keep only the first this many ids of a statement (``None``: all).
    max_subset_size : largest supporting subset searched (k); 1 searches singletons only.
    first_line_only : cut the output at its first newline as ALCE does (CiteEval does not).

    Returns
    -------
    MetricResult named ``"citeeval"``: ``citeeval_full`` / ``citeeval_cited`` (percentages);
    per statement its context, edits and rating; counts of contexts, actions and N/A records.
    """
    _check_scenario(scenario)
    check_at_most_citations(at_most_citations)
    if max_subset_size < 1:
        raise ValueError(f"max_subset_size must be >= 1, got {max_subset_size}")
    per_doc = [(rec.id, _prepare(rec, at_most_citations, first_line_only)) for rec in records]
    skipped = [rid for rid, sts in per_doc if not sts]
    flat = [s for _, sts in per_doc for s in sts]
    _context_round(flat, engine)
    _gold_round([s for s in flat if s.context is None], engine)
    retrieval = [s for s in flat if s.context == "retrieval"]
    _subset_rounds(retrieval, engine, max_subset_size)
    rows: list[dict[str, Any]] = []
    by_record: list[tuple[str, list[dict[str, Any]]]] = []
    for rid, sts in per_doc:
        if sts:
            by_record.append((rid, [_silver_row(s, weights) for s in sts]))
            rows += by_record[-1][1]
    scores, per_record, counts = _aggregate(by_record, scenario)
    info = {
        "nli": engine.name, "splitter": splitter_name(), "weights": weights.as_dict(),
        "scenario": scenario, "at_most_citations": at_most_citations,
        "max_subset_size": max_subset_size, "first_line_only": first_line_only,
        "credibility_cap": CREDIBILITY_CAP, "records": len(by_record),
        **skipped_info(skipped),
        "statements": len(flat), "contexts": dict(Counter(s.context for s in flat)),
        "actions": dict(Counter(a.value for s in flat for a, _ in s.edits)), **counts,
    }
    return MetricResult("citeeval", scores, per_record, rows, info)


def _context_of(label: ContextJudgement | int | str | None) -> tuple[str, bool]:
    """Context name of a parsed label and whether it was defaulted (unreadable -> retrieval)."""
    if isinstance(label, ContextJudgement):
        label = label.label
    if isinstance(label, str) and label in CONTEXT_LABELS.values():
        return label, False
    if isinstance(label, int) and label in CONTEXT_LABELS:
        return CONTEXT_LABELS[label], False
    return "retrieval", True


def citeeval_from_judgements(
    records: Sequence[Record],
    judgements: Sequence[Sequence[StatementJudgement]],
    scenario: Scenario = "both",
    *,
    contexts: Sequence[Sequence[ContextJudgement | int | str | None]] | None = None,
    rating: Literal["itercoe", "editdist", "ensemble"] = "itercoe",
    weights: Weights = PUBLISHED_WEIGHTS,
    first_line_only: bool = False,
) -> MetricResult:
    """CiteEval Full / Cited scores from parsed ITERCOE outputs (one list per record, in order).

    The statements are the record's (as :func:`citeeval` splits them; judgement ``k`` is sentence
    ``k + 1``). ``contexts``: parsed F.2 labels per record; without them every statement is
    applicable; an unreadable label counts as retrieval (CiteEval's configured default). Rating:
    ITERCOE's (r − 1) / 4, EDITDIST of the parsed edits, or their mean ("ensemble", the paper's
    CITEVAL-AUTO row). An uncited retrieval statement scores 0 in Full whatever the judge said;
    otherwise an unparsed (or missing) judgement is left out of the means and counted.
    """
    _check_scenario(scenario)
    if rating not in ("itercoe", "editdist", "ensemble"):
        raise ValueError(f"rating must be 'itercoe', 'editdist' or 'ensemble', got {rating!r}")
    if len(judgements) != len(records) or (contexts is not None and len(contexts) != len(records)):
        raise ValueError("judgements (and contexts) need one entry per record")
    by_record: list[tuple[str, list[dict[str, Any]]]] = []
    unparsed: Counter[str] = Counter()
    defaulted = 0
    for k, rec in enumerate(records):
        sts = statements(rec.output, first_line_only=first_line_only)
        if sts:
            by_record.append((rec.id, []))
        for i, st in enumerate(sts):
            j = judgements[k][i] if i < len(judgements[k]) else None
            label = 2 if contexts is None else (contexts[k][i] if i < len(contexts[k]) else None)
            context, dflt = _context_of(label)
            defaulted += dflt
            value = None
            if j is None or j.status != "ok":
                unparsed[j.reason if j is not None else "no judgement"] += 1
            else:
                dist = editdist_score(st.citations, j.edits, weights)
                value = {"itercoe": j.normalised, "editdist": dist,
                         "ensemble": (j.normalised + dist) / 2}[rating]
            by_record[-1][1].append({
                "id": rec.id, "statement": i, "text": st.text, "citations": list(st.citations),
                "context": context, "edits": [(a.value, c) for a, c in (j.edits if j else ())],
                "rating": value, "status": j.status if j else "unparsed",
                "reason": j.reason if j else "no judgement",
                **_scenario_values(context, bool(st.citations), value),
            })
    rows = [row for _, mine in by_record for row in mine]
    scores, per_record, counts = _aggregate(by_record, scenario)
    info = {"scenario": scenario, "rating": rating, "weights": weights.as_dict(),
            "records": len(by_record), "statements": len(rows),
            "unparsed": sum(unparsed.values()), "unparsed_reasons": dict(unparsed),
            "contexts_defaulted": defaulted, **counts}
    return MetricResult("citeeval", scores, per_record, rows, info)
