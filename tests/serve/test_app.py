"""The judge app in process (FastAPI's TestClient): the token, the body cap, the timeout, a judge
that fails, and the health route; the server answers the next request after each refusal. Then
the guards: Host, content type, unknown routes and methods, the work limits, a full queue and a
timed-out request whose remaining batches are dropped."""
import json
import time

import pytest

pytest.importorskip("fastapi", reason="the server stack: pip install -e '.[serve]'")
from fastapi.testclient import TestClient  # noqa: E402

from citetrain.judges.registry import make_judge  # noqa: E402
from citetrain.serve.app import create_app  # noqa: E402
from citetrain.serve.config import ServeConfig  # noqa: E402

RECORD = {"id": "r1", "question": "Where is Paris?",
          "docs": [{"title": "Paris", "text": "Paris is the capital of France."}],
          "output": "Paris is the capital of France [1]."}


class SlowOrBrokenJudge:
    """Wraps the lexical NLI judge: sleeps on id 'slow', raises on id 'boom'."""

    def __init__(self):
        self.inner = make_judge("nli:lexical", progress=False, cache=False)
        self.name = "test-judge"

    def score(self, records, *, progress=True):
        ids = {r.output for r in records}
        if any("slow" in t for t in ids):
            time.sleep(0.6)
        if any("boom" in t for t in ids):
            raise RuntimeError("the model fell over\non two lines")
        return self.inner.score(records, progress=progress)


def client(judge=None, **settings) -> TestClient:
    config = ServeConfig(judge="nli:lexical", **settings)
    return TestClient(create_app(config, judge=judge or make_judge("nli:lexical", progress=False,
                                                                   cache=False)),
                      base_url="http://localhost:8000")


def test_records_and_pairs_are_scored_as_the_judge_scores_them():
    judge = make_judge("nli:lexical", progress=False, cache=False)
    with client(judge) as c:
        r = c.post("/score", json={"records": [RECORD]})
        assert r.status_code == 200
        got = r.json()["records"][0]
        from citetrain.records import Record

        want = judge.score([Record.model_validate(RECORD)], progress=False).result
        assert got["statements"] == want.per_statement
        assert got["citeeval_full"] == want.per_record[0]["citeeval_full"]
        p = c.post("/score", json={"pairs": [[RECORD["docs"][0]["text"], "Paris is in France."]]})
        assert p.status_code == 200
        assert p.json()["pairs"][0]["expected"] == judge.engine.score(
            [(RECORD["docs"][0]["text"], "Paris is in France.")])[0]
        assert c.get("/health").json() == {"status": "ok"}  # no token: nothing more
        assert c.app.state.batcher.batches == 2


def test_a_token_is_asked_for_when_set():
    with client(token="s3cret") as c:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            r = c.post("/score", json={"records": [RECORD]}, headers=headers)
            assert r.status_code == 401 and "bearer token" in r.json()["error"]
        ok = c.post("/score", json={"records": [RECORD]}, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
        assert c.get("/health").json() == {"status": "ok"}  # health needs no token, says no more
        h = c.get("/health", headers={"Authorization": "Bearer s3cret"}).json()
        assert h["judge"].startswith("nli:lexical") and h["batches"] == 1 and h["queued"] == 0


def test_bodies_over_the_cap_are_refused_declared_or_streamed():
    with client(max_body_bytes=1000) as c:
        big = json.dumps({"records": [{**RECORD, "output": "word " * 400}]}).encode()
        r = c.post("/score", content=big, headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and r.json()["error"].startswith(f"body of {len(big)} bytes")

        def chunks():  # no Content-Length: the cap applies while reading
            for i in range(0, len(big), 100):
                yield big[i:i + 100]

        r = c.post("/score", content=chunks(), headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and "body over 1000 bytes" in r.json()["error"]
        assert c.post("/score", json={"records": [RECORD]}).status_code == 200


def test_a_slow_request_times_out_and_a_broken_one_is_a_500_and_the_server_goes_on():
    with client(SlowOrBrokenJudge(), timeout_s=0.2) as c:
        r = c.post("/score", json={"records": [{**RECORD, "output": "slow [1]."}]})
        assert r.status_code == 504 and r.json() == {"error": "not scored within 0.2 s (--timeout)"}
        time.sleep(0.6)
        r = c.post("/score", json={"records": [{**RECORD, "output": "boom [1]."}]})
        assert r.status_code == 500
        assert r.json() == {"error": "internal error"}  # the detail is in the log, not the reply
        assert c.post("/score", json={"records": [RECORD]}).status_code == 200


def test_pairs_need_a_judge_with_an_nli_model():
    class RecordsOnly:
        name = "records-only"

        def score(self, records, *, progress=True):  # pragma: no cover - never reached
            raise AssertionError

    with client(RecordsOnly()) as c:
        r = c.post("/score", json={"pairs": [["p", "s"]]})
        assert r.status_code == 422 and r.json()["error"] == "judge records-only rates records, not bare pairs"


def test_the_server_forgets_answers_after_each_batch():
    """Memory stays bounded: the engine's in-process answers are dropped after every batch, so
    the same request is scored again (model pairs grow) rather than remembered."""
    judge = make_judge("nli:lexical", progress=False, cache=False)
    with client(judge) as c:
        c.post("/score", json={"records": [RECORD]})
        first = judge.engine.stats.model_pairs
        assert first > 0 and not judge.engine._memo
        c.post("/score", json={"records": [RECORD]})
        assert judge.engine.stats.model_pairs == 2 * first


def test_a_generative_judge_is_served_for_records():
    """The generative judge (a scripted 'model': every prompt answered with a rating of 5 for
    statement 1) rates records through the server as it does in process; bare pairs are refused."""
    from citetrain.judges.generative import GenerativeJudge

    block = ('<thinking> t </thinking>\n<editing sentence_id="1"> N/A </editing>\n'
             '<rating sentence_id="1"> 5 </rating>')

    class Scripted(GenerativeJudge):
        def __init__(self):
            super().__init__(None, None, name="generative:scripted")

        def generate(self, prompts, progress):
            return [block] * len(prompts)

    with client(Scripted()) as c:
        r = c.post("/score", json={"records": [RECORD, {**RECORD, "id": "r2"}]})
        assert r.status_code == 200
        got = r.json()["records"]
        assert [g["id"] for g in got] == ["r1", "r2"]
        assert [row["rating"] for g in got for row in g["statements"]] == [1.0, 1.0]
        assert got[0]["statements"][0]["status"] == "ok" and got[0]["citeeval_full"] == 1.0
        assert c.post("/score", json={"pairs": [["p", "s"]]}).status_code == 422


def test_context_gates_reach_the_served_judge():
    """``citetrain serve --query-recall 0 --response-recall 0`` serves φ alone: the
    config hands the gates to make_judge, which hands them to the NLI judge; out of range is a
    validation error naming the field."""
    import pydantic

    config = ServeConfig(judge="nli:lexical", query_recall=0, response_recall=0.5)
    assert config.judge_options() == {"query_recall": 0, "response_recall": 0.5}
    judge = make_judge(config.judge, progress=False, cache=False, **config.judge_options())
    assert (judge.query_recall, judge.response_recall) == (0, 0.5)
    assert ServeConfig(judge="generative:x", query_recall=0).judge_options() == {}
    with pytest.raises(pydantic.ValidationError, match="query_recall"):
        ServeConfig(judge="nli:lexical", query_recall=1.5)
    needed = ServeConfig(judge="nli:lexical", subsets="needed").judge_options()
    assert needed == {"subsets": "needed"}
    assert make_judge("nli:lexical", progress=False, cache=False, **needed).subsets == "needed"
    with pytest.raises(pydantic.ValidationError, match="subsets"):
        ServeConfig(judge="nli:lexical", subsets="some")


def test_every_refusal_is_one_line_of_json_unknown_routes_and_methods_too():
    with client() as c:
        for r, status in ((c.get("/nowhere"), 404), (c.get("/score"), 405), (c.delete("/health"), 405),
                          (c.post("/score/", json={"records": [RECORD]}), 404),
                          (c.options("/score"), 405)):
            assert r.status_code == status and list(r.json()) == ["error"], r.text
            assert "\n" not in r.json()["error"] and "routes: POST /score" in r.json()["error"]
        assert c.post("/score", json={"records": [RECORD]}).status_code == 200


@pytest.mark.parametrize("content_type, status", [
    (None, 415), ("text/plain", 415), ("application/x-www-form-urlencoded", 415),
    ("multipart/form-data; boundary=x", 415), ("application/json; charset=latin-1", 415),
    ("application/json", 200), ("Application/JSON; charset=UTF-8", 200)])
def test_only_json_bodies_are_read(content_type, status):
    """A page may post text/plain or a form without the browser's preflight: never read."""
    headers = {"Content-Type": content_type} if content_type else {}
    with client() as c:
        r = c.post("/score", content=json.dumps({"records": [RECORD]}), headers=headers)
        assert r.status_code == status, r.text
        if status == 415:
            assert r.json()["error"].endswith("send application/json (UTF-8)")


@pytest.mark.parametrize("host, status", [
    ("localhost", 200), ("localhost:8000", 200), ("127.0.0.1:9", 200), ("[::1]:8000", 200),
    ("LOCALHOST.", 200), ("attacker.example", 421), ("attacker.example:8000", 421),
    ("127.0.0.1.attacker.example", 421), ("[", 421), ("judge.lan", 200)])
def test_the_host_header_must_name_this_server(host, status):
    """DNS rebinding: a page on attacker.example that resolves to 127.0.0.1 sends its own name."""
    with client(allow_hosts=["judge.lan"]) as c:
        r = c.post("/score", json={"records": [RECORD]}, headers={"Host": host})
        assert r.status_code == status, r.text
        assert c.get("/health", headers={"Host": host}).status_code == status
        if status == 421:
            assert "--allow-host" in r.json()["error"]
    with client(allow_hosts=["*"]) as c:
        assert c.get("/health", headers={"Host": "anything.example"}).status_code == 200


def test_work_is_bounded_before_any_nli_call():
    judge = make_judge("nli:lexical", progress=False, cache=False)
    marks = {**RECORD, "output": "Paris is the capital of France " + "[1]" * 150 + "."}
    many = {**RECORD, "output": "Paris is in France [1]. " * 30}
    wide = {**RECORD, "docs": RECORD["docs"] * 20}
    with client(judge, max_marks=100, max_statements=40, max_nli_calls=5000) as c:
        cases = [({"records": [marks]}, "150 citation ids in the responses' marks; at most 100 per "
                  "request (--max-marks)"),
                 ({"records": [many, many]}, "60 statements in the responses; at most 40 per request "
                  "(--max-statements)"),
                 ({"records": [{**RECORD, "output": "Yes. " * 100}]}, "101 sentence ends in the "
                  "responses; at most 40 statements per request (--max-statements)"),
                 ({"records": [{**wide, "output": "Paris is big [1]. " * 4}]}, "up to 5584 NLI "
                  "calls for these statements and passages; at most 5000 per request "
                  "(--max-nli-calls): send fewer"),
                 ({"records": [{**RECORD, "output": "A [" + "9" * 5000 + "]."}]},
                  "record 'r1': a citation mark's id has 5000 digits; at most 18")]
        for body, message in cases:
            r = c.post("/score", json=body)
            assert (r.status_code, r.json()) == (422, {"error": message})
        assert judge.engine.stats.model_pairs == 0  # refused before any call
        assert c.post("/score", json={"records": [many]}).status_code == 200
    with client(judge, max_nli_calls=3, max_items=10) as c:
        r = c.post("/score", json={"pairs": [["p", "s"]] * 4})
        assert r.status_code == 422 and r.json()["error"].startswith("4 pairs; at most 3 per request")


def test_a_full_queue_answers_503_with_retry_after():
    with client(SlowOrBrokenJudge(), max_queue=2, max_items=2, max_batch=1, wait_ms=0) as c:
        from concurrent.futures import ThreadPoolExecutor

        slow = {"records": [{**RECORD, "output": "slow [1]."}] * 2}
        with ThreadPoolExecutor(3) as pool:
            first = pool.submit(c.post, "/score", json=slow)
            time.sleep(0.3)  # the first batch runs; one record waits
            second = pool.submit(c.post, "/score", json=slow)
            refused = second.result()
            assert first.result().status_code == 200
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert refused.json()["error"].startswith("overloaded: 1 items waiting; at most 2 (--max-queue)")


def test_a_timed_out_request_leaves_the_judge_to_the_next_one():
    """--timeout 0.3 against 20 records of 0.6 s per batch of 2: the client gets its 504 and the
    judge stops after the batch in progress; a request sent then is answered in about a batch."""
    judge = SlowOrBrokenJudge()
    seen = []
    inner = judge.score

    def counting(records, *, progress=True):
        seen.append(len(records))
        return inner(records, progress=progress)

    judge.score = counting
    with client(judge, timeout_s=1.0, max_batch=2, wait_ms=0) as c:
        r = c.post("/score", json={"records": [{**RECORD, "output": "slow [1]."}] * 20})
        assert r.status_code == 504 and r.json() == {"error": "not scored within 1 s (--timeout)"}
        start = time.monotonic()
        assert c.post("/score", json={"records": [RECORD]}).status_code == 200
        assert time.monotonic() - start < 1.5  # at most the batch in progress, then its own
        assert sum(seen) < 20 and len(seen) <= 4


def test_a_fault_of_the_server_is_a_500_in_one_line_of_json():
    app = create_app(ServeConfig(judge="nli:lexical"), judge=make_judge("nli:lexical", progress=False,
                                                                        cache=False))

    @app.get("/boom")
    async def boom():
        raise RuntimeError("a bug\nin two lines")

    with TestClient(app, base_url="http://localhost", raise_server_exceptions=False) as c:
        r = c.get("/boom")
        assert r.status_code == 500 and r.json() == {"error": "internal error"}
