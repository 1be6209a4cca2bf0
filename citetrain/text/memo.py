"""Memories of text functions capped in bytes, not entries.

A cache of whole texts capped at N entries holds N pages when the texts are pages: 8,192 entries
of 800 KB passages are 6.5 GB. :class:`TextMemo` counts what it keeps (the key's and the value's
size, :func:`deep_size`) and drops its oldest entries once the total passes ``max_bytes``, so a
long-running server's memory stays within the sum of its memos' caps whatever it is sent.
A key larger than a quarter of the cap is computed and not kept.

:data:`MEMOS` lists every memo made, so that :func:`memo_bytes` reports what they hold and
:func:`clear_memos` empties them (tests, and a server that wants nothing left behind).
"""
from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from typing import Any, Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_ATOMS = (str, bytes, int, float, bool, type(None))


def deep_size(value: Any) -> int:
    """Bytes of ``value`` and of what it holds (tuples, lists, sets, dicts, strings, numbers);
    shared objects are counted each time they appear, so this is an upper bound."""
    size = sys.getsizeof(value)
    if isinstance(value, _ATOMS):
        return size
    if isinstance(value, dict):
        return size + sum(deep_size(k) + deep_size(v) for k, v in value.items())
    if isinstance(value, (tuple, list, set, frozenset)):
        return size + sum(deep_size(v) for v in value)
    return size


class TextMemo(Generic[K, V]):
    """``TextMemo(fn, max_bytes)(key)``: ``fn(key)``, remembered while the memo holds at most
    ``max_bytes`` (oldest entries dropped first); safe to call from several threads.
    ``weigh(key, value)``: an entry's bytes (default :func:`deep_size` of both; a memo of many
    small entries gives a cheaper upper bound)."""

    def __init__(self, fn: Callable[[K], V], max_bytes: int, name: str = "",
                 weigh: Callable[[K, V], int] | None = None) -> None:
        self.fn, self.max_bytes = fn, max_bytes
        self.weigh = weigh or (lambda key, value: deep_size(key) + deep_size(value))
        self.name = name or getattr(fn, "__name__", "memo")
        self.bytes = 0
        # ordered: the oldest entry leaves in O(1) (a plain dict's first key is found by a scan
        # past every slot deleted before it, which grows with what the memo has dropped)
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        MEMOS.append(self)

    def __call__(self, key: K) -> V:
        hit = self._data.get(key)
        if hit is not None:
            return hit[0]
        value = self.fn(key)
        size = self.weigh(key, value)
        if size * 4 > self.max_bytes:
            return value
        with self._lock:
            if key not in self._data:
                self._data[key] = (value, size)
                self.bytes += size
                while self.bytes > self.max_bytes:
                    self.bytes -= self._data.popitem(last=False)[1][1]
        return value

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.bytes = 0


MEMOS: list[TextMemo] = []


def memo_bytes() -> dict[str, int]:
    """Bytes each memo holds now, by name."""
    return {m.name: m.bytes for m in MEMOS}


def clear_memos() -> None:
    """Empty every memo."""
    for m in MEMOS:
        m.clear()
