"""A cross-encoder judge as OpenVINO IR, fp32 or int8 (``citetrain export --runtime openvino``).

The PyTorch model is converted by ``openvino.convert_model`` (batch and length dynamic) and saved
as ``openvino_model.xml`` / ``.bin``. ``int8``: NNCF's post-training quantization
(``nncf.quantize``, transformer preset: SmoothQuant, then int8 weights per output channel and
int8 activations with scales fitted) calibrated on pairs of a labelled dataset as the judge reads
them (premise selection, hint and token limit: :meth:`ClassifierNLI.model_inputs`), by default
:data:`CALIBRATION_PAIRS` of its train split drawn with seed 0. Read back by
:class:`citetrain.nli.openvino.OpenVinoClassifier`.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.nli.openvino import OPENVINO_FILE

CALIBRATION_PAIRS = 300


def require_openvino(int8: bool) -> None:
    """A clear error when openvino (and, for int8, nncf) is missing."""
    for name in ("openvino", "nncf") if int8 else ("openvino",):
        try:
            __import__(name)
        except ImportError:
            raise CitetrainError(f"citetrain export --runtime openvino{' --int8' * int8} needs "
                                 f"{name}: pip install 'citetrain[openvino]'") from None


def calibration_pairs(dataset: str | Path, n: int = CALIBRATION_PAIRS,
                      seed: int = 0) -> list[tuple[str, str]]:
    """``n`` (premise, hypothesis) pairs drawn with ``seed`` from ``dataset``: a ``datasets``
    folder (its ``train`` split when it has splits) with ``premise`` and ``hypothesis`` columns,
    such as a judge's training data (``data.dataset`` of its recipe)."""
    import datasets

    if n < 1:
        raise CitetrainError(f"--calibration-pairs must be at least 1, not {n}")
    try:
        data = datasets.load_from_disk(str(dataset))
    except (FileNotFoundError, ValueError) as exc:
        raise CitetrainError(f"{dataset}: not a datasets folder ({str(exc).splitlines()[0]})") from None
    if isinstance(data, datasets.DatasetDict):
        if "train" not in data:
            raise CitetrainError(f"{dataset}: no train split (splits: {', '.join(data)})")
        data = data["train"]
    missing = [c for c in ("premise", "hypothesis") if c not in data.column_names]
    if missing:
        raise CitetrainError(f"{dataset}: no column {', '.join(missing)} "
                             f"(columns: {', '.join(data.column_names)})")
    if len(data) == 0:
        raise CitetrainError(f"{dataset}: no pairs to calibrate on")
    rows = sorted(random.Random(seed).sample(range(len(data)), min(n, len(data))))
    picked = data.select(rows)
    return list(zip(picked["premise"], picked["hypothesis"]))


def _logits_module(net: Any) -> Any:
    """The classifier as a module of its token inputs returning the logits tensor alone."""
    import torch

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, input_ids, attention_mask, token_type_ids=None):  # noqa: ANN001
            extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
            return self.net(input_ids=input_ids, attention_mask=attention_mask, **extra).logits

    return Logits().eval()


def write_openvino(net: Any, sample: dict[str, Any], folder: Path,
                   calibration: list[dict[str, Any]] | None = None) -> None:
    """Convert ``net`` (traced on the token batch ``sample``) into ``folder``; with
    ``calibration`` (token batches as the judge reads them) quantized to int8 by NNCF first."""
    import warnings

    import openvino as ov
    import torch

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on transformers' mask checks
        model = ov.convert_model(_logits_module(net), example_input=dict(sample),
                                 input=[(name, [-1, -1], ov.Type.i64) for name in sample])
    if calibration is not None:
        import nncf

        feeds = [{k: v.numpy() for k, v in batch.items()} for batch in calibration]
        model = nncf.quantize(model, nncf.Dataset(feeds), model_type=nncf.ModelType.TRANSFORMER,
                              subset_size=len(feeds))
    ov.save_model(model, str(folder / OPENVINO_FILE), compress_to_fp16=False)
