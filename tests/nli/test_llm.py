"""The LLM judge against a fake OpenAI-compatible server on 127.0.0.1."""
from __future__ import annotations

import json
import socket

import pytest

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIBackend
from citetrain.nli.engine import NLIEngine
from citetrain.nli.llm import LLMNLI, parse_verdict
from tests.fake_openai import ChatServer

KEY = "sk-test-5ecret-never-shown"


def _verdict(prompt: str) -> str:
    claim = prompt.split("Claim: ")[1].split("\n")[0]
    return "Attributable" if "Paris" in claim else "Contradictory" if "Moon" in claim else "Extrapolatory."


@pytest.fixture
def server_factory():
    made = []

    def make(script=(), logprobs=None):
        made.append(ChatServer(script=script, answer=_verdict, logprobs=logprobs))
        return made[-1]

    yield make
    for s in made:
        s.close()


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


PAIRS = [
    ("Title: France\nParis is the capital of France.", "Paris is in France."),
    ("Title: Moon\nThe Moon is made of rock.", "The Moon is made of cheese."),
    ("Title: Rain\nIt rained on Monday.", "It rained all week."),
]


def test_success_labels_prompt_and_headers(server_factory):
    srv = server_factory()
    nli = LLMNLI("judge-7b", base_url=srv.url, concurrency=3)
    assert isinstance(nli, NLIBackend) and nli.batch_size == 16
    got = nli.predict(PAIRS)
    assert [(r.prob, r.label) for r in got] == [(1.0, True), (0.0, False), (0.0, False)]
    assert got[0].support == (1.0, 0.0, 0.0) and got[1].support == (0.0, 0.0, 1.0)
    assert len(srv.requests) == 3
    headers, body = next(r for r in srv.requests if "Paris" in json.dumps(r[1]))
    assert headers["Authorization"] == f"Bearer {KEY}" and body["model"] == "judge-7b"
    prompt = body["messages"][0]["content"]
    assert prompt.startswith("As an Attribution Validator")
    assert prompt.endswith("Claim: Paris is in France.\nReference: Title: France\n"
                           "Paris is the capital of France.")
    assert body["temperature"] == 0.0 and "logprobs" not in body


def test_retries_5xx_and_429_then_succeeds(server_factory):
    srv = server_factory(script=[500, 429, 503])
    nli = LLMNLI("judge", base_url=srv.url, retry_delay=0.001)
    (res,) = nli.predict(PAIRS[:1])
    assert res.label and len(srv.requests) == 4  # three failures, then the answer


def test_refused_key_fails_at_once_without_the_key(server_factory):
    srv = server_factory(script=[401])
    nli = LLMNLI("judge", base_url=srv.url, retry_delay=0.001)
    with pytest.raises(CitetrainError) as err:
        nli.predict(PAIRS[:1])
    assert str(err.value) == f"{srv.url} refused the API key (HTTP 401); check $OPENAI_API_KEY"
    assert len(srv.requests) == 1 and err.value.__cause__ is None
    assert KEY not in str(err.value) and KEY not in repr(nli)


def test_other_client_errors_mask_an_echoed_key(server_factory):
    srv = server_factory(script=[400])
    with pytest.raises(CitetrainError, match=r"HTTP 400: .*Bearer \*\*\*") as err:
        LLMNLI("judge", base_url=srv.url).predict(PAIRS[:1])
    assert KEY not in str(err.value)


def test_persistent_5xx_gives_up_after_the_tries(server_factory):
    srv = server_factory(script=[502] * 10)
    with pytest.raises(CitetrainError) as err:
        LLMNLI("judge", base_url=srv.url, tries=3, retry_delay=0.001).predict(PAIRS[:1])
    assert str(err.value) == f"cannot reach {srv.url} after 3 tries: HTTP 502"
    assert len(srv.requests) == 3


def test_unreachable_port_is_one_clear_line():
    with socket.socket() as s:  # a port that was free a moment ago and now has no listener
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    nli = LLMNLI("judge", base_url=url, retry_delay=0.001)
    with pytest.raises(CitetrainError) as err:
        nli.predict(PAIRS[:1])
    assert str(err.value) == f"cannot reach {url} after 5 tries: Connection refused"
    assert KEY not in str(err.value)


def test_key_and_url_from_the_environment(server_factory, monkeypatch):
    srv = server_factory()
    monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/")
    monkeypatch.setenv("MY_JUDGE_KEY", "other-key")
    nli = LLMNLI("judge", api_key_env="MY_JUDGE_KEY")
    assert nli.base_url == srv.url and "other-key" not in repr(nli)
    nli.predict(PAIRS[:1])
    assert srv.requests[0][0]["Authorization"] == "Bearer other-key"
    monkeypatch.delenv("MY_JUDGE_KEY")
    nli.predict(PAIRS[1:2])  # no key: no Authorization header (local vLLM); a pair not cached
    assert "Authorization" not in srv.requests[1][0]


def test_logprobs_give_the_probability(server_factory):
    # P(first token "Attrib") = 0.7 + P(" Attributable") = 0.1; "Ex" = 0.2 does not count
    lp = {"content": [{"token": "Attrib", "logprob": -0.35667494, "top_logprobs": [
        {"token": "Attrib", "logprob": -0.35667494}, {"token": "Ex", "logprob": -1.60943791},
        {"token": " Attributable", "logprob": -2.30258509}]}]}
    srv = server_factory(logprobs=lp)
    (res,) = LLMNLI("judge", base_url=srv.url, logprobs=True).predict(PAIRS[:1])
    assert res.prob == pytest.approx(0.8, abs=1e-6) and res.label
    assert srv.requests[0][1]["logprobs"] is True and srv.requests[0][1]["top_logprobs"] == 5


def test_revision_hashes_prompt_and_model():
    a, b = LLMNLI("m1"), LLMNLI("m2")
    c = LLMNLI("m1", prompt="Does {reference} support {claim}? Attributable or not.")
    assert a.revision.startswith("prompt-") and len({a.revision, b.revision, c.revision}) == 3
    assert LLMNLI("m1").revision == a.revision
    with pytest.raises(CitetrainError, match="unknown option"):
        LLMNLI("m1", max_length=10)


def test_parse_verdict():
    assert parse_verdict("Attributable") == "attributable"
    assert parse_verdict("  extrapolatory. The reference does not say") == "extrapolatory"
    assert parse_verdict("Contradictory, not Attributable") == "contradictory"
    assert parse_verdict("The claim is not attributable.") == "extrapolatory"
    assert parse_verdict("I cannot tell") is None


def test_engine_caches_llm_answers(server_factory, tmp_path):
    from citetrain.nli.cache import NLICache

    srv = server_factory()
    cache = NLICache(tmp_path / "c.sqlite")
    first = NLIEngine(LLMNLI("judge", base_url=srv.url), cache=cache, progress=False)
    first.entails(PAIRS + PAIRS)
    second = NLIEngine(LLMNLI("judge", base_url=srv.url), cache=cache, progress=False)
    assert second.entails(PAIRS) == [True, False, False]
    assert len(srv.requests) == 3 and second.stats.cache_hits == 3


def test_registry_makes_an_llm_judge(server_factory):
    from citetrain.nli.registry import make_backend

    srv = server_factory()
    nli = make_backend("llm:judge-7b", base_url=srv.url, retry_delay=0.001)
    assert isinstance(nli, LLMNLI) and nli.predict(PAIRS[:1])[0].label
