"""A fake OpenAI-compatible chat server on 127.0.0.1 (http.server in a thread) for the tests."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterable

import pytest


class ChatServer:
    """Answers ``/v1/chat/completions`` with ``answer(prompt)`` (default ``"answer to <prompt>"``).

    ``script``: HTTP statuses to send first; ``fail``: prompts that always get a 500;
    ``delay(prompt)``: seconds to wait before answering; ``hang_after``: requests past this many
    hang (until :meth:`close`) instead of answering; ``logprobs``: sent with every answer.
    ``prompts``, ``bodies`` and ``headers`` list every request's.
    """

    def __init__(self, script: Iterable[int] = (), fail: Iterable[str] = (),
                 delay: Callable[[str], float] | None = None,
                 answer: Callable[[str], str] | None = None, hang_after: int | None = None,
                 logprobs: dict | None = None):
        self.script, self.fail, self.delay = list(script), set(fail), delay
        self.logprobs = logprobs
        self.answer = answer or (lambda prompt: f"answer to {prompt}")
        self.hang_after = hang_after
        self.prompts: list[str] = []
        self.bodies: list[dict] = []
        self.headers: list[dict] = []
        self.in_flight = self.peak = 0
        self.lock = threading.Lock()
        self.closing = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][0]["content"]
                with outer.lock:
                    outer.prompts.append(prompt)
                    outer.bodies.append(body)
                    outer.headers.append(dict(self.headers))
                    hang = outer.hang_after is not None and len(outer.prompts) > outer.hang_after
                    status = outer.script.pop(0) if outer.script else 200
                    status = 500 if prompt in outer.fail else status
                    outer.in_flight += 1
                    outer.peak = max(outer.peak, outer.in_flight)
                if hang:
                    outer.closing.wait(30)
                    return
                if outer.delay is not None:
                    time.sleep(outer.delay(prompt))
                with outer.lock:  # before replying: the client may send the next one at once
                    outer.in_flight -= 1
                if status != 200:  # echoes the Authorization header, as careless servers do
                    self._send(status, {"error": f"no ({self.headers.get('Authorization')})"})
                else:
                    message = {"role": "assistant", "content": outer.answer(prompt)}
                    choice = {"index": 0, "message": message}
                    if outer.logprobs is not None:
                        choice["logprobs"] = outer.logprobs
                    self._send(200, {"choices": [choice]})

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True).start()

    @property
    def requests(self) -> list[tuple[dict, dict]]:
        """``(headers, body)`` of every request, in order."""
        return list(zip(self.headers, self.bodies))

    def close(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    """``server(**kwargs)`` starts a :class:`ChatServer`; every one made is closed afterwards."""
    made: list[ChatServer] = []

    def make(**kwargs) -> ChatServer:
        made.append(ChatServer(**kwargs))
        return made[-1]

    yield make
    for s in made:
        s.close()
