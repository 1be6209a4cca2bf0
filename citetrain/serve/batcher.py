"""Requests from many clients scored together: a short wait window and a maximum batch.

Each request puts its items (records or pairs) on a queue. One loop takes the first request,
waits up to ``wait_s`` for more until ``max_batch`` items are in hand, and scores them all with
one call of ``score`` in a single worker thread (the model is never used by two threads at once);
each request gets its own slice of the results back. When a batch fails, its requests are scored
one by one, so a request that breaks the judge gets the error and the others their results.
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence


class Batcher:
    """``await batcher.submit(items)`` -> the results of ``score(items)``, scored in batches."""

    def __init__(self, score: Callable[[list[Any]], Sequence[Any]], *, max_batch: int,
                 wait_s: float, executor: ThreadPoolExecutor) -> None:
        self.score, self.max_batch, self.wait_s, self.executor = score, max_batch, wait_s, executor
        self.queue: asyncio.Queue[tuple[list[Any], asyncio.Future]] = asyncio.Queue()
        self.batches: list[int] = []  # items per batch scored (for tests and the health route)
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def submit(self, items: list[Any]) -> list[Any]:
        future = asyncio.get_running_loop().create_future()
        await self.queue.put((list(items), future))
        return await future

    async def _collect(self) -> list[tuple[list[Any], asyncio.Future]]:
        batch = [await self.queue.get()]
        size = len(batch[0][0])
        deadline = asyncio.get_running_loop().time() + self.wait_s
        while size < self.max_batch:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0 and self.queue.empty():
                break
            try:
                nxt = await asyncio.wait_for(self.queue.get(), max(left, 0))
            except (asyncio.TimeoutError, TimeoutError):
                break
            batch.append(nxt)
            size += len(nxt[0])
        return [(items, fut) for items, fut in batch if not fut.done()]  # timed-out ones dropped

    async def _run(self, items: list[Any]) -> Sequence[Any]:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.score, items)

    async def _loop(self) -> None:
        while True:
            batch = await self._collect()
            if not batch:
                continue
            flat = [x for items, _ in batch for x in items]
            self.batches.append(len(flat))
            try:
                results = await self._run(flat)
            except Exception as exc:
                if len(batch) == 1:
                    if not batch[0][1].done():
                        batch[0][1].set_exception(exc)
                else:  # find the request that broke it: each alone
                    for items, fut in batch:
                        await self._settle(items, fut)
                continue
            start = 0
            for items, fut in batch:
                if not fut.done():
                    fut.set_result(list(results[start:start + len(items)]))
                start += len(items)

    async def _settle(self, items: list[Any], fut: asyncio.Future) -> None:
        try:
            out = await self._run(items)
        except Exception as exc:  # the caller turns it into a response
            if not fut.done():
                fut.set_exception(exc)
        else:
            if not fut.done():
                fut.set_result(list(out))
