"""Benchmark: forward pairs/s of students cut from a judge, by shape, in bf16 and in int8 matrix
products, on this CPU: what a bigger student would cost before one is trained.

Each shape keeps some of the judge's encoder layers (``citetrain.models.prune.keep_layers``) and
the first N feed-forward units of each (speed does not depend on which units); each is timed on
``--batch`` random pairs of ``--tokens`` tokens, best of ``--passes`` passes after one warm-up,
(a) with bf16 weights and (b) with every encoder linear layer as int8 matrix products
(``torch._int_mm``: weights quantized per output channel, activations per token at each call,
the int32 result rescaled in fp32), with (b)'s largest probability difference from fp32 on 8 of
the pairs. ``--openvino``: also (c) the shape in OpenVINO with bf16 inference precision and (d)
quantized to int8 by NNCF (``citetrain export --runtime openvino --int8``'s
:func:`~citetrain.judges.openvino_ir.write_openvino`, calibrated on the timed pairs themselves:
speed does not depend on the calibration), the rest in bf16. Figures only.
Run: ``python experiments/student_shapes.py runs/c16/mixed-kd50-s42/final [--threads 2] [--openvino]``.
"""
from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from citetrain.models.prune import ffn_layers, keep_layers  # noqa: E402

SHAPES = {"4 x 192 (layers 0, 2, 4, 5)": ([0, 2, 4, 5], 192), "5 x 192": ([0, 1, 2, 4, 5], 192),
          "5 x 96": ([0, 1, 2, 4, 5], 96), "4 x 384": ([0, 2, 4, 5], 384),
          "6 x 192": ([0, 1, 2, 3, 4, 5], 192), "4 x 1536 (layers 0, 2, 4, 5)": ([0, 2, 4, 5], None),
          "the judge": (None, None)}


class Int8Linear(torch.nn.Module):
    """``y = (q(x) @ q(W)ᵀ) · s_x · s_W + b`` with ``torch._int_mm`` (module docstring)."""

    def __init__(self, linear: torch.nn.Linear) -> None:
        super().__init__()
        w = linear.weight.detach().float()
        scale = w.abs().amax(1).clamp(min=1e-8) / 127
        self.register_buffer("wq", (w / scale[:, None]).round().to(torch.int8).t().contiguous())
        self.register_buffer("ws", scale)
        bias = linear.bias.detach().float() if linear.bias is not None else torch.zeros(len(w))
        self.register_buffer("b", bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        x = x.reshape(-1, shape[-1]).float()
        xs = x.abs().amax(1, keepdim=True).clamp(min=1e-8) / 127
        y = torch._int_mm((x / xs).round().to(torch.int8), self.wq).float() * xs * self.ws + self.b
        return y.reshape(*shape[:-1], -1)


def int8(model: torch.nn.Module) -> torch.nn.Module:
    """Every linear layer of the encoder as :class:`Int8Linear` (the head stays)."""
    for layer in ffn_layers(model):
        for parent in (layer.attention.self, layer.attention.output, layer.intermediate,
                       layer.output):
            for name, child in list(parent.named_children()):
                if isinstance(child, torch.nn.Linear):
                    setattr(parent, name, Int8Linear(child))
    return model


def cut(judge: torch.nn.Module, layers: list[int] | None, units: int | None) -> torch.nn.Module:
    """A copy of ``judge`` with ``layers`` kept and the first ``units`` feed-forward units."""
    model = copy.deepcopy(judge)
    if layers is not None:
        keep_layers(model, layers)
    for layer in ffn_layers(model) if units else []:
        inner, outer = layer.intermediate.dense, layer.output.dense
        inner.weight.data, inner.bias.data = inner.weight.data[:units], inner.bias.data[:units]
        outer.weight.data = outer.weight.data[:, :units].contiguous()
        inner.out_features = outer.in_features = units
    return model


def rate(model: torch.nn.Module, ids: torch.Tensor, passes: int) -> float:
    """Pairs/s of the best of ``passes`` forward passes over ``ids`` after a warm-up."""
    mask = torch.ones_like(ids)
    times = []
    with torch.inference_mode():
        model(input_ids=ids, attention_mask=mask)
        for _ in range(passes):
            t0 = time.perf_counter()
            model(input_ids=ids, attention_mask=mask)
            times.append(time.perf_counter() - t0)
    return len(ids) / min(times)


def openvino_rates(model: torch.nn.Module, ids: torch.Tensor, passes: int,
                   threads: int) -> tuple[float, float]:
    """Pairs/s of ``model`` in OpenVINO, bf16 precision, as converted and quantized to int8."""
    import tempfile

    from citetrain.judges.openvino_ir import write_openvino
    from citetrain.nli.openvino import OpenVinoClassifier

    sample = {"input_ids": ids[:2], "attention_mask": torch.ones_like(ids[:2])}
    batches = [{"input_ids": ids[i:i + 16], "attention_mask": torch.ones_like(ids[i:i + 16])}
               for i in range(0, len(ids), 16)]
    rates = []
    with tempfile.TemporaryDirectory() as tmp:
        model.config.save_pretrained(tmp)
        for calibration in (None, batches):
            write_openvino(model, sample, Path(tmp), calibration)
            rates.append(rate(OpenVinoClassifier(tmp, threads, "bf16"), ids, passes))
    return rates[0], rates[1]


def main() -> None:
    from transformers import AutoModelForSequenceClassification

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("judge", help="a saved cross-encoder (BERT) folder")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--tokens", type=int, default=120)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--openvino", action="store_true", help="also OpenVINO bf16 and NNCF int8")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    judge = AutoModelForSequenceClassification.from_pretrained(a.judge).eval()
    ids = torch.randint(1000, 5000, (a.batch, a.tokens), generator=torch.Generator().manual_seed(0))
    print(f"{a.judge}: {a.batch} pairs x {a.tokens} tokens, {a.threads} threads, best of {a.passes}")
    for name, (layers, units) in SHAPES.items():
        model = cut(judge, layers, units)
        with torch.inference_mode():
            ref = model(input_ids=ids[:8]).logits.softmax(-1)
            quant = int8(cut(judge, layers, units))
            diff = (quant(input_ids=ids[:8]).logits.softmax(-1) - ref).abs().max().item()
        extra = ""
        if a.openvino:
            bf16, int8_ov = openvino_rates(model, ids, a.passes, a.threads)
            extra = f"   OpenVINO bf16 {bf16:6.0f}, int8 {int8_ov:6.0f} pairs/s"
        print(f"{name:30s} bf16 {rate(model.to(torch.bfloat16), ids, a.passes):6.0f} pairs/s   "
              f"int8 _int_mm {rate(quant, ids, a.passes):6.0f} pairs/s (max |p - p fp32| "
              f"{diff:.3f}){extra}", flush=True)


if __name__ == "__main__":
    main()
