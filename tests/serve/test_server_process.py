"""``citetrain serve`` as a real process on localhost, with real HTTP requests: valid ones from
concurrent clients (scored as ``citetrain judge`` scores the same records), malformed, oversized,
wrong types, without the token; the server stays up through all of them. Two workers too."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="pip install -e '.[test]'")
pytestmark = pytest.mark.slow  # server processes started and stopped
pytest.importorskip("fastapi", reason="the server stack: pip install -e '.[serve]'")

from tests.nli.tiny_models import build_bert_classifier  # noqa: E402
from tests.approx import same  # noqa: E402
from bench._common import start_server, stop_server  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "predictions.jsonl"
TOKEN = "t0ken"
LEVELS = ("not_supported", "partially_supported", "supported")


@pytest.fixture(scope="module")
def judge_model(tmp_path_factory) -> Path:
    return build_bert_classifier(tmp_path_factory.mktemp("judge") / "model", LEVELS)


def _start(model: Path, tmp: Path, *extra: str):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("CITETRAIN_SERVE_TOKEN", None)
    return start_server([f"crossencoder:{model}", "--token", TOKEN, "--max-body-bytes", "300000",
                         "--max-passages", "50", *extra], tmp / "serve.log", 60, env=env, cwd=tmp)




@pytest.fixture(scope="module")
def cli_rows(judge_model, tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("judged")
    subprocess.run([sys.executable, "-m", "citetrain.cli.main", "judge", str(EXAMPLES), "--judge",
                    f"crossencoder:{judge_model}", "--out", str(out), "--no-progress"],
                   check=True, capture_output=True, cwd=out, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return [json.loads(line) for line in (out / "statements.jsonl").read_text().splitlines()]


def test_the_server_scores_as_citetrain_judge_and_refuses_bad_requests(judge_model, cli_rows, tmp_path):
    records = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    auth = {"Authorization": f"Bearer {TOKEN}"}
    proc, url = _start(judge_model, tmp_path)
    try:
        def post(recs):
            return httpx.post(f"{url}/score", json={"records": recs}, headers=auth, timeout=120)

        chunks, i = [], 0
        while i < len(records):  # one or two records per request
            chunks.append(records[i:i + 1 + len(chunks) % 2])
            i += len(chunks[-1])
        chunks *= 2
        with ThreadPoolExecutor(8) as pool:  # concurrent clients
            answers = list(pool.map(post, chunks))
        assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
        served = [row for a in answers[:len(answers) // 2] for rec in a.json()["records"]
                  for row in rec["statements"]]
        assert same(served, cli_rows, rel=1e-6, abs_=1e-7)
        assert same(answers[0].json(), answers[len(answers) // 2].json(), rel=1e-6, abs_=1e-7)  # repeatable
        assert httpx.get(f"{url}/health", headers=auth).json()["batches"] < len(answers)  # batched

        def refused(content=None, json_body=None, headers=auth):
            headers = {**headers, "Content-Type": "application/json"}
            r = httpx.post(f"{url}/score", content=content, json=json_body, headers=headers, timeout=60)
            return r.status_code, r.json()["error"]

        assert refused(json_body={"records": records[:1]}, headers={})[0] == 401
        assert refused(json_body={"records": records[:1]},
                       headers={"Authorization": "Bearer nope"})[0] == 401
        assert refused(content=b'{"records": [') == (
            400, "body is not JSON: Expecting value at line 1 column 14")
        assert refused(json_body={"records": [{**records[0], "docs": "x"}]}) == (
            422, "records[0].docs: must be a list, got str")
        assert refused(json_body={"pairs": [{"passage": ["p"], "statement": "s"}]}) == (
            422, "pairs[0].passage: must be a string, got list")
        many = {**records[0], "docs": [{"title": "", "text": "x"}] * 500}
        status, error = refused(json_body={"records": [many]})
        assert status == 422 and "500 passages; at most 50" in error
        huge = {**records[0], "output": "The tower is tall [1]. " * 100_000}  # 2.3 MB
        status, error = refused(json_body={"records": [huge]})
        assert status == 413 and "at most 300000" in error
        ok = httpx.post(f"{url}/score", json={"pairs": [["Paris is in France.", "Paris is in France."]]},
                        headers=auth, timeout=60)
        assert ok.status_code == 200 and set(ok.json()["pairs"][0]["support"]) == set(LEVELS)
        assert proc.poll() is None and httpx.get(f"{url}/health").status_code == 200
    finally:
        stop_server(proc)


def test_two_workers_each_load_the_judge_once_and_score_the_same(judge_model, cli_rows, tmp_path):
    records = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    proc, url = _start(judge_model, tmp_path, "--workers", "2", "--threads", "1")
    try:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        r = httpx.post(f"{url}/score", json={"records": records}, headers=auth, timeout=120)
        assert r.status_code == 200
        assert same([row for rec in r.json()["records"] for row in rec["statements"]], cli_rows, rel=1e-6, abs_=1e-7)
        pids = {httpx.get(f"{url}/health", headers=auth).json()["pid"] for _ in range(20)}
        assert proc.pid not in pids and len(pids) >= 1
    finally:
        stop_server(proc)


def test_a_missing_judge_is_one_line_before_any_worker_starts(tmp_path):
    done = subprocess.run([sys.executable, "-m", "citetrain.cli.main", "serve",
                           f"crossencoder:{tmp_path / 'nowhere'}"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    where = tmp_path / "nowhere"
    assert done.stderr.strip() == (f"citetrain serve: error: judge 'crossencoder:{where}': "
                                   f"{where} does not exist")
