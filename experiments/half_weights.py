"""A model's safetensors with its floating-point tensors rounded to fp16 (half the bytes, so that a
MiniLM-sized judge fits the device tool's 64 MiB carry); the transformers loader reads them back
in the dtype a backend asks for. Used by ``experiments/device_distill.sh`` (bringing a student back) and
``experiments/device_judge_speed.sh`` (carrying a judge out).
Run: ``python experiments/half_weights.py SRC/model.safetensors DST.safetensors``.
"""
from __future__ import annotations

import sys

from safetensors.torch import load_file, save_file


def half_weights(src: str, dst: str) -> None:
    """Write ``src``'s tensors to ``dst``, floating-point ones as fp16, the others as they are."""
    save_file({k: v.half() if v.is_floating_point() else v for k, v in load_file(src).items()}, dst)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python experiments/half_weights.py SRC.safetensors DST.safetensors")
    half_weights(sys.argv[1], sys.argv[2])
