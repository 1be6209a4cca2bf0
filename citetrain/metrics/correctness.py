"""Answer correctness (Gao et al. 2023, ALCE; reference: ``compute_str_em``, ``compute_rouge`` and
``compute_claims`` in the ALCE repository's ``eval.py``), plus corpus BLEU-4.

The text scored is ALCE's: the output's first line with citation marks removed
(:func:`output_text`). Each metric scores only the records that carry its gold field and reports
how many it skipped; dataset scores are percentages.

* ``str_em`` (ASQA): a qa pair is matched when one of its short answers, normalised like SQuAD
  (lower case, no punctuation, no articles, single spaces), is a substring of the normalised
  output; record score = fraction of matched qa pairs; ``str_hit`` = 1 when all are matched.
* ``rouge_lsum``: ROUGE-Lsum F1 (rouge-score, Porter stemmer) of the lower-cased output against
  each reference, sentences joined by ``"\\n"``; the best reference counts. References are
  ``annotations[*].long_answer`` (ASQA) or else ``answer``. ALCE reports the bootstrap median of
  the mean; this is the plain mean (deterministic, equal up to resampling noise).
* ``bleu4``: sacrebleu corpus BLEU (13a tokenisation) against ``answer``; per record the
  sentence BLEU with effective order.
* ``claims_recall`` (ELI5): fraction of ``claims`` the output entails (NLI(output, claim)), all
  pairs of all records in one engine call.
"""
from __future__ import annotations

import re
import string
from typing import Any, Sequence

from citetrain.metrics.base import MetricResult, mean
from citetrain.metrics.rules import checked, subset_of
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record
from citetrain.text.marks import alce_remove
from citetrain.text.splitter import split_sentences, splitter_name
from citetrain.text.statements import first_line

ALL = ("str_em", "rouge_lsum", "bleu4", "claims")
_PUNCT = frozenset(string.punctuation)


def output_text(record: Record) -> str:
    """ALCE's correctness input: the first line of the output with its marks removed."""
    return alce_remove(first_line(record.output)).strip()


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, drop punctuation and articles, collapse whitespace."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def short_answer_sets(record: Record) -> list[list[str]] | None:
    """Gold short answers per qa pair: ``qa_pairs[*].short_answers``, else ``answer`` when it is a
    list (a list of strings = aliases of one answer; a list of lists = one qa pair per list)."""
    if record.qa_pairs:
        return [list(q.get("short_answers") or []) for q in record.qa_pairs]
    ans = record.answer
    if isinstance(ans, list) and ans:
        if all(isinstance(a, str) for a in ans):
            return [list(ans)]
        if all(isinstance(a, (list, tuple)) for a in ans):
            return [list(a) for a in ans]
    return None


def exact_presence(short_answers: Sequence[str], context: str) -> bool:
    """Whether a normalised short answer occurs in the normalised context (empty ones never do)."""
    ctx = normalize_answer(context)
    return any(a and a in ctx for a in map(normalize_answer, short_answers))


def _references(record: Record, annotations: bool) -> list[str]:
    """Long-answer references: ``annotations[*].long_answer`` first (if asked), else ``answer``."""
    ann = record.annotations
    if annotations and isinstance(ann, list):
        refs = [a["long_answer"] for a in ann if isinstance(a, dict) and a.get("long_answer")]
        if refs:
            return refs
    if isinstance(record.answer, str):
        return [record.answer] if record.answer.strip() else []
    if isinstance(record.answer, list) and all(isinstance(a, str) for a in record.answer):
        return [a for a in record.answer if a.strip()]
    return []


def _result(name: str, keys: tuple[str, ...], rows: list[dict[str, Any]], skipped: int,
            **info: Any) -> MetricResult:
    scores = {k: 100 * mean([r[k] for r in rows]) for k in keys} if rows else {}
    return MetricResult(name, scores, rows, info={"records": len(rows),
                                                  "skipped_no_gold": skipped, **info})


def str_em(records: Sequence[Record]) -> MetricResult:
    """ASQA string exact match (``str_em``) and all-matched rate (``str_hit``); see module doc."""
    rows = []
    for rec in records:
        sets = short_answer_sets(rec)
        if not sets:
            continue
        out = output_text(rec)
        hits = [exact_presence(s, out) for s in sets]
        em = sum(hits) / len(hits)
        rows.append({"id": rec.id, "str_em": em, "str_hit": float(em == 1.0)})
    return _result("str_em", ("str_em", "str_hit"), rows, len(records) - len(rows))


def _lsum_text(text: str) -> str:
    return "\n".join(split_sentences(text.lower()))


def rouge_lsum(records: Sequence[Record]) -> MetricResult:
    """ROUGE-Lsum F1 against the best long-answer reference (``rouge_lsum``); see module doc."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    rows = []
    for rec in records:
        refs = _references(rec, annotations=True)
        if not refs:
            continue
        hyp = _lsum_text(output_text(rec))
        best = max(scorer.score(_lsum_text(r), hyp)["rougeLsum"].fmeasure for r in refs)
        rows.append({"id": rec.id, "rouge_lsum": best})
    return _result("rouge_lsum", ("rouge_lsum",), rows, len(records) - len(rows),
                   splitter=splitter_name())


def bleu4(records: Sequence[Record]) -> MetricResult:
    """Corpus BLEU-4 against ``answer`` (``bleu4``) with sacrebleu; see module doc."""
    from sacrebleu.metrics import BLEU

    hyps, refs, rows = [], [], []
    sentence = BLEU(effective_order=True)
    for rec in records:
        r = _references(rec, annotations=False)
        if not r:
            continue
        hyp = output_text(rec)
        hyps.append(hyp)
        refs.append(r)
        rows.append({"id": rec.id, "bleu4": sentence.sentence_score(hyp, r).score / 100})
    res = MetricResult("bleu4", {}, rows, info={"records": len(rows),
                                                "skipped_no_gold": len(records) - len(rows)})
    if rows:
        # sacrebleu wants one stream per reference slot: pad with the record's first reference,
        # which changes neither clipped counts nor the closest reference length
        width = max(len(r) for r in refs)
        streams = [[r[k] if k < len(r) else r[0] for r in refs] for k in range(width)]
        bleu = BLEU()
        res.scores["bleu4"] = bleu.corpus_score(hyps, streams).score
        res.info["signature"] = str(bleu.get_signature())
        # sacrebleu's corpus statistics (lengths, matches and totals per order), summed: a
        # streamed run adds them over chunks and computes the same corpus BLEU (metrics.merge)
        stats = bleu._extract_corpus_statistics(hyps, streams)
        res.info["bleu_stats"] = [sum(col) for col in zip(*stats)]
    return res


def claims_recall(records: Sequence[Record], engine: NLIEngine) -> MetricResult:
    """ELI5 claim recall: fraction of ``claims`` entailed by the output (``claims_recall``)."""
    gold = [(rec, output_text(rec), list(rec.claims)) for rec in records if rec.claims]
    pairs = [(out, claim) for _, out, claims in gold for claim in claims]
    answers = iter(engine.entails(pairs) if pairs else [])
    rows = []
    for rec, _, claims in gold:
        ok = [next(answers) for _ in claims]
        rows.append({"id": rec.id, "claims_recall": sum(ok) / len(ok)})
    return _result("claims_recall", ("claims_recall",), rows, len(records) - len(rows),
                   nli=engine.name)


@checked(which=subset_of(ALL))
def correctness(
    records: Sequence[Record],
    engine: NLIEngine | None = None,
    *,
    which: Sequence[str] = ALL,
) -> MetricResult:
    """Run the correctness metrics named in ``which`` whose gold fields the records carry.

    ``which`` draws from ``"str_em"``, ``"rouge_lsum"``, ``"bleu4"``, ``"claims"`` (claims needs
    ``engine``). Returns a MetricResult named ``"correctness"`` with the scores of those that ran,
    one merged row per record, and ``info["skipped"]`` = {metric: reason} for the others.
    """
    runners = {"str_em": str_em, "rouge_lsum": rouge_lsum, "bleu4": bleu4}
    fields = {"str_em": "qa_pairs or a list answer", "rouge_lsum": "annotations or answer",
              "bleu4": "answer", "claims": "claims"}
    scores: dict[str, float] = {}
    rows: dict[str, dict[str, Any]] = {}
    info: dict[str, Any] = {"ran": [], "skipped": {}}
    for name in dict.fromkeys(which):
        if name == "claims" and engine is None:
            info["skipped"][name] = "no NLI engine given"
            continue
        res = claims_recall(records, engine) if name == "claims" else runners[name](records)
        if not res.per_record:
            info["skipped"][name] = f"no record has {fields[name]}"
            info[name] = res.info  # its counts (records without the gold field)
            continue
        info["ran"].append(name)
        info[name] = res.info
        scores.update(res.scores)
        for row in res.per_record:
            rows.setdefault(row["id"], {"id": row["id"]}).update(row)
    return MetricResult("correctness", scores, list(rows.values()), info=info)
