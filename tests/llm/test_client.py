"""The chat client and its cache against a fake OpenAI-compatible server on 127.0.0.1."""
from __future__ import annotations

import pytest

from citetrain.errors import CitetrainError
from citetrain.llm.cache import ChatCache, chat_key
from citetrain.llm.client import CachedChat, ChatClient


KEY = "sk-test-5ecret-never-shown"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


PROMPTS = [f"prompt {i}" for i in range(8)]


def test_answers_in_order_with_concurrency(server):
    # later prompts answer sooner, so the answers arrive out of order
    srv = server(delay=lambda p: 0.02 * (8 - int(p.split()[1])))
    client = ChatClient("teacher", base_url=srv.url, concurrency=4, max_tokens=64)
    assert client.complete(PROMPTS) == [f"answer to {p}" for p in PROMPTS]
    assert sorted(srv.prompts) == PROMPTS and 1 < srv.peak <= 4
    body = srv.bodies[0]
    assert body["model"] == "teacher" and body["max_tokens"] == 64 and body["temperature"] == 0.0
    assert len(body["messages"]) == 1 and body["messages"][0]["role"] == "user"
    assert client.complete([]) == [] and KEY not in repr(client)


def test_cache_answers_a_second_call_without_requests(server, tmp_path, capsys):
    srv = server()
    chat = CachedChat(ChatClient("teacher", base_url=srv.url), tmp_path / "chat.sqlite")
    prompts = ["a", "b", "a", "c", "b"]  # duplicates are asked once
    want = [f"answer to {p}" for p in prompts]
    assert chat.complete(prompts) == want
    assert "chat teacher" in capsys.readouterr().err  # the progress bar
    assert sorted(srv.prompts) == ["a", "b", "c"]
    assert (chat.stats.requested, chat.stats.unique, chat.stats.cache_hits, chat.stats.requests) == (
        5, 3, 0, 3)
    assert chat.complete(prompts, progress=False) == want
    again = CachedChat(ChatClient("teacher", base_url=srv.url), tmp_path / "chat.sqlite")
    assert again.complete(["c", "a"], progress=False) == ["answer to c", "answer to a"]
    assert len(srv.prompts) == 3 and again.stats.cache_hits == 2 and again.stats.requests == 0
    assert chat.stats.cache_hits == 3 and len(ChatCache(tmp_path / "chat.sqlite")) == 3


def test_cache_key_holds_model_and_settings(server, tmp_path):
    srv = server()
    path = tmp_path / "chat.sqlite"
    for client in (ChatClient("teacher", base_url=srv.url), ChatClient("other", base_url=srv.url),
                   ChatClient("teacher", base_url=srv.url, temperature=0.7),
                   ChatClient("teacher", base_url=srv.url, max_tokens=8)):
        CachedChat(client, path).complete(["a"], progress=False)
    assert len(srv.prompts) == 4 and len(ChatCache(path)) == 4
    chat = CachedChat(ChatClient("teacher", base_url=srv.url), path)
    assert chat.key("a") == chat_key("teacher", 0.0, chat.client.max_tokens, "a")


def test_retries_500_then_succeeds(server):
    srv = server(script=[500, 503, 429])
    client = ChatClient("teacher", base_url=srv.url, retry_delay=0.001)
    assert client.complete(["a"]) == ["answer to a"] and len(srv.prompts) == 4


def test_refused_key_is_one_line_without_the_key(server, tmp_path):
    srv = server(script=[401])
    chat = CachedChat(ChatClient("teacher", base_url=srv.url, retry_delay=0.001), tmp_path / "c.db")
    with pytest.raises(CitetrainError) as err:
        chat.complete(["a"], progress=False)
    assert str(err.value) == f"{srv.url} refused the API key (HTTP 401); check $OPENAI_API_KEY"
    assert len(srv.prompts) == 1 and err.value.__cause__ is None and "\n" not in str(err.value)
    assert KEY not in str(err.value) and KEY not in repr(chat)


def test_other_errors_mask_an_echoed_key_and_bad_settings_fail(server):
    srv = server(script=[400])
    with pytest.raises(CitetrainError, match=r"HTTP 400: .*Bearer \*\*\*") as err:
        ChatClient("teacher", base_url=srv.url).complete(["a"])
    assert KEY not in str(err.value)
    with pytest.raises(CitetrainError, match="tries must be at least 1"):
        ChatClient("teacher", tries=0)


@pytest.mark.parametrize("concurrency, resent", [(1, ["p2", "p3"]), (4, ["p2"])])
def test_a_rerun_resumes_after_a_failure(server, tmp_path, concurrency, resent):
    prompts = ["p0", "p1", "p2", "p3"]
    # the failing prompt answers slowly, so with concurrency 4 every request is under way by then
    broken = server(fail={"p2"}, delay=lambda p: 0.05 if p == "p2" else 0.0)
    path = tmp_path / "chat.sqlite"
    first = CachedChat(ChatClient("teacher", base_url=broken.url, tries=2, retry_delay=0,
                                  concurrency=concurrency), path)
    with pytest.raises(CitetrainError, match=r"after 2 tries: HTTP 500"):
        first.complete(prompts, progress=False)
    assert broken.prompts.count("p2") == 2 and first.stats.requests == 4 - len(resent)
    healthy = server()
    second = CachedChat(ChatClient("teacher", base_url=healthy.url, concurrency=concurrency), path)
    assert second.complete(prompts, progress=False) == [f"answer to {p}" for p in prompts]
    assert sorted(healthy.prompts) == resent
    assert second.stats.cache_hits == 4 - len(resent) and second.stats.requests == len(resent)


def test_client_default_url_and_key_from_the_environment(server, monkeypatch):
    srv = server()
    monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/")
    monkeypatch.setenv("MY_TEACHER_KEY", "other-key")
    client = ChatClient("teacher", api_key_env="MY_TEACHER_KEY")
    assert client.base_url == srv.url and client.complete(["a"]) == ["answer to a"]
    assert srv.headers[0]["Authorization"] == "Bearer other-key" and "other-key" not in repr(client)
    monkeypatch.delenv("MY_TEACHER_KEY")  # read at request time: none now, no header (local vLLM)
    assert client.complete(["b"]) == ["answer to b"] and "Authorization" not in srv.headers[1]
    assert ChatClient("x", base_url="http://h/v1/").base_url == "http://h/v1"
