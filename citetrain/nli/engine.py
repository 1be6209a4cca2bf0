"""The NLI engine: deduplicate, consult the cache, answer the rest in length-sorted batches.

Metrics and builders never call a model one pair at a time: they hand the engine every pair a
round needs and read the answers back in order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tqdm.auto import tqdm

from citetrain.nli.base import NLIBackend, NLIResult, Pair
from citetrain.nli.cache import NLICache, cache_key


@dataclass
class EngineStats:
    """Counters since the engine was made: pairs asked, unique pairs, cache hits, model work."""

    requested: int = 0
    unique: int = 0
    memory_hits: int = 0
    cache_hits: int = 0
    model_pairs: int = 0
    batches: int = 0


class NLIEngine:
    """Batched, deduplicated and cached access to one :class:`NLIBackend`."""

    def __init__(
        self,
        backend: NLIBackend,
        cache: NLICache | None = None,
        batch_size: int | None = None,
        progress: bool = True,
        progress_min: int = 64,
    ) -> None:
        self.backend = backend
        self.cache = cache
        self.batch_size = batch_size or backend.batch_size
        # pairs per backend call: a batch, or more where the backend sorts and cuts its own rows
        self.call_size = max(self.batch_size, getattr(backend, "call_size", 0))
        self.progress = progress
        self.progress_min = progress_min
        self.stats = EngineStats()
        self._memo: dict[str, NLIResult] = {}  # this process's answers, keyed by cache key

    @property
    def name(self) -> str:
        """Model id and revision, with ``(lexical baseline)`` for heuristic backends."""
        tag = " (lexical baseline)" if self.backend.is_baseline else ""
        rev = f"@{self.backend.revision}" if self.backend.revision else ""
        return f"{self.backend.model_id}{rev}{tag}"

    def results(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        """One :class:`NLIResult` per pair, in the order given."""
        pairs = [(str(p), str(h)) for p, h in pairs]
        self.stats.requested += len(pairs)
        unique = list(dict.fromkeys(pairs))
        self.stats.unique += len(unique)
        b = self.backend
        keys = {pair: cache_key(b.model_id, b.revision, pair) for pair in unique}
        known = {pair: self._memo[k] for pair, k in keys.items() if k in self._memo}
        self.stats.memory_hits += len(known)
        if self.cache is not None and len(known) < len(unique):
            hits = self.cache.get_many([k for p, k in keys.items() if p not in known])
            for pair, key in keys.items():
                if key in hits:
                    known[pair] = self._memo[key] = hits[key]
                    self.stats.cache_hits += 1
        missing = [pair for pair in unique if pair not in known]
        if missing:
            fresh = self._run(missing, keys)
            known.update(fresh)
        return [known[pair] for pair in pairs]

    def _run(self, missing: list[Pair], keys: dict[Pair, str]) -> dict[Pair, NLIResult]:
        b = self.backend
        order = sorted(missing, key=b.cost, reverse=True)
        step = self.call_size
        batches = [order[i : i + step] for i in range(0, len(order), step)]
        show = self.progress and len(missing) >= self.progress_min
        out: dict[Pair, NLIResult] = {}
        with tqdm(total=len(missing), desc=f"NLI {b.model_id}", unit="pair", disable=not show) as bar:
            for batch in batches:
                res = b.predict(batch)
                if len(res) != len(batch):
                    raise RuntimeError(f"{b.model_id}: {len(res)} results for {len(batch)} pairs")
                fresh = dict(zip(batch, res))
                out.update(fresh)
                for p, r in fresh.items():
                    self._memo[keys[p]] = r
                if self.cache is not None:  # store each batch: a killed run keeps finished work
                    self.cache.put_many(b.model_id, b.revision, ((keys[p], r) for p, r in fresh.items()))
                self.stats.model_pairs += len(batch)
                self.stats.batches += 1
                bar.update(len(batch))
        return out

    def forget(self) -> None:
        """Drop this process's in-memory answers (a long-running server calls it after each
        batch, so its memory stays bounded; the disk cache, if any, is kept), and the backend's
        own (its ``forget``, where it has one: the classifier's answers by text as read)."""
        self._memo.clear()
        forget = getattr(self.backend, "forget", None)
        if callable(forget):
            forget()

    def truncated(self, pairs: Sequence[Pair]) -> list[bool]:
        """Whether the backend cuts each pair to its length limit (``False`` for backends
        without one, e.g. lexical or an LLM)."""
        fn = getattr(self.backend, "truncates", None)
        return list(fn(list(pairs))) if fn is not None and pairs else [False] * len(pairs)

    def score(self, pairs: Sequence[Pair]) -> list[float]:
        """P(entailment) per pair."""
        return [r.prob for r in self.results(pairs)]

    def entails(self, pairs: Sequence[Pair]) -> list[bool]:
        """The backend's entailment decision per pair."""
        return [r.label for r in self.results(pairs)]
