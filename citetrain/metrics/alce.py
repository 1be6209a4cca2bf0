"""ALCE citation recall and precision (Gao et al. 2023, "Enabling Large Language Models to Generate
Text with Citations"; reference: ``compute_autoais`` in the ALCE repository's ``eval.py``).

For each sentence ``s`` of a response (first line only, marks kept while splitting) with cited ids
``C`` (ALCE's parser: every ``[<digits>``, duplicates kept, the first ``at_most_citations`` kept):

* recall_s = NLI(concat(C), s)   — 0 when ``s`` has no marks or any id is out of range;
* precision, when concat(C) entails ``s`` and |C| > 1: citation ``c`` is *irrelevant* iff
  NLI(c, s) = 0 and NLI(concat(C minus the first occurrence of c), s) = 1, else *correct*;
  when |C| = 1 it is correct iff concat(C) entails ``s``; when concat(C) does not entail ``s``
  every citation scores 0; out-of-range sentences add no citations to the count.

Per record: recall = mean over sentences, precision = correct / counted citations (0 if none).
Dataset: ``citation_rec`` / ``citation_prec`` = 100 × mean over records (records with an empty
output are skipped), ``citation_f1`` = F1 of the two means.

The NLI queries are asked in three rounds across all records — joint premises; single docs of
multi-citation sentences whose joint premise entails; leave-one-out premises for the citations whose
single doc does not entail — so exactly the pairs ALCE's sentence-by-sentence loop asks.

One deliberate difference: ALCE reads ``[0]`` as ``docs[-1]`` (Python indexing); here an id outside
``1..len(docs)`` is out of range, as every metric here reads it (docs/concepts/statements.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from citetrain.metrics.base import (
    MetricResult, check_at_most_citations, f1, mean, prepare_all, skipped_info,
)
from citetrain.metrics.rules import checked
from citetrain.nli.base import Pair
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record, format_doc, join_docs
from citetrain.text.languages import AUTO, language_problem
from citetrain.text.marks import alce_ids, alce_remove
from citetrain.text.splitter import splitter_name
from citetrain.text.statements import sentences

NO_MARKS = "no_marks"
OUT_OF_RANGE = "out_of_range"


@dataclass
class Sentence:
    """One sentence's state through the three rounds."""

    rid: str
    index: int
    sentence: str
    hypothesis: str
    docs: list[Doc]
    marks: list[int]  # every id ALCE reads, before the cut
    ref: list[int]  # the ids that count (after the cut); empty when flagged
    flag: str | None
    joint: bool = False
    single: list[bool | None] = field(default_factory=list)
    loo: list[bool | None] = field(default_factory=list)


def _prepare(record: Record, at_most_citations: int | None, language: str = AUTO
             ) -> list[Sentence]:
    """The record's sentences with ALCE's ids, hypotheses and format flags."""
    out = []
    for i, sent in enumerate(sentences(record.output, language=language)):
        marks = alce_ids(sent)
        if not marks:
            flag, ref = NO_MARKS, []
        elif any(not 1 <= m <= len(record.docs) for m in marks):
            flag, ref = OUT_OF_RANGE, []
        else:
            flag = None
            ref = marks[:at_most_citations] if at_most_citations is not None else list(marks)
        out.append(Sentence(record.id, i, sent, alce_remove(sent).strip(), record.docs, marks,
                             ref, flag, single=[None] * len(ref), loo=[None] * len(ref)))
    return out


def _joint_pairs(sents: Sequence[Sentence]) -> list[tuple[Sentence, int, Pair]]:
    """Round 1: the cited docs of every well-formed sentence, joined in citation order."""
    return [(s, -1, (join_docs(s.docs, s.ref), s.hypothesis)) for s in sents if s.flag is None]


def _single_pairs(sents: Sequence[Sentence]) -> list[tuple[Sentence, int, Pair]]:
    """Round 2: each cited doc alone, for multi-citation sentences whose joint premise entails."""
    jobs = []
    for s in sents:
        if s.joint and len(s.ref) > 1:
            premise: dict[int, str] = {}  # one string per distinct id: a repeated id costs O(1)
            for k, i in enumerate(s.ref):
                if i not in premise:
                    premise[i] = format_doc(s.docs[i - 1])
                jobs.append((s, k, (premise[i], s.hypothesis)))
    return jobs


def _leave_one_out(ref: list[int], cid: int) -> list[int]:
    """ALCE's ``subset_exclude.remove(psgs_id)``: drop the first occurrence of ``cid``."""
    rest = list(ref)
    rest.remove(cid)
    return rest


def _leave_one_out_pairs(sents: Sequence[Sentence]) -> list[tuple[Sentence, int, Pair]]:
    """Round 3: the other citations without this one, for citations whose single doc failed.

    Dropping the first occurrence of an id gives the same premise wherever the id recurs, so it is
    built once per distinct id: linear in the marks of a sentence, not quadratic."""
    jobs = []
    for s in sents:
        premise: dict[int, str] = {}
        for k, i in enumerate(s.ref):
            if s.single[k] is False:
                if i not in premise:
                    premise[i] = join_docs(s.docs, _leave_one_out(s.ref, i))
                jobs.append((s, k, (premise[i], s.hypothesis)))
    return jobs


def _ask(engine: NLIEngine, jobs: list[tuple[Sentence, int, Pair]]) -> list[bool]:
    """One engine call for a whole round (none when the round is empty)."""
    return engine.entails([pair for _, _, pair in jobs]) if jobs else []


def run_rounds(sents: Sequence[Sentence], engine: NLIEngine) -> None:
    """Fill ``joint``, ``single`` and ``loo`` of every sentence, one engine call per round."""
    jobs = _joint_pairs(sents)
    for (s, _, _), ok in zip(jobs, _ask(engine, jobs)):
        s.joint = ok
    jobs = _single_pairs(sents)
    for (s, k, _), ok in zip(jobs, _ask(engine, jobs)):
        s.single[k] = ok
    jobs = _leave_one_out_pairs(sents)
    for (s, k, _), ok in zip(jobs, _ask(engine, jobs)):
        s.loo[k] = ok


def correct_citations(s: Sentence) -> int:
    """Correct citations of a sentence by ALCE's precision rule."""
    if s.flag is not None or not s.joint:
        return 0
    if len(s.ref) == 1:
        return 1
    return sum(1 for k in range(len(s.ref)) if s.single[k] or not s.loo[k])


@checked(language=language_problem)
def alce(
    records: Sequence[Record], engine: NLIEngine, *, at_most_citations: int | None = 3,
    language: str = AUTO,
) -> MetricResult:
    """ALCE citation recall / precision / F1 (see the module docstring for the formulas).

    Parameters
    ----------
    records : records with ``docs`` and an ``output`` carrying ``[k]`` marks (1-based).
    engine : the NLI engine (ALCE used ``google/t5_xxl_true_nli_mixture``).
    at_most_citations : keep only the first this many ids of a sentence (ALCE's default 3);
        ``None`` keeps all.
    language : the language the output is split in: ``"auto"`` (default) detects Chinese and
        Japanese and splits every other text as English; ``"zh"``, ``"ja"`` or a Punkt language
        (``"de"``, ``"french"``) (:mod:`citetrain.text.languages`).

    Returns
    -------
    MetricResult named ``"alce"`` with scores ``citation_rec``, ``citation_prec``, ``citation_f1``
    (percentages), a row per scored record and per sentence, and ALCE's counts in ``info``.
    """
    check_at_most_citations(at_most_citations)
    per_doc, skipped = prepare_all(records, lambda rec: _prepare(rec, at_most_citations, language))
    flat = [s for sents in per_doc for s in sents]
    run_rounds(flat, engine)

    per_record, per_statement = [], []
    for sents in per_doc:
        correct = [correct_citations(s) for s in sents]
        counted = sum(len(s.ref) for s in sents)
        rec = mean([float(s.joint) for s in sents])
        prec = sum(correct) / counted if counted else 0.0
        per_record.append({"id": sents[0].rid, "citation_rec": rec, "citation_prec": prec})
        for s, c in zip(sents, correct):
            per_statement.append({
                "id": s.rid, "statement": s.index, "sentence": s.sentence,
                "hypothesis": s.hypothesis, "citations": list(s.ref), "recall": int(s.joint),
                "correct_citations": c, "counted_citations": len(s.ref), "flag": s.flag,
            })
    rec_mean = 100 * mean([r["citation_rec"] for r in per_record])
    prec_mean = 100 * mean([r["citation_prec"] for r in per_record])
    # ALCE's printed counts; like eval.py, a flagged sentence counts as multi-cited by all its marks
    mcite = [s for s in flat if len(s.ref if s.flag is None else s.marks) > 1]
    support = [s for s in flat if s.joint and len(s.ref) > 1]
    info = {
        "at_most_citations": at_most_citations,
        "nli": engine.name,
        "splitter": splitter_name(language=language),
        "language": language,
        "records": len(per_doc),
        **skipped_info(skipped),
        "sent_total": len(flat),
        "sent_no_marks": sum(s.flag == NO_MARKS for s in flat),
        "sent_out_of_range": sum(s.flag == OUT_OF_RANGE for s in flat),
        "sent_mcite": len(mcite),
        "sent_mcite_support": len(support),
        "sent_mcite_overcite": sum(1 for s in support for k in range(len(s.ref))
                                   if not s.single[k] and s.loo[k]),
    }
    return MetricResult(
        name="alce",
        scores={"citation_rec": rec_mean, "citation_prec": prec_mean,
                "citation_f1": f1(prec_mean, rec_mean)},
        per_record=per_record, per_statement=per_statement, info=info,
    )
