"""Turn a model's outputs on eval examples into predictions and score them with the shared
metrics: ids for a refiner, answers for a generator, edits and ratings for a judge."""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

from citetrain.metrics.base import f1, mean
from citetrain.metrics.itercoe import parse_itercoe
from citetrain.records import Record
from citetrain.text import prompts as P
from citetrain.text.marks import attach_marks
from citetrain.text.statements import statements


def _units(examples: Sequence[dict[str, Any]], outputs: Sequence[str]):
    by_record: dict[str, list[tuple[dict[str, Any], str]]] = defaultdict(list)
    for ex, out in zip(examples, outputs):
        by_record[ex["id"]].append((ex, out))
    return by_record


def refined_records(records: dict[str, Record], examples: Sequence[dict[str, Any]],
                    outputs: Sequence[str]) -> tuple[list[Record], int]:
    """Records whose statements carry the refiner's ids (ids outside the docs dropped and
    counted). Statements without an example keep their citations."""
    preds, dropped = [], 0
    for rid, pairs in _units(examples, outputs).items():
        rec = records[rid]
        sts = statements(rec.output, first_line_only=False)
        ids: dict[int, list[int]] = {}
        for ex, out in pairs:
            if ex["unit"] == "response":
                for k, got in enumerate(P.parse_response_ids(out, len(sts))):
                    if got is not None:
                        ids[k] = got
            else:
                ids[int(ex["unit"].split()[-1])] = P.parse_ids(out)
        parts = []
        for k, st in enumerate(sts):
            mine = ids.get(k, list(st.citations))
            keep = [i for i in mine if 1 <= i <= len(rec.docs)]
            dropped += len(mine) - len(keep)
            parts.append(attach_marks(st.text, keep))
        preds.append(rec.model_copy(update={"output": " ".join(parts)}))
    return preds, dropped


def generated_records(records: dict[str, Record], examples: Sequence[dict[str, Any]],
                      outputs: Sequence[str]) -> list[Record]:
    """Records whose output is the generator's answer."""
    return [records[ex["id"]].model_copy(update={"output": out.strip()})
            for ex, out in zip(examples, outputs)]


# the in-loop scores this module adds to the metrics' (citetrain.metrics.registry.SCORE_DIRECTIONS)
IN_LOOP_DIRECTIONS: dict[str, bool] = {
    "ids_exact": True, "ids_precision": True, "ids_recall": True, "ids_f1": True,
    "ids_out_of_range": False, "judge_parsed": True, "judge_rating_mae": False,
    "roc_auc_sources": True,  # the cross-encoder's mean over sources of their ROC-AUC
}


def id_scores(examples: Sequence[dict[str, Any]], outputs: Sequence[str]) -> dict[str, float]:
    """Refiner ids against the gold completion: exact-match rate and micro precision / recall /
    F1 of ids (per-statement examples)."""
    exact, hit, n_pred, n_gold = [], 0, 0, 0
    for ex, out in zip(examples, outputs):
        if ex["unit"] == "response":
            continue
        pred, gold = set(P.parse_ids(out)), set(P.parse_ids(ex["completion"]))
        exact.append(float(pred == gold))
        hit, n_pred, n_gold = hit + len(pred & gold), n_pred + len(pred), n_gold + len(gold)
    p = hit / n_pred if n_pred else 0.0
    r = hit / n_gold if n_gold else 0.0
    return {"ids_exact": 100 * mean(exact), "ids_precision": 100 * p, "ids_recall": 100 * r,
            "ids_f1": 100 * f1(p, r)}


def judge_scores(examples: Sequence[dict[str, Any]], outputs: Sequence[str]) -> dict[str, float]:
    """Share of statements whose ITERCOE answer parses, and the mean absolute error of the
    parsed 1-5 ratings against the targets'."""
    parsed, errors = [], []
    for ex, out in zip(examples, outputs):
        n = ex["completion"].count("<rating sentence_id=")
        gold = parse_itercoe(ex["completion"], n)
        for g, j in zip(gold, parse_itercoe(out, n)):
            parsed.append(float(j.status == "ok"))
            if j.status == "ok" and g.rating is not None:
                errors.append(abs(j.rating - g.rating))
    return {"judge_parsed": 100 * mean(parsed), "judge_rating_mae": mean(errors)}


def score_outputs(kind: str, records: dict[str, Record], examples: Sequence[dict[str, Any]],
                  outputs: Sequence[str], metrics: Sequence[str], engine: Any) -> dict[str, float]:
    """Every number the in-loop scorer logs for one evaluation."""
    from citetrain.metrics.evaluate import evaluate

    scores: dict[str, float] = {}
    if kind == "judge":
        return judge_scores(examples, outputs)
    if kind == "refiner":
        preds, dropped = refined_records(records, examples, outputs)
        scores.update(id_scores(examples, outputs), ids_out_of_range=float(dropped))
    else:
        preds = generated_records(records, examples, outputs)
    report = evaluate(preds, metrics=list(metrics), nli=engine, progress=False)
    for group in report.scores.values():
        scores.update({k: float(v) for k, v in group.items() if v is not None})
    return scores
