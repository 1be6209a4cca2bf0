"""CiteEval citation ratings (Xu et al., "Principle-Driven Citation Evaluation for Source
Attribution"), with an NLI silver judge in place of CiteEval-Auto's LLM, and an aggregator for
parsed ITERCOE outputs.

A response (the whole output unless ``first_line_only``) is split into statements (general mark
parser). With φ(P, s) the NLI decision and ``docs`` the record's passages:

* context (docs/concepts/support.md): *query* if φ(question, s); else *response* if φ(earlier
  statements joined by a space, s), each asked only where that premise holds ``query_recall``
  (default all) or ``response_recall`` (default 0.8) of the statement's content words (0: φ
  alone);
  else *retrieval* if φ(d, s) for some doc d or φ(all docs, s); else *model*.
  Only retrieval statements are applicable.
* gold analysis of a retrieval statement: φ of every doc alone, of the cited set C (distinct
  in-range ids in order), of C minus each citation, and the minimal supporting subsets of size
  ≤ ``max_subset_size`` (singletons, then pairs and triples among the docs that do not entail
  alone, skipping supersets of supporting sets; one round per size across all records).
  ``subsets="needed"`` asks only the docs alone and subsets the statement's edits can read
  (:func:`~citetrain.analysis.support.edits_plan`): the same contexts, edits and ratings, fewer
  calls; the rows' ``support`` lists only the subsets found.
* edits (:func:`silver_edits`) and rating = EDITDIST of those edits
  (:func:`~citetrain.analysis.editdist.editdist_score`).
* scenarios: **Full** — every retrieval statement, an uncited one scores 0; **Cited** — retrieval
  statements with citations only. Response score = mean over applicable statements; dataset score
  = 100 × mean over records with at least one applicable statement (``citeeval_full``,
  ``citeeval_cited``).

Two differences from the CiteEval repository's scripts (docs/concepts/support.md): a cited statement
labelled query / response / model is N/A (the repository's metric evaluation forces cited
statements to retrieval), and a response with no applicable statement is left out of the dataset
mean (the repository gives it 1.0; ``info`` counts these records).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Literal, Sequence

from citetrain.analysis.support import (
    CREDIBILITY_CAP, QUERY_RECALL, RESPONSE_RECALL, SUBSETS, StatementAnalysis, Subsets,
    action_counts, analyse, analyses_of, silver_edits,
)
from citetrain.metrics.base import MetricResult, check_at_most_citations, mean, skipped_info
from citetrain.analysis.editdist import PUBLISHED_WEIGHTS, Weights, editdist_score
from citetrain.metrics.rules import at_least, between, check_option, checked, one_of
from citetrain.metrics.itercoe import CONTEXT_LABELS, ContextJudgement, StatementJudgement
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record
from citetrain.text.languages import AUTO, language_problem
from citetrain.text.splitter import splitter_name
from citetrain.text.statements import statements

Scenario = Literal["full", "cited", "both"]
SCENARIOS = ("full", "cited")


def _aggregate(by_record: list[tuple[str, list[dict[str, Any]]]], scenario: Scenario):
    """Per-record means over applicable statements and the dataset scores (× 100)."""
    per_record = [record_entry(rid, mine, scenario) for rid, mine in by_record]
    scores, counts = citeeval_scores(per_record, scenario)
    return scores, per_record, counts


def record_entry(rid: str, rows: Sequence[dict[str, Any]], scenario: Scenario) -> dict[str, Any]:
    """One response's scores from its statements' rows (:func:`silver_row`): per scenario the
    mean over its applicable statements (None without one) and how many there are."""
    entry: dict[str, Any] = {"id": rid, "n_statements": len(rows)}
    for sc in SCENARIOS if scenario == "both" else (scenario,):
        vals = [r[sc] for r in rows if r[sc] is not None]
        entry[f"citeeval_{sc}"] = mean(vals) if vals else None
        entry[f"n_applicable_{sc}"] = len(vals)
    return entry


def citeeval_scores(per_record: Sequence[dict[str, Any]], scenario: Scenario
                    ) -> tuple[dict[str, float], dict[str, int]]:
    """Dataset scores from per-record ones: ``citeeval_<sc>`` = 100 × the mean over records with
    an applicable statement, and the counts of records with and without one."""
    scores, counts = {}, {}
    for sc in SCENARIOS if scenario == "both" else (scenario,):
        vals = [e[f"citeeval_{sc}"] for e in per_record if e[f"citeeval_{sc}"] is not None]
        scores[f"citeeval_{sc}"] = 100 * mean(vals)
        counts[f"records_{sc}"] = len(vals)
        counts[f"records_not_applicable_{sc}"] = len(per_record) - len(vals)
    return scores, counts


SCENARIO = one_of("full", "cited", "both")


def _check_scenario(scenario: str) -> None:
    check_option("scenario", scenario, SCENARIO)


def _scenario_values(context: str | None, cited: bool, rating: float | None) -> dict[str, Any]:
    """Full: retrieval statements, uncited ones 0; Cited: cited retrieval statements only."""
    retrieval = context == "retrieval"
    return {"full": (rating if cited else 0.0) if retrieval else None,
            "cited": rating if retrieval and cited else None}


def silver_row(s: StatementAnalysis) -> dict[str, Any]:
    """A statement's context, edits and rating once :func:`analyse` is done, as a row."""
    return {
        "id": s.rid, "statement": s.index, "text": s.text, "citations": list(s.cites),
        "context": s.context, "edits": [(a.value, c) for a, c in s.edits],
        "rating": s.rating, "support": [sorted(x) for x in s.support],
        **_scenario_values(s.context, bool(s.cites), s.rating),
    }


@checked(scenario=SCENARIO, max_subset_size=at_least(1), query_recall=between(0, 1),
          response_recall=between(0, 1), subsets=one_of(*SUBSETS), language=language_problem)
def citeeval(
    records: Sequence[Record],
    engine: NLIEngine,
    *,
    scenario: Scenario = "both",
    weights: Weights = PUBLISHED_WEIGHTS,
    at_most_citations: int | None = None,
    max_subset_size: int = 3,
    first_line_only: bool = False,
    union_first: bool = False,
    query_recall: float = QUERY_RECALL,
    response_recall: float = RESPONSE_RECALL,
    subsets: Subsets = "all",
    language: str = AUTO,
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
    union_first : ask the statement's cited docs alone, then the union of its docs unless one of
        them entails (the union first when nothing is cited), before the other docs alone
        (:class:`~citetrain.analysis.subsets.SubsetSearch`).
    query_recall, response_recall : a statement is asked against the question (query context) or
        the earlier statements (response context) only if that premise holds this share of its
        content words (defaults 1.0 and 0.8: it makes no new claim, CiteEval's guideline); 0 is
        φ alone (:func:`~citetrain.analysis.support.context_candidates`).
    subsets : ``"all"`` (every minimal supporting subset, reported per statement) or ``"needed"``
        (each search stops once the statement's edits are settled: the same ratings, fewer calls).
    language : the language the output is split in: ``"auto"`` (default) detects Chinese and
        Japanese and splits every other text as English; ``"zh"``, ``"ja"`` or a Punkt language
        (:mod:`citetrain.text.languages`).

    Returns
    -------
    MetricResult named ``"citeeval"``: ``citeeval_full`` / ``citeeval_cited`` (percentages);
    per statement its context, edits and rating; counts of contexts, actions and N/A records.
    """
    check_at_most_citations(at_most_citations)  # scenario, max_subset_size: @checked
    per_doc = [(rec.id, analyses_of(rec, at_most_citations, first_line_only, language))
               for rec in records]
    skipped = [rid for rid, sts in per_doc if not sts]
    flat = [s for _, sts in per_doc for s in sts]
    analyse(flat, engine, max_size=max_subset_size, search_all=False, weights=weights,
            union_first=union_first, query_recall=query_recall,
            response_recall=response_recall, subsets=subsets)
    by_record = [(rid, [silver_row(s) for s in sts]) for rid, sts in per_doc if sts]
    rows = [row for _, mine in by_record for row in mine]
    scores, per_record, counts = _aggregate(by_record, scenario)
    info = {
        "nli": engine.name, "splitter": splitter_name(language=language), "language": language,
        "weights": weights.as_dict(),
        "scenario": scenario, "at_most_citations": at_most_citations,
        "max_subset_size": max_subset_size, "first_line_only": first_line_only,
        "union_first": union_first, "subsets": subsets, "query_recall": query_recall,
        "response_recall": response_recall,
        "credibility_cap": CREDIBILITY_CAP, "records": len(by_record),
        **skipped_info(skipped),
        "statements": len(flat), "contexts": dict(Counter(s.context for s in flat)),
        "actions": {k: v for k, v in action_counts(flat).items() if k != "keep"}, **counts,
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
    language: str = AUTO,
) -> MetricResult:
    """CiteEval Full / Cited scores from parsed ITERCOE outputs (one list per record, in order).

    The statements are the record's (as :func:`citeeval` splits them, in ``language``; judgement
    ``k`` is sentence ``k + 1``). ``contexts``: parsed F.2 labels per record; without them every statement is
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
        sts = statements(rec.output, first_line_only=first_line_only, language=language)
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


__all__ = ["citeeval", "citeeval_from_judgements", "silver_edits", "SCENARIOS"]
