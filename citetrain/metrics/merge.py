"""Dataset scores from chunks of records: what a streamed evaluation adds up.

Every metric's dataset-level scores are functions of sums over its records, so a run that scores
records a chunk at a time keeps only those sums (:func:`partial_sums`, :func:`add_sums`) and
computes the scores at the end (:func:`scores_from_sums`), equal to the metric on all records at
once up to the order of floating-point additions:

* a mean over records of a per-record value (records where it is None left out), × 100;
* a ratio of two counts of the metric's ``info``, × 100 (0 when the denominator is 0);
* an F1 of two of the above;
* ALiiCE's CV: the mean of per-record CVs (``semantics="paper"``), or, as the released
  ``calculate_cv`` pools the mark positions of the whole dataset (``"authors"``), σ / μ from the
  moments (count, Σx, Σx²) the metric reports in ``info["cvcp_moments"]``;
* corpus BLEU (``correctness``'s ``bleu4``): sacrebleu's corpus statistics (lengths, n-gram
  matches and totals), summed, in ``info["bleu4"]["bleu_stats"]``;
* LongBench-Cite's average of dataset means: per-dataset sums, in ``info["dataset_sums"]``.

:func:`merge_info` adds the chunks' ``info``: counts are summed (numbers, dicts of them and lists
of numbers of one length, element by element), other lists are joined, settings
(:data:`SETTINGS`) and text are kept from the first chunk.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

Spec = tuple  # ("mean", key) | ("mean_raw", key) | ("ratio", num, den) | ("f1", p, r) | ("cv",) | ("bleu",)

SPECS: dict[str, dict[str, Spec]] = {
    "alce": {"citation_rec": ("mean", "citation_rec"), "citation_prec": ("mean", "citation_prec"),
             "citation_f1": ("f1", "citation_prec", "citation_rec")},
    "lenient": {"lenient_rec": ("mean", "lenient_rec"), "lenient_prec": ("mean", "lenient_prec"),
                "lenient_f1": ("f1", "lenient_prec", "lenient_rec"),
                "lenient_rec_micro": ("ratio", "statements_entailed", "statements_in_recall"),
                "lenient_prec_micro": ("ratio", "citations_relevant", "citations_counted"),
                "lenient_f1_micro": ("f1", "lenient_prec_micro", "lenient_rec_micro")},
    "aliice": {"aliice_rec": ("mean", "aliice_rec"), "aliice_prec": ("mean", "aliice_prec"),
               "aliice_f1": ("f1", "aliice_prec", "aliice_rec"), "cvcp": ("mean_raw", "cvcp")},
    "aliice_authors": {"aliice_rec": ("mean", "aliice_rec"), "aliice_prec": ("mean", "aliice_prec"),
                       "aliice_f1": ("f1", "aliice_prec", "aliice_rec"), "cvcp": ("cv",)},
    "citeeval": {"citeeval_full": ("mean", "citeeval_full"), "citeeval_cited": ("mean", "citeeval_cited")},
    "gold_citations": {"gold_prec": ("ratio", "tp", "cited"), "gold_rec": ("ratio", "tp", "gold"),
                       "gold_f1": ("f1", "gold_prec", "gold_rec"),
                       "gold_exact": ("ratio", "exact", "statements")},
    "longbench_cite": {f"longbench_cite_{k}": ("longbench", k) for k in ("rec", "prec", "f1")},
}
# info keys that are settings or descriptions, not counts: kept from the first chunk
SETTINGS = frozenset({
    "at_most_citations", "max_words", "max_subset_size", "credibility_cap", "weights", "scenario",
    "first_line_only", "union_first", "subsets", "query_recall", "response_recall", "semantics", "cvcp_unit",
    "nli", "nli_baseline", "splitter", "spacy_model", "judge", "metric", "annotations"})


def _spec(name: str, result: Any) -> dict[str, Spec]:
    """The rules for the scores ``result`` has (CiteEval's scenario may leave one out)."""
    if name == "aliice" and result.info.get("semantics") == "authors":
        name = "aliice_authors"
    if name not in SPECS:  # correctness: means of per-record values, and corpus BLEU
        return {k: ("bleu",) if k == "bleu4" else ("mean", k) for k in result.scores}
    return {k: SPECS[name][k] for k in result.scores if k in SPECS[name]}  # the metric's order


def partial_sums(name: str, result: Any) -> dict[str, Any]:
    """The sums of one chunk's :class:`~citetrain.metrics.base.MetricResult` for metric ``name``:
    ``{"spec": {score: spec}, "sums": {...}}``."""
    spec = _spec(name, result)
    unknown = set(result.scores) - set(spec)
    if unknown:
        raise ValueError(f"{name}: no rule to merge scores {sorted(unknown)} across chunks")
    sums: dict[str, float] = {}
    for how in spec.values():
        if how[0] in ("mean", "mean_raw"):
            values = [r[how[1]] for r in result.per_record if r.get(how[1]) is not None]
            sums[f"n:{how[1]}"] = len(values)
            sums[f"s:{how[1]}"] = math.fsum(values)
        elif how[0] == "ratio":
            for key in how[1:]:
                sums[f"i:{key}"] = result.info.get(key, 0)
        elif how[0] == "cv":
            n, s1, s2 = result.info.get("cvcp_moments", (0, 0.0, 0.0))
            sums.update({"cv:n": n, "cv:s1": s1, "cv:s2": s2})
        elif how[0] == "bleu":
            for k, v in enumerate(result.info.get("bleu4", {}).get("bleu_stats", [])):
                sums[f"bleu:{k}"] = v
        elif how[0] == "longbench":  # LongBench-Cite: per-dataset sums, keyed lbc:<order>:<j>:<name>
            rows = [*result.info["dataset_sums"].items(), ("", result.info["record_sums"])]
            for i, (d, row) in enumerate(rows):
                sums.update({f"lbc:{i:03d}:{j}:{d}": v for j, v in enumerate(row)})
    return {"spec": {k: list(v) for k, v in spec.items()}, "sums": sums}


def add_sums(a: Mapping[str, Any] | None, b: Mapping[str, Any]) -> dict[str, Any]:
    """Two chunks' :func:`partial_sums` together."""
    if a is None:
        return {"spec": dict(b["spec"]), "sums": dict(b["sums"])}
    spec = {**a["spec"], **b["spec"]}
    keys = set(a["sums"]) | set(b["sums"])
    return {"spec": spec, "sums": {k: a["sums"].get(k, 0) + b["sums"].get(k, 0) for k in keys}}


def scores_from_sums(total: Mapping[str, Any]) -> dict[str, float]:
    """The dataset scores from the sums of every chunk."""
    sums, out = total["sums"], {}
    for key, how in total["spec"].items():
        if how[0] in ("mean", "mean_raw"):
            n = sums[f"n:{how[1]}"]
            value = sums[f"s:{how[1]}"] / n if n else 0.0
            out[key] = 100 * value if how[0] == "mean" else value
        elif how[0] == "ratio":
            den = sums[f"i:{how[2]}"]
            out[key] = 100 * sums[f"i:{how[1]}"] / den if den else 0.0
        elif how[0] == "cv":
            n, s1, s2 = sums["cv:n"], sums["cv:s1"], sums["cv:s2"]
            mu = s1 / n if n else 0.0
            out[key] = math.sqrt(max(s2 / n - mu * mu, 0.0)) / mu if n and mu > 0 else 0.0
        elif how[0] == "bleu":
            from sacrebleu.metrics import BLEU

            stats = [int(sums[f"bleu:{k}"]) for k in range(sum(x.startswith("bleu:") for x in sums))]
            out[key] = BLEU()._compute_score_from_stats(stats).score
        elif how[0] == "longbench":
            from citetrain.metrics.longbench_cite import average

            rows: dict[str, list] = {}
            for k in sorted(k for k in sums if k.startswith("lbc:")):  # the metric's order
                _, _, j, d = k.split(":", 3)
                rows.setdefault(d, [0] * 4)[int(j)] = sums[k]
            out[key] = average({d: r for d, r in rows.items() if d}, rows[""])[f"longbench_cite_{how[1]}"]
    for key, how in total["spec"].items():  # F1s last: of the scores above
        if how[0] == "f1":
            p, r = out[how[1]], out[how[2]]
            out[key] = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {key: out[key] for key in total["spec"]}


def merge_info(a: Any, b: Any, key: str = "") -> Any:
    """Two chunks' ``info`` (or values of it) together: see the module docstring. Correctness's
    ``ran`` (the parts that ran) is the union over chunks, in its order, and its ``skipped`` the
    parts skipped in every chunk."""
    if key == "ran" and isinstance(a, list) and isinstance(b, list):
        from citetrain.metrics.correctness import ALL

        return sorted(set(a) | set(b), key=lambda n: ALL.index(n) if n in ALL else len(ALL))
    if key == "skipped" and isinstance(a, dict) and isinstance(b, dict):
        return {k: v for k, v in a.items() if k in b}
    if key in SETTINGS or a is None:
        return a if a is not None else b
    if isinstance(a, bool) or isinstance(b, bool):
        return a
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a + b
    if isinstance(a, list) and isinstance(b, list):
        numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in a + b)
        return [x + y for x, y in zip(a, b)] if numbers and len(a) == len(b) and a else a + b
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: merge_info(a.get(k), b.get(k), k) if k in a else b[k] for k in {**a, **b}}
    return a
