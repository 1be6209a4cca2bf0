"""An NLI judge spread over worker processes: each scores a shard of the records on its own cores.

One process reading a cross-encoder with two threads leaves a core idle while it tokenizes and
runs the judge's rounds in Python, and every round waits for its slowest batch. ``workers``
processes of ``cores / workers`` threads each score a shard of the records start to finish, so
those steps run side by side. Shards are balanced by their statements times their passages (a
statement asks about each passage and their subsets), the largest records placed first. Each
record goes out under its position as a private id (records of equal ids never mix), and the
results are merged in the records' order under their own ids; the dataset scores are computed
again from the merged per-record scores (:func:`~citetrain.metrics.citeeval.citeeval_scores`),
so they equal one process's up to the float rounding of other batches.

Each worker builds its judge once (the factory ``make_judge`` hands it: itself, with the same
name and options) and keeps it, model loaded and compiled, for every later ``score``; after each
shard its engine forgets its in-memory answers, as a server's does, so memory stays bounded and
each call is scored afresh (the NLI cache file, shared by the workers as by any two processes,
keeps what it keeps).
"""
from __future__ import annotations

import multiprocessing as mp
import time
from collections import Counter
from typing import Any, Callable, Sequence

from citetrain.errors import CitetrainError
from citetrain.judges.base import JudgeResult
from citetrain.metrics.base import MetricResult
from citetrain.metrics.citeeval import citeeval_scores
from citetrain.records import Record


def shard_records(records: Sequence[Record], shards: int) -> list[list[int]]:
    """Indices of ``records`` in ``shards`` groups of about equal work (statements × (passages
    + 1), longest-processing-time first), each group in the records' order."""
    from citetrain.text.statements import statements

    weight = [len(statements(r.output)) * (len(r.docs) + 1) for r in records]
    groups: list[list[int]] = [[] for _ in range(shards)]
    load = [0] * shards
    for i in sorted(range(len(records)), key=lambda i: -weight[i]):
        k = load.index(min(load))
        groups[k].append(i)
        load[k] += weight[i]
    return [sorted(g) for g in groups]


SUMMED = ("records", "statements", "skipped_empty_output", "skipped_ids", "contexts", "actions")


def _summed(values: list[Any]) -> Any:
    """A count over shards: numbers add, lists concatenate, dicts of counts add key by key."""
    if isinstance(values[0], list):
        return [x for v in values for x in v]
    if isinstance(values[0], dict):
        total: Counter = Counter()
        for v in values:
            total.update(v)
        return dict(total)
    return sum(values)


def merge_results(parts: Sequence[MetricResult], records: Sequence[Record]) -> MetricResult:
    """One CiteEval result from the shards' (scored under ids ``"0"``, ``"1"`` ...: each record's
    position in ``records``): rows in the records' order under their own ids, the counts
    (``SUMMED``) added up, the settings kept once, and the dataset scores from the per-record
    scores."""
    def place(rows: Sequence[dict]) -> list[dict]:
        ordered = sorted(rows, key=lambda r: int(r["id"]))  # stable: statements keep their order
        return [{**r, "id": records[int(r["id"])].id} for r in ordered]

    per_record = place([e for p in parts for e in p.per_record])
    rows = place([r for p in parts for r in p.per_statement])
    info = {k: _summed([p.info.get(k, 0) for p in parts]) if k in SUMMED else v
            for k, v in parts[0].info.items()}  # the rest: the judge's settings
    if "skipped_ids" in info:
        info["skipped_ids"] = [records[i].id for i in sorted(int(x) for x in info["skipped_ids"])]
    scores, counts = citeeval_scores(per_record, info["scenario"])
    return MetricResult(parts[0].name, scores, per_record, rows, {**info, **counts})


def _serve(conn: Any, factory: Callable[[], Any], threads: int) -> None:
    """A worker: build the judge, say ready, then score each shard it is sent until ``None``."""
    import torch

    torch.set_num_threads(threads)
    try:
        judge = factory()
        conn.send(("ready", judge.name))
    except Exception as exc:  # noqa: BLE001 - reported in the parent, one line
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    while (records := conn.recv()) is not None:
        try:
            conn.send(("ok", judge.score(records, progress=False).result))
        except Exception as exc:  # noqa: BLE001
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
        judge.engine.forget()  # memory stays bounded; the cache file, if any, keeps the answers


class WorkerJudge:
    """``WorkerJudge(factory, workers=2, threads=None)``: the NLI judge that ``factory()`` builds
    (a picklable callable, e.g. ``functools.partial(make_judge, "crossencoder:PATH", ...)``, as
    ``make_judge(..., workers=N)`` passes) in ``workers`` processes of ``threads`` torch threads
    each (default: this process's threads shared out, at least one). ``close()`` stops them
    (also at exit)."""

    def __init__(self, factory: Callable[[], Any], workers: int = 2,
                 threads: int | None = None) -> None:
        import torch

        self._conns: list[Any] = []
        self._procs: list[Any] = []
        if workers < 2:
            raise CitetrainError(f"judge workers must be 2 or more, not {workers}")
        self.threads = threads or max(1, torch.get_num_threads() // workers)
        ctx = mp.get_context("spawn")  # torch's threads do not survive a fork
        for _ in range(workers):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_serve, args=(child, factory, self.threads), daemon=True)
            proc.start()
            self._conns.append(parent)
            self._procs.append(proc)
        names = [self._receive(c) for c in self._conns]
        self.name = f"{names[0]} x{workers}"

    def _receive(self, conn: Any) -> Any:
        try:
            status, value = conn.recv()
        except EOFError:
            self.close()
            raise CitetrainError("a judge worker process died (out of memory?)") from None
        if status == "error":
            self.close()
            raise CitetrainError(f"judge worker: {value}")
        return value

    def score(self, records: Sequence[Record], *, progress: bool = True) -> JudgeResult:
        """CiteEval ratings of every statement, the shards scored side by side."""
        if not self._conns:
            raise CitetrainError(f"judge {self.name}: its workers are stopped (closed, or one failed)")
        start = time.perf_counter()
        records = list(records)
        private = [r.model_copy(update={"id": str(i)}) for i, r in enumerate(records)]
        shards = [g for g in shard_records(records, len(self._conns)) if g]
        if not shards:
            raise CitetrainError(f"judge {self.name}: no records to score")
        for conn, idx in zip(self._conns, shards):
            conn.send([private[i] for i in idx])
        parts = [self._receive(conn) for conn in self._conns[:len(shards)]]
        result = merge_results(parts, records)
        return JudgeResult(self.name, result, time.perf_counter() - start)

    def close(self) -> None:
        """Stop the workers."""
        for conn in self._conns:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self._conns, self._procs = [], []

    def __del__(self) -> None:
        self.close()
