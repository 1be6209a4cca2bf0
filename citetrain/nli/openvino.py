"""A sequence classifier exported as OpenVINO IR, read by citetrain as it reads the PyTorch one.

``citetrain export MODEL --out DIR --runtime openvino [--int8 --calibration DATASET]`` writes
``openvino_model.xml`` / ``.bin`` beside the tokenizer and the model's ``config.json``;
:func:`is_openvino_folder` tells such a folder from a PyTorch or ONNX one, and
:class:`OpenVinoClassifier` stands in for the transformers model inside
:class:`~citetrain.nli.classifier.ClassifierNLI`, so premises and hints are read exactly
as for the PyTorch model and only the forward pass runs in OpenVINO (CPU). OpenVINO fuses the
encoder's layers and, on an int8 model (NNCF's post-training quantization), multiplies in int8
(AVX512-VNNI / AMX): on 2 cores of an AVX512-BF16 CPU it read the judge about twice as fast as
PyTorch in bf16 (experiments/studies/openvino-runtime.md).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.nli.onnx import ExportedClassifier

OPENVINO_FILE = "openvino_model.xml"
PRECISIONS = ("f32", "bf16")


def is_openvino_folder(location: str | Path) -> bool:
    """A local folder with ``openvino_model.xml`` (and its ``.bin``)."""
    root = Path(location)
    return (root / OPENVINO_FILE).is_file()


def _core() -> Any:
    try:
        import openvino as ov
    except ImportError:
        raise CitetrainError("this is an OpenVINO model: pip install openvino "
                             "(or 'citetrain[openvino]')") from None
    return ov.Core()


class OpenVinoClassifier(ExportedClassifier):
    """``OpenVinoClassifier(folder, threads=None, precision="f32")``: the folder's IR compiled for
    the CPU (``precision``: the inference precision of what is not int8; ``bf16`` where the CPU
    multiplies it natively) with the folder's transformers config."""

    def __init__(self, folder: str | Path, threads: int | None = None,
                 precision: str = "f32") -> None:
        import torch
        from transformers import AutoConfig

        if precision not in PRECISIONS:
            raise CitetrainError(f"OpenVINO precision must be one of {', '.join(PRECISIONS)}, "
                                 f"not {precision!r}")
        core = _core()
        self.config = AutoConfig.from_pretrained(str(folder))
        self.dtype = torch.bfloat16 if precision == "bf16" else torch.float32
        options: dict[str, Any] = {"INFERENCE_PRECISION_HINT": precision,
                                   "PERFORMANCE_HINT": "LATENCY"}
        if threads:
            options["INFERENCE_NUM_THREADS"] = int(threads)
        path = Path(folder) / OPENVINO_FILE
        try:
            compiled = core.compile_model(core.read_model(str(path)), "CPU", options)
        except Exception as exc:  # openvino raises RuntimeError with long multi-line texts
            raise CitetrainError(f"cannot load {path}: {str(exc).strip().splitlines()[0]}") from None
        self.inputs = [port.get_any_name() for port in compiled.inputs]
        self.request = compiled.create_infer_request()

    def _logits(self, feed: dict[str, Any]) -> Any:
        import numpy as np

        return np.array(self.request.infer(feed)[0], copy=True)  # the request reuses its buffer
