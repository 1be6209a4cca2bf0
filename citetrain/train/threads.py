"""CPU threads per training process: each process gets its share of the machine's cores.

``accelerate launch`` without ``--cpu`` sets ``OMP_NUM_THREADS=1`` for every process, so a single
CPU process uses one core of many (measured on 2 cores: the judge recipe at 3.1 s/step with one
thread, 2.07 s/step with two). ``citetrain train`` passes ``--num_cpu_threads_per_process`` from
:func:`threads_per_process`; a run started some other way reports a one-thread process on a
multi-core CPU with :func:`one_thread_warning`.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

USER_THREADS = "CITETRAIN_USER_THREADS"  # set by `citetrain train` when OMP_NUM_THREADS was the user's


def cpu_cores() -> int:
    """The cores this process may run on (its CPU affinity; ``os.cpu_count()`` where the
    platform has no affinity)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def threads_per_process(processes_per_machine: int, env: Mapping[str, str],
                        cores: int | None = None) -> int | None:
    """``cores // processes_per_machine`` (at least 1), or ``None`` when ``OMP_NUM_THREADS`` is
    set already in ``env`` (the user's setting wins)."""
    if "OMP_NUM_THREADS" in env:
        return None
    return max((cores or cpu_cores()) // max(processes_per_machine, 1), 1)


def one_thread_warning(threads: int, local_processes: int, cores: int | None = None) -> str | None:
    """A one-line notice when a CPU process runs ``threads == 1`` although the machine has cores
    to spare for each of its ``local_processes``; ``None`` otherwise."""
    share = (cores or cpu_cores()) // max(local_processes, 1)
    if threads != 1 or share <= 1:
        return None
    return (f"[citetrain] this process runs 1 CPU thread but has {share} cores to itself "
            "(`accelerate launch` without --cpu sets OMP_NUM_THREADS=1): pass "
            f"--num_cpu_threads_per_process {share} to accelerate launch, or start the run with "
            "`citetrain train RECIPE`, which does")


def thread_notice(recipe: Any) -> str | None:
    """On a CPU run, the notice of :func:`one_thread_warning` for this
    process (printed once per machine by the run's entry point)."""
    import os

    import torch

    if (torch.cuda.is_available() and not recipe.train.use_cpu) or os.environ.get(USER_THREADS):
        return None
    return one_thread_warning(torch.get_num_threads(), int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
