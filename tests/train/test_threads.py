"""CPU threads per process: the share of the cores, and the notice for a one-thread process."""
from __future__ import annotations

import subprocess
import sys

import pytest

from citetrain.train.threads import cpu_cores, one_thread_warning, threads_per_process


def test_threads_per_process_shares_the_cores():
    assert threads_per_process(1, {}, cores=2) == 2
    assert threads_per_process(2, {}, cores=2) == 1
    assert threads_per_process(3, {}, cores=16) == 5
    assert threads_per_process(4, {}, cores=2) == 1
    assert threads_per_process(1, {"OMP_NUM_THREADS": "1"}, cores=8) is None


def test_one_thread_notice_only_when_cores_are_left_idle():
    msg = one_thread_warning(1, 1, cores=2)
    assert msg and "--num_cpu_threads_per_process 2" in msg and "citetrain train" in msg
    assert one_thread_warning(2, 1, cores=2) is None      # already uses its share
    assert one_thread_warning(1, 2, cores=2) is None      # two processes, one core each
    assert one_thread_warning(1, 1, cores=1) is None      # nothing to spare


def test_cpu_cores_counts_the_affinity():
    assert 1 <= cpu_cores() <= (__import__("os").cpu_count() or 1)


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_a_run_started_with_one_thread_says_so(tmp_path, monkeypatch):
    """``python -m citetrain.train`` under OMP_NUM_THREADS=1 (what a bare ``accelerate launch``
    gives) prints the notice before training; with its share of the cores it prints none."""
    code = ("import sys; from citetrain.train.threads import thread_notice; "
            "from citetrain.train.recipe_schema import Recipe; "
            "r = Recipe.model_validate({'name': 't', 'kind': 'refiner', 'model': {'tiny': {}}, "
            "'data': {'dataset': 'x'}, 'train': {'output_dir': 'o', 'use_cpu': True}}); "
            "print(thread_notice(r))")
    env = {**__import__("os").environ, "OMP_NUM_THREADS": "1"}
    env.pop("LOCAL_WORLD_SIZE", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    if cpu_cores() > 1:
        assert out.startswith("[citetrain] this process runs 1 CPU thread")
    else:
        assert out == "None"
    env["CITETRAIN_USER_THREADS"] = "1"  # `citetrain train` under the user's OMP_NUM_THREADS
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "None"
    del env["CITETRAIN_USER_THREADS"]
    env["OMP_NUM_THREADS"] = str(cpu_cores())
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "None"
