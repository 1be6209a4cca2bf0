"""What a cross-encoder judge's model card reports beside its recipe: the held-out figures of
the saved model next to the lexical baseline, per source of the validation split, and its
measured throughput (pairs per second, fp32 and int8 weights, on the machine that trained it).

The held-out figures are :func:`citetrain.metrics.meta.meta_evaluate` of the expected support
level P(full) + P(partial)/2 on every validation pair of a source (grouped by claim: a claim's
score is the max over its pairs), against content-word recall (:mod:`citetrain.nli.lexical`):
ROC-AUC, binary on two-level sources, the mean of the one-vs-one ROC-AUCs on three-level ones.
"""
from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError

THROUGHPUT_PAIRS = 256  # pairs timed per dtype


def auc(res: dict[str, Any]) -> float:
    """The ROC-AUC of a :func:`~citetrain.metrics.meta.meta_evaluate` result: the one-vs-one mean
    on three-level labels, else the binary one."""
    return float(res.get("roc_auc_mean", res.get("roc_auc", float("nan"))))


def load_judge(final: str | Path, read: str = "whole", dtype: str = "auto") -> Any:
    """The judge saved at ``final`` as a ``classifier:`` engine, on the GPU when there is one,
    without cache or progress bars: what the card and a teacher's fold scores read it with (128
    pairs per batch on a GPU). ``read="clauses"``: the statement
    whole and clause by clause, half and half (``clauses:classifier:PATH``,
    :mod:`citetrain.nli.clauses`). ``dtype``: the weights' (``auto``: fp32 on a CPU; ``bf16``
    serves a CPU that multiplies it natively about three times faster)."""
    import torch

    from citetrain.nli.clauses import READS
    from citetrain.nli.registry import make_engine

    if read not in READS:
        raise CitetrainError(f"a judge is read {' or '.join(READS)}, not {read!r}")
    cuda = torch.cuda.is_available()
    spec = f"classifier:{final}" if read == "whole" else f"clauses:classifier:{final}"
    # a GPU reads 128 pairs per forward pass (16, the CPU's default, leaves it waiting on Python)
    return make_engine(spec, cache=False, progress=False, device="auto" if cuda else "cpu",
                       batch_size=128 if cuda else None, dtype=dtype)


def score_pairs(model: Any, pairs: list[tuple[str, str]]) -> tuple[list[Any], list[float], float]:
    """``(results, lexical, seconds)``: the judge engine's results on ``pairs``, content-word
    recall's expected level on the same pairs, and the seconds the judge took."""
    from citetrain.nli.registry import make_engine

    start = time.perf_counter()
    results = model.results(pairs)
    seconds = time.perf_counter() - start
    lexical = make_engine("lexical", cache=False, progress=False).results(pairs)
    return results, [r.expected for r in lexical], seconds


def heldout_figures(final: str | Path, validation: Any, scores_to: str | Path | None = None,
                    model: Any = None) -> dict[str, Any]:
    """``{"sources": [{source, pairs, claims, model, lexical}], "throughput": {...}}`` for the
    model saved at ``final`` on the validation split (columns premise, hypothesis, label, group,
    source). ``scores_to``: also write every pair's scores there as JSON lines (source, group,
    label, the model's expected level, lexical recall's), so that
    other ways of reading the judge (ensembles, other metrics) can be computed without the
    model. ``model``: the engine of :func:`load_judge` when the caller has it loaded already."""
    pairs = list(zip(validation["premise"], validation["hypothesis"]))
    labels, groups = list(validation["label"]), list(validation["group"])
    model = model if model is not None else load_judge(final)
    alone, baseline, seconds = score_pairs(model, pairs)
    scored = [r.expected for r in alone]
    if scores_to is not None:
        write_scores(scores_to, validation, scored, baseline)
    columns = {"model": scored, "lexical": baseline}
    sources = source_figures(list(validation["source"]), labels, groups, columns)
    return {"sources": sources, "throughput": throughput(final, pairs, len(pairs) / seconds,
                                                         str(model.backend.device))}


def source_figures(sources: list[str], labels: list[int], groups: list[str],
                   columns: dict[str, list[float]],
                   measure: str | None = None) -> list[dict[str, Any]]:
    """Per source (the part of ``sources`` before ``:``), sorted by name: pairs, claims, levels
    and the ROC-AUC (:func:`auc` of :func:`~citetrain.metrics.meta.meta_evaluate`, by claim) of
    every score column; a source with one label only is left out. ``measure``: another key of
    ``meta_evaluate`` instead (e.g. ``ps_vs_ns``, one of the one-vs-one ROC-AUCs); a source
    without it (two levels) is left out."""
    from citetrain.metrics.meta import meta_evaluate

    rows: dict[str, list[int]] = defaultdict(list)
    for i, src in enumerate(sources):
        rows[src.partition(":")[0]].append(i)
    out = []
    for name, idx in sorted(rows.items()):
        lab = [labels[i] for i in idx]
        if len(set(lab)) < 2:
            continue
        grp = [groups[i] for i in idx]
        row: dict[str, Any] = {"source": name, "pairs": len(idx), "claims": len(set(grp)),
                               "levels": sorted(set(lab))}
        for key, scores in columns.items():
            res = meta_evaluate([scores[i] for i in idx], lab, grp)
            value = auc(res) if measure is None else float(res.get(measure, math.nan))
            row[key] = round(value, 4)
        if measure is None or not any(math.isnan(row[key]) for key in columns):
            out.append(row)
    return out


def write_scores(path: str | Path, validation: Any, scored: list[float],
                 baseline: list[float]) -> None:
    """Per-pair held-out scores as JSON lines, written atomically."""
    import json

    from citetrain.io.writers import atomic_write_text

    lines = []
    for i, (src, grp, lab) in enumerate(zip(validation["source"], validation["group"],
                                            validation["label"])):
        row = {"source": src.partition(":")[0], "group": grp, "label": int(lab),
               "model": scored[i], "lexical": baseline[i]}
        lines.append(json.dumps(row))
    atomic_write_text(path, "\n".join(lines) + "\n")


def throughput(final: str | Path, pairs: list[tuple[str, str]], pairs_per_s: float,
               device: str) -> dict[str, Any]:
    """Pairs per second of the validation scoring above and, on a CPU, of int8 weights (and bf16
    where the CPU multiplies it natively) on the first :data:`THROUGHPUT_PAIRS` pairs (fp32 timed
    on the same pairs for the ratio)."""
    import torch

    from citetrain.nli.hf import cpu_dtypes
    from citetrain.nli.registry import make_engine

    out: dict[str, Any] = {"device": device, "threads": torch.get_num_threads(),
                           "pairs_per_s": round(pairs_per_s, 1)}
    if device != "cpu":
        return out
    sample = pairs[:THROUGHPUT_PAIRS]
    for dtype in cpu_dtypes():
        engine = make_engine(f"classifier:{final}", cache=False, progress=False, device="cpu",
                             dtype=dtype)
        start = time.perf_counter()
        engine.results(sample)
        out[f"{dtype}_pairs_per_s"] = round(len(sample) / (time.perf_counter() - start), 1)
    out["timed_pairs"] = len(sample)
    return out


def card_section(figures: dict[str, Any]) -> str:
    """The model card's markdown for :func:`heldout_figures`."""
    lines = ["## Held-out claims (validation split)", "",
             "ROC-AUC of the expected support level P(full) + P(partial)/2 (one-vs-one mean on "
             "three-level sources), per claim; lexical = content-word recall.", "",
             "| source | pairs | claims | this model | lexical |", "|---|---|---|---|---|"]
    for s in figures["sources"]:
        lines.append(f"| {s['source']} | {s['pairs']} | {s['claims']} | {s['model']:.3f} | "
                     f"{s['lexical']:.3f} |")
    t = figures["throughput"]
    lines += ["", "## Throughput", "",
              f"Measured after training on {t['device']} with {t['threads']} thread(s): "
              f"{t['pairs_per_s']} pairs/s scoring the validation pairs"]
    if "int8_pairs_per_s" in t:
        lines[-1] += (f"; on {t['timed_pairs']} of them fp32 {t['fp32_pairs_per_s']} and int8 "
                      f"{t['int8_pairs_per_s']} pairs/s (`--dtype int8`)")
        if "bf16_pairs_per_s" in t:
            lines[-1] += f", bf16 {t['bf16_pairs_per_s']} pairs/s (`--dtype bf16`)"
    lines[-1] += "."
    if "int8_pairs_per_s" in t:  # timed on a CPU: where an int8 runtime serves it faster
        lines += ["", "Likely faster on a CPU: `citetrain export THIS_FOLDER --out DIR --runtime "
                  "openvino --int8 --calibration DATASET` (DATASET: its training pairs). Not measured "
                  "for this model: OpenVINO int8 read citetrain's production judge within 0.0025 "
                  "ROC-AUC of fp32 and 1.6 times as fast as bf16 on 2 AVX512 cores (citetrain's "
                  "docs/results/index.md, \"Judges\"). Time both on your own answers: "
                  "`citetrain judge PREDICTIONS.jsonl --judge nli:classifier:DIR` against "
                  "`--judge nli:classifier:THIS_FOLDER`."]
    return "\n".join(lines) + "\n"


def card_sections(summary: dict[str, Any]) -> str:
    """The model card's sections of a cross-encoder judge's run (Markdown): held-out figures,
    built pairs, teacher, coarse labels and fold, as the run's ``summary`` has them."""
    extra = ""
    if summary.get("heldout"):
        extra += "\n" + card_section(summary["heldout"])
    if summary.get("built"):
        extra += ("\n## Built training pairs (`crossencoder.built`)\n\n```json\n"
                  + json.dumps(summary["built"], indent=2) + "\n```\n")
    if summary.get("teacher"):
        t = summary["teacher"]
        extra += (f"\n## Distilled (`distill.teacher`)\n\n{t['pairs']} training pairs read "
                  f"{t['weight']:g}·teacher + {1 - t['weight']:g}·label from `{t['file']}` "
                  f"(sha256 {t.get('sha256', '?')})"
                  + (f"; {t['transfer_pairs']} of them transfer pairs, read with the file's own "
                     "weight" if t.get("transfer_pairs") else "") + ".\n")
    if summary.get("not_full"):
        n = summary["not_full"]
        extra += (f"\n## Coarse labels (`crossencoder.not_full`)\n\n{n['labels']} training labels 0 of "
                  f"{', '.join(n['sources'])} trained as \"not fully supported\" (level 0 or 1).\n")
    if summary.get("fold"):
        f = summary["fold"]
        extra += (f"\n## A teacher (`distill.folds`)\n\nFold {f['fold']} of {f['folds']} of the "
                  f"training claims left out of training; its {f['pairs']} pairs scored in "
                  "`fold_scores.jsonl`.\n")
    return extra
