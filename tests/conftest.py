"""Test setup: offline hub, a throwaway NLI cache, and the shared data folder."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fake_openai import server  # noqa: F401  (the fake OpenAI endpoint fixture, for every module)

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]


def worker_threads() -> int:
    """This worker's share of the cores: what the processes a test starts get
    (``OMP_NUM_THREADS``), so that two workers' trainings never ask for more threads than there
    are cores (OpenMP threads that outnumber the cores wait on each other many times over)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


if os.environ.get("PYTEST_XDIST_WORKER"):  # pytest -n N: N workers share the cores, one torch thread each
    import torch

    torch.set_num_threads(1)
    # every process a test starts inherits the worker's share, unless the test sets its own
    os.environ.setdefault("OMP_NUM_THREADS", str(worker_threads()))
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()

# pyproject.toml runs the tests in workers (pytest-xdist: -n auto --dist loadgroup; -n 0 for one
# process): a file's tests stay on one worker (its module fixtures are built once) unless a test
# names its own group. Tests that start several processes with `accelerate launch` pass
# `--main_process_port 0` (a free port), so launches on different workers never meet.
MAX_WORKERS = 4
# the groups of the longest runs (minutes each on 2 cores: the wheel's quickstart, the README's
# chains, the distributed trainings) start first, then the other slow ones, so the workers end
# together
LONGEST = ("tests/test_wheel.py", "readme-refiner", "readme-rl", "readme-judge",
           "tests/train/test_distributed.py", "tests/test_docs_python.py")


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per core, at most MAX_WORKERS (each holds torch and its models)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, MAX_WORKERS))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(str(item.path)))
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the groups that hold slow tests are handed out first
        def group(item):
            mark = next(item.iter_markers("xdist_group"))
            return mark.args[0] if mark.args else mark.kwargs.get("name", "default")

        slow = {group(item) for item in items if any(item.iter_markers("slow"))}
        items.sort(key=lambda item: (not group(item).endswith(LONGEST), group(item) not in slow))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own NLI cache file, never the user's."""
    monkeypatch.setenv("CITETRAIN_CACHE", str(tmp_path_factory.mktemp("cache") / "nli.sqlite"))


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` beside the repo, or skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA} (../shared/data beside the repo)")
    return SHARED_DATA
