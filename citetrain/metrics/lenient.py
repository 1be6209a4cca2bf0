"""Lenient citation recall and subset citation precision (Generate-then-Refine, section 3.2).

Reference: Qian, Fan, Zhang and Guo, *On the Capacity of Citation Generation by Large Language
Models* (Generate-then-Refine), section 3.2 and equation 1.

Sentences are ALCE's (first line of the output, split with marks kept); citations come from the
general parser (``[1, 2]`` is two ids). A statement's citation set ``C`` is its distinct ids in
order of first appearance, cut to ``at_most_citations``; φ(S) is the NLI decision for the docs of
``S`` joined in citation order against the mark-free statement, and φ(∅) = 0.

* recall: a statement with no citation is left out when φ(all docs of the record) = 0 and scores 0
  otherwise; a statement with an id outside ``1..len(docs)`` scores 0 and adds no citations;
  otherwise recall_s = φ(C).
* precision: citation ``c`` of ``C`` is relevant iff some C' ⊆ C∖{c} has φ(C') = 0 and
  φ(C' ∪ {c}) = 1 (C' = ∅: ``c`` alone entails). Unlike ALCE, two passages with the same content
  cited together are both relevant. No gate on φ(C): the definition is applied as written.

Two aggregations, both × 100: per record then mean over records (as ALCE: ``lenient_rec``,
``lenient_prec``, ``lenient_f1``; a record whose statements are all left out of recall is left out
of the recall mean, a record with no counted citation has precision 0), and over all statements /
citations of the dataset (the paper's: ``lenient_rec_micro``, ``lenient_prec_micro``,
``lenient_f1_micro``). Records with an empty output are skipped. Every premise of every statement
(up to 2^|C| − 1 subsets each) is asked in a single engine call.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Sequence

from citetrain.metrics.base import (
    MetricResult, check_at_most_citations, f1, mean, prepare_all, skipped_info,
)
from citetrain.metrics.rules import checked
from citetrain.nli.base import Pair
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record, join_docs
from citetrain.text.languages import AUTO, language_problem
from citetrain.text.marks import parse_marks
from citetrain.text.splitter import splitter_name
from citetrain.text.statements import sentences

OUT_OF_RANGE = "out_of_range"
UNCITED_SUPPORTED = "uncited_supported"
UNCITED_UNSUPPORTED = "uncited_unsupported"


@dataclass
class _Statement:
    """One statement's citations and the φ values of its subsets."""

    rid: str
    index: int
    sentence: str
    hypothesis: str
    docs: list[Doc]
    cites: tuple[int, ...]
    flag: str | None
    phi: dict[frozenset[int], bool] = field(default_factory=dict)
    all_docs: bool = False  # φ(all docs), for uncited statements


def _prepare(record: Record, at_most_citations: int | None, language: str = AUTO
             ) -> list[_Statement]:
    """The record's statements with their citation sets C and format flags."""
    out = []
    for i, sent in enumerate(sentences(record.output, language=language)):
        st = parse_marks(sent)
        ids = tuple(dict.fromkeys(st.citations))
        if any(not 1 <= c <= len(record.docs) for c in ids):
            flag, cites = OUT_OF_RANGE, ()
        else:
            flag = None if ids else UNCITED_UNSUPPORTED
            cites = ids[:at_most_citations] if at_most_citations is not None else ids
        out.append(_Statement(record.id, i, sent, st.text, record.docs, cites, flag))
    return out


def _subsets(cites: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every non-empty subset of ``cites``, each in citation order."""
    return [sub for k in range(1, len(cites) + 1) for sub in combinations(cites, k)]


def _queries(stmts: Sequence[_Statement]) -> list[tuple[_Statement, frozenset[int] | None, Pair]]:
    """All pairs: every subset of C for cited statements, all docs for uncited ones."""
    jobs: list[tuple[_Statement, frozenset[int] | None, Pair]] = []
    for s in stmts:
        if s.flag == UNCITED_UNSUPPORTED and s.docs:
            all_ids = range(1, len(s.docs) + 1)
            jobs.append((s, None, (join_docs(s.docs, list(all_ids)), s.hypothesis)))
        elif s.flag is None:
            jobs.extend((s, frozenset(sub), (join_docs(s.docs, sub), s.hypothesis))
                        for sub in _subsets(s.cites))
    return jobs


def _relevant(s: _Statement, c: int) -> bool:
    """∃ C' ⊆ C∖{c}: φ(C') = 0 and φ(C' ∪ {c}) = 1, with φ(∅) = 0."""
    others = [x for x in s.cites if x != c]
    for sub in [()] + _subsets(tuple(others)):
        rest = frozenset(sub)
        if not s.phi.get(rest, False) and s.phi[rest | {c}]:
            return True
    return False


def _recall(s: _Statement) -> int | None:
    """1 / 0, or ``None`` when the statement is left out of recall."""
    if s.flag == UNCITED_UNSUPPORTED:
        return None
    if s.flag is not None:  # out of range, or uncited but supported by all docs
        return 0
    return int(s.phi[frozenset(s.cites)])


@checked(language=language_problem)
def lenient(
    records: Sequence[Record], engine: NLIEngine, *, at_most_citations: int | None = 3,
    language: str = AUTO,
) -> MetricResult:
    """Lenient citation recall / subset precision / F1 (see the module docstring).

    Parameters
    ----------
    records : records with ``docs`` and an ``output`` carrying ``[k]`` or ``[k, l]`` marks.
    engine : the NLI engine (the paper used ``google/t5_xxl_true_nli_mixture``).
    at_most_citations : keep only the first this many distinct ids of a statement (default 3);
        ``None`` keeps all (the number of premises grows as 2^|C|).
    language : the language the output is split in: ``"auto"`` (default) detects Chinese and
        Japanese and splits every other text as English; ``"zh"``, ``"ja"`` or a Punkt language
        (``"de"``, ``"french"``) (:mod:`citetrain.text.languages`).

    Returns
    -------
    MetricResult named ``"lenient"`` with per-record-mean scores ``lenient_rec``, ``lenient_prec``,
    ``lenient_f1`` and dataset-level ``lenient_rec_micro``, ``lenient_prec_micro``,
    ``lenient_f1_micro`` (percentages), rows per record (``lenient_rec`` is ``None`` when all its
    statements are left out) and per statement (``recall`` is ``None`` when left out).
    """
    check_at_most_citations(at_most_citations)
    per_doc, skipped = prepare_all(records, lambda rec: _prepare(rec, at_most_citations, language))
    flat = [s for stmts in per_doc for s in stmts]
    jobs = _queries(flat)
    answers = engine.entails([pair for _, _, pair in jobs]) if jobs else []
    for (s, key, _), ok in zip(jobs, answers):
        if key is None:
            s.all_docs = ok
            s.flag = UNCITED_SUPPORTED if ok else UNCITED_UNSUPPORTED
        else:
            s.phi[key] = ok

    per_record, per_statement = [], []
    n_in_recall = n_entailed = n_relevant = n_counted = 0
    left_out_records = 0
    for stmts in per_doc:
        recalls = [_recall(s) for s in stmts]
        relevant = [[_relevant(s, c) for c in s.cites] for s in stmts]
        kept = [r for r in recalls if r is not None]
        counted = sum(len(s.cites) for s in stmts)
        good = sum(sum(r) for r in relevant)
        n_in_recall += len(kept)
        n_entailed += sum(kept)
        n_relevant += good
        n_counted += counted
        left_out_records += not kept
        per_record.append({"id": stmts[0].rid,
                           "lenient_rec": mean(kept) if kept else None,
                           "lenient_prec": good / counted if counted else 0.0})
        for s, r, rel in zip(stmts, recalls, relevant):
            per_statement.append({
                "id": s.rid, "statement": s.index, "sentence": s.sentence,
                "hypothesis": s.hypothesis, "citations": list(s.cites), "recall": r,
                "relevant_citations": sum(rel), "counted_citations": len(s.cites),
                "flag": s.flag,
            })
    rec = 100 * mean([r["lenient_rec"] for r in per_record if r["lenient_rec"] is not None])
    prec = 100 * mean([r["lenient_prec"] for r in per_record])
    rec_micro = 100 * n_entailed / n_in_recall if n_in_recall else 0.0
    prec_micro = 100 * n_relevant / n_counted if n_counted else 0.0
    info = {
        "at_most_citations": at_most_citations,
        "nli": engine.name,
        "splitter": splitter_name(language=language),
        "language": language,
        "records": len(per_doc),
        **skipped_info(skipped),
        "records_left_out_of_recall": left_out_records,
        "statements": len(flat),
        "statements_in_recall": n_in_recall,
        "statements_entailed": n_entailed,
        "statements_left_out": sum(s.flag == UNCITED_UNSUPPORTED for s in flat),
        "statements_out_of_range": sum(s.flag == OUT_OF_RANGE for s in flat),
        "citations_counted": n_counted,
        "citations_relevant": n_relevant,
        "nli_pairs": len(jobs),
    }
    return MetricResult(
        name="lenient",
        scores={"lenient_rec": rec, "lenient_prec": prec, "lenient_f1": f1(prec, rec),
                "lenient_rec_micro": rec_micro, "lenient_prec_micro": prec_micro,
                "lenient_f1_micro": f1(prec_micro, rec_micro)},
        per_record=per_record, per_statement=per_statement, info=info,
    )
