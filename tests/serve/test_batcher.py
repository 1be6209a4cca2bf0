"""Requests of many clients scored in one batch, each getting its own slice back; a request that
breaks the scorer gets the error alone."""
import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from citetrain.serve.batcher import Batcher


def run(coro):
    return asyncio.run(coro)


async def _with(score, body, *, max_batch=8, wait_s=0.05):
    executor = ThreadPoolExecutor(1)
    batcher = Batcher(score, max_batch=max_batch, wait_s=wait_s, executor=executor)
    batcher.start()
    try:
        return await body(batcher), batcher.batches
    finally:
        await batcher.stop()
        executor.shutdown()


def test_concurrent_requests_share_a_batch_and_get_their_own_results():
    calls = []

    def score(items):
        calls.append(list(items))
        return [x * 10 for x in items]

    async def body(b):
        return await asyncio.gather(b.submit([1, 2]), b.submit([3]), b.submit([4, 5, 6]))

    results, batches = run(_with(score, body))
    assert results == [[10, 20], [30], [40, 50, 60]]
    assert batches == [6] and calls == [[1, 2, 3, 4, 5, 6]]


def test_a_full_batch_does_not_wait_and_the_rest_goes_next():
    async def body(b):
        return await asyncio.gather(*(b.submit([i, i]) for i in range(5)))

    results, batches = run(_with(lambda xs: list(xs), body, max_batch=4, wait_s=5.0))
    assert results == [[i, i] for i in range(5)]
    assert batches == [4, 4, 2]  # at least max_batch, then what is left (no 5 s wait)


def test_a_failing_request_gets_the_error_and_the_others_their_results():
    def score(items):
        if "bad" in items:
            raise ValueError("cannot score 'bad'")
        return [s.upper() for s in items]

    async def body(b):
        return await asyncio.gather(b.submit(["a"]), b.submit(["bad"]), b.submit(["c", "d"]),
                                    return_exceptions=True)

    (a, bad, cd), batches = run(_with(score, body))
    assert a == ["A"] and cd == ["C", "D"]
    assert isinstance(bad, ValueError) and "cannot score" in str(bad)
    assert batches == [4]


def test_a_request_abandoned_by_its_client_is_not_scored():
    seen = []

    def score(items):
        seen.extend(items)
        return items

    async def body(b):
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(b.submit(["late"]), 0.0)
        return await b.submit(["next"])

    result, _ = run(_with(score, body, wait_s=0.01))
    assert result == ["next"] and "late" not in seen
