"""Start ``citetrain serve`` as a process on a free localhost port and wait until it answers
(the server process tests and ``bench/serve_judge.py`` share it)."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(args: list[str], log: Path, seconds: float, **popen) -> tuple[subprocess.Popen, str]:
    """``citetrain serve ARGS --port P`` with its output in ``log``; returns the process and its
    URL once ``/health`` answers 200. Raises ``RuntimeError`` (with the log's end) if the process
    stops first, or after ``seconds``."""
    import httpx

    port = free_port()
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "citetrain.cli.main", "serve", *args,
                                 "--port", str(port)], stdout=out, stderr=subprocess.STDOUT, **popen)
    url = f"http://127.0.0.1:{port}"
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the server stopped: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"the server did not answer /health in {seconds:.0f} s")
