"""A sequence classifier exported as ONNX, read by citetrain as it reads the PyTorch one.

An exported judge folder (``citetrain export``) holds ``model.onnx``, the tokenizer and the
model's ``config.json`` (labels and citetrain's preprocessing keys: ``citetrain_premise``,
``citetrain_hint``). :func:`is_onnx_folder` tells such a folder from a PyTorch one;
:class:`OnnxClassifier` stands in for the transformers model inside
:class:`~citetrain.nli.classifier.ClassifierNLI` (``model(**inputs).logits``, ``.config``), so
``classifier:FOLDER`` and ``crossencoder:FOLDER`` read premises and hints exactly as for the
PyTorch model, and only the forward pass runs in ONNX Runtime.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError

ONNX_FILE = "model.onnx"
_WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json")


def is_onnx_folder(location: str | Path) -> bool:
    """A local folder with ``model.onnx`` and no PyTorch weights."""
    root = Path(location)
    return (root / ONNX_FILE).is_file() and not any((root / w).exists() for w in _WEIGHTS)


@dataclass
class _Output:
    logits: Any


class ExportedClassifier:
    """What an exported model shows :class:`~citetrain.nli.classifier.ClassifierNLI` in place of a
    transformers model: ``.config`` (the folder's), ``model(**inputs).logits`` and no-op
    ``to``/``eval``. Subclasses run the forward pass (:meth:`_logits`) in their own runtime."""

    config: Any
    inputs: list[str]

    def _logits(self, feed: dict[str, Any]) -> Any:
        raise NotImplementedError

    def __call__(self, **inputs: Any) -> _Output:
        import numpy as np
        import torch

        feed = {name: np.ascontiguousarray(inputs[name].detach().cpu().numpy().astype(np.int64))
                for name in self.inputs}
        return _Output(torch.from_numpy(np.asarray(self._logits(feed))))

    def to(self, device: Any) -> ExportedClassifier:  # the runtime chose its device
        return self

    def eval(self) -> ExportedClassifier:
        return self


class OnnxClassifier(ExportedClassifier):
    """``OnnxClassifier(folder, threads=None)``: the folder's ``model.onnx`` in an ONNX Runtime
    session (CPU; CUDA when onnxruntime-gpu offers it) with the folder's transformers config."""

    def __init__(self, folder: str | Path, threads: int | None = None) -> None:
        try:
            import onnxruntime as ort
        except ImportError:
            raise CitetrainError(f"{folder} is an ONNX model: pip install onnxruntime "
                                 "(or 'citetrain[onnx]')") from None
        from transformers import AutoConfig

        self.config = AutoConfig.from_pretrained(str(folder))
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = int(threads)
        providers = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider")
                     if p in ort.get_available_providers()]
        try:
            self.session = ort.InferenceSession(str(Path(folder) / ONNX_FILE), options, providers=providers)
        except Exception as exc:  # onnxruntime raises its own exception types
            raise CitetrainError(f"cannot load {Path(folder) / ONNX_FILE}: {str(exc).splitlines()[0]}") from None
        self.inputs = [i.name for i in self.session.get_inputs()]

    def _logits(self, feed: dict[str, Any]) -> Any:
        return self.session.run(None, feed)[0]
