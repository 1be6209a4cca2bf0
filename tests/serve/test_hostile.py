"""``citetrain serve nli:lexical`` as a real process on localhost against a hostile client: every
class of bad input gets a 4xx (or 503) with one line of JSON and the server stays up; slow
clients are cut off; a heavy request does not hold light ones back; a timed-out request stops;
SIGTERM under load answers what waits 503 without tracebacks; kill -9 and a restart rebind.

Timings are asserted as ratios or batch counts (``/health`` with the token counts batches), with
generous bounds: the machine may be busy."""
from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="pip install -e '.[test]'")
pytest.importorskip("fastapi", reason="the server stack: pip install -e '.[serve]'")

from bench._common import heavy_record, start_server, stop_server  # noqa: E402

TOKEN = "hostile-t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
RECORD = {"id": "r1", "question": "Where is Paris?",
          "docs": [{"title": "Paris", "text": "Paris is the capital of France."}],
          "output": "Paris is the capital of France [1]."}


def _start(tmp: Path, *extra: str, port: int | None = None):
    (tmp / "token").write_text(f"  {TOKEN}\n")  # whitespace around it is dropped
    env = {k: v for k, v in os.environ.items() if k != "CITETRAIN_SERVE_TOKEN"}
    return start_server(["nli:lexical", "--token-file", str(tmp / "token"), *extra],
                         tmp / f"serve-{port or 0}.log", 60, port=port, env=env, cwd=tmp)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The main server: short read timeouts, small batches, a connection limit."""
    tmp = tmp_path_factory.mktemp("hostile")
    proc, url = _start(tmp, "--header-timeout", "1", "--body-timeout", "1", "--max-batch", "2",
                       "--wait-ms", "0", "--max-connections", "12", "--max-nli-calls", "100000",
                       "--timeout", "60", "--max-body-bytes", "200000")
    assert post(url, {"records": [RECORD]}).status_code == 200  # warm
    yield proc, url, tmp
    stop_server(proc)


def post(url, body, headers=None, **kw):
    return httpx.post(f"{url}/score", json=body, headers={**AUTH, **(headers or {})}, timeout=120, **kw)


def batches(url) -> int:
    return httpx.get(f"{url}/health", headers=AUTH, timeout=30).json()["batches"]


def refused(r, status: int, start: str = "") -> None:
    """A refusal: ``status``, one line of JSON, ``{"error": ...}`` and nothing else."""
    assert r.status_code == status, (r.status_code, r.text)
    assert "\n" not in r.text.strip() and list(r.json()) == ["error"], r.text
    assert r.json()["error"].startswith(start), r.json()["error"]


def exchange(url: str, data: bytes, wait: float = 10.0, pause: float = 0.0) -> tuple[int, dict, float]:
    """Send raw bytes (``pause`` s between halves), read until the server closes: the status,
    the JSON body and the seconds it took."""
    host, port = url.removeprefix("http://").split(":")
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=wait) as s:
        s.sendall(data[:len(data) // 2])
        time.sleep(pause)
        try:
            s.sendall(data[len(data) // 2:])
        except OSError:
            pass
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body), time.monotonic() - start


def test_hostile_bodies_and_headers_are_4xx_json_and_the_server_stays_up(server):
    proc, url, _ = server
    deep = b"[" * 50_000 + b"]" * 50_000
    cases = [
        (dict(content=deep), 400, "body is not JSON this server reads: nested too deeply"),
        (dict(content=b'{"pairs": [["p", "s"]], "n": ' + b"9" * 5000 + b"}"), 400,
         "body is not JSON this server reads: an integer has more than"),
        (dict(content=b'{"pairs": [["p", "s"]], "n": 1e400}'), 400, "body is not JSON this server reads"),
        (dict(content=b'{"pairs": [["p", "s"]], "n": NaN}'), 400, "body is not JSON this server reads"),
        (dict(content=b'{"records": [{"id": "\\ud800", "question": "q", "docs": [], "output": "a"}]}'),
         400, "body is not valid Unicode: a lone surrogate in records[0].id"),
        (dict(content=b'{"pairs": [["\xed\xa0\x80", "s"]]}'), 400, "body is not UTF-8 JSON"),
        (dict(json={"records": [{**RECORD, "output": "A [" + "7" * 5000 + "]."}]}), 422,
         "record 'r1': a citation mark's id has 5000 digits"),
        (dict(json={"records": [{**RECORD, "output": "Yes. " * 20_000}]}), 422,
         "20001 sentence ends in the responses; at most 2000 statements"),
        (dict(json={"records": [{**RECORD, "output": "x" + " [1]" * 8000}]}), 422,
         "8000 citation ids in the responses' marks; at most 5000"),
        (dict(json={"records": [heavy_record("w", 100, 60)]}), 422, "up to 119940 NLI calls"),
        (dict(content=b"x" * 300_000), 413, "body of 300000 bytes; at most 200000"),
    ]
    for kw, status, start in cases:
        kw.setdefault("headers", {"Content-Type": "application/json"})
        refused(httpx.post(f"{url}/score", headers={**AUTH, **kw.pop("headers")}, timeout=60, **kw),
                status, start)
    body = json.dumps({"records": [RECORD]})
    for headers, status, start in [
        ({"Content-Type": "text/plain"}, 415, "Content-Type 'text/plain'"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "Content-Type"),
        ({"Content-Type": "application/json", "Host": "attacker.example"}, 421, "Host 'attacker.example'"),
        ({"Content-Type": "application/json", "Authorization": "Bearer nope"}, 401, "missing or wrong"),
    ]:
        refused(httpx.post(f"{url}/score", content=body, headers={**AUTH, **headers}, timeout=30),
                status, start)
    refused(httpx.get(f"{url}/admin", timeout=30), 404, "no such route: GET /admin")
    refused(httpx.put(f"{url}/score", timeout=30), 405, "method not allowed: PUT /score")
    status, got, _ = exchange(url, b"GET / HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n")
    assert status == 400 and got == {"error": "invalid HTTP request: the request line or headers "
                                              "cannot be parsed"}
    assert httpx.get(f"{url}/health", timeout=30).json() == {"status": "ok"}  # no token: no more
    assert post(url, {"records": [RECORD]}).status_code == 200 and proc.poll() is None


def test_slow_clients_are_cut_off(server):
    """Partial headers, a silent connection, a body shorter than its Content-Length and an
    endless chunked body, all at once: each a 408 in about its timeout (1 s), connection closed."""
    _, url, _ = server
    head = b"POST /score HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
    auth = f"Authorization: Bearer {TOKEN}\r\n".encode()
    drip = head + auth + b"Transfer-Encoding: chunked\r\n\r\n" + b"1\r\n \r\n" * 40
    sends = [
        (b"GET /health HTTP/1.1\r\nHost: loc", 0, 408, "request head not received within 1 s"),
        (b"", 0, 408, "request head not received within 1 s"),
        (head + auth + b"Content-Length: 100\r\n\r\n{\"pairs\"", 0, 408, "body not received within 1 s"),
        (drip, 0.5, 408, "body not received within 1 s"),
    ]
    with ThreadPoolExecutor(len(sends)) as pool:
        got = list(pool.map(lambda s: exchange(url, s[0], pause=s[1]), sends))
    for (status, body, seconds), (_, _, want, start) in zip(got, sends):
        assert status == want and body["error"].startswith(start), body
        assert seconds < 15
    assert httpx.get(f"{url}/health", timeout=30).status_code == 200


def test_too_many_connections_get_503_with_retry_after(server):
    _, url, _ = server
    host, port = url.removeprefix("http://").split(":")
    idle = [socket.create_connection((host, int(port))) for _ in range(12)]
    try:
        r = httpx.get(f"{url}/health", timeout=30)
        refused(r, 503, "more than 12 connections open (--max-connections)")
        assert r.headers["retry-after"] == "1"
    finally:
        for s in idle:
            s.close()
    time.sleep(0.3)
    assert httpx.get(f"{url}/health", timeout=30).status_code == 200


def test_a_heavy_request_does_not_hold_light_ones_back(server):
    """A request of 20 costly records (two statements each, about --max-work: some thirty
    batches) and, while it is scored, four light requests at once: each gets the answer it gets
    alone, within a small share of the heavy one's time, and all before it ends."""
    from concurrent.futures import ThreadPoolExecutor

    _, url, _ = server
    alone = post(url, {"records": [RECORD]}).json()
    heavy_body = {"records": [heavy_record(f"h{i}", 20, 2) for i in range(20)]}
    before = batches(url)
    out: dict = {}

    def heavy():
        start = time.monotonic()
        out["heavy"] = post(url, heavy_body)
        out["heavy_s"] = time.monotonic() - start
        out["heavy_end"] = time.monotonic()

    def light() -> tuple[float, float]:
        start = time.monotonic()
        r = post(url, {"records": [RECORD]})
        assert r.status_code == 200 and r.json() == alone
        return time.monotonic() - start, time.monotonic()

    thread = threading.Thread(target=heavy)
    thread.start()
    while batches(url) == before:
        time.sleep(0.01)
    with ThreadPoolExecutor(4) as pool:
        lights = [f.result() for f in [pool.submit(light) for _ in range(4)]]
    thread.join()
    assert out["heavy"].status_code == 200, out["heavy"].text
    assert all(end < out["heavy_end"] for _, end in lights)
    assert max(s for s, _ in lights) < out["heavy_s"] / 3, (lights, out["heavy_s"])


@pytest.mark.slow  # a second server start
def test_kill_9_and_a_restart_on_the_same_port(server):
    proc, url, tmp = server
    proc.kill()
    proc.wait(timeout=30)
    port = int(url.rsplit(":", 1)[1])
    again, url2 = _start(tmp, port=port)
    try:
        assert url2 == url and post(url, {"records": [RECORD]}).status_code == 200
    finally:
        stop_server(again)


@pytest.fixture
def short_timeout_server(tmp_path):
    proc, url = _start(tmp_path, "--timeout", "1", "--max-batch", "2", "--wait-ms", "0",
                       "--grace", "3", "--max-nli-calls", "1000000", "--max-work", "1000000000")
    assert post(url, {"records": [RECORD]}).status_code == 200  # warm
    yield proc, url, tmp_path
    stop_server(proc)


@pytest.mark.slow  # a server of its own
def test_timeout_then_a_good_request_then_sigterm_under_load(short_timeout_server):
    """--timeout 1: a request of 64 costly records (each cut into chunks: their passages read,
    then their statements; two chunks a batch here) gets its 504 and the judge stops at the next
    batch boundary, so the next request is answered after a batch or two. Then SIGTERM with a
    heavy request being scored and others queued: the queued ones get 503 JSON at once, the log
    has no traceback, and the process is gone within its grace period."""
    from citetrain.judges.registry import make_judge
    from citetrain.records import Record
    from citetrain.serve.config import ServeConfig
    from citetrain.serve.cost import plan_records

    proc, url, tmp = short_timeout_server
    heavy_body = {"records": [heavy_record(f"h{i}", 20, 3) for i in range(64)]}
    config = ServeConfig(judge="nli:lexical", max_nli_calls=1_000_000, max_work=1_000_000_000)
    plan = plan_records([Record.model_validate(r) for r in heavy_body["records"]], config,
                        make_judge("nli:lexical", progress=False, cache=False))
    total = (len(plan.items) + 1) // 2  # the request's batches, two chunks each
    refused(post(url, heavy_body), 504, "not scored within 1 s (--timeout)")
    at_timeout = batches(url)
    assert post(url, {"records": [RECORD]}).status_code == 200
    after = batches(url)
    assert after - at_timeout <= 3 < total - at_timeout  # the batch running out, then its own

    def queued() -> int:
        return httpx.get(f"{url}/health", headers=AUTH, timeout=30).json()["queued"]

    with ThreadPoolExecutor(6) as pool:  # six requests of four costly records: 12 batches' work
        sent = [pool.submit(post, url, {"records": heavy_body["records"][4 * k:4 * k + 4]})
                for k in range(6)]
        deadline = time.monotonic() + 30
        while queued() < 16 and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        answers = [f.result() for f in sent]
    for r in answers:
        if r.status_code != 200:
            refused(r, 503, "the server is shutting down")
    assert sum(r.status_code == 503 for r in answers) >= 4  # all but those of the running batch
    proc.wait(timeout=15)
    log = next(tmp.glob("serve-*.log")).read_text()
    assert "Traceback" not in log and "Exception" not in log, log[-2000:]
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/health", timeout=5)
