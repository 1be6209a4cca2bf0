"""Connections nobody can pin, against ``citetrain serve nli:lexical`` as a real process on
localhost, with payloads of this file's own: a refusal made before the body is read closes its
connection however the client trickles; 100 such sockets lock nobody out; a slow reader is
dropped after ``--send-timeout``; the Host check runs on unknown paths too; Content-Length with
Transfer-Encoding is a 400; the workers never hold the token in their environment; a 500 says
only "internal error"; a dead batcher turns ``/health`` 503 and the server exits non-zero; SIGTERM
during an upload, a parse or a batch answers JSON 503 with no traceback in the log.

Timings are bounded generously against the configured timeouts (1-2 s here, asserted < 5-10 s):
the machine may be busy."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="pip install -e '.[test]'")
pytest.importorskip("fastapi", reason="the server stack: pip install -e '.[serve]'")

from bench._common import free_port, heavy_record, start_server, stop_server  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TOKEN = "c0nnections-t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
RECORD = {"id": "r1", "question": "Where is Paris?",
          "docs": [{"title": "Paris", "text": "Paris is the capital of France."}],
          "output": "Paris is the capital of France [1]."}
# a runner that breaks one part of the server on purpose, then runs `citetrain serve ARGS`
FAULTY = '''
import asyncio, sys
from citetrain.serve import app as served, batcher
mode = sys.argv[1]
if mode == "boom":
    real = served.score_pairs
    def score_pairs(judge, pairs):
        if any("boom" in statement for _, statement in pairs):
            raise RuntimeError("a secret detail of the fault, see https://internal.example/x")
        return real(judge, pairs)
    served.score_pairs = score_pairs
else:
    async def _loop(self):
        await asyncio.sleep(float(mode))
        raise RuntimeError("the loop fell over")
    batcher.Batcher._loop = _loop
from citetrain.cli.main import main
sys.exit(main(["serve", *sys.argv[2:]]))
'''


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CITETRAIN_SERVE_TOKEN"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return env


def _start(tmp: Path, *extra: str, name: str = "serve"):
    (tmp / "token").write_text(TOKEN + "\n")
    return start_server(["nli:lexical", "--token-file", str(tmp / "token"), *extra],
                        tmp / f"{name}.log", 60, env=_env(), cwd=tmp)


def _start_faulty(tmp: Path, mode: str, *extra: str) -> tuple[subprocess.Popen, str, Path]:
    """The FAULTY runner in ``mode`` on a free port, once ``/health`` answers 200."""
    (tmp / "faulty.py").write_text(FAULTY)
    port, log = free_port(), tmp / f"faulty-{mode}.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, str(tmp / "faulty.py"), mode, "nli:lexical",
                                 "--port", str(port), *extra], stdout=out,
                                stderr=subprocess.STDOUT, env=_env(), cwd=tmp)
    url = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 60
    while time.monotonic() < end and proc.poll() is None:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return proc, url, log
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Short read and send timeouts, the default connection limit (100)."""
    tmp = tmp_path_factory.mktemp("connections")
    proc, url = _start(tmp, "--header-timeout", "1", "--body-timeout", "2", "--send-timeout", "1",
                       "--keep-alive", "5")
    yield proc, url, tmp
    stop_server(proc)


def _connect(url: str, timeout: float = 10.0, rcvbuf: int | None = None) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    s.connect((host, int(port)))
    return s


def _read_response(s: socket.socket) -> tuple[int, dict[str, str], dict]:
    """One response off ``s``: status, headers (lower-case names), JSON body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, f"closed before a response: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    assert "content-length" in headers and "json" in headers.get("content-type", ""), data
    while len(body) < int(headers["content-length"]):
        chunk = s.recv(65536)
        assert chunk, "closed inside a body"
        body += chunk
    return int(lines[0].split()[1]), headers, json.loads(body)


def _closed_while_trickling(s: socket.socket, seconds: float) -> bool:
    """Send a byte every 0.1 s: whether the server closes the connection within ``seconds``."""
    s.settimeout(0.1)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            s.sendall(b"x")
            if s.recv(65536) == b"":
                return True
        except socket.timeout:
            continue
        except OSError:  # reset: closed
            return True
    return False


def _head(method: str, path: str, *, host: str = "localhost", length: int = 500_000,
          ctype: str = "application/json", auth: bool = True) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", f"Content-Type: {ctype}",
             f"Content-Length: {length}"] + ([f"Authorization: Bearer {TOKEN}"] if auth else [])
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + b'{"records": ['


@pytest.mark.parametrize("data, status", [
    (_head("POST", "/score", ctype="text/plain"), 415),
    (_head("POST", "/score", auth=False), 401),
    (_head("POST", "/admin"), 404),
    (_head("PUT", "/score"), 405),
    (_head("POST", "/score", host="attacker.example"), 421),
    (_head("POST", "/admin", host="attacker.example"), 421),  # the Host check before routing
    (_head("POST", "/score", length=5_000_000), 413),
])
def test_a_refusal_before_the_body_closes_its_connection(server, data, status):
    _, url, _ = server
    with _connect(url) as s:
        s.sendall(data)
        got, headers, body = _read_response(s)
        assert got == status and list(body) == ["error"], body
        assert headers.get("connection") == "close"
        assert _closed_while_trickling(s, 5)


def test_content_length_with_transfer_encoding_is_a_400_and_closed(server):
    _, url, _ = server
    with _connect(url) as s:
        s.sendall(b"POST /score HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  + f"Authorization: Bearer {TOKEN}\r\n".encode()
                  + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        got, headers, body = _read_response(s)
        assert got == 400 and body == {"error": "Content-Length and Transfer-Encoding together: "
                                                "send one"}
        assert headers.get("connection") == "close" and _closed_while_trickling(s, 5)


def test_100_trickling_sockets_lock_nobody_out(server):
    """100 sockets, half refused with a large Content-Length, half with a head never ended, all
    trickling bytes: a good request is answered within about one header timeout (1 s)."""
    _, url, _ = server
    socks = []
    for k in range(100):
        s = _connect(url)
        s.sendall(_head("POST", "/score", ctype="text/plain") if k % 2
                  else b"POST /score HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        socks.append(s)
    stop = threading.Event()

    def trickle() -> None:
        while not stop.is_set():
            for s in socks:
                try:
                    s.send(b"a")
                except OSError:
                    pass
            time.sleep(0.1)

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        start, got = time.monotonic(), None
        while time.monotonic() - start < 10 and got != 200:
            got = httpx.post(f"{url}/score", json={"records": [RECORD]}, headers=AUTH,
                             timeout=10).status_code
        assert got == 200 and time.monotonic() - start < 5
    finally:
        stop.set()
        thread.join()
        for s in socks:
            s.close()


def test_a_slow_reader_is_dropped_after_the_send_timeout(server):
    """Twenty pipelined requests of 300 KB answers each, never read: once the answers fill the
    kernel's buffers and the server's, the connection is dropped after --send-timeout (1 s); the
    client gets fewer than twenty answers, and the server goes on."""
    _, url, tmp = server
    records = [{**RECORD, "id": f"r{i}", "output": "Paris is in France [1]. " * 31}
               for i in range(64)]
    body = json.dumps({"records": records}).encode()
    one = _head("POST", "/score", length=len(body))[:-len(b'{"records": [')] + body
    s = _connect(url, rcvbuf=4096)
    threading.Thread(target=lambda: _quietly(s.sendall, one * 20), daemon=True).start()
    log = tmp / "serve.log"
    end = time.monotonic() + 60
    while "(--send-timeout): connection dropped" not in log.read_text() and time.monotonic() < end:
        time.sleep(0.2)
    assert "(--send-timeout): connection dropped" in log.read_text(), log.read_text()[-2000:]
    s.settimeout(10)
    received = b""
    try:
        while chunk := s.recv(1 << 20):
            received += chunk
    except OSError:  # reset: dropped
        pass
    s.close()
    assert received.count(b"HTTP/1.1 200") < 20
    assert httpx.get(f"{url}/health", timeout=10).status_code == 200


def _quietly(call, *args) -> None:
    try:
        call(*args)
    except OSError:
        pass


def test_sigterm_during_an_upload_and_a_batch_answers_json_503_and_no_traceback(tmp_path):
    """--grace 1: one client uploads slowly, another's heavy request is being parsed or scored
    when SIGTERM comes; past the grace period both get a JSON 503 (or the scored one its 200),
    and the log holds no traceback."""
    proc, url = _start(tmp_path, "--grace", "1", "--body-timeout", "60", "--header-timeout", "60",
                       "--max-nli-calls", "200000", "--max-batch", "1", "--wait-ms", "0")
    try:
        upload = _connect(url, timeout=30)
        upload.sendall(_head("POST", "/score", length=1000))
        heavy = json.dumps({"records": [heavy_record(f"h{i}", 20) for i in range(40)]}).encode()
        busy = _connect(url, timeout=30)
        busy.sendall(_head("POST", "/score", length=len(heavy))[:-len(b'{"records": [')] + heavy)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        status, _, body = _read_response(upload)
        assert status == 503 and body == {"error": "the server is shutting down; retry later"}
        status, _, body = _read_response(busy)
        assert status == 200 or body == {"error": "the server is shutting down; retry later"}
        proc.wait(timeout=30)
    finally:
        stop_server(proc)
    log = (tmp_path / "serve.log").read_text()
    assert "Traceback" not in log and "CancelledError" not in log, log[-3000:]


def test_sigterm_during_a_parse_answers_json_503(tmp_path):
    """--grace 0: SIGTERM right after a large body arrived (parsed in a thread): JSON 503."""
    proc, url = _start(tmp_path, "--grace", "0", "--max-nli-calls", "200000")
    try:
        records = [{**RECORD, "id": f"r{i}", "output": "Paris is in France [1]. " * 60}
                   for i in range(60)]
        body = json.dumps({"records": records}).encode()
        s = _connect(url, timeout=30)
        s.sendall(_head("POST", "/score", length=len(body))[:-len(b'{"records": [')] + body)
        proc.send_signal(signal.SIGTERM)
        status, _, got = _read_response(s)
        assert status == 200 or got == {"error": "the server is shutting down; retry later"}
        proc.wait(timeout=30)
    finally:
        stop_server(proc)
    log = (tmp_path / "serve.log").read_text()
    assert "Traceback" not in log and "CancelledError" not in log, log[-3000:]


def test_a_500_says_only_internal_error_and_the_log_has_the_detail(tmp_path):
    proc, url, log = _start_faulty(tmp_path, "boom")
    try:
        r = httpx.post(f"{url}/score", json={"pairs": [["Paris is in France.", "boom"]]},
                       timeout=30)
        assert r.status_code == 500 and r.json() == {"error": "internal error"}
        assert httpx.post(f"{url}/score", json={"records": [RECORD]}, timeout=30).status_code == 200
    finally:
        stop_server(proc)
    text = log.read_text()
    assert "a secret detail of the fault" in text and "Traceback" in text  # for the operator


def test_a_dead_batcher_turns_health_503_and_the_server_exits_non_zero(tmp_path):
    proc, url, log = _start_faulty(tmp_path, "1.0")
    try:
        seen = []
        end = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < end:
            try:
                r = httpx.get(f"{url}/health", timeout=5)
                seen.append((r.status_code, r.json()))
            except httpx.HTTPError:
                pass
            time.sleep(0.01)
        assert proc.wait(timeout=30) == 1
    finally:
        stop_server(proc)
    assert all(s == 200 or (s, b) == (503, {"error": "the judge's batcher stopped; the server is "
                                                      "exiting"}) for s, b in seen), seen
    text = log.read_text()
    assert "the judge's batcher stopped (RuntimeError: the loop fell over)" in text, text[-2000:]


def test_a_dead_batcher_turns_health_503_in_the_app():
    """The same in process, where the 503 can be seen for certain (no server to stop)."""
    from starlette.testclient import TestClient

    from citetrain.judges.registry import make_judge
    from citetrain.serve.app import create_app
    from citetrain.serve.config import ServeConfig

    app = create_app(ServeConfig(judge="nli:lexical"),
                     judge=make_judge("nli:lexical", progress=False, cache=False))
    with TestClient(app, base_url="http://localhost") as c:
        assert c.get("/health").status_code == 200
        c.portal.call(_cancel_loop, app.state.batcher)
        r = c.get("/health")
        assert r.status_code == 503 and r.json() == {"error": "the judge's batcher stopped; the "
                                                              "server is exiting"}


async def _cancel_loop(batcher) -> None:
    import asyncio

    batcher._task.cancel()
    await asyncio.sleep(0.05)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="no /proc")
def test_the_workers_never_hold_the_token_in_their_environment(tmp_path):
    env = {**_env(), "CITETRAIN_SERVE_TOKEN": TOKEN}
    proc, url = start_server(["nli:lexical", "--workers", "2"], tmp_path / "serve.log", 60,
                             env=env, cwd=tmp_path)
    try:
        pids = {httpx.get(f"{url}/health", headers=AUTH, timeout=10).json()["pid"]
                for _ in range(20)}
        assert pids and proc.pid not in pids
        for pid in pids:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            assert TOKEN.encode() not in environ
            path = dict(v.split(b"=", 1) for v in environ.split(b"\0") if b"=" in v)[
                b"CITETRAIN_SERVE_TOKEN_FILE"].decode()
            assert os.stat(path).st_mode & 0o777 == 0o600
            assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700
        assert httpx.post(f"{url}/score", json={"records": [RECORD]}, timeout=30).status_code == 401
        assert httpx.post(f"{url}/score", json={"records": [RECORD]}, headers=AUTH,
                          timeout=30).status_code == 200
    finally:
        stop_server(proc)
    assert not os.path.exists(path)  # removed at exit
