"""Comparing JSON-like results whose floats were summed in another order."""
from __future__ import annotations

import math
from typing import Any


def same(a: Any, b: Any, rel: float = 1e-9, abs_: float = 1e-9) -> bool:
    """``a == b``, floats within ``rel`` / ``abs_``, through dicts, lists and tuples."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], rel, abs_) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y, rel, abs_) for x, y in zip(a, b))
    return a == b
