"""The NLI engine: deduplication, length-sorted batches, a cache shared by engines and processes."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from citetrain.nli.base import NLIResult
from citetrain.nli.cache import NLICache
from citetrain.nli.engine import NLIEngine

REPO = Path(__file__).resolve().parents[2]


class Counting:
    """A deterministic backend that records every batch: entails iff the premise contains the
    hypothesis; prob = len(h) / len(p) capped at 1; three-way support from the label."""

    is_baseline = False

    def __init__(self, batch_size: int = 3, revision: str = "r1") -> None:
        self.model_id, self.revision, self.batch_size = "counting", revision, batch_size
        self.batches: list[list[tuple[str, str]]] = []

    def cost(self, pair):
        return len(pair[0]) + len(pair[1])

    def predict(self, pairs):
        self.batches.append(list(pairs))
        return [NLIResult(min(1.0, len(h) / max(len(p), 1)), h in p,
                          (1.0, 0.0, 0.0) if h in p else (0.0, 0.25, 0.75)) for p, h in pairs]


PAIRS = [("a cat sat", "cat"), ("dogs bark loudly", "cats"), ("x", "x"), ("a cat sat", "cat"),
         ("the longest premise of them all", "all"), ("x", "x"), ("dogs bark loudly", "bark")]


def test_dedup_and_order():
    backend = Counting()
    engine = NLIEngine(backend, progress=False)
    got = engine.results(PAIRS)
    assert [r.label for r in got] == [True, False, True, True, True, True, True]
    # 7 asked, 5 distinct: ("a cat sat","cat") and ("x","x") repeat
    s = engine.stats
    assert (s.requested, s.unique, s.cache_hits, s.model_pairs, s.batches) == (7, 5, 0, 5, 2)
    assert got[0] == got[3] and got[2] == got[5]


def test_batches_are_length_sorted_longest_first():
    backend = Counting(batch_size=2)
    NLIEngine(backend, progress=False).results(PAIRS)
    costs = [backend.cost(p) for batch in backend.batches for p in batch]
    assert costs == sorted(costs, reverse=True) and [len(b) for b in backend.batches] == [2, 2, 1]


def test_engine_batch_size_overrides_the_backend():
    backend = Counting(batch_size=2)
    NLIEngine(backend, batch_size=10, progress=False).results(PAIRS)
    assert [len(b) for b in backend.batches] == [5]


def test_a_backend_that_batches_its_own_rows_takes_call_size_pairs():
    """``call_size`` (a backend that sorts and cuts its own batches): the engine hands it that
    many pairs at a time, still longest first; an engine batch size above it wins."""
    backend = Counting(batch_size=1)
    backend.call_size = 3
    engine = NLIEngine(backend, progress=False)
    assert engine.results(PAIRS) == NLIEngine(Counting(), progress=False).results(PAIRS)
    assert [len(b) for b in backend.batches] == [3, 2] and engine.stats.batches == 2
    costs = [backend.cost(p) for batch in backend.batches for p in batch]
    assert costs == sorted(costs, reverse=True)
    backend.batches.clear()
    NLIEngine(backend, batch_size=4, progress=False).results(PAIRS)
    assert [len(b) for b in backend.batches] == [4, 1]


def test_cache_hits_across_two_engines_sharing_a_file(tmp_path):
    path = tmp_path / "nli.sqlite"
    first = NLIEngine(Counting(), cache=NLICache(path), progress=False)
    want = first.results(PAIRS[:3])
    later = Counting()
    second = NLIEngine(later, cache=NLICache(path), progress=False)
    got = second.results(PAIRS)
    # PAIRS has 5 distinct pairs; the first engine stored 3 of them
    assert (second.stats.cache_hits, second.stats.model_pairs) == (3, 2)
    assert got[:3] == want and got[1].support == (0.0, 0.25, 0.75)
    assert sorted(p for b in later.batches for p in b) == sorted({PAIRS[4], PAIRS[6]})
    other = NLIEngine(Counting(revision="r2"), cache=NLICache(path), progress=False)
    other.results(PAIRS)
    assert other.stats.cache_hits == 0  # another revision is another key
    assert len(NLICache(path)) == 10


def test_empty_request_and_wrong_backend_answers():
    engine = NLIEngine(Counting(), progress=False)
    assert engine.results([]) == [] and engine.stats.batches == 0

    class Short(Counting):
        def predict(self, pairs):
            return super().predict(pairs)[:-1]

    with pytest.raises(RuntimeError, match="2 results for 3 pairs"):
        NLIEngine(Short(), progress=False).results(PAIRS[:3])


_WRITER = textwrap.dedent("""
    import os, sys, time
    from citetrain.nli.base import NLIResult
    from citetrain.nli.cache import NLICache
    from citetrain.nli.engine import NLIEngine

    class Parity:
        is_baseline, model_id, revision, batch_size = False, "parity", "v1", 7
        def cost(self, pair):
            return len(pair[0])
        def predict(self, pairs):
            return [NLIResult(int(p[1:]) % 2 * 1.0, int(p[1:]) % 2 == 1) for p, _ in pairs]

    lo, hi, ready = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    open(os.path.join(ready, str(lo)), "w").close()
    while len(os.listdir(ready)) < 2:  # start writing together
        time.sleep(0.005)
    # both processes also create the (new) cache file at the same moment
    engine = NLIEngine(Parity(), cache=NLICache(sys.argv[1]), progress=False)
    labels = engine.entails([(f"p{i}", "h") for i in range(lo, hi)])
    assert labels == [i % 2 == 1 for i in range(lo, hi)]
""")


def test_two_processes_write_one_cache_concurrently(tmp_path):
    path = tmp_path / "shared.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    ready = tmp_path / "ready"
    ready.mkdir()
    # overlapping ranges, 7 pairs per batch: ~86 interleaved write transactions each
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), lo, hi, str(ready)],
                              cwd=REPO, env=env,
                              stderr=subprocess.PIPE, text=True)
             for lo, hi in (("0", "600"), ("300", "900"))]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    cache = NLICache(path)
    assert len(cache) == 900  # 0..899, the overlap stored once

    class Never:
        is_baseline, model_id, revision, batch_size = False, "parity", "v1", 7

        def cost(self, pair):
            return 0

        def predict(self, pairs):
            raise AssertionError("everything should come from the cache")

    engine = NLIEngine(Never(), cache=cache, progress=False)
    assert engine.entails([(f"p{i}", "h") for i in range(900)]) == [i % 2 == 1 for i in range(900)]
    assert engine.stats.cache_hits == 900
