"""``eval.stack: lexical``: fit a cross-encoder's stack with lexical recall after training
(:mod:`citetrain.nli.stack`) on the calibration claims held out of training, and save it in the
final model's config, so every reader of the model scores stacked."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citetrain.io.writers import atomic_write_text


def _auc(scores: list[float], levels: list[int], groups: list[str]) -> float:
    from citetrain.metrics.meta import meta_evaluate

    res = meta_evaluate(scores, levels, groups)
    return float(res.get("roc_auc_mean", res.get("roc_auc", float("nan"))))


def fit_and_save(final: str | Path, calibration: Any) -> dict[str, Any]:
    """Score the calibration pairs (columns premise, hypothesis, label, group) with the model
    alone and with lexical recall, fit the stack, write it into ``final/config.json`` and return
    what the summary records: the fit's pairs and coefficients and the calibration ROC-AUC of
    the model, lexical recall and the stack (in-sample for the stack: a sanity check, not a
    figure to report)."""
    from citetrain.nli.base import expected_support
    from citetrain.nli.classifier import ClassifierNLI
    from citetrain.nli.lexical import LexicalNLI
    from citetrain.nli.stack import CONFIG_KEY, fit_stack

    pairs = list(zip(calibration["premise"], calibration["hypothesis"]))
    levels, groups = [int(v) for v in calibration["label"]], list(calibration["group"])
    model = ClassifierNLI(str(final), stacked=False)
    expected = []
    for i in range(0, len(pairs), model.batch_size * 8):
        expected += [r.expected for r in model.predict(pairs[i:i + model.batch_size * 8])]
    recall = [r.prob for r in LexicalNLI().predict(pairs)]
    stack = fit_stack(expected, recall, levels, source=f"{len(set(groups))} calibration claims")
    stacked = [expected_support(*stack.support(e, x)[:2]) for e, x in zip(expected, recall)]
    path = Path(final) / "config.json"
    config = json.loads(path.read_text())
    config[CONFIG_KEY] = stack.to_config()
    atomic_write_text(path, json.dumps(config, indent=2) + "\n")
    return {"pairs": len(pairs), "claims": len(set(groups)), "partial": list(stack.partial),
            "full": list(stack.full),
            "calibration_roc_auc": {"model": round(_auc(expected, levels, groups), 4),
                                    "lexical": round(_auc(recall, levels, groups), 4),
                                    "stacked": round(_auc(stacked, levels, groups), 4)}}
