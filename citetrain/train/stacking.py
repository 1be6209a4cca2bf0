"""``eval.stack: lexical``: fit a cross-encoder's stack with lexical recall after training
(:mod:`citetrain.nli.stack`) on the calibration claims held out of training, and save it in the
final model's config, so every reader of the model scores stacked."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citetrain.io.writers import atomic_write_text


def fit_and_save(final: str | Path, calibration: Any) -> dict[str, Any]:
    """Score the calibration pairs (columns premise, hypothesis, label, group) with the model
    alone and with lexical recall, fit the stack, write it into ``final/config.json`` and return
    what the summary records: the fit's pairs and coefficients and the calibration ROC-AUC of
    the model, lexical recall and the stack (in-sample for the stack: a sanity check, not a
    figure to report)."""
    from citetrain.metrics.meta import meta_evaluate
    from citetrain.nli.registry import make_engine
    from citetrain.nli.stack import CONFIG_KEY, fit_stack
    from citetrain.train.judge_card import auc

    pairs = list(zip(calibration["premise"], calibration["hypothesis"]))
    levels, groups = [int(v) for v in calibration["label"]], list(calibration["group"])
    model = make_engine(f"classifier:{final}", cache=False, progress=False, stacked=False)
    expected = [r.expected for r in model.results(pairs)]
    recall = [r.prob for r in make_engine("lexical", cache=False, progress=False).results(pairs)]
    stack = fit_stack(expected, recall, levels, source=f"{len(set(groups))} calibration claims")
    stacked = [stack.expected(e, x) for e, x in zip(expected, recall)]

    def _auc(scores: list[float]) -> float:
        return auc(meta_evaluate(scores, levels, groups))

    path = Path(final) / "config.json"
    config = json.loads(path.read_text())
    config[CONFIG_KEY] = stack.to_config()
    atomic_write_text(path, json.dumps(config, indent=2) + "\n")
    return {"pairs": len(pairs), "claims": len(set(groups)), "partial": list(stack.partial),
            "full": list(stack.full),
            "calibration_roc_auc": {"model": round(_auc(expected), 4),
                                    "lexical": round(_auc(recall), 4),
                                    "stacked": round(_auc(stacked), 4)}}
