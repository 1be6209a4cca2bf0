"""ALiiCE positional citation recall, precision and CVCP (Xu et al., "ALiiCE: Evaluating Positional
Fine-grained Citation Generation", NAACL 2025, section 3.3), in two semantics.

``semantics="authors"`` (default) — the released ``eval.py`` + ``myparser.py`` of
github.com/ylXuu/ALiiCE, which produced the paper's tables:

* sentences: the whole output split by :func:`~citetrain.text.splitter.split_sentences`, then
  repaired as ``sentence_spliter`` does (a later sentence that opens with ``[`` and holds a mark
  gives its first mark to the sentence before);
* claims: :mod:`citetrain.text.claims_authors` (the released parser: a dict claim -> ids, so
  identical claims merge; ALCE's sentence-level unit for too long / cited-root sentences);
* for a claim ``A`` with ids ``C`` (every id, duplicates kept, no at-most cut): no ids, or an id
  > |docs|, leaves the claim out of everything; else recall = φ(concat(C), A) and precision is
  ALCE's rule on the claim (|C| > 1 and joint entails: ``c`` is wrong iff φ(c, A) = 0 and
  φ(concat(C minus the first c), A) = 1; else all |C| right iff joint entails). ``[0]`` reads
  ``docs[-1]`` (Python indexing), as there;
* per record: recall = Σ φ / #scored claims, precision = #right / Σ|C|; records without a scored
  claim are skipped; ``aliice_rec`` / ``aliice_prec`` = 100 × mean over records;
* ``cvcp`` = ``calculate_cv``: over all sentences of all records that hold a mark, the relative
  character position ``start / len(sentence)`` of every ``[n]`` mark, pooled; CV = σ / μ
  (population σ; 0 when there are no marks or μ = 0, where the released code divides by zero).

``semantics="paper"`` — the paper's equations as this module reads them:

Each sentence of a response (first line only, as ALCE) is split into atomic claims, one per citation
group (:mod:`citetrain.text.claims`, Algorithm 1 + appendix C; sentence-level fallback for long
sentences, a cited root, a single group). For a claim ``A_i`` with cited ids ``C_i`` (the first
``at_most_citations`` kept):

* recall_i = φ(concat(C_i), A_i) (eq. 1) — 0 when any id of ``C_i`` is out of range;
* precision, as ALCE's on the claim: when concat(C_i) entails ``A_i`` and |C_i| > 1, citation ``c``
  is *irrelevant* iff φ(c, A_i) = 0 and φ(concat(C_i minus c), A_i) = 1, else correct; a single
  citation is correct iff it entails; when the joint premise fails every citation scores 0;
  out-of-range claims add no citations to the count.
* a sentence without marks is one unit with recall 0 and no citations (ALCE's rule,
  docs/concepts/statements.md).

Per record: recall = mean over claims and uncited sentences, precision = correct / counted
citations (0 if none). Dataset: ``aliice_rec`` / ``aliice_prec`` = 100 × mean over records (records
with an empty output are skipped), ``aliice_f1`` = F1 of the two.

CVCP (eq. 2-4): for a sentence with marks, the normalised position of each citation group is
``p = word_index / n_words`` (words before the group over words of the mark-free sentence); the
sentence's value is σ/μ of its positions (population σ; 0 when μ = 0, which only happens when every
group opens the sentence); a record's CVCP is the mean over its sentences with marks, and ``cvcp``
is the mean over records that have one (not a percentage, as in the paper's tables). With
``cvcp_per_mark=True`` each id of a group counts as one position, as eq. 2's "citation marks".

The NLI queries are asked in three rounds across all records (joint premises, single docs,
leave-one-out premises), the rounds of :mod:`citetrain.metrics.alce` run on the claims.

Every report names its semantics (``info["semantics"]``).
"""
from __future__ import annotations

from collections import Counter
from typing import Literal, Sequence

import numpy as np

from citetrain.metrics.alce import (
    NO_MARKS, OUT_OF_RANGE, Sentence, correct_citations, run_rounds,
)
from citetrain.errors import CitetrainError
from citetrain.metrics.base import (
    MetricResult, check_at_most_citations, f1, mean, prepare_all, skipped_info,
)
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record
from citetrain.metrics.rules import checked
from citetrain.text.claims import ClaimParse, atomic_claims_many
from citetrain.text.languages import AUTO, language_problem
from citetrain.text.marks import Statement
from citetrain.text.splitter import splitter_name
from citetrain.text.statements import sentences


def sentence_cvcp(statement: Statement, per_mark: bool = False) -> float | None:
    """σ/μ of a sentence's normalised citation positions (eq. 2-3); ``None`` without marks/words."""
    n = statement.n_words
    if not statement.groups or n == 0:
        return None
    reps = [len(g.ids) if per_mark else 1 for g in statement.groups]
    p = np.repeat([g.word_index / n for g in statement.groups], reps)
    mu = float(p.mean())
    return float(p.std(ddof=0)) / mu if mu > 0 else 0.0


def _units(rid: str, index: int, parse: ClaimParse, record: Record,
           at_most_citations: int | None) -> list[Sentence]:
    """The sentence's scoring units: one per claim, or one uncited unit."""
    st = parse.statement
    if not parse.claims:
        return [Sentence(rid, index, st.raw, st.text, record.docs, [], [], NO_MARKS)]
    out = []
    for claim in parse.claims:
        ids = list(claim.ids)
        if any(not 1 <= i <= len(record.docs) for i in ids):
            flag, ref = OUT_OF_RANGE, []
        else:
            flag, ref = None, ids[:at_most_citations] if at_most_citations is not None else ids
        out.append(Sentence(rid, index, st.raw, claim.text, record.docs, ids, ref, flag,
                             single=[None] * len(ref), loo=[None] * len(ref)))
    return out


@checked(language=language_problem)
def aliice(
    records: Sequence[Record],
    engine: NLIEngine,
    *,
    semantics: Literal["authors", "paper"] = "authors",
    at_most_citations: int | None = 3,
    max_words: int = 50,
    cvcp_per_mark: bool = False,
    nlp=None,
    language: str = AUTO,
) -> MetricResult:
    """ALiiCE positional citation recall / precision / F1 and CVCP (formulas: module docstring).

    Parameters
    ----------
    records : records with ``docs`` and an ``output`` carrying ``[k]`` marks (1-based).
    engine : the NLI engine (the paper used ``google/t5_xxl_true_nli_mixture``).
    semantics : ``"authors"`` (default): the released ``eval.py`` + ``myparser.py``, so that
        numbers compare with the paper's tables; ``"paper"``: the paper's equations.
    at_most_citations : ``"paper"`` only: keep the first this many ids of each claim; ``None``
        keeps all. The released code has no cut, so ``"authors"`` accepts only 3 (the default,
        not applied) or ``None``.
    max_words : sentences longer than this are scored at sentence level (paper: 50; words of the
        mark-free sentence under ``"paper"``, whitespace pieces of the raw sentence under
        ``"authors"``).
    cvcp_per_mark : ``"paper"`` only: count each id as one position in CVCP instead of each group
        (``"authors"`` counts every mark by its character position).
    nlp : spaCy pipeline with a parser (default :func:`~citetrain.text.spacy_model.load_spacy`).
    language : the language the output is split in: ``"auto"`` (default) detects Chinese and
        Japanese and splits every other text as English; ``"zh"``, ``"ja"`` or a Punkt language
        (``"de"``, ``"french"``) (:mod:`citetrain.text.languages`). Claims are cut by the spaCy
        pipeline ``nlp`` whatever the language.

    Returns
    -------
    MetricResult named ``"aliice"`` with scores ``aliice_rec``, ``aliice_prec``, ``aliice_f1``
    (percentages) and ``cvcp``; a row per scored record and per sentence (with its claims); the
    semantics, splitter, spaCy model and fallback counts in ``info``.
    """
    if semantics not in ("authors", "paper"):
        raise CitetrainError(f"aliice: semantics must be 'authors' or 'paper', got {semantics!r}")
    check_at_most_citations(at_most_citations)
    if semantics == "authors" and at_most_citations not in (3, None):
        raise CitetrainError(
            f"aliice: at_most_citations={at_most_citations} needs semantics='paper' (the released "
            "eval.py keeps every id)")
    if max_words < 1:
        raise CitetrainError(f"aliice: max_words must be >= 1, got {max_words}")
    if nlp is None:
        from citetrain.text.spacy_model import load_spacy

        nlp = load_spacy()
    if semantics == "authors":
        from citetrain.metrics.aliice_authors import aliice_authors

        return aliice_authors(records, engine, max_words=max_words, nlp=nlp, language=language)
    return _aliice_paper(records, engine, at_most_citations, max_words, cvcp_per_mark, nlp,
                         language)


def _aliice_paper(records: Sequence[Record], engine: NLIEngine, at_most_citations: int | None,
                  max_words: int, cvcp_per_mark: bool, nlp, language: str = AUTO
                  ) -> MetricResult:
    """``semantics="paper"`` (module docstring)."""
    prepared, skipped = prepare_all(
        records, lambda rec: [(rec, s) for s in sentences(rec.output, language=language)])
    kept = [(pairs[0][0], [s for _, s in pairs]) for pairs in prepared]
    parses = atomic_claims_many([s for _, sents in kept for s in sents], nlp=nlp,
                                max_words=max_words, semantics="paper")

    per_doc: list[tuple[Record, list[ClaimParse], list[list[Sentence]]]] = []
    pos = 0
    for rec, sents in kept:
        ps = parses[pos: pos + len(sents)]
        pos += len(sents)
        per_doc.append((rec, ps, [_units(rec.id, k, p, rec, at_most_citations)
                                  for k, p in enumerate(ps)]))
    flat = [u for _, _, units in per_doc for us in units for u in us]
    run_rounds(flat, engine)

    per_record, per_statement = [], []
    for rec, ps, units in per_doc:
        us = [u for group in units for u in group]
        counted = sum(len(u.ref) for u in us)
        cvs = [c for c in (sentence_cvcp(p.statement, cvcp_per_mark) for p in ps) if c is not None]
        per_record.append({
            "id": rec.id,
            "aliice_rec": mean([float(u.joint) for u in us]),
            "aliice_prec": sum(correct_citations(u) for u in us) / counted if counted else 0.0,
            "cvcp": mean(cvs) if cvs else None,
        })
        for k, (p, group) in enumerate(zip(ps, units)):
            per_statement.append({
                "id": rec.id, "statement": k, "sentence": p.sentence, "fallback": p.fallback,
                "cvcp": sentence_cvcp(p.statement, cvcp_per_mark),
                "claims": [{"claim": u.hypothesis, "citations": list(u.ref), "recall": int(u.joint),
                            "correct_citations": correct_citations(u), "counted_citations": len(u.ref),
                            "flag": u.flag} for u in group],
            })
    rec_mean = 100 * mean([r["aliice_rec"] for r in per_record])
    prec_mean = 100 * mean([r["aliice_prec"] for r in per_record])
    cvcps = [r["cvcp"] for r in per_record if r["cvcp"] is not None]
    cited = [p for _, ps, _ in per_doc for p in ps if p.claims]
    info = {
        "semantics": "paper",
        "at_most_citations": at_most_citations,
        "max_words": max_words,
        "cvcp_unit": "mark" if cvcp_per_mark else "group",
        "nli": engine.name,
        "splitter": splitter_name(language=language),
        "language": language,
        "spacy_model": f"{nlp.meta['lang']}_{nlp.meta['name']}=={nlp.meta['version']}",
        "records": len(per_doc),
        **skipped_info(skipped),
        "sent_total": sum(len(ps) for _, ps, _ in per_doc),
        "sent_no_marks": sum(u.flag == NO_MARKS for u in flat),
        "sent_cited": len(cited),
        "sent_split": sum(p.fallback is None for p in cited),
        "fallbacks": dict(Counter(p.fallback for p in cited if p.fallback is not None)),
        "claims": sum(u.flag != NO_MARKS for u in flat),
        "claims_out_of_range": sum(u.flag == OUT_OF_RANGE for u in flat),
        "cvcp_records": len(cvcps),
    }
    return MetricResult(
        name="aliice",
        scores={"aliice_rec": rec_mean, "aliice_prec": prec_mean,
                "aliice_f1": f1(prec_mean, rec_mean), "cvcp": mean(cvcps)},
        per_record=per_record, per_statement=per_statement, info=info,
    )
