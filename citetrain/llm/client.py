"""An OpenAI-compatible chat client (vLLM, TGI, OpenAI) and :class:`CachedChat` over it.

Only the standard library speaks HTTP (``urllib.request``). The API key is read from an
environment variable (``OPENAI_API_KEY`` by default) at request time; it is never stored on the
object, logged, or put into an error message. Requests are retried with exponential backoff on
429, 5xx and connection errors; 401/403 fail at once with one line naming the variable.
"""
from __future__ import annotations

import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from tqdm.auto import tqdm

from citetrain.errors import CitetrainError
from citetrain.llm.cache import ChatCache, chat_key

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MAX_TOKENS = 1024


class ChatClient:
    """Chat completions from one model, one user message per prompt.

    Parameters
    ----------
    model : the model name the endpoint serves.
    base_url : endpoint root ending in ``/v1``; default ``$OPENAI_BASE_URL`` or OpenAI's.
    api_key_env : the environment variable holding the key (unset: no Authorization header).
    tries : attempts per request; waits ``retry_delay * 2**i`` seconds between them.
    timeout : seconds per request. ``max_tokens``, ``temperature``: generation settings.
    concurrency : requests in flight at once in :meth:`complete`.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        tries: int = 5,
        retry_delay: float = 1.0,
        timeout: float = 60.0,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        concurrency: int = 4,
    ) -> None:
        if tries < 1:
            raise CitetrainError(f"chat client: tries must be at least 1, got {tries}")
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key_env = api_key_env
        self.tries = int(tries)
        self.retry_delay = float(retry_delay)
        self.timeout = float(timeout)
        self.max_tokens = int(max_tokens)
        self.temperature = float(temperature)
        self.concurrency = max(1, int(concurrency))

    def __repr__(self) -> str:
        return f"ChatClient({self.model!r}, base_url={self.base_url!r}, key from ${self.api_key_env})"

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST JSON with retries; every failure becomes one clean line without the key."""
        url = self.base_url + path
        data = json.dumps(body).encode("utf-8")
        key = os.environ.get(self.api_key_env, "")
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        last = ""
        for attempt in range(self.tries):
            if attempt:
                time.sleep(self.retry_delay * 2 ** (attempt - 1))
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                    payload = resp.read()
                return json.loads(payload.decode("utf-8"))
            except urllib.error.HTTPError as exc:
                status = exc.code
                if status in (401, 403):
                    raise CitetrainError(
                        f"{self.base_url} refused the API key (HTTP {status}); "
                        f"check ${self.api_key_env}") from None
                if status == 429 or status >= 500:
                    last = f"HTTP {status}"
                    continue
                detail = _clean(exc.read().decode("utf-8", "replace"), key)
                raise CitetrainError(f"{url}: HTTP {status}: {detail}") from None
            except urllib.error.URLError as exc:
                reason = exc.reason
                last = getattr(reason, "strerror", None) or str(reason)
            except (ConnectionError, TimeoutError) as exc:
                last = getattr(exc, "strerror", None) or type(exc).__name__
            except http.client.HTTPException as exc:  # e.g. a reply cut short
                last = type(exc).__name__
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise CitetrainError(f"{url}: the reply is not JSON") from None
        raise CitetrainError(f"cannot reach {self.base_url} after {self.tries} tries: {_clean(last, key)}")

    def choice(self, prompt: str, **extra: Any) -> dict[str, Any]:
        """``choices[0]`` of one chat request; ``extra`` adds to (or overrides) the body."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        body.update(extra)
        reply = self.post("/chat/completions", body)
        try:
            choice = reply["choices"][0]
            _ = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise CitetrainError(
                f"{self.base_url}: unexpected reply (no choices[0].message.content)") from None
        return choice

    def answer(self, prompt: str) -> str:
        """The text of one answer (``""`` when the server sends none)."""
        return str(self.choice(prompt)["message"]["content"] or "")

    def iter_complete(self, prompts: Sequence[str]) -> Iterator[tuple[int, str]]:
        """``(index, answer)`` as each arrives, ``concurrency`` requests at once.

        On the first failure no new request starts; the answers already in flight are still
        yielded, then the error is raised.
        """
        prompts = list(prompts)
        if self.concurrency == 1 or len(prompts) <= 1:
            for i, prompt in enumerate(prompts):
                yield i, self.answer(prompt)
            return
        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(prompts)))
        error: BaseException | None = None
        try:
            futures = {pool.submit(self.answer, p): i for i, p in enumerate(prompts)}
            for fut in as_completed(futures):
                if fut.cancelled():
                    continue
                exc = fut.exception()
                if exc is None:
                    yield futures[fut], fut.result()
                elif error is None:
                    error = exc
                    for other in futures:
                        other.cancel()
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        if error is not None:
            raise error

    def complete(self, prompts: Sequence[str]) -> list[str]:
        """One answer per prompt, in the order given."""
        out = [""] * len(prompts)
        for i, answer in self.iter_complete(prompts):
            out[i] = answer
        return out


def _clean(text: str, key: str) -> str:
    """One line, at most 200 characters, with the key masked should a server echo it."""
    line = " ".join(text.split())[:200]
    return line.replace(key, "***") if key else line


@dataclass
class ChatStats:
    """Counters since the object was made: prompts asked, unique ones, cache hits, and answers
    fetched from the server."""

    requested: int = 0
    unique: int = 0
    cache_hits: int = 0
    requests: int = 0


class CachedChat:
    """:class:`ChatClient` answers through a persistent SQLite cache (``cache_path=None``: no
    cache, every answer asked).

    The key is (model, temperature, max_tokens, prompt), plus the other request fields that decide
    an answer (:meth:`choice`). Each answer is stored as soon as it arrives, so a run that is
    killed keeps what it finished and a rerun asks only for the rest. Several processes (and
    threads) may share one cache file.
    """

    def __init__(self, client: ChatClient, cache_path: str | os.PathLike[str] | None) -> None:
        self.client = client
        self.cache = ChatCache(cache_path) if cache_path is not None else None
        self.stats = ChatStats()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        where = str(self.cache.path) if self.cache is not None else None
        return f"CachedChat({self.client!r}, cache={where!r})"

    def key(self, prompt: str, temperature: float | None = None, max_tokens: int | None = None,
            **extra: Any) -> str:
        """The cache key of ``prompt`` for this client's model and settings (``temperature`` and
        ``max_tokens`` default to the client's; ``extra``: other fields that decide the answer)."""
        c = self.client
        return chat_key(c.model, c.temperature if temperature is None else temperature,
                        c.max_tokens if max_tokens is None else max_tokens, prompt, extra or None)

    def cached(self, keys: Sequence[str]) -> dict[str, str]:
        """The stored answers among ``keys`` (as stored: see :meth:`choice`)."""
        return self.cache.get_many(list(keys)) if self.cache is not None and keys else {}

    def _count(self, hit: bool) -> None:
        with self._lock:
            self.stats.requested += 1
            self.stats.unique += 1
            if hit:
                self.stats.cache_hits += 1
            else:
                self.stats.requests += 1

    def choice(self, prompt: str, *, temperature: float | None = None,
               max_tokens: int | None = None, attempt: int | None = None,
               **body: Any) -> dict[str, Any]:
        """``choices[0]`` of one request (``message.content``, and ``logprobs`` when asked for):
        the stored answer, or one request whose answer is stored at once. ``body``: more request
        fields (``stop``, ``logprobs``), part of the key; ``attempt``: the try's number, part of
        the key only, so that each retry of a sampled request is its own answer. Answers to
        requests with ``logprobs`` are stored as JSON ``{"content", "logprobs"}``, others as text."""
        key_extra = dict(body, **({} if attempt is None else {"attempt": int(attempt)}))
        key = self.key(prompt, temperature, max_tokens, **key_extra)
        stored = self.cached([key]).get(key)
        whole = bool(body.get("logprobs"))
        if stored is not None:
            self._count(True)
            return _as_choice(stored, whole)
        send = dict(body)
        if temperature is not None:
            send["temperature"] = temperature
        if max_tokens is not None:
            send["max_tokens"] = max_tokens
        got = self.client.choice(prompt, **send)
        content = str(got["message"]["content"] or "")
        text = json.dumps({"content": content, "logprobs": got.get("logprobs")}) if whole else content
        if self.cache is not None:
            self.cache.put(key, self.client.model, text)
        self._count(False)
        return _as_choice(text, whole)

    def complete(self, prompts: Sequence[str], progress: bool = True) -> list[str]:
        """One answer per prompt, in order; identical prompts are asked once."""
        prompts = [str(p) for p in prompts]
        unique = list(dict.fromkeys(prompts))
        keys = {p: self.key(p) for p in unique}
        hits = self.cached(list(keys.values()))
        known = {p: hits[k] for p, k in keys.items() if k in hits}
        with self._lock:
            self.stats.requested += len(prompts)
            self.stats.unique += len(unique)
            self.stats.cache_hits += len(known)
        todo = [p for p in unique if p not in known]
        if todo:
            model = self.client.model
            with tqdm(total=len(unique), initial=len(known), desc=f"chat {model}",
                      unit="prompt", disable=not progress) as bar:
                for i, answer in self.client.iter_complete(todo):
                    if self.cache is not None:
                        self.cache.put(keys[todo[i]], model, answer)
                    known[todo[i]] = answer
                    with self._lock:
                        self.stats.requests += 1
                    bar.update(1)
        return [known[p] for p in prompts]


def _as_choice(stored: str, whole: bool) -> dict[str, Any]:
    """A stored answer as a ``choices[0]``-like dict."""
    if not whole:
        return {"message": {"content": stored}}
    data = json.loads(stored)
    return {"message": {"content": data.get("content") or ""}, "logprobs": data.get("logprobs")}
