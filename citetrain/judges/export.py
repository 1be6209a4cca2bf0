"""``citetrain export``: a cross-encoder judge as ONNX or OpenVINO IR, for inference engines other
than PyTorch.

The folder written holds the model (``runtime="onnx"``: ``model.onnx``, torch's ONNX exporter,
opset 18, batch and sequence length dynamic; with ``int8``, ONNX Runtime's dynamic quantization of
its MatMul weights. ``runtime="openvino"``: ``openvino_model.xml`` / ``.bin``; with ``int8``,
NNCF's post-training quantization calibrated on pairs of ``calibration``,
:mod:`citetrain.judges.openvino_ir`), the tokenizer, the model's ``config.json`` (labels and
citetrain's preprocessing keys) and a README (model card) that states the preprocessing the model
needs: how a long premise is read, the hint added to the statement, the token limit. citetrain
reads the folder with ``classifier:FOLDER`` / ``crossencoder:FOLDER`` (:mod:`citetrain.nli.onnx`,
:mod:`citetrain.nli.openvino`) and applies that preprocessing itself, so a user who serves it
through citetrain gets the same scores; the export checks this on :data:`CHECK_PAIRS` and writes
the largest difference into the card.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_write_text, make_parent, replace_dir

OPSET = 18
RUNTIMES = ("onnx", "openvino")
RUNTIME_NAMES = {"onnx": "ONNX Runtime", "openvino": "OpenVINO"}
CHECK_PAIRS = [  # written for this check: short, long, supported, partly, not at all
    ("Title: Paris\nParis is the capital and largest city of France, on the Seine.",
     "Paris is the capital of France."),
    ("Title: Paris\nParis is the capital and largest city of France, on the Seine.",
     "Paris is the capital of Italy."),
    ("The bridge opened in 1932 after six years of work. It carries eight lanes of traffic "
     "and a railway line across the harbour. " * 6, "The bridge opened in 1932 and carries a railway."),
    ("Water boils at 100 degrees Celsius at sea level.", "Water boils at 90 degrees at altitude."),
    ("The committee met on Tuesday.", "The vote was postponed until the spring because of the flood."),
]


def export_judge(model: str | Path, out: str | Path, *, runtime: str = "onnx", int8: bool = False,
                 calibration: str | Path | None = None,
                 calibration_size: int | None = None, calibration_seed: int = 0,
                 first_token: bool = True) -> dict[str, Any]:
    """Export the classifier folder ``model`` to ``out`` (replaced as a whole when done) for
    ``runtime``; ``calibration``: the dataset an OpenVINO int8 export is calibrated on
    (:func:`~citetrain.judges.openvino_ir.calibration_pairs`, ``calibration_size`` pairs drawn with
    ``calibration_seed``); ``first_token``: a BERT or RoBERTa classifier's last layer is exported for the
    first token only (:mod:`citetrain.nli.first_token`; ``False``: the whole layer). Returns
    what the card reports (files, preprocessing, agreement with the PyTorch model)."""
    from citetrain.models.package_paths import model_folder

    if runtime not in RUNTIMES:
        raise CitetrainError(f"export runtime must be one of {', '.join(RUNTIMES)}, not {runtime!r}")
    src = model_folder(model)  # before torch is imported: a wrong path fails at once
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from citetrain.judges import openvino_ir as ir
    from citetrain.nli.classifier import ClassifierNLI
    from citetrain.nli.ffn_units import drop_dead_units
    from citetrain.nli.first_token import first_token as trim
    pairs = None
    if runtime == "onnx":
        if calibration is not None:
            raise CitetrainError("--calibration is for --runtime openvino --int8 (ONNX Runtime's "
                                 "int8 is dynamic and needs none)")
        try:
            import onnxruntime  # noqa: F401
            import onnxscript  # noqa: F401
        except ImportError as exc:
            raise CitetrainError(f"citetrain export needs onnxruntime and onnxscript ({exc.name} is "
                                 "missing): pip install 'citetrain[onnx]'") from None
    else:
        ir.require_openvino(int8)
        if int8 != (calibration is not None):
            raise CitetrainError("--runtime openvino --int8 needs --calibration DATASET (pairs the "
                                 "judge reads, e.g. its training data), and only --int8 uses it")
        if int8:
            size = ir.CALIBRATION_PAIRS if calibration_size is None else calibration_size
            pairs = ir.calibration_pairs(calibration, size, calibration_seed)
    reference = ClassifierNLI(str(src), device="cpu", dtype="fp32")
    net = AutoModelForSequenceClassification.from_pretrained(str(src), dtype=torch.float32).eval()
    widths = drop_dead_units(net)  # a pruned folder's padding: each layer exported at its width
    traced = trim(net) if first_token else net  # trim returns a model it cannot trim as it is
    trimmed = traced is not net
    tokenizer = AutoTokenizer.from_pretrained(str(src))
    out = Path(out)
    make_parent(out)  # the folder is written beside --out, then renamed into place
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        if runtime == "onnx":
            _write_onnx(traced, tokenizer, tmp, int8)
        else:
            batches = None if pairs is None else reference.model_inputs(pairs)
            ir.write_openvino(traced, _sample(tokenizer), tmp, batches)
        tokenizer.save_pretrained(str(tmp))
        net.config.save_pretrained(str(tmp))
        exported = ClassifierNLI(str(tmp), device="cpu")
        figures = _agreement(reference, exported)
        card = {"source": str(model), "runtime": runtime, "int8": int8,
                "opset": OPSET if runtime == "onnx" else None,
                "calibration": None if pairs is None else {"dataset": str(calibration),
                                                           "pairs": len(pairs), "seed": calibration_seed},
                "labels": net.config.id2label,
                "last_layer": "first token" if trimmed else "every token",
                "ffn_widths": widths,
                "premise": reference.premise, "hint": reference.hint, "max_length": reference.max_length,
                **figures}
        atomic_write_text(tmp / "README.md", model_card(card))
        atomic_write_text(tmp / "citetrain_export.json", json.dumps(card, indent=2) + "\n")
        replace_dir(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return card


def _sample(tokenizer: Any) -> dict[str, Any]:
    """A padded token batch of two check pairs, to trace the model on."""
    return dict(tokenizer([p for p, _ in CHECK_PAIRS[:2]], [h for _, h in CHECK_PAIRS[:2]],
                          padding=True, return_tensors="pt"))


def _write_onnx(net: Any, tokenizer: Any, folder: Path, int8: bool) -> None:
    import logging
    import warnings

    import torch

    sample = _sample(tokenizer)
    names = list(sample.keys())
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("sequence")
    target = folder / ("model.fp32.onnx" if int8 else "model.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("torch.onnx").setLevel(logging.ERROR)
        torch.onnx.export(net, (), kwargs=dict(sample), f=str(target), dynamo=True, verbose=False,
                          input_names=names, output_names=["logits"], opset_version=OPSET,
                          dynamic_shapes={k: {0: batch, 1: seq} for k in names}, report=False)
    if int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(str(target), str(folder / "model.onnx"), weight_type=QuantType.QInt8)
        target.unlink()
        for extra in folder.glob("model.fp32.onnx*"):
            extra.unlink()


def _agreement(reference: Any, exported: Any) -> dict[str, Any]:
    """Largest |Δ| of any label probability and of the expected support level on
    :data:`CHECK_PAIRS`, through citetrain's reader on both sides."""
    a, b = reference.predict(CHECK_PAIRS), exported.predict(CHECK_PAIRS)
    probs = [max(abs(x - y) for x, y in zip(r.support or (r.prob,), s.support or (s.prob,)))
             for r, s in zip(a, b)]
    return {"check_pairs": len(CHECK_PAIRS), "max_abs_diff_prob": max(probs),
            "max_abs_diff_expected": max(abs(r.expected - s.expected) for r, s in zip(a, b))}


def model_card(card: dict[str, Any]) -> str:
    """The exported folder's README: what the model needs as input and how citetrain reads it."""
    labels = ", ".join(f"{k}: {v}" for k, v in sorted(card["labels"].items(), key=lambda kv: int(kv[0])))
    runtime = card.get("runtime", "onnx")
    calib = card.get("calibration") or {}
    weights = {("onnx", True): ", int8 dynamic quantization by ONNX Runtime",
               ("openvino", True): f", int8 post-training quantization by NNCF, calibrated on "
                                   f"{calib.get('pairs')} pairs of `{calib.get('dataset')}` (seed "
                                   f"{calib.get('seed', 0)})"
               }.get((runtime, card["int8"]), ", fp32")
    made = f"opset {card['opset']}" if runtime == "onnx" else "OpenVINO IR"
    files = ("`model.onnx`" if runtime == "onnx" else "`openvino_model.xml` / `.bin`")
    engine = ("ONNX Runtime (`pip install onnxruntime`)" if runtime == "onnx" else
              "OpenVINO (`pip install openvino`; `--dtype bf16` runs what is not int8 in bf16 on "
              "a CPU that multiplies it natively)")
    reading = {"select": "its sentences that best cover the statement (select_evidence)",
               "windows": "overlapping windows, the best window kept",
               "cut": "its first tokens"}.get(card["premise"], card["premise"])
    hint = {"uncovered": ": the statement is followed by its content words that the whole premise "
                         "lacks (citetrain.nli.hints)",
            "coverage": ": the statement is followed by the share of its content words that the whole "
                        "premise holds, in tenths, and the words it lacks (citetrain.nli.hints)",
            }.get(card["hint"], "")
    last = ("" if card.get("last_layer") != "first token" else
            "\nIts last layer is computed for the first token only, the one the head reads "
            "(`citetrain.nli.first_token`):\nthe same logits as the whole layer's, for less work.")
    widths = card.get("ffn_widths") or []
    if len(set(widths)) > 1:
        last += (f"\nFeed-forward units per layer: {' / '.join(map(str, widths))} (a pruned folder's "
                 "padding cut: `citetrain.nli.ffn_units`).")
    return f"""# citetrain judge, {RUNTIME_NAMES[runtime]} export

Exported by `citetrain export` from `{card['source']}` ({made}{weights}) as {files}. Inputs:
the tokenizer's text pair (premise, statement) as `input_ids`, `attention_mask` (and
`token_type_ids` where the tokenizer makes them); output: `logits` over the labels {labels}.{last}

## The preprocessing this model needs

A raw (passage, statement) pair fed to the model gives different scores from citetrain's. citetrain
reads every pair this way before the forward pass (`citetrain.nli.premises.read_pairs`):

- premise: `{card['premise']}`: a premise longer than {card['max_length']} tokens is read as {reading};
- hint: `{card['hint']}`{hint};
- max length: {card['max_length']} tokens.

Use it through citetrain and all of this is applied: `citetrain judge PRED --judge
crossencoder:THIS_FOLDER`, `citetrain serve crossencoder:THIS_FOLDER`, `--nli
classifier:THIS_FOLDER`; the forward pass runs in {engine}.

## Agreement with the PyTorch model

On {card['check_pairs']} check pairs, through citetrain's reader on both sides: largest |Δ| of a
label probability {card['max_abs_diff_prob']:.2e}, of the expected support level
{card['max_abs_diff_expected']:.2e}.
"""
