"""Requests of many clients scored together, fairly, on one judge thread.

Each request is a *job*: its items (records or pairs) in one *lane* (``records`` or ``pairs``,
each with its own score function). One loop builds a batch at a time from one lane, the lanes
taking turns, and scores it with one call in a single worker thread (the model is never used by
two threads at once). A batch holds at most ``max_batch`` items and, when items carry a cost
(an upper bound on their NLI calls), at most ``max_cost`` in all (at least one item), so a batch
of costly items lasts about as long as any other. Jobs not yet started and jobs under way take
turns: a new request is scored in the batch after the one in progress, not behind a heavy
request's remaining batches; within a batch, items are shared out round-robin among the jobs,
one each in turn, so a heavy request fills what the others leave. A batch goes as soon
as it is full, ``wait_s`` after its oldest job arrived, or at once when that job has waited
through a batch already.

A job whose client stopped waiting (its future cancelled, e.g. past the server's timeout) is
dropped at the next batch boundary: no batch is started for it. When a batch fails, its jobs'
items are scored job by job, so a request that breaks the judge gets the error and the others
their results. At most ``max_queue`` items wait (:class:`Overloaded` above it); after
:meth:`Batcher.drain` every waiting job gets :class:`Draining` and the batch in progress ends
the loop. Nothing here grows with the number of requests served.
"""
from __future__ import annotations

import asyncio
from collections import deque
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from citetrain.serve.config import flag

Score = Callable[[list[Any]], Sequence[Any]]


class Overloaded(Exception):
    """The queue is full: the request is refused (503 with Retry-After)."""


class Draining(Exception):
    """The server is shutting down: the request is refused (503)."""


@dataclass(eq=False)
class Job:
    """One request: its items, how many were handed to batches, and the results so far."""

    lane: str
    items: list[Any]
    costs: list[int]
    future: asyncio.Future
    arrived: float
    taken: int = 0
    results: list[Any] = field(default_factory=list)

    @property
    def waiting(self) -> int:
        return len(self.items) - self.taken


Chunk = tuple[Job, int, int]  # a job and the slice [start, end) of its items in a batch


class Batcher:
    """``await batcher.submit(lane, items)`` -> the results of ``lanes[lane](items)``."""

    def __init__(self, lanes: dict[str, Score], *, max_batch: int, wait_s: float,
                 executor: Executor, max_queue: int | None = None,
                 max_cost: int | None = None) -> None:
        self.lanes, self.max_batch, self.wait_s = lanes, max_batch, wait_s
        self.executor, self.max_queue, self.max_cost = executor, max_queue, max_cost
        self.waiting: dict[str, deque[Job]] = {lane: deque() for lane in lanes}
        self.queued = 0  # items waiting, across lanes
        self.batches = 0  # model batches scored (a counter: nothing is kept per batch)
        self.draining = False
        self._turn = 0
        self._fresh_turn = {lane: True for lane in lanes}
        self._last_batch = float("-inf")  # when the last batch was started (loop time)
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None

    def start(self, on_dead: Callable[[BaseException | None], None] | None = None) -> None:
        """Start the loop; ``on_dead`` is called (with the loop's exception, if any) if it ever
        ends while the server is not draining, or with an exception: nothing would be scored any
        more (:attr:`dead`)."""
        self._task = asyncio.get_running_loop().create_task(self._loop())

        def ended(task: asyncio.Task) -> None:
            if self.dead and on_dead is not None:
                on_dead(None if task.cancelled() else task.exception())

        self._task.add_done_callback(ended)

    @property
    def dead(self) -> bool:
        """Whether the loop ended with an exception, or ended while the server was not draining."""
        task = self._task
        if task is None or not task.done():
            return False
        failed = not task.cancelled() and task.exception() is not None
        return failed or not self.draining

    async def stop(self) -> None:
        """Refuse what waits and end the loop (the batch in progress runs out in its thread)."""
        self.drain()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def drain(self) -> None:
        """Stop taking work: every waiting job gets :class:`Draining`, new ones too."""
        self.draining = True
        for jobs in self.waiting.values():
            for job in jobs:
                if not job.future.done():
                    job.future.set_exception(Draining("the server is shutting down"))
            jobs.clear()
        self.queued = 0
        self._wake.set()

    async def submit(self, lane: str, items: Sequence[Any],
                     costs: Sequence[int] | None = None) -> list[Any]:
        """The results of ``items`` in order (``costs``: each item's, default 1); cancelling the
        caller drops what is not started."""
        if self.draining:
            raise Draining("the server is shutting down")
        if self.max_queue is not None and self.queued + len(items) > self.max_queue:
            raise Overloaded(f"{self.queued} items waiting; at most {self.max_queue} "
                             f"({flag('max_queue')})")
        loop = asyncio.get_running_loop()
        job = Job(lane, list(items), list(costs) if costs is not None else [1] * len(items),
                  loop.create_future(), loop.time())
        if not job.items:
            return []
        self.waiting[lane].append(job)
        self.queued += len(job.items)
        self._wake.set()
        try:
            return await job.future
        finally:
            self._forget(job)

    def _forget(self, job: Job) -> None:
        """Take a finished or abandoned job off its lane (its waiting items leave the queue)."""
        jobs = self.waiting[job.lane]
        if job in jobs:
            jobs.remove(job)
            self.queued -= job.waiting

    def _ready_lane(self) -> tuple[str | None, float | None]:
        """The next lane (in turn) with a batch to score now, else when the first will be."""
        now = asyncio.get_running_loop().time()
        names = list(self.lanes)
        soonest = None
        for k in range(len(names)):
            name = names[(self._turn + k) % len(names)]
            jobs = self.waiting[name]
            if not jobs:
                continue
            oldest = min(j.arrived for j in jobs)
            due = oldest + self.wait_s
            if (sum(j.waiting for j in jobs) >= self.max_batch or due <= now
                    or oldest <= self._last_batch  # it waited through a batch already
                    or (self.max_cost is not None
                        and sum(sum(j.costs[j.taken:]) for j in jobs) >= self.max_cost)):
                self._turn = (names.index(name) + 1) % len(names)
                return name, None
            soonest = due if soonest is None else min(soonest, due)
        return None, soonest

    async def _next_lane(self) -> str:
        while True:
            self._wake.clear()
            lane, due = self._ready_lane()
            if lane is not None:
                return lane
            timeout = None if due is None else max(due - asyncio.get_running_loop().time(), 0)
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except (asyncio.TimeoutError, TimeoutError):
                pass

    def _fill(self, lane: str) -> list[Chunk]:
        """The lane's next batch. Requests not yet started (fresh) and those under way take
        turns: a fresh turn takes fresh requests alone, so a new request waits for at most the
        batch in progress; the other turn takes those under way first and fills the rest with
        fresh ones. Within a turn, items are taken one per request in turn (round-robin)."""
        jobs = self.waiting[lane]
        fresh = [j for j in jobs if not j.taken]
        going = [j for j in jobs if j.taken]
        groups = [fresh] if fresh and going and self._fresh_turn[lane] else [going, fresh]
        self._fresh_turn[lane] = len(groups) == 2
        share: dict[int, int] = {}
        room, cost = self.max_batch, 0
        for group in groups:
            room, cost = self._share(group, share, room, cost)
        chunks: list[Chunk] = []
        for job in [j for j in jobs if share.get(id(j))]:
            n = share[id(job)]
            chunks.append((job, job.taken, job.taken + n))
            job.taken += n
            self.queued -= n
            jobs.remove(job)
        jobs.extend(job for job, _, _ in chunks if job.waiting)  # served jobs go behind the others
        return chunks

    def _share(self, group: list[Job], share: dict[int, int], room: int, cost: int) -> tuple[int, int]:
        """Water-fill ``share`` (items per job) from ``group``, one item per job per round, while
        the batch has room and budget (its first item always fits); returns what is left."""
        active = list(group)
        while room and active:
            for job in list(active):
                taken = share.get(id(job), 0)
                nxt = job.costs[job.taken + taken]
                if room == 0 or (self.max_cost is not None and room < self.max_batch
                                 and cost + nxt > self.max_cost):
                    active.remove(job)  # the batch is full for this job
                    continue
                share[id(job)] = taken + 1
                room, cost = room - 1, cost + nxt
                if taken + 1 == job.waiting:
                    active.remove(job)
        return room, cost

    async def _run(self, lane: str, items: list[Any]) -> Sequence[Any]:
        self.batches += 1
        self._last_batch = asyncio.get_running_loop().time()
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.lanes[lane], items)

    async def _loop(self) -> None:
        while not self.draining:
            lane = await self._next_lane()
            if self.draining:
                return
            chunks = [c for c in self._fill(lane) if not c[0].future.done()]
            if not chunks:
                continue
            flat = [x for job, a, b in chunks for x in job.items[a:b]]
            try:
                results = await self._run(lane, flat)
            except Exception as exc:
                if len(chunks) == 1:
                    self._fail(chunks[0][0], exc)
                else:  # find the request that broke it: each alone
                    for chunk in chunks:
                        await self._alone(lane, chunk)
                continue
            start = 0
            for job, a, b in chunks:
                self._deliver(job, list(results[start:start + b - a]))
                start += b - a

    async def _alone(self, lane: str, chunk: Chunk) -> None:
        job, a, b = chunk
        if job.future.done():
            return
        try:
            out = await self._run(lane, job.items[a:b])
        except Exception as exc:  # the caller turns it into a response
            self._fail(job, exc)
        else:
            self._deliver(job, list(out))

    def _deliver(self, job: Job, results: list[Any]) -> None:
        if job.future.done():
            return
        job.results.extend(results)
        if len(job.results) == len(job.items):
            job.future.set_result(job.results)

    def _fail(self, job: Job, exc: Exception) -> None:
        if not job.future.done():
            job.future.set_exception(exc)
        self._forget(job)
