"""The batcher alone (asyncio, no server): requests of many clients share batches and get their
own slices back; a request that breaks the scorer gets the error alone; a heavy request holds the
others back for at most one batch, in its lane and across lanes; a request abandoned by its
client is dropped at the next batch boundary; the queue is bounded; draining refuses what waits."""
import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from citetrain.serve.batcher import Batcher, Draining, Overloaded


def run(coro):
    return asyncio.run(coro)


async def _with(lanes, body, *, max_batch=8, wait_s=0.05, max_queue=None, max_cost=None):
    if callable(lanes):
        lanes = {"records": lanes}
    executor = ThreadPoolExecutor(1)
    batcher = Batcher(lanes, max_batch=max_batch, wait_s=wait_s, executor=executor,
                      max_queue=max_queue, max_cost=max_cost)
    batcher.start()
    try:
        return await body(batcher), batcher
    finally:
        await batcher.stop()
        executor.shutdown()


def recorder(calls, delay=0.0):
    """A score function that records each batch (and sleeps ``delay`` per batch)."""
    def score(items):
        calls.append(list(items))
        time.sleep(delay)
        return [x * 10 if isinstance(x, int) else x for x in items]
    return score


def test_concurrent_requests_share_a_batch_and_get_their_own_results():
    calls = []

    async def body(b):
        return await asyncio.gather(b.submit("records", [1, 2]), b.submit("records", [3]),
                                    b.submit("records", [4, 5, 6]))

    results, b = run(_with(recorder(calls), body))
    assert results == [[10, 20], [30], [40, 50, 60]]
    assert b.batches == 1 and sorted(calls[0]) == [1, 2, 3, 4, 5, 6]


def test_a_full_batch_does_not_wait_and_the_rest_goes_next():
    calls = []

    async def body(b):
        return await asyncio.gather(*(b.submit("records", [i, i]) for i in range(5)))

    start = time.monotonic()
    results, b = run(_with(recorder(calls), body, max_batch=4, wait_s=5.0))
    assert results == [[i * 10, i * 10] for i in range(5)]
    assert [len(c) for c in calls] == [4, 2, 4]  # one of each; the one not started; the rest
    assert time.monotonic() - start < 4  # none waited out the 5 s window


def test_a_failing_request_gets_the_error_and_the_others_their_results():
    def score(items):
        if "bad" in items:
            raise ValueError("cannot score 'bad'")
        return [s.upper() for s in items]

    async def body(b):
        return await asyncio.gather(b.submit("records", ["a"]), b.submit("records", ["bad"]),
                                    b.submit("records", ["c", "d"]), return_exceptions=True)

    (a, bad, cd), b = run(_with(score, body))
    assert a == ["A"] and cd == ["C", "D"]
    assert isinstance(bad, ValueError) and "cannot score" in str(bad)
    assert b.batches == 4  # the shared batch, then each request alone


def test_a_heavy_request_holds_a_light_one_back_for_at_most_one_batch():
    """100 items in batches of 4: a light request sent while the heavy one is scored gets its
    answer from the next batch (its own: requests not yet started take every other batch), not
    after the heavy one's 25 batches."""
    calls = []

    async def body(b):
        heavy = asyncio.ensure_future(b.submit("records", list(range(100))))
        while not calls:
            await asyncio.sleep(0.005)
        light = await b.submit("records", [1000])
        return await heavy, light

    (heavy, light), b = run(_with(recorder(calls, delay=0.02), body, max_batch=4, wait_s=0))
    assert heavy == [x * 10 for x in range(100)] and light == [10000]
    assert len(calls) == 26 and calls[1] == [1000]


def test_the_lanes_take_turns_on_the_one_thread():
    """A heavy records request does not hold back a pairs request for more than one batch."""
    order = []
    threads = set()

    def lane(name):
        def score(items):
            order.append(name)
            threads.add(threading.get_ident())
            time.sleep(0.02)
            return list(items)
        return score

    async def body(b):
        heavy = asyncio.ensure_future(b.submit("records", list(range(40))))
        while not order:
            await asyncio.sleep(0.005)
        pairs = await b.submit("pairs", ["p"])
        return await heavy, pairs, list(order)

    (heavy, pairs, seen), b = run(_with({"records": lane("records"), "pairs": lane("pairs")}, body,
                                        max_batch=4, wait_s=0))
    assert heavy == list(range(40)) and pairs == ["p"]
    assert seen.index("pairs") <= 2 and len(threads) == 1


def test_a_request_abandoned_by_its_client_is_not_scored():
    seen = []

    def score(items):
        seen.extend(items)
        return items

    async def body(b):
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(b.submit("records", ["late"]), 0.0)
        return await b.submit("records", ["next"])

    result, _ = run(_with(score, body, wait_s=0.01))
    assert result == ["next"] and "late" not in seen


def test_a_timed_out_request_stops_at_the_next_batch_boundary():
    """Past its timeout, a 100-item request has scored only the batches begun by then; a request
    sent right after is answered from the next batch."""
    calls = []

    async def body(b):
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(b.submit("records", list(range(100))), 0.1)
        scored_by_then = len(calls)
        after = await b.submit("records", [7])
        return scored_by_then, after

    (by_then, after), b = run(_with(recorder(calls, delay=0.05), body, max_batch=4, wait_s=0))
    assert after == [70]
    assert len(calls) <= by_then + 2 < 25  # the batch in progress ran out, then the good one
    assert b.queued == 0 and not b.waiting["records"]


def test_a_full_queue_refuses_and_frees_up_as_it_drains():
    calls = []

    async def body(b):
        first = asyncio.ensure_future(b.submit("records", list(range(6))))
        await asyncio.sleep(0)
        with pytest.raises(Overloaded, match="at most 8"):
            await b.submit("records", [1, 2, 3])
        await first
        return await b.submit("records", [1, 2, 3])

    result, b = run(_with(recorder(calls, delay=0.02), body, max_batch=2, wait_s=0, max_queue=8))
    assert result == [10, 20, 30]


def test_draining_refuses_what_waits_and_what_comes():
    async def body(b):
        slow = asyncio.ensure_future(b.submit("records", list(range(20))))
        await asyncio.sleep(0.05)
        b.drain()
        with pytest.raises(Draining):
            await slow
        with pytest.raises(Draining):
            await b.submit("records", [1])
        return b.queued

    queued, b = run(_with(recorder([], delay=0.05), body, max_batch=2, wait_s=0))
    assert queued == 0 and b.batches <= 2


def test_costly_items_fill_a_batch_by_their_cost_not_their_count():
    """Items of cost 100 against a budget of 250: two per batch (a costlier one alone), while a
    cheap request sent beside them shares the next batch with at most two of them."""
    calls = []

    async def body(b):
        heavy = asyncio.ensure_future(b.submit("records", list(range(10)), costs=[100] * 9 + [900]))
        while not calls:
            await asyncio.sleep(0.005)
        light = await b.submit("records", [1000, 1001], costs=[1, 1])
        return await heavy, light

    (heavy, light), b = run(_with(recorder(calls, delay=0.02), body, max_batch=8, wait_s=0,
                                  max_cost=250))
    assert heavy == [x * 10 for x in range(10)] and light == [10000, 10010]
    assert [len(c) for c in calls if 1000 not in c][:1] == [2] and [9] in calls  # 900: alone
    shared = next(c for c in calls if 1000 in c)
    assert len([x for x in shared if x < 1000]) <= 2
