"""The judge app in process (FastAPI's TestClient): the token, the body cap, the timeout, a judge
that fails, and the health route; the server answers the next request after each refusal."""
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
                                                                   cache=False)))


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
        h = c.get("/health").json()
        assert h["status"] == "ok" and h["batches"] == 2


def test_a_token_is_asked_for_when_set():
    with client(token="s3cret") as c:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            r = c.post("/score", json={"records": [RECORD]}, headers=headers)
            assert r.status_code == 401 and "bearer token" in r.json()["error"]
        ok = c.post("/score", json={"records": [RECORD]}, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
        assert c.get("/health").status_code == 200  # health needs no token


def test_bodies_over_the_cap_are_refused_declared_or_streamed():
    with client(max_body_bytes=1000) as c:
        big = json.dumps({"records": [{**RECORD, "output": "word " * 400}]}).encode()
        r = c.post("/score", content=big, headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and r.json()["error"].startswith(f"body of {len(big)} bytes")

        def chunks():  # no Content-Length: the cap applies while reading
            for i in range(0, len(big), 100):
                yield big[i:i + 100]

        r = c.post("/score", content=chunks())
        assert r.status_code == 413 and "body over 1000 bytes" in r.json()["error"]
        assert c.post("/score", json={"records": [RECORD]}).status_code == 200


def test_a_slow_request_times_out_and_a_broken_one_is_a_500_and_the_server_goes_on():
    with client(SlowOrBrokenJudge(), timeout_s=0.2) as c:
        r = c.post("/score", json={"records": [{**RECORD, "output": "slow [1]."}]})
        assert r.status_code == 504 and r.json() == {"error": "not scored within 0.2 s (--timeout)"}
        time.sleep(0.6)
        r = c.post("/score", json={"records": [{**RECORD, "output": "boom [1]."}]})
        assert r.status_code == 500
        assert r.json()["error"] == "internal error: RuntimeError: the model fell over on two lines"
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
