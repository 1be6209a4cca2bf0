"""``citetrain serve JUDGE --calibrate``: the ``--max-work`` and ``--batch-work`` for this judge on
this machine.

The server counts a request's cost in characters the judge reads (:mod:`citetrain.serve.cost`);
how many seconds a unit costs depends on the judge and the machine. Calibration times the judge
in this process, as the server runs it (the plan, then its chunks scored in batches of at most
``--batch-work``), on adversarial requests: every statement's words spread two to a passage, so
that no passage, pair or triple entails it but all passages together do and the subset search
asks every pair and triple; all words made up from a fresh seed, so that no memory has seen them;
shapes from 100 passages of one record to 64 records of 10. The slowest rate seen (CPU seconds
per unit) gives the flags: ``--max-work`` for a request of ``target_s`` seconds and
``--batch-work`` for a batch of ``batch_s``.
"""
from __future__ import annotations

import random
import time
from typing import Any, Callable, Sequence

from citetrain.records import Doc, Record
from citetrain.serve.bodies import RequestError
from citetrain.serve.config import ServeConfig, flag
from citetrain.serve.cost import Plan, plan_records

# (records, passages per record, characters per passage; 0: just the spread words)
SHAPES: tuple[tuple[int, int, int], ...] = (
    (1, 100, 0), (1, 100, 7000), (2, 50, 9000), (8, 30, 0), (64, 10, 0))
_LETTERS, _VOWELS = "bcdfghjklmnprstvwz", "aeiou"


def _words(rng: random.Random, n: int) -> list[str]:
    """``n`` made-up words of 3-5 syllables."""
    return ["".join(rng.choice(_LETTERS) + rng.choice(_VOWELS) for _ in range(rng.randint(3, 5)))
            for _ in range(n)]


def spread_record(rid: str, n_docs: int, n_statements: int, passage_chars: int,
                  rng: random.Random) -> Record:
    """A record whose subset search asks every pair and triple (module docstring): statement
    words k and k+1 in passage k, each passage padded with unseen words to ``passage_chars``."""
    sentences = [_words(rng, 10) for _ in range(n_statements)]
    docs = []
    for k in range(n_docs):
        text = " ".join(w for ws in sentences for w in (ws[k % 10], ws[(k + 1) % 10]))
        pad = max(0, passage_chars - len(text)) // 8
        docs.append(Doc(title=f"passage {k + 1}", text=" ".join([text, *_words(rng, pad)])))
    output = " ".join(" ".join(ws).capitalize() + " [1][2]." for ws in sentences)
    return Record(id=rid, question="What do the passages say?", docs=docs, output=output)


def shape_records(shape: tuple[int, int, int], judge: Any, config: ServeConfig, fill: float,
                  seed: int) -> list[Record]:
    """Records of ``shape`` with as many statements as keep the plan under ``fill`` ×
    ``--max-work`` (and under the statement cap)."""
    n_records, n_docs, chars = shape

    def build(n: int) -> list[Record]:
        rng = random.Random(seed)
        per, extra = divmod(n, n_records)
        return [spread_record(f"r{r}", n_docs, per + (r < extra), chars, rng)
                for r in range(n_records)]

    def fits(n: int) -> bool:
        try:
            return sum(plan_records(build(n), config, judge).costs) <= fill * config.max_work
        except RequestError:  # over a cap
            return False

    lo, hi = n_records, min(config.max_statements, 4000)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return build(lo)


def time_plan(judge: Any, plan: Plan, batch_work: int) -> float:
    """CPU seconds of scoring ``plan``'s chunks in batches of at most ``batch_work``, as the
    server does."""
    from citetrain.serve.scoring import score_chunks

    start = time.process_time()
    batch: list[Any] = []
    cost = 0
    for item, c in zip(plan.items, plan.costs):
        if batch and cost + c > batch_work:
            score_chunks(judge, batch)
            batch, cost = [], 0
        batch.append(item)
        cost += c
    if batch:
        score_chunks(judge, batch)
    return time.process_time() - start


def calibrate(judge: Any, config: ServeConfig, *, target_s: float = 5.0, batch_s: float = 0.25,
              fill: float = 0.5, shapes: Sequence[tuple[int, int, int]] = SHAPES,
              log: Callable[[str], None] = print) -> tuple[int, int]:
    """``(max_work, batch_work)`` from the slowest CPU time per unit of work seen on ``shapes``
    (each filled to ``fill`` × the config's ``--max-work``), for ``target_s`` and ``batch_s``."""
    seed = time.time_ns()
    worst = 0.0
    log(f"{'shape (records x passages x chars)':<36}{'work':>12}{'CPU s':>8}{'us/unit':>9}")
    for shape in shapes:
        records = shape_records(shape, judge, config, fill, seed)
        start = time.process_time()
        try:
            plan = plan_records(records, config, judge)
        except RequestError as exc:  # even its smallest fill is over a cap
            log(f"{' x '.join(map(str, shape)):<36}skipped: {exc.message}")
            continue
        cpu = time.process_time() - start + time_plan(judge, plan, config.batch_work)
        work = sum(plan.costs)
        rate = cpu / max(work, 1)
        worst = max(worst, rate)
        log(f"{' x '.join(map(str, shape)):<36}{work:>12,}{cpu:>8.2f}{rate * 1e6:>9.2f}")
    if not worst:
        raise ValueError(f"no shape fits the caps: raise {flag('max_work')} to calibrate")
    return int(target_s / worst), int(batch_s / worst)
