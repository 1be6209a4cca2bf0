"""Cost as a ratio, never a wall-clock bound: how much longer 8× the input takes."""
from __future__ import annotations

import time
from typing import Callable


def seconds(run: Callable[[], object]) -> float:
    """CPU seconds of one call in this process (what other processes on a loaded machine do
    not inflate, unlike wall-clock seconds)."""
    t = time.process_time()
    run()
    return time.process_time() - t


def scaling_ratio(small: Callable[[], float], large: Callable[[], float], bound: float,
                  tries: int = 5) -> float:
    """``min(large) / min(small)`` over up to ``tries`` runs each (each callable returns the
    seconds of one run). The small case runs ``tries`` times; the large one again only while the
    ratio is not yet under ``bound`` (noise only ever makes one run slower)."""
    best_small = min(small() for _ in range(tries))
    best_large = float("inf")
    for _ in range(tries):
        best_large = min(best_large, large())
        if best_large / best_small < bound:
            break
    return best_large / best_small
