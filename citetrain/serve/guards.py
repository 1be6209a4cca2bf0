"""The checks a request passes before its body is read: the Host header, the bearer token and the
content type, then the body itself read under a size cap and a deadline.

Each refusal is a :class:`~citetrain.serve.bodies.RequestError`. The Host check
(:class:`HostGuard`, before routing, so unknown paths too) keeps a web page from reaching the
server through DNS rebinding (its requests would name the attacker's host); the content-type check
keeps a page from posting without the browser's CORS preflight (only ``application/json`` needs
one). Every one of these refusals closes the connection (:mod:`citetrain.serve.protocol` adds
``Connection: close`` to a refusal made before the body is read).
"""
from __future__ import annotations

import asyncio
import hmac
from typing import Any

from starlette.requests import ClientDisconnect
from starlette.responses import Response

from citetrain.serve.bodies import RequestError, error_body
from citetrain.serve.config import ServeConfig, flag

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
CLOSE = {"Connection": "close"}  # the rest of a refused body is never read
RETRY_AFTER_S = 1  # what an overloaded server asks a client to wait


def host_name(header: str) -> str:
    """The name of a Host header without its port: ``[::1]:8000`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    name, colon, port = header.rpartition(":")
    return name if colon and port.isdigit() and ":" not in name else header


def allowed_hosts(config: ServeConfig) -> frozenset[str] | None:
    """The Host names accepted (None: any, ``--allow-host '*'``)."""
    if "*" in config.allow_hosts:
        return None
    names = {config.host.strip("[]").lower(), *LOCAL_NAMES, *(h.lower() for h in config.allow_hosts)}
    return frozenset(n.rstrip(".") for n in names)


def check_host(header: str | None, allowed: frozenset[str] | None) -> None:
    """421 unless the Host header names an address or name this server answers for."""
    if allowed is None:
        return
    if not header:
        raise RequestError(421, "a Host header is required")
    name = host_name(header).rstrip(".")
    if name not in allowed:
        raise RequestError(421, f"Host {header[:60]!r} is not this server's; use localhost or "
                                "the address it listens on (--allow-host NAME)")


class HostGuard:
    """ASGI middleware: the Host check on every HTTP request before it is routed (421, closed)."""

    def __init__(self, app: Any, hosts: frozenset[str] | None) -> None:
        self.app, self.hosts = app, hosts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            header = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), None)
            try:
                check_host(header, self.hosts)
            except RequestError as exc:
                answer = error_response(exc.status, exc.message, CLOSE)
                await answer(scope, receive, send)
                return
        await self.app(scope, receive, send)


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """A refusal or error as a response: :func:`~citetrain.serve.bodies.error_body`."""
    return Response(error_body(message), status_code=status, headers=headers,
                    media_type="application/json")


def check_token(header: str | None, token: str | None) -> None:
    """401 unless ``header`` is ``Bearer <token>`` (when a token is set)."""
    if token is None:
        return
    if not token_matches(header, token):
        raise RequestError(401, "missing or wrong bearer token (Authorization: Bearer TOKEN)")


def token_matches(header: str | None, token: str | None) -> bool:
    """Whether ``header`` carries the token, compared in constant time."""
    if token is None:
        return False
    scheme, _, given = (header or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def check_content_type(header: str | None) -> None:
    """415 unless the body is declared ``application/json`` (UTF-8, if a charset is named)."""
    media, *params = (header or "").split(";")
    charset = [p.partition("=")[2].strip().strip('"').lower() for p in params
               if p.partition("=")[0].strip().lower() == "charset"]
    if media.strip().lower() != "application/json" or any(c not in ("utf-8", "utf8") for c in charset):
        shown = (header or "none")[:60]
        raise RequestError(415, f"Content-Type {shown!r}: send application/json (UTF-8)")


async def read_body(request: Any, cap: int, timeout_s: float) -> bytes:
    """The body: 413 as soon as it is known to exceed ``cap`` bytes, 408 when it is not all
    there within ``timeout_s`` seconds (a slow or short body)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and (len(declared) > 15 or int(declared) > cap):
        raise RequestError(413, f"body of {declared[:20]} bytes; at most {cap} "
                                f"({flag('max_body_bytes')})", CLOSE)

    async def read() -> bytes:
        chunks, size = [], 0
        try:
            async for chunk in request.stream():
                size += len(chunk)
                if size > cap:
                    raise RequestError(413, f"body over {cap} bytes ({flag('max_body_bytes')})",
                                       CLOSE)
                chunks.append(chunk)
        except ClientDisconnect:  # nobody is left to answer; one line, no traceback
            raise RequestError(400, "the client closed the connection before its body ended",
                               CLOSE) from None
        return b"".join(chunks)

    try:
        return await asyncio.wait_for(read(), timeout_s)
    except (asyncio.TimeoutError, TimeoutError):
        raise RequestError(408, f"body not received within {timeout_s:g} s "
                                f"({flag('body_timeout_s')})", CLOSE) from None
