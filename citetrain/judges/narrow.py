"""A cross-encoder judge with narrower feed-forward blocks and the same reading, without training.

``citetrain prune MODEL --out DIR --intermediate-size N --calibration DATASET [...]`` draws
calibration pairs from the datasets (an equal share of each, seeded), reads them as the judge reads
them (premise selection, hint, token limit: :meth:`ClassifierNLI.model_inputs`), prunes every
feed-forward block to ``N`` units with least-squares compensation
(:func:`~citetrain.models.compensate.compensate_ffn`) and saves a standard model folder (its
``config.intermediate_size`` is ``N``) with the tokenizer and a README: what was kept, on what,
and each layer's fit. ``citetrain export`` and every ``classifier:`` / ``crossencoder:`` spec read
it as they read the judge.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Sequence

from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_dir, atomic_write_text

TOKEN_PAIRS = 1024  # pairs whose every token fits the blocks of all layers but the last
HEAD_PAIRS = 4096  # pairs whose first token fits the last layer's block
BATCH = 32


def draw_pairs(datasets: Sequence[str | Path], n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` (premise, hypothesis) pairs, an equal share from each dataset's train split, drawn
    with ``seed`` (:func:`~citetrain.judges.openvino_ir.calibration_pairs`)."""
    from citetrain.judges.openvino_ir import calibration_pairs

    if not datasets:
        raise CitetrainError("give at least one --calibration DATASET")
    share = [n // len(datasets) + (k < n % len(datasets)) for k in range(len(datasets))]
    return [pair for data, m in zip(datasets, share) if m
            for pair in calibration_pairs(data, m, seed)]


def prune_judge(model: str | Path, out: str | Path, keep: int | Sequence[int],
                calibration: Sequence[str | Path], *, token_pairs: int = TOKEN_PAIRS,
                head_pairs: int = HEAD_PAIRS, seed: int = 0) -> dict[str, Any]:
    """Write ``model`` (a classifier folder) pruned to ``keep`` feed-forward units a layer, or
    ``keep[i]`` in layer ``i``, into ``out`` (replaced as a whole when done); returns what its
    card reports."""
    from citetrain.models.package_paths import model_folder

    src = model_folder(model)  # before torch is imported: a wrong path fails at once
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from citetrain.models.compensate import compensate_ffn
    from citetrain.nli.classifier import ClassifierNLI
    if token_pairs < 1 or head_pairs < 1:
        raise CitetrainError("--token-pairs and --head-pairs must be at least 1")
    reader = ClassifierNLI(str(src), device="cpu", dtype="fp32", batch_size=BATCH)
    batches = reader.model_inputs(draw_pairs(calibration, token_pairs, seed))
    heads = reader.model_inputs(draw_pairs(calibration, head_pairs, seed + 1))
    net = AutoModelForSequenceClassification.from_pretrained(str(src), dtype=torch.float32)
    reference = copy.deepcopy(net)  # the judge as it was, read layer by layer beside the copy
    had = net.config.intermediate_size
    fits = compensate_ffn(net, reference, keep, batches, heads)
    card = {"source": str(model), "intermediate_size": net.config.intermediate_size, "had": had,
            "widths": [f.width for f in fits],
            "calibration": [str(d) for d in calibration], "seed": seed,
            "token_pairs": sum(len(b["input_ids"]) for b in batches),
            "head_pairs": sum(len(b["input_ids"]) for b in heads),
            "layers": [vars(f) for f in fits]}
    with atomic_dir(out) as tmp:
        net.save_pretrained(str(tmp))
        AutoTokenizer.from_pretrained(str(src)).save_pretrained(str(tmp))
        atomic_write_text(tmp / "citetrain_prune.json", json.dumps(card, indent=2) + "\n")
        atomic_write_text(tmp / "README.md", model_card(card))
    return card


def model_card(card: dict[str, Any]) -> str:
    """The pruned judge's README: its source, what was kept, on what, and each layer's fit."""
    rows = "\n".join(f"| {f['layer']} | {f['width']} | {f['rows']:,} | {f['error_before']:.5f} | "
                     f"{f['error_after']:.5f} | {f['target_variance']:.4f} |" for f in card["layers"])
    data = ", ".join(f"`{d}`" for d in card["calibration"])
    widths = card["widths"]
    kept = (f"{widths[0]} of the {card['had']} feed-forward units in\neach layer"
            if len(set(widths)) == 1 else
            f"{' / '.join(map(str, widths))} of the {card['had']} feed-forward units in\nlayers 0 to "
            f"{len(widths) - 1}")
    padded = ("" if len(set(widths)) == 1 else
              f" (its narrower layers padded to {card['intermediate_size']} units with units zero in "
              "and out, which `classifier:` and `citetrain export` cut again: "
              "`citetrain.nli.ffn_units`)")
    return f"""# citetrain judge, feed-forward blocks pruned

`citetrain prune` kept {kept} of `{card['source']}` and re-fitted each block's output projection
by least squares, so that the layer's output stays the judge's (`citetrain.models.compensate`); no
training. It is a standard model folder (`config.intermediate_size`
{card['intermediate_size']}){padded}: read it with `classifier:THIS_FOLDER`, serve it, or
`citetrain export` it.

Calibration: {card['token_pairs']} pairs (every token) and {card['head_pairs']} pairs (first token,
the last layer's rows) drawn with seed {card['seed']} from {data}, read as the judge reads them.

Squared error per output value of each block against its target (the judge's block output plus
the lost residual), before (the judge's block in the pruned model) and after the fit:

| layer | units | rows | before | after | target variance |
|---:|---:|---:|---:|---:|---:|
{rows}

Check the pruned judge on held-out claims before serving it (`citetrain meta-eval --split
validation --nli classifier:SOURCE,classifier:THIS_FOLDER ...`).
"""
