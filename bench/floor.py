"""The floor of a benchmark: what any exact runtime must compute, at the device's best rate.

A model's forward passes cannot multiply matrices faster than one large matrix product runs on
the same device, dtype and threads; so ``FLOPs of the matrix products the work needs / that
rate`` is a time no exact engine beats (``bench/nli_engine.py``: ALCE's pairs; ``bench/
judge_throughput.py``: the judge's pairs, int8 included).
"""
from __future__ import annotations

import time
from typing import Any, Callable

import torch

MATMUL_N = 2048  # the reference product: MATMUL_N x MATMUL_N x MATMUL_N


def clock(device: str) -> float:
    """``time.perf_counter()`` once the device's queued work is done."""
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter()


def matmul_rate(dev: str, dtype: Any, n: int = MATMUL_N, reps: int = 5) -> float:
    """Operations per second of an ``n`` x ``n`` matrix product on ``dev`` in ``dtype`` (the best
    the device does with the threads set): the rate no model's forward pass exceeds. ``torch.int8``
    times ``torch._int_mm`` (int8 inputs, int32 sums), what dynamic int8 Linear layers compute."""
    if dtype == torch.int8:
        a = torch.randint(-127, 128, (n, n), device=dev, dtype=torch.int8)
        b = torch.randint(-127, 128, (n, n), device=dev, dtype=torch.int8)
        product: Callable[[], Any] = lambda: torch._int_mm(a, b)  # noqa: E731
    else:
        a = torch.randn(n, n, device=dev, dtype=dtype)
        b = torch.randn(n, n, device=dev, dtype=dtype)
        product = lambda: a @ b  # noqa: E731
    for _ in range(2):
        product()
    t0 = clock(dev)
    for _ in range(reps):
        product()
    return 2 * n**3 * reps / (clock(dev) - t0)


def flops_of(fn: Callable[[], Any]) -> int:
    """FLOPs of the matrix products (linear layers, attention) that ``fn()`` runs, counted by
    ``torch.utils.flop_counter``."""
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()
