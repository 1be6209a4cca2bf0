"""uvicorn's h11 protocol with the limits a server facing untrusted clients needs.

:class:`GuardedH11Protocol` (given to uvicorn as ``http=``) adds to uvicorn's own keep-alive
timeout:

* a header timeout: a connection that has not sent a whole request head within
  ``header_timeout_s`` seconds of opening (or of its previous response) gets a 408 and is closed,
  so partial headers cannot hold a connection;
* a connection limit: a request that arrives while more than ``max_connections`` connections are
  open gets a 503 with ``Retry-After`` and its connection is closed;
* one-line JSON bodies for what uvicorn answers itself: malformed HTTP (400) and the above;
* the start of a shutdown handed to the app: the first connection told to shut down calls the
  ``drain`` hook the app's lifespan left in its state, so queued requests get 503 at once.

The settings come from the app's lifespan state (``guard``: the
:class:`~citetrain.serve.config.ServeConfig`), so every worker process reads its own.
"""
from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from citetrain.serve.guards import RETRY_AFTER_S


def raw_response(status: int, message: str, headers: dict[str, str] | None = None) -> bytes:
    """A whole HTTP/1.1 response with a ``{"error": message}`` body that closes the connection."""
    body = json.dumps({"error": message}).encode()
    phrase = {400: "Bad Request", 408: "Request Timeout", 503: "Service Unavailable"}[status]
    lines = [f"HTTP/1.1 {status} {phrase}", "content-type: application/json",
             f"content-length: {len(body)}", "connection: close",
             *(f"{k}: {v}" for k, v in (headers or {}).items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class GuardedH11Protocol(H11Protocol):
    """H11Protocol with a header timeout, a connection limit and JSON refusals."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._inner_app = self.app
        self.app = self._guarded_app

    @property
    def _config(self) -> Any:
        return self.app_state.get("guard")

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._arm_head_timer()  # a head begun (or a keep-alive gap): it must end in time
        else:
            self._disarm_head_timer()

    def _arm_head_timer(self) -> None:
        config = self._config
        if self._head_timer is None and config is not None:
            self._head_timer = self.loop.call_later(config.header_timeout_s, self._head_timeout)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a response is under way; the keep-alive timer takes over after it
        seconds = self._config.header_timeout_s
        self._close_with(408, f"request head not received within {seconds:g} s (--header-timeout)")

    def _close_with(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        if not self.transport.is_closing():
            self.transport.write(raw_response(status, message, headers))
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """Malformed HTTP: one JSON line instead of uvicorn's plain text."""
        self._close_with(400, "invalid HTTP request: the request line or headers cannot be parsed")

    def shutdown(self) -> None:
        """The server stops: let the app refuse what is queued, then close as uvicorn does."""
        drain = self.app_state.get("drain")
        if drain is not None:
            drain()
        super().shutdown()

    async def _guarded_app(self, scope: Any, receive: Any, send: Any) -> None:
        config = self._config
        if config is not None and len(self.connections) > config.max_connections:
            self.logger.warning("more than %d connections: 503", config.max_connections)
            body = json.dumps({"error": f"more than {config.max_connections} connections open "
                                        "(--max-connections); retry later"}).encode()
            await send({"type": "http.response.start", "status": 503, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(RETRY_AFTER_S).encode()), (b"connection", b"close")]})
            await send({"type": "http.response.body", "body": body})
            return
        await self._inner_app(scope, receive, send)
