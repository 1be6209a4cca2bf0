"""Metric names -> functions ``fn(records, engine, **options) -> MetricResult`` (imported lazily)."""
from __future__ import annotations

from importlib import import_module

from citetrain.errors import CitetrainError
from citetrain.metrics.base import MetricFn

METRICS: dict[str, str] = {
    "alce": "citetrain.metrics.alce:alce",
    "lenient": "citetrain.metrics.lenient:lenient",
    "aliice": "citetrain.metrics.aliice:aliice",
    "citeeval": "citetrain.metrics.citeeval:citeeval",
    "correctness": "citetrain.metrics.correctness:correctness",
    "gold_citations": "citetrain.metrics.gold_citations:gold_citations",
    "longbench_cite": "citetrain.metrics.longbench_cite:longbench_cite",
}
DEFAULT_METRICS = ("alce", "lenient", "aliice")

# Whether a higher value is better, for every score a metric returns (and the meta-evaluation of
# a judge or NLI against human labels), so a run keeps its best checkpoint the right way round.
# cvcp (ALiiCE §3.3.3): more dispersed citation positions, the positional ability it measures.
SCORE_DIRECTIONS: dict[str, bool] = {
    **dict.fromkeys(("citation_rec", "citation_prec", "citation_f1"), True),  # alce
    **dict.fromkeys(("lenient_rec", "lenient_prec", "lenient_f1", "lenient_rec_micro",
                     "lenient_prec_micro", "lenient_f1_micro"), True),
    **dict.fromkeys(("aliice_rec", "aliice_prec", "aliice_f1", "cvcp"), True),
    **dict.fromkeys(("citeeval_full", "citeeval_cited"), True),
    **dict.fromkeys(("str_em", "str_hit", "rouge_lsum", "bleu4", "claims_recall"), True),
    **dict.fromkeys(("gold_prec", "gold_rec", "gold_f1", "gold_exact"), True),
    **dict.fromkeys(("longbench_cite_rec", "longbench_cite_prec", "longbench_cite_f1"), True),
    # citetrain.metrics.meta (in-loop figures of a cross-encoder judge, citetrain meta-eval)
    **dict.fromkeys(("pearson", "spearman", "kendall", "fs_vs_ns", "fs_vs_ps", "ps_vs_ns",
                     "roc_auc", "roc_auc_mean", "accuracy", "ndcg@5", "ndcg@10", "ndcg@20"), True),
}


def get_metric(name: str) -> MetricFn:
    """The metric function called ``name``."""
    if name not in METRICS:
        raise CitetrainError(f"unknown metric '{name}': choose from {', '.join(METRICS)}")
    module, _, attr = METRICS[name].partition(":")
    return getattr(import_module(module), attr)


def parse_metric_list(spec: str | list[str] | tuple[str, ...]) -> list[str]:
    """``"alce,lenient"`` or a list -> validated names, order kept, duplicates removed."""
    names = [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]
    if not names:
        raise CitetrainError("no metrics given")
    bad = [n for n in names if n not in METRICS]
    if bad:
        raise CitetrainError(f"unknown metric(s) {', '.join(bad)}: choose from {', '.join(METRICS)}")
    return list(dict.fromkeys(names))


def score_direction(score: str, extra: dict[str, bool] | None = None) -> bool | None:
    """Whether a higher ``score`` is better: :data:`SCORE_DIRECTIONS` and ``extra`` (a caller's
    own scores, e.g. the training loop's), then transformers' rule (a name ending in ``loss``
    is lower-is-better); ``None`` when unknown."""
    table = {**SCORE_DIRECTIONS, **(extra or {})}
    name = score.removeprefix("eval_")
    if name in table:
        return table[name]
    return False if name.endswith("loss") else None
