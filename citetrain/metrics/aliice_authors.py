"""ALiiCE scored as the authors' released ``eval.py`` scores it (``aliice(semantics="authors")``).

Formulas: :mod:`citetrain.metrics.aliice` (module docstring); claims:
:mod:`citetrain.text.claims_authors`. The NLI pairs are exactly those of the released
``calculate_citation`` loop, asked in three batched rounds
(:func:`~citetrain.metrics.alce.run_rounds`).
"""
from __future__ import annotations

import math

from collections import Counter
from typing import Any, Sequence

import numpy as np

from citetrain.metrics.alce import OUT_OF_RANGE, Sentence, correct_citations, run_rounds
from citetrain.metrics.base import MetricResult, f1, mean, prepare_all, skipped_info
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record
from citetrain.text.claims import ClaimParse, atomic_claims_many
from citetrain.text.claims_authors import FULL_MARK
from citetrain.text.splitter import split_sentences, splitter_name


def authors_sentences(output: str, language: str = "auto") -> list[str]:
    """The released ``sentence_spliter``: the whole output split into sentences (in
    ``language``, :func:`~citetrain.text.splitter.split_sentences`); a sentence after the first
    that opens with ``[`` and holds an ``[n]`` mark gives its first mark to the one before."""
    sents = split_sentences(output, language=language)
    for k in range(1, len(sents)):
        m = FULL_MARK.search(sents[k])
        if m is not None and sents[k].startswith("["):
            sents[k - 1] += m.group()
            sents[k] = sents[k][:m.start()] + sents[k][m.end():]
    return sents


def mark_positions(sentences: Sequence[str]) -> list[float]:
    """``calculate_cv``'s positions: ``start / len(sentence)`` of every ``[n]`` mark."""
    return [m.start() / len(s) for s in sentences for m in FULL_MARK.finditer(s)]


def pooled_cv(positions: Sequence[float]) -> float:
    """σ / μ of the pooled positions (population σ); 0.0 without positions or when μ = 0."""
    if not positions:
        return 0.0
    mu = float(np.mean(positions))
    return float(np.std(positions, ddof=0)) / mu if mu > 0 else 0.0


def _units(rid: str, index: int, parse: ClaimParse, record: Record) -> list[Sentence]:
    """The claims the released loop looks at: those with ids (out-of-range ones flagged)."""
    n = len(record.docs)
    out = []
    for claim in parse.claims:
        ids = list(claim.ids)
        if not ids:
            continue
        bad = n == 0 or any(i > n for i in ids)  # as eval.py: ids above psg_num; [0] is docs[-1]
        ref = [] if bad else ids
        out.append(Sentence(rid, index, parse.sentence, claim.text, record.docs, ids, ref,
                            OUT_OF_RANGE if bad else None,
                            single=[None] * len(ref), loo=[None] * len(ref)))
    return out


def aliice_authors(records: Sequence[Record], engine: NLIEngine, *, max_words: int, nlp: Any,
                   language: str = "auto") -> MetricResult:
    """Recall, precision (percentages) and pooled CV as the released ``eval.py`` computes them."""
    prepared, skipped = prepare_all(
        records, lambda rec: [(rec, s) for s in authors_sentences(rec.output, language)])
    kept = [(pairs[0][0], [s for _, s in pairs]) for pairs in prepared]
    parses = atomic_claims_many([s for _, sents in kept for s in sents], nlp=nlp,
                                max_words=max_words, semantics="authors")
    per_doc: list[tuple[Record, list[str], list[ClaimParse], list[list[Sentence]]]] = []
    pos = 0
    for rec, sents in kept:
        ps = parses[pos: pos + len(sents)]
        pos += len(sents)
        per_doc.append((rec, sents, ps, [_units(rec.id, k, p, rec) for k, p in enumerate(ps)]))
    flat = [u for *_, units in per_doc for us in units for u in us]
    run_rounds(flat, engine)

    per_record, per_statement, unscored = [], [], []
    for rec, sents, ps, units in per_doc:
        scored = [u for us in units for u in us if u.flag is None]
        if scored:
            cvs = mark_positions(sents)
            per_record.append({
                "id": rec.id,
                "aliice_rec": sum(u.joint for u in scored) / len(scored),
                "aliice_prec": sum(correct_citations(u) for u in scored)
                / sum(len(u.ref) for u in scored),
                "cvcp": pooled_cv(cvs) if cvs else None,
            })
        else:
            unscored.append(rec.id)
        for k, (p, group) in enumerate(zip(ps, units)):
            per_statement.append({
                "id": rec.id, "statement": k, "sentence": p.sentence, "fallback": p.fallback,
                "cvcp": pooled_cv(mark_positions([p.sentence])) if FULL_MARK.search(p.sentence)
                else None,
                "claims": [{"claim": u.hypothesis, "citations": list(u.marks),
                            "recall": int(u.joint), "correct_citations": correct_citations(u),
                            "counted_citations": len(u.ref), "flag": u.flag} for u in group],
            })
    rec_mean = 100 * mean([r["aliice_rec"] for r in per_record])
    prec_mean = 100 * mean([r["aliice_prec"] for r in per_record])
    positions = mark_positions([s for _, sents, _, _ in per_doc for s in sents])
    cited = [p for *_, ps, _ in per_doc for p in ps if FULL_MARK.search(p.sentence)]
    info = {
        "semantics": "authors",
        "at_most_citations": None,
        "max_words": max_words,
        "cvcp_unit": "mark character position, pooled",
        "nli": engine.name,
        "splitter": splitter_name(language=language),
        "language": language,
        "spacy_model": f"{nlp.meta['lang']}_{nlp.meta['name']}=={nlp.meta['version']}",
        "records": len(per_record),
        **skipped_info(skipped),
        "skipped_no_scored_claim": len(unscored),
        "skipped_no_scored_claim_ids": unscored,
        "sent_total": sum(len(ps) for *_, ps, _ in per_doc),
        "sent_no_marks": sum(len(ps) for *_, ps, _ in per_doc) - len(cited),
        "sent_cited": len(cited),
        "fallbacks": dict(Counter(p.fallback for p in cited if p.fallback is not None)),
        "claims": len(flat),
        "claims_scored": sum(u.flag is None for u in flat),
        "claims_out_of_range": sum(u.flag == OUT_OF_RANGE for u in flat),
        "cvcp_marks": len(positions),
        # count, sum and sum of squares of the positions: a streamed run pools them (metrics.merge)
        "cvcp_moments": [len(positions), math.fsum(positions), math.fsum(x * x for x in positions)],
    }
    return MetricResult(
        name="aliice",
        scores={"aliice_rec": rec_mean, "aliice_prec": prec_mean,
                "aliice_f1": f1(prec_mean, rec_mean), "cvcp": pooled_cv(positions)},
        per_record=per_record, per_statement=per_statement, info=info,
    )
