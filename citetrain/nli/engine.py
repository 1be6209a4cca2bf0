"""The NLI engine: deduplicate, consult the cache, answer the rest in length-sorted batches.

Metrics and builders never call a model one pair at a time: they hand the engine every pair a
round needs and read the answers back in order.

A premise may be a :class:`~citetrain.text.joined.Joined` one (a subset of a record's passages,
a statement's earlier statements): a backend that reads parts (``reads_parts``, the lexical one)
gets it as it is; any other gets its joined text. The engine keeps its answers in memory keyed
by the pair itself, capped at ``memo_bytes`` (by the characters of the texts it keeps alive:
oldest answers out first), and hashes texts into the persistent cache's keys only when there is
a cache.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Sequence

from tqdm.auto import tqdm

from citetrain.nli.base import NLIBackend, NLIResult, Pair
from citetrain.nli.cache import NLICache, cache_key
from citetrain.text.joined import Joined, text_of

MEMO_BYTES = 64 << 20  # the in-memory answers: bytes of the texts and results they keep
_ENTRY_BYTES = 200  # an answer's own size, beside its texts (a result, a tuple, a dict slot)


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
        memo_bytes: int = MEMO_BYTES,
    ) -> None:
        self.backend = backend
        self.cache = cache
        self.batch_size = batch_size or backend.batch_size
        # pairs per backend call: a batch, or more where the backend sorts and cuts its own rows
        self.call_size = max(self.batch_size, getattr(backend, "call_size", 0))
        self.progress = progress
        self.progress_min = progress_min
        self.stats = EngineStats()
        self.memo_bytes = memo_bytes
        # answers and their sizes, by pair, oldest first (popitem: O(1) whatever was dropped)
        self._memo: OrderedDict[Pair, tuple[NLIResult, int]] = OrderedDict()
        self._memo_size = 0
        self._reads_parts = bool(getattr(backend, "reads_parts", False))

    @property
    def name(self) -> str:
        """Model id and revision, with ``(lexical baseline)`` for heuristic backends."""
        tag = " (lexical baseline)" if self.backend.is_baseline else ""
        rev = f"@{self.backend.revision}" if self.backend.revision else ""
        return f"{self.backend.model_id}{rev}{tag}"

    def results(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        """One :class:`NLIResult` per pair, in the order given."""
        pairs = [(self._premise(p), str(h)) for p, h in pairs]
        self.stats.requested += len(pairs)
        unique = list(dict.fromkeys(pairs))
        self.stats.unique += len(unique)
        known = {pair: self._memo[pair][0] for pair in unique if pair in self._memo}
        self.stats.memory_hits += len(known)
        keys: dict[Pair, str] = {}
        if self.cache is not None and len(known) < len(unique):
            b = self.backend
            keys = {pair: cache_key(b.model_id, b.revision, (text_of(pair[0]), pair[1]))
                    for pair in unique if pair not in known}
            hits = self.cache.get_many(list(keys.values()))
            for pair, key in keys.items():
                if key in hits:
                    known[pair] = hits[key]
                    self._remember(pair, hits[key])
                    self.stats.cache_hits += 1
        missing = [pair for pair in unique if pair not in known]
        if missing:
            fresh = self._run(missing, keys)
            known.update(fresh)
        return [known[pair] for pair in pairs]

    def _premise(self, premise: str | Joined) -> str | Joined:
        """A premise as the backend reads it: Joined kept for a backend that reads parts."""
        if isinstance(premise, Joined):
            return premise if self._reads_parts else str(premise)
        return str(premise)

    def _remember(self, pair: Pair, result: NLIResult) -> None:
        """Keep an answer in memory; the oldest go once the texts they keep pass the cap."""
        if pair in self._memo:
            return
        premise = pair[0]
        size = _ENTRY_BYTES + len(pair[1]) + (8 * len(premise.ids) if isinstance(premise, Joined)
                                              else len(premise))
        self._memo[pair] = (result, size)
        self._memo_size += size
        while self._memo_size > self.memo_bytes and self._memo:
            self._memo_size -= self._memo.popitem(last=False)[1][1]

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
                    self._remember(p, r)
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
        self._memo_size = 0
        forget = getattr(self.backend, "forget", None)
        if callable(forget):
            forget()

    def truncated(self, pairs: Sequence[Pair]) -> list[bool]:
        """Whether the backend cuts each pair to its length limit (``False`` for backends
        without one, e.g. lexical or an LLM)."""
        fn = getattr(self.backend, "truncates", None)
        if fn is None or not pairs:
            return [False] * len(pairs)
        return list(fn([(text_of(p), h) for p, h in pairs]))

    def score(self, pairs: Sequence[Pair]) -> list[float]:
        """P(entailment) per pair."""
        return [r.prob for r in self.results(pairs)]

    def entails(self, pairs: Sequence[Pair]) -> list[bool]:
        """The backend's entailment decision per pair."""
        return [r.label for r in self.results(pairs)]
