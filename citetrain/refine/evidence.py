"""The evidence ranker: a logistic regression over word-overlap features, fitted on reference
citations, that cites each statement's most probable passages. No neural model; CPU-only.

Where evidence is paraphrased and spread over many short passages (WiCE: a claim over the ~120
sentences of its cited page, ~5 of them annotated as evidence), no single overlap rule decides
well, but several together rank the evidence: a passage's BM25 score against the statement, its
rank, the share of the statement's content words it holds, the share it quotes, and how well its
neighbours score (the sentence next to the best match often carries the rest of the claim).

For statement s and the record's passages p_1 .. p_n (their :func:`~citetrain.records.format_doc`
text), with content-word stems as terms (:func:`~citetrain.nli.lexical.content_words` of each
word token, in order, repeats kept) and ``b_i`` = Okapi BM25 of s's terms against p_i among the
record's passages (``rank_bm25.BM25Okapi``, k1 = 1.5, b = 0.75), the features of p_i are
(:data:`FEATURES`):

* ``bm25``: ``b_i / max_j b_j`` (0 when no passage scores);
* ``inv_rank``: ``1 / (1 + r_i)``, r_i the 0-based rank of b_i (ties: the lower id first);
* ``recall``: the share of s's distinct terms that p_i holds (the lexical NLI's content-word
  recall, over the same per-token stems as BM25);
* ``quoted``: the share of s's content positions inside a two-word run p_i also has
  (:func:`~citetrain.refine.spans.quoted_positions`);
* ``neighbour_bm25``: ``max(bm25_{i-1}, bm25_{i+1})`` (0 past the ends);
* ``position``: ``(i - 1) / n``;
* ``log_length``: ``log(1 + words in p_i)``;
* ``numbers``: the share of s's distinct digit runs (``\\d+``: years, counts, dates) that p_i
  also holds (0 when s has none): a claim about 1932 is rarely backed by a sentence without it;
* ``given``: 1 when i is among the statement's own marks (the generator's citations, which
  Generate-then-Refine keeps where they are right), else 0.

P(evidence | p_i) = σ(w · x_i + c). The statement cites every passage with P >= ``threshold``,
most probable first, at least ``min_ids`` and at most ``max_ids`` of them (ids increasing).
:func:`fit_ranker` fits w and c (scikit-learn's ``LogisticRegression``, L2, ``C``) on every
(statement, passage) of records with a reference, and picks ``threshold`` on the same records
(micro F1 over :data:`THRESHOLDS`). ``given`` is read from the records as they are: fitted on
inputs without marks (``citetrain fit-ranker --inputs removed``, the default) its weight is 0 and
the marks a statement carries later are ignored; fitted on inputs whose marks are half right
(``--inputs half``) it learns how far to trust them.
:func:`cross_validate` estimates how a ranker fitted so does on unseen records (k folds by
record, repeated over seeds).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Collection, Sequence

from citetrain.builders.refiner_pairs import statement_texts
from citetrain.errors import CitetrainError
from citetrain.metrics.base import f1
from citetrain.records import Record, format_doc
from citetrain.refine.baselines import refine_each_statement
from citetrain.refine.spans import content_positions, quoted_positions, stems, tokens

FEATURES = ("bm25", "inv_rank", "recall", "quoted", "neighbour_bm25", "position", "log_length",
            "numbers", "given")
THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(1, 17))  # 0.05 .. 0.8
FILE_KIND = "citetrain-evidence-ranker"
_NUMBER = re.compile(r"\d+")


def _terms(words: Sequence[str]) -> list[str]:
    return [s for w in words for s in stems(w)]


def terms(text: str) -> list[str]:
    """Content-word stems of ``text`` in order, repeats kept (BM25's terms)."""
    return _terms(tokens(text))


def _cut(probs: Sequence[float], threshold: float, min_ids: int, max_ids: int) -> list[int]:
    """1-based ids of the passages with P >= ``threshold``, most probable first, at least
    ``min_ids`` and at most ``max_ids`` of them, increasing."""
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    k = min(max_ids, max(min_ids, sum(p >= threshold for p in probs)))
    return sorted(i + 1 for i in order[:k])


def features(statement: str, passages: Sequence[str], given: Collection[int] = ()
             ) -> list[list[float]]:
    """One row of :data:`FEATURES` per passage (see the module docstring)."""
    from rank_bm25 import BM25Okapi

    if not passages:
        return []
    passage_words = [tokens(p) for p in passages]
    docs = [_terms(w) for w in passage_words]
    words = tokens(statement)
    query = _terms(words)
    raw = (BM25Okapi([d or ["\0"] for d in docs]).get_scores(query).tolist()
           if query else [0.0] * len(docs))
    top = max(raw)
    bm25 = [b / top if top > 0 else 0.0 for b in raw]
    order = sorted(range(len(raw)), key=lambda i: (-raw[i], i))
    rank = {i: r for r, i in enumerate(order)}
    want = set(query)
    content = content_positions(words)
    numbers = set(_NUMBER.findall(statement))
    rows = []
    for i, (doc, text, p_words) in enumerate(zip(docs, passages, passage_words)):
        quoted = quoted_positions(words, p_words, 2) & content
        near = max(bm25[i - 1] if i > 0 else 0.0, bm25[i + 1] if i + 1 < len(bm25) else 0.0)
        rows.append([bm25[i], 1.0 / (1 + rank[i]), len(want & set(doc)) / len(want) if want else 0.0,
                     len(quoted) / len(content) if content else 0.0, near, i / len(passages),
                     math.log1p(len(text.split())),
                     len(numbers & set(_NUMBER.findall(text))) / len(numbers) if numbers else 0.0,
                     float(i + 1 in given)])
    return rows


@dataclass
class EvidenceRanker:
    """A fitted ranker: weights over :data:`FEATURES`, the bias and the cut."""

    weights: list[float]
    bias: float
    threshold: float = 0.3
    min_ids: int = 1
    max_ids: int = 10
    features: list[str] = field(default_factory=lambda: list(FEATURES))
    fitted_on: dict[str, Any] = field(default_factory=dict)

    def probabilities(self, statement: str, passages: Sequence[str], given: Collection[int] = ()
                      ) -> list[float]:
        """P(evidence) of each passage for ``statement`` citing ``given`` (1-based ids)."""
        return self.probabilities_of(features(statement, passages, given))

    def probabilities_of(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """P(evidence) of each row of :func:`features`."""
        return [1.0 / (1.0 + math.exp(-(sum(w * x for w, x in zip(self.weights, row)) + self.bias)))
                for row in rows]

    def choose(self, statement: str, passages: Sequence[str], given: Collection[int] = ()
               ) -> list[int]:
        """1-based ids the statement (citing ``given``) cites after refining (module docstring),
        increasing."""
        return _cut(self.probabilities(statement, passages, given), self.threshold, self.min_ids,
                    self.max_ids)

    def save(self, path: str | Path) -> None:
        """Write the ranker as JSON (atomically)."""
        from citetrain.io.writers import atomic_write_text

        atomic_write_text(Path(path), json.dumps({"kind": FILE_KIND, **asdict(self)}, indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "EvidenceRanker":
        """Read a ranker written by :meth:`save`; one line naming the file and field otherwise."""
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CitetrainError(f"{path}: not a readable evidence ranker ({exc})") from None
        if not isinstance(raw, dict) or raw.get("kind") != FILE_KIND:
            raise CitetrainError(f"{path}: field 'kind' is not {FILE_KIND!r}: not an evidence ranker")
        if raw.get("features") != list(FEATURES):
            raise CitetrainError(f"{path}: field 'features' {raw.get('features')} is not this "
                                 f"version's {list(FEATURES)}")
        weights = raw.get("weights")
        if not (isinstance(weights, list) and len(weights) == len(FEATURES)
                and all(isinstance(w, (int, float)) for w in weights)):
            raise CitetrainError(f"{path}: field 'weights' must be {len(FEATURES)} numbers")
        try:
            return cls(**{k: v for k, v in raw.items() if k != "kind"})
        except TypeError as exc:
            raise CitetrainError(f"{path}: {exc}") from None


def _rows(records: Sequence[Record]) -> tuple[list[list[list[float]]], list[set[int]], list[int]]:
    """Per scored statement: its passages' features, its reference ids and its record's index."""
    from citetrain.metrics.gold_citations import reference_ids
    from citetrain.text.statements import statements

    feats, golds, groups = [], [], []
    for r, rec in enumerate(records):
        gold = reference_ids(rec)
        split = statements(rec.output, first_line_only=False)
        if gold is None or len(gold) != len(split):
            continue
        passages = [format_doc(d) for d in rec.docs]
        for text, st, ids in zip(statement_texts(rec, split), split, gold):
            if ids:
                feats.append(features(text, passages, st.citations))
                golds.append(set(ids))
                groups.append(r)
    return feats, golds, groups


def _micro(probs: Sequence[Sequence[float]], golds: Sequence[set[int]],
           thresholds: Sequence[float], min_ids: int, max_ids: int) -> tuple[float, float, float]:
    """Micro precision, recall and F1 (fractions) against ``golds`` of each statement's cut at
    its threshold."""
    tp = cited = 0
    for p, g, t in zip(probs, golds, thresholds):
        chosen = set(_cut(p, t, min_ids, max_ids))
        tp += len(chosen & g)
        cited += len(chosen)
    prec, rec = tp / max(cited, 1), tp / max(sum(map(len, golds)), 1)
    return prec, rec, f1(prec, rec)


def _fit_rows(feats: Sequence[Sequence[Sequence[float]]], golds: Sequence[set[int]], C: float,
              min_ids: int, max_ids: int) -> EvidenceRanker:
    """The logistic regression on these statements' passages, its threshold picked on them."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    if not feats:
        raise CitetrainError("no statement with reference citations to fit the ranker on")
    X = np.array([row for f in feats for row in f])
    y = np.array([i + 1 in g for f, g in zip(feats, golds) for i in range(len(f))])
    if y.all() or not y.any():
        raise CitetrainError("the reference cites every passage or none: nothing to rank")
    model = LogisticRegression(C=C, max_iter=5000).fit(X, y)
    ranker = EvidenceRanker(model.coef_[0].tolist(), float(model.intercept_[0]), min_ids=min_ids,
                            max_ids=max_ids)
    probs = [model.predict_proba(np.array(f))[:, 1].tolist() for f in feats]
    best, neg_t = max((_micro(probs, golds, [t] * len(probs), min_ids, max_ids)[2], -t)
                     for t in THRESHOLDS)
    ranker.threshold = -neg_t
    ranker.fitted_on = {"statements": len(feats), "passages": int(len(y)), "evidence": int(y.sum()),
                        "train_f1": round(100 * best, 2), "C": C}
    return ranker


def fit_ranker(records: Sequence[Record], *, C: float = 1.0, min_ids: int = 1,
               max_ids: int = 10) -> EvidenceRanker:
    """Fit the ranker on the statements of ``records`` that have a reference (module docstring)."""
    feats, golds, _ = _rows(records)
    return _fit_rows(feats, golds, C, min_ids, max_ids)


def cross_validate(records: Sequence[Record], *, folds: int = 5, seeds: Sequence[int] = (0, 1, 2),
                   C: float = 1.0, min_ids: int = 1, max_ids: int = 10) -> dict[str, Any]:
    """K-fold cross-validation of :func:`fit_ranker`, split by record (a claim never lies on both
    sides): per seed the records are shuffled (``random.Random(seed)``) and dealt into ``folds``
    folds; each fold's statements are cut by a ranker fitted, threshold included, on the other
    folds, and micro P / R / F1 are pooled over all folds. Returns the per-seed figures (percent)
    and the mean and sd (sample, n - 1) of F1 over the seeds."""
    import random
    import statistics

    feats, golds, groups = _rows(records)
    ids = sorted(set(groups))
    if folds < 2 or folds > len(ids):
        raise CitetrainError(f"cross-validation needs 2 <= folds <= {len(ids)} records with "
                             f"references, got {folds}")
    per_seed = []
    for seed in seeds:
        order = list(ids)
        random.Random(seed).shuffle(order)
        fold_of = {r: k % folds for k, r in enumerate(order)}
        probs: list[list[float]] = [[] for _ in feats]
        cuts: list[float] = [0.0] * len(feats)
        for k in range(folds):
            train = [j for j, g in enumerate(groups) if fold_of[g] != k]
            fitted = _fit_rows([feats[j] for j in train], [golds[j] for j in train], C, min_ids,
                               max_ids)
            for j, g in enumerate(groups):
                if fold_of[g] == k:
                    probs[j] = fitted.probabilities_of(feats[j])
                    cuts[j] = fitted.threshold
        prec, rec, score = _micro(probs, golds, cuts, min_ids, max_ids)
        per_seed.append({"seed": seed, "precision": round(100 * prec, 2),
                         "recall": round(100 * rec, 2), "f1": round(100 * score, 2)})
    f1s = [s["f1"] for s in per_seed]
    sd = statistics.stdev(f1s) if len(f1s) > 1 else 0.0
    return {"folds": folds, "records": len(ids), "statements": len(feats), "per_seed": per_seed,
            "f1_mean": round(statistics.fmean(f1s), 2), "f1_sd": round(sd, 2)}


def evidence_refine(records: Sequence[Record], ranker: EvidenceRanker,
                    counts: dict[str, int] | None = None) -> tuple[list[Record], dict[str, int]]:
    """Refined copies of ``records``, each statement citing :meth:`EvidenceRanker.choose` (its
    own marks as ``given``), and the counts of
    :func:`~citetrain.refine.generative.apply_refiner_outputs`."""
    return refine_each_statement(records, str, ranker.choose, counts)
