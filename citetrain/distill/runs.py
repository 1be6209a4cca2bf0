"""Training runs of a distillation chain as processes (``python -m citetrain.train RECIPE --set
...``), several at once where the machine allows.

:func:`slots` decides how many run at once and what each process gets: on GPUs one run per device
(``CUDA_VISIBLE_DEVICES``; more runs than devices share them round-robin), on a CPU one run per
core as memory allows, each with its share of the cores (``OMP_NUM_THREADS``). :func:`run_all`
starts them, writes each one's output to its log, reports each as it ends, and on a failure
lets the running ones finish (their work is kept) but starts no more.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from citetrain.errors import CitetrainError

RUN_MEMORY = 3 << 30  # bytes a CPU training run of a small cross-encoder may take


def train_argv(recipe: str, sets: list[str]) -> list[str]:
    """The command line of one training run: ``python -m citetrain.train RECIPE --set ...``
    (what ``citetrain distill --dry-run`` prints is this list, and it is what runs)."""
    argv = [sys.executable, "-m", "citetrain.train", recipe]
    for item in sets:
        argv += ["--set", item]
    return argv


@dataclass
class TrainRun:
    """One training process: its name, ``--set`` items, log file, and what to do before it
    starts (e.g. copy its data) and after it ends well."""

    name: str
    recipe: str
    sets: list[str]
    log: Path
    before: Callable[[], None] | None = None
    after: Callable[[float], None] | None = None
    argv: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.argv = train_argv(self.recipe, self.sets)


def _memory() -> int | None:
    """The machine's memory in bytes, where the platform says."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def gpu_ids() -> list[str]:
    """The GPUs this process may use, as ``CUDA_VISIBLE_DEVICES`` names them to a child."""
    import torch

    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    visible = [x.strip() for x in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")
               if x.strip()]
    return visible[:n] if len(visible) >= n > 0 else [str(i) for i in range(n)]


def slots(parallel: str | int, runs: int, gpu: bool) -> list[dict[str, str]]:
    """The environment of each run slot (``len`` = runs at once): ``auto`` is one per GPU, or on
    a CPU one per core as memory allows (:data:`RUN_MEMORY` each); the slots share the cores
    (``OMP_NUM_THREADS``, unless the user set it)."""
    from citetrain.train.threads import USER_THREADS, cpu_cores, threads_per_process

    devices = gpu_ids() if gpu else []
    if parallel == "auto":
        if devices:
            n = len(devices)
        else:
            mem = _memory()
            n = min(cpu_cores(), max(mem // RUN_MEMORY, 1) if mem else cpu_cores())
    else:
        n = int(parallel)
    n = max(min(n, runs), 1)
    threads = os.environ.get("OMP_NUM_THREADS") or str(threads_per_process(n, {}))
    base = {"TOKENIZERS_PARALLELISM": "false", "PYTHONUNBUFFERED": "1", USER_THREADS: "1",
            "OMP_NUM_THREADS": threads}
    if devices:
        return [{**base, "CUDA_VISIBLE_DEVICES": devices[k % len(devices)]} for k in range(n)]
    return [dict(base) for _ in range(n)]


def describe(envs: list[dict[str, str]]) -> str:
    """How the slots run, in words: ``2 at a time, 1 thread each`` / ``on GPU 0, 1``."""
    if "CUDA_VISIBLE_DEVICES" in envs[0]:
        gpus = sorted({e["CUDA_VISIBLE_DEVICES"] for e in envs})
        return f"{len(envs)} at a time on GPU {', '.join(gpus)}"
    t = envs[0]["OMP_NUM_THREADS"]
    return f"{len(envs)} at a time, {t} thread{'s' if t != '1' else ''} each"


def _last_line(log: Path) -> str:
    """The log's last error line (``error:``), else its last non-empty line."""
    try:
        lines = [x.strip() for x in log.read_text(encoding="utf-8", errors="replace").splitlines()
                 if x.strip()]
    except OSError:
        return ""
    errors = [x for x in lines if "error:" in x]
    return (errors or lines or [""])[-1][:300]


def run_all(todo: list[TrainRun], envs: list[dict[str, str]], say: Callable[[str], None],
            cwd: str | None = None) -> None:
    """Run ``todo`` with one process per slot of ``envs`` at a time; each run's ``after`` is
    called when it ends well. A failed run stops new starts; the error (one line, naming the
    run and its log) is raised once the running ones end. Ctrl-C stops them all."""
    pending = list(todo)
    running: dict[int, tuple[TrainRun, subprocess.Popen, float]] = {}  # slot -> run
    failed: list[str] = []
    total = len(todo)
    try:
        while pending or running:
            for slot, (run, proc, t0) in list(running.items()):
                if proc.poll() is None:
                    continue
                del running[slot]
                took = time.time() - t0
                if proc.returncode == 0:
                    if run.after is not None:
                        run.after(took)
                    say(f"{run.name}: done in {took:.0f} s")
                else:
                    failed.append(f"{run.name} failed (exit {proc.returncode}: "
                                  f"{_last_line(run.log)}); its log: {run.log}")
                    say(f"{run.name}: FAILED in {took:.0f} s (log {run.log})")
            free = [k for k in range(len(envs)) if k not in running]
            while pending and free and not failed:
                run, slot = pending.pop(0), free.pop(0)
                if run.before is not None:
                    run.before()
                run.log.parent.mkdir(parents=True, exist_ok=True)
                with open(run.log, "a", encoding="utf-8") as log:
                    proc = subprocess.Popen(run.argv, stdout=log, stderr=subprocess.STDOUT,
                                            env={**os.environ, **envs[slot]}, cwd=cwd)
                running[slot] = (run, proc, time.time())
                say(f"{run.name}: started ({total - len(pending)} of {total}; log {run.log})")
            if failed and not running:
                break
            time.sleep(0.5)
    finally:
        for _, proc, _ in running.values():
            proc.terminate()
        for _, proc, _ in running.values():
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
    if failed:
        raise CitetrainError(failed[0] + (f" ({len(failed) - 1} more failed)" if len(failed) > 1
                                          else ""))
