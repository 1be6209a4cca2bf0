"""The judge's cost bounded by what it reads (issue 86), against real server processes, with
payloads of this file's own:

- a request over ``--max-work`` (many passages, many statements) is refused with a 422 naming the
  flag, before any NLI call; long passages within it are scored, and so are 800 statements each
  read against the ones before it;
- Chinese text ending sentences in ``。`` is counted before any split (422 naming
  ``--max-statements``);
- ``--timeout`` stops the work: after the 504 the server's CPU goes quiet and the next light
  request is answered at once; a client that goes away cancels its work the same way.
"""
from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="pip install -e '.[test]'")
pytest.importorskip("fastapi", reason="the server stack: pip install -e '.[serve]'")

from bench._common import heavy_record, start_server, stop_server  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
LIGHT = {"id": "light", "question": "Where is Paris?",
         "docs": [{"title": "Paris", "text": "Paris is the capital of France."}],
         "output": "Paris is the capital of France [1]."}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CITETRAIN_SERVE_TOKEN"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return env


@pytest.fixture(scope="module")
def default_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("work-default")
    proc, url = start_server(["nli:lexical"], tmp / "serve.log", 60, env=_env(), cwd=tmp)
    yield proc, url
    stop_server(proc)


def _raised_caps(tmp_path_factory, timeout: str):
    """Caps raised so that a request scored for many seconds is let in."""
    tmp = tmp_path_factory.mktemp("work-raised")
    proc, url = start_server(["nli:lexical", "--timeout", timeout, "--max-work", "10000000000",
                              "--max-nli-calls", "100000000"], tmp / "serve.log", 60,
                             env=_env(), cwd=tmp)
    return proc, url


@pytest.fixture(scope="module")
def short_timeout_server(tmp_path_factory):
    proc, url = _raised_caps(tmp_path_factory, "1")
    yield proc, url
    stop_server(proc)


@pytest.fixture(scope="module")
def long_timeout_server(tmp_path_factory):
    proc, url = _raised_caps(tmp_path_factory, "600")
    yield proc, url
    stop_server(proc)


def _post(url: str, body: dict, timeout: float = 60) -> httpx.Response:
    return httpx.post(f"{url}/score", json=body, timeout=timeout)


def _cpu(pid: int) -> float:
    """CPU seconds the process has used (user + system, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _quiet_within(pid: int, seconds: float) -> bool:
    """Whether, within ``seconds``, the process spends under 0.1 s of CPU in a 0.5 s window."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        before = _cpu(pid)
        time.sleep(0.5)
        if _cpu(pid) - before < 0.1:
            return True
    return False


def _many_subsets(n: int, records: int = 1) -> dict:
    return {"records": [heavy_record(f"h{i}", 20, n, seed=i) for i in range(records)]}


def test_work_over_the_cap_is_refused_by_name_and_long_passages_within_it_are_scored(default_server):
    _, url = default_server
    over = _many_subsets(40, records=2)  # 80 statements asking every pair and triple of 20
    r = _post(url, over)
    assert r.status_code == 422 and "(--max-work)" in r.json()["error"], r.text
    words = "Paris river capital France Seine bridge museum tower".split()
    docs = [{"title": f"P{k}", "text": " ".join(words[(k + i) % 8] + str(i % 97) for i in range(1000))}
            for k in range(100)]  # 100 passages of about 8 KB: 0.8 MB of body
    long = {"id": "long", "question": "Where?", "docs": docs,
            "output": " ".join(f"Paris river {k} flows [{k + 1}]." for k in range(10))}
    body = json.dumps({"records": [long]})
    assert 700_000 < len(body) < 1_000_000
    r = _post(url, {"records": [long]})
    assert r.status_code == 200 and len(r.json()["records"][0]["statements"]) == 10


def test_many_statements_read_against_their_earlier_ones_are_scored_beside_a_light_request(
        default_server):
    """1,100 statements of 60 words, each asked against all the ones before it (the old joining
    read 1,100²/2 statements): scored within the work cap, and a light request sent meanwhile
    waits for a batch or so, not for the whole record."""
    import random
    import threading

    _, url = default_server
    rng = random.Random(3)
    vocab = [f"word{i}" for i in range(50)]
    output = " ".join(" ".join(rng.choice(vocab) for _ in range(60)) + " [1]." for _ in range(1100))
    many = {"id": "many", "question": "What?", "output": output,
            "docs": [{"title": "v", "text": " ".join(vocab)}]}
    got: dict = {}

    def heavy() -> None:
        start = time.monotonic()
        got["r"] = _post(url, {"records": [many]})
        got["seconds"] = time.monotonic() - start

    thread = threading.Thread(target=heavy)
    thread.start()
    time.sleep(0.2)
    start = time.monotonic()
    light = _post(url, {"records": [LIGHT]})
    light_s = time.monotonic() - start
    thread.join()
    assert light.status_code == 200 and got["r"].status_code == 200, got["r"].text
    rows = got["r"].json()["records"][0]["statements"]
    assert len(rows) == 1100 and sum(r["context"] == "response" for r in rows) > 1000
    assert light_s < got["seconds"] / 2, (light_s, got["seconds"])  # batches of bounded work


def test_chinese_sentences_are_counted_before_any_split(default_server):
    _, url = default_server
    body = {"records": [{**LIGHT, "output": "北京是中国的首都。" * 5000}]}
    r = _post(url, body)
    assert r.status_code == 422 and r.json()["error"].startswith("5001 sentence ends"), r.text
    assert "(--max-statements)" in r.json()["error"]
    assert _post(url, {"records": [LIGHT]}).status_code == 200


@pytest.mark.slow  # seconds of scoring, then watching the server's CPU
def test_a_timed_out_request_stops_its_work(short_timeout_server):
    proc, url = short_timeout_server
    heavy = _many_subsets(30, records=4)  # about 170,000 calls: many seconds of work
    start = time.monotonic()
    r = _post(url, heavy)
    assert r.status_code == 504 and "(--timeout)" in r.json()["error"]
    assert time.monotonic() - start < 5
    light = time.monotonic()
    assert _post(url, {"records": [LIGHT]}).status_code == 200
    assert time.monotonic() - light < 2  # the judge is free: at most one batch in progress
    assert _quiet_within(proc.pid, 3), "the server kept computing after the 504"


@pytest.mark.slow  # seconds of scoring, then watching the server's CPU
def test_a_client_that_goes_away_cancels_its_work(long_timeout_server):
    proc, url = long_timeout_server
    host, port = url.removeprefix("http://").split(":")
    body = json.dumps(_many_subsets(30, records=4)).encode()
    start_cpu = _cpu(proc.pid)
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"POST /score HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        deadline = time.monotonic() + 10
        while _cpu(proc.pid) < 0.5 + start_cpu and time.monotonic() < deadline:
            time.sleep(0.05)  # parsed, and its chunks being scored
    assert _quiet_within(proc.pid, 3), "the server kept computing for a client that went away"
    assert _post(url, {"records": [LIGHT]}).status_code == 200
