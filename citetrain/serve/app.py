"""The judge's HTTP app (FastAPI, served by uvicorn): ``POST /score`` and ``GET /health``.

The judge is loaded once per worker, when the worker starts (``lifespan``). ``/score`` checks the
bearer token (401), the body size (413, from ``Content-Length`` or while reading), the body itself
(:mod:`citetrain.serve.bodies`: 400 / 422), hands the items to the batcher of their kind and waits
at most ``timeout_s`` (504). Every refusal is ``{"error": "<one line>"}``; an error inside the judge
is a 500 with one line, and the server goes on. ``/health`` needs no token and says whether the
judge is loaded.
"""
from __future__ import annotations

import asyncio
import hmac
import os
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from citetrain.serve.api import HEALTH_ROUTE, SCORE_ROUTE
from citetrain.serve.batcher import Batcher
from citetrain.serve.bodies import RequestError, parse_body
from citetrain.serve.config import ServeConfig
from citetrain.serve.scoring import score_pairs, score_records


def load_judge(config: ServeConfig) -> Any:
    """The judge of ``config``, with the worker's share of the cores, no cache, no bars."""
    import torch

    from citetrain.io.console import quiet_libraries
    from citetrain.judges.registry import make_judge

    quiet_libraries(None)  # no weight bars or library warnings per worker (--verbose shows them)
    torch.set_num_threads(config.threads or max(1, (os.cpu_count() or 1) // config.workers))
    return make_judge(config.judge, progress=False, cache=False, **config.judge_options())


def create_app(config: ServeConfig, judge: Any = None):
    """The app for ``config``; ``judge`` (already loaded) is used instead of loading one."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        loaded = judge if judge is not None else await asyncio.to_thread(load_judge, config)
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge")
        batchers = {kind: Batcher(partial(fn, loaded), max_batch=config.max_batch,
                                  wait_s=config.wait_ms / 1000, executor=executor)
                    for kind, fn in (("records", score_records), ("pairs", score_pairs))}
        for b in batchers.values():
            b.start()
        app.state.judge, app.state.batchers, app.state.started = loaded, batchers, time.time()
        yield
        for b in batchers.values():
            await b.stop()
        executor.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title="citetrain judge", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)

    @app.exception_handler(RequestError)
    async def refused(request: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.get("/health", **HEALTH_ROUTE)
    async def health(request: Request) -> dict[str, Any]:
        state = request.app.state
        return {"status": "ok", "judge": state.judge.name, "pid": os.getpid(),
                "uptime_s": round(time.time() - state.started, 1),
                "batches": len(state.batchers["records"].batches) + len(state.batchers["pairs"].batches)}

    @app.post("/score", **SCORE_ROUTE)
    async def score(request: Request) -> JSONResponse:
        check_token(request.headers.get("authorization"), config.token)
        body = await read_capped(request, config.max_body_bytes)
        kind, items = parse_body(body, config)
        state = request.app.state
        if kind == "pairs" and getattr(state.judge, "engine", None) is None:
            raise RequestError(422, f"judge {state.judge.name} rates records, not bare pairs")
        try:
            results = await asyncio.wait_for(state.batchers[kind].submit(items), config.timeout_s)
        except (asyncio.TimeoutError, TimeoutError):
            raise RequestError(504, f"not scored within {config.timeout_s:g} s (--timeout)") from None
        except Exception as exc:  # the judge failed on this request: one line, the server goes on
            text = " ".join(str(exc).split()) or type(exc).__name__
            return JSONResponse({"error": f"internal error: {type(exc).__name__}: {text}"[:500]},
                                status_code=500)
        return JSONResponse({"judge": state.judge.name, kind: results})

    return app


def check_token(header: str | None, token: str | None) -> None:
    """401 unless ``header`` is ``Bearer <token>`` (when a token is set)."""
    if token is None:
        return
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise RequestError(401, "missing or wrong bearer token (Authorization: Bearer TOKEN)")


async def read_capped(request: Any, cap: int) -> bytes:
    """The body, or 413 as soon as it is known to exceed ``cap`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise RequestError(413, f"body of {int(declared)} bytes; at most {cap} (--max-body-bytes)")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise RequestError(413, f"body over {cap} bytes (--max-body-bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


def app_from_env():
    """uvicorn's factory for each worker process: the config from ``CITETRAIN_SERVE_CONFIG``."""
    return create_app(ServeConfig.from_env())
