"""uvicorn's h11 protocol with the limits a server facing untrusted clients needs.

:class:`GuardedH11Protocol` (given to uvicorn as ``http=``) adds to uvicorn's own keep-alive
timeout:

* a header timeout: a connection that has not sent a whole request head within
  ``header_timeout_s`` seconds of opening (or of its first byte after a response) gets a 408 and
  is closed, so partial headers cannot hold a connection;
* a read deadline per request: head and body must be in within ``header_timeout_s +
  body_timeout_s`` seconds of the request's first byte, whatever the app does; the timer is armed
  once per request, so bytes trickled one at a time never extend it (408, closed);
* a send timeout: a client that leaves its reply unread, so that the server's send buffer stays
  full (the transport's writing paused) for ``send_timeout_s`` seconds, or a closed connection's
  last bytes unsent that long, has its connection dropped;
* refusals that close: a response of 4xx or 5xx sent before the app read the whole body, or any
  response sent while the client is still sending its body, carries ``Connection: close`` and
  the connection is closed after it, so a refused client cannot keep the connection by trickling
  the body it announced;
* a connection limit: a request that arrives while more than ``max_connections`` connections are
  open gets a 503 with ``Retry-After`` and its connection is closed;
* request smuggling refused: ``Content-Length`` together with ``Transfer-Encoding`` is a 400;
* one-line JSON bodies for what uvicorn answers itself: malformed HTTP (400) and the above;
* the start of a shutdown handed to the app: the first connection told to shut down calls the
  ``drain`` hook the app's lifespan left in its state, so queued requests get 503 at once; a
  request still unanswered when the grace period ends (uploading, parsed or scored) gets a JSON
  503 just before uvicorn cancels its task, and that cancellation ends quietly (not uvicorn's
  plain 500 and its ``CancelledError`` traceback).

The settings come from the app's lifespan state (``guard``: the
:class:`~citetrain.serve.config.ServeConfig`), so every worker process reads its own.
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from citetrain.serve.bodies import error_body
from citetrain.serve.config import flag
from citetrain.serve.guards import RETRY_AFTER_S

SHUTTING_DOWN = "the server is shutting down; retry later"
PHRASES = {400: "Bad Request", 408: "Request Timeout", 503: "Service Unavailable"}
READING = (h11.IDLE, h11.SEND_BODY)  # the client's states while its request is not all in


def raw_response(status: int, message: str, headers: dict[str, str] | None = None) -> bytes:
    """A whole HTTP/1.1 response with a ``{"error": message}`` body that closes the connection."""
    body = error_body(message)
    lines = [f"HTTP/1.1 {status} {PHRASES[status]}", "content-type: application/json",
             f"content-length: {len(body)}", "connection: close",
             *(f"{k}: {v}" for k, v in (headers or {}).items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def _closing(message: dict) -> dict:
    """``message`` (an ``http.response.start``) with ``Connection: close`` among its headers."""
    headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
    return {**message, "headers": [*headers, (b"connection", b"close")]}


async def _send_error(send: Callable, status: int, message: str,
                      headers: dict[str, str] | None = None) -> None:
    """A ``{"error": message}`` response through the ASGI ``send``, closing the connection."""
    body = error_body(message)
    extra = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        *extra, (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class GuardedH11Protocol(H11Protocol):
    """H11Protocol with header, read and send timeouts, a connection limit, refusals that close
    and JSON refusals."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._read_timer: asyncio.TimerHandle | None = None
        self._send_timer: asyncio.TimerHandle | None = None
        self._inner_app = self.app
        self.app = self._guarded_app

    @property
    def _config(self) -> Any:
        return self.app_state.get("guard")

    # -- the connection's life --------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_read_timers()

    def connection_lost(self, exc: Exception | None) -> None:
        for name in ("_head_timer", "_read_timer", "_send_timer"):
            self._disarm(name)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._track_reading()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is not h11.IDLE:  # idle: the keep-alive timer's, until a byte
            self._track_reading()  # a pipelined request taken up: its read deadline starts
        self._watch_last_bytes()

    def timeout_keep_alive_handler(self) -> None:
        super().timeout_keep_alive_handler()
        self._watch_last_bytes()

    def _track_reading(self) -> None:
        """Arm the read timers while a request is coming in, disarm them once it is all in."""
        state = self.conn.their_state
        if self.transport.is_closing() or state not in READING:
            self._disarm("_head_timer")
            self._disarm("_read_timer")
        elif state is h11.IDLE:
            self._arm_read_timers()  # a head begun (or a keep-alive gap): it must end in time
        else:
            self._disarm("_head_timer")
            self._arm_read_timers(head=False)

    # -- timers -------------------------------------------------------------------------------
    def _arm(self, name: str, seconds: float, callback: Callable[[], None]) -> None:
        if getattr(self, name) is None:
            setattr(self, name, self.loop.call_later(seconds, callback))

    def _disarm(self, name: str) -> None:
        timer = getattr(self, name)
        if timer is not None:
            timer.cancel()
            setattr(self, name, None)

    def _arm_read_timers(self, head: bool = True) -> None:
        config = self._config
        if config is None:
            return
        if head:
            self._arm("_head_timer", config.header_timeout_s, self._head_timeout)
        self._arm("_read_timer", config.header_timeout_s + config.body_timeout_s,
                  self._read_timeout)

    def _answering(self) -> bool:
        """Whether a response is under way (the timers of reading then leave the connection)."""
        return self.cycle is not None and self.cycle.response_started \
            and not self.cycle.response_complete

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a response is under way; the keep-alive timer takes over after it
        seconds = self._config.header_timeout_s
        self._close_with(408, f"request head not received within {seconds:g} s "
                              f"({flag('header_timeout_s')})")

    def _read_timeout(self) -> None:
        self._read_timer = None
        if self.transport.is_closing() or self.conn.their_state not in READING:
            return
        if self._answering() or (self.conn.their_state is h11.IDLE and self.cycle is not None
                                 and not self.cycle.response_complete):
            return  # the send timeout watches a response under way
        config = self._config
        total = config.header_timeout_s + config.body_timeout_s
        self.logger.warning("a request not received within %g s: 408, connection closed", total)
        self._close_with(408, f"request not received within {total:g} s "
                              f"({flag('header_timeout_s')} + {flag('body_timeout_s')})")

    def pause_writing(self) -> None:
        """The client reads slower than the server writes: it has ``send_timeout_s`` to catch up."""
        super().pause_writing()
        config = self._config
        if config is not None:
            self._arm("_send_timer", config.send_timeout_s, self._send_timeout)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._disarm("_send_timer")
        self._watch_last_bytes()

    def _watch_last_bytes(self) -> None:
        """A closing connection with bytes still unsent: they must go within the send timeout."""
        config = self._config
        if (config is not None and self.transport.is_closing()
                and self.transport.get_write_buffer_size() > 0):
            self._arm("_send_timer", config.send_timeout_s, self._send_timeout)

    def _send_timeout(self) -> None:
        self._send_timer = None
        if self.transport.get_write_buffer_size() == 0:
            return
        self.logger.warning("a client left %d bytes unread for %g s (%s): connection dropped",
                            self.transport.get_write_buffer_size(), self._config.send_timeout_s,
                            flag("send_timeout_s"))
        self.transport.abort()

    # -- answers uvicorn makes itself ---------------------------------------------------------
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
        config = self._config
        if config is not None and self.cycle is not None and not self.cycle.response_complete:
            # just before uvicorn cancels what still runs (0.1 s + grace from now)
            self.loop.call_later(max(config.grace_s - 0.05, 0), self._grace_over)
        super().shutdown()

    def _grace_over(self) -> None:
        """The grace period is over with this request unanswered (uploading, parsed or scored):
        a JSON 503 now, and the app's own answer, if it ever comes, goes nowhere."""
        cycle = self.cycle
        if cycle is None or cycle.response_started or self.transport.is_closing():
            return
        cycle.disconnected = True
        cycle.message_event.set()  # a body still awaited: the app sees the client gone
        self._close_with(503, SHUTTING_DOWN)

    # -- the app, guarded ---------------------------------------------------------------------
    def _refusal(self, scope: Any) -> tuple[int, str, dict[str, str] | None] | None:
        """What the connection answers before the app sees the request, if anything."""
        config = self._config
        if config is not None and len(self.connections) > config.max_connections:
            self.logger.warning("more than %d connections: 503", config.max_connections)
            return (503, f"more than {config.max_connections} connections open "
                         f"({flag('max_connections')}); retry later",
                    {"Retry-After": str(RETRY_AFTER_S)})
        names = {name for name, _ in scope.get("headers", [])}
        if b"content-length" in names and b"transfer-encoding" in names:
            return 400, "Content-Length and Transfer-Encoding together: send one", None
        return None

    async def _guarded_app(self, scope: Any, receive: Any, send: Any) -> None:
        refused = self._refusal(scope)
        if refused is not None:
            await _send_error(send, *refused)
            return
        seen = {"body": False, "started": False}

        async def receive_tracked() -> Any:
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                seen["body"] = True  # all of the body, or a disconnect: nothing more to read
            return message

        async def send_closing(message: Any) -> None:
            if message["type"] == "http.response.start":
                seen["started"] = True
                if self.conn.their_state is not h11.DONE or (
                        message["status"] >= 400 and not seen["body"]):
                    message = _closing(message)  # the rest of the body is never read
            await send(message)

        try:
            await self._inner_app(scope, receive_tracked, send_closing)
        except asyncio.CancelledError:  # only uvicorn's shutdown cancels a request's task
            await self._cancelled_at_shutdown(seen["started"], send)

    async def _cancelled_at_shutdown(self, started: bool, send: Any) -> None:
        """The grace period ended with this request under way: a JSON 503 (or, with its response
        begun, the connection closed), no traceback."""
        if started or self.transport.is_closing():
            self.transport.close()
            return
        await _send_error(send, 503, SHUTTING_DOWN)
