"""Start the instrumented child (:mod:`tests.reliability.child`), kill it at its marker, read
its NLI log; the tiny training data of ``tests/train`` is shared."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.train.conftest import tiny_data  # noqa: F401  (the session fixture, shared)

REPO = Path(__file__).resolve().parents[2]


def child_env(tmp: Path, **extra: str | int) -> dict[str, str]:
    """The child's environment: offline, one thread, this test's NLI cache, and ``CT_*``."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(REPO),
           "CT_MARKER": str(tmp / "stopped.marker")}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_child(mode: str, args: list[str], env: dict[str, str],
              timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the child to its end."""
    return subprocess.run([sys.executable, "-m", "tests.reliability.child", mode, *args], env=env,
                          cwd=REPO, capture_output=True, text=True, timeout=timeout)


def kill_at_marker(mode: str, args: list[str], env: dict[str, str], timeout: float = 300) -> None:
    """Start the child, wait until it writes ``CT_MARKER`` (it then waits), SIGKILL it."""
    marker = Path(env["CT_MARKER"])
    marker.unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", "tests.reliability.child", mode, *args],
                            env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + timeout
    try:
        while not marker.exists():
            if proc.poll() is not None:
                raise AssertionError(f"the child ended (rc {proc.returncode}) before its marker: "
                                     f"{proc.stderr.read()[-3000:]}")
            if time.monotonic() > deadline:
                raise AssertionError("the child did not reach its marker in time")
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def logged_pairs(path: Path) -> list[tuple[str, str]]:
    """The pairs the child's NLI answered, in order."""
    if not path.exists():
        return []
    return [tuple(json.loads(x)) for x in path.read_text(encoding="utf-8").splitlines()]
