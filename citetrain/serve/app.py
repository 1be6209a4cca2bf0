"""The judge's HTTP app (FastAPI, served by uvicorn): ``POST /score`` and ``GET /health``.

The judge is loaded once per worker, when the worker starts (``lifespan``). Every request, unknown
paths included, has its Host header checked before routing (421, :mod:`citetrain.serve.guards`).
``/score`` checks the bearer token (401), the content type (415), reads the body under a size cap
(413) and a deadline (408), reads it (:mod:`citetrain.serve.bodies`: 400 / 422) and bounds its work
(:mod:`citetrain.serve.cost`: 422) in a thread, hands the items to the fair batcher
(:mod:`citetrain.serve.batcher`; 503 with ``Retry-After`` when its queue is full) and waits at most
``timeout_s`` (504; the request's batches not yet started are dropped). Every refusal, unknown
paths and methods included, is ``{"error": "<one line>"}``; an error inside the judge is a 500 that
says ``internal error`` and nothing more (the log has the detail and its traceback), and the server
goes on. ``/health`` says only ``{"status": "ok"}``, more with the token, and 503 while shutting
down or once the batcher has died; a dead batcher also asks the server to stop
(``app.state.stop_server``), which then exits non-zero.
"""
from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import anyio
import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from citetrain.serve.api import HEALTH_ROUTE, SCORE_ROUTE
from citetrain.serve.batcher import Batcher, Draining, Overloaded
from citetrain.serve.bodies import RequestError, parse_body
from citetrain.serve.config import ServeConfig, flag
from citetrain.serve.cost import Plan, pair_costs, plan_records
from citetrain.serve.guards import (
    CLOSE,
    RETRY_AFTER_S,
    HostGuard,
    allowed_hosts,
    check_content_type,
    error_response,
    check_token,
    read_body,
    token_matches,
)
from citetrain.serve.scoring import (
    assemble,
    is_nli_judge,
    score_chunks,
    score_pairs,
    score_records,
    warm_up,
)

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
SHUTTING_DOWN = "the server is shutting down; retry later"
BATCHER_DEAD = "the judge's batcher stopped; the server is exiting"
INTERNAL_ERROR = "internal error"
PARSES = 2  # request bodies parsed at once (each in a thread of its own)
logger = logging.getLogger("uvicorn.error")  # uvicorn's log: the server's own faults go there


def load_judge(config: ServeConfig) -> Any:
    """The judge of ``config``, with the worker's share of the cores, no cache, no bars (torch
    is not imported for a judge without a model, such as ``nli:lexical``), warmed up."""
    import sys

    from citetrain.io.console import quiet_libraries
    from citetrain.judges.registry import make_judge

    if config.judge != "nli:lexical":  # the model-free judge: no library to quiet, no torch import
        quiet_libraries(None)  # no weight bars or library warnings per worker (--verbose shows them)
    judge = make_judge(config.judge, progress=False, cache=False, **config.judge_options())
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(config.threads or max(1, (os.cpu_count() or 1) // config.workers))
    warm_up(judge)
    return judge


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, at most ``limit`` characters, with any URL replaced by ``<url>``."""
    text = " ".join(_URL.sub("<url>", text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def refusal(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """``{"error": "<one line>"}``; a 500 says only ``internal error``, and ``message`` (with the
    traceback of the exception being handled, if any) goes to the log."""
    if status == 500:
        logger.error("%s", message, exc_info=sys.exc_info()[0] is not None)
        return internal_error()
    return error_response(status, one_line(message), headers)


def internal_error() -> Response:
    """The 500 a client sees: nothing of the fault (the log has it)."""
    return error_response(500, INTERNAL_ERROR)


def parse_request(body: bytes, config: ServeConfig, judge: Any,
                  deadline: float | None = None) -> tuple[str, Plan]:
    """The body's items and their work, refused (400 / 422) before any NLI call when they
    cannot be scored, or 504 once ``deadline`` (``time.monotonic()``) has passed."""
    kind, items = parse_body(body, config)
    if kind == "pairs":
        if not is_nli_judge(judge):
            raise RequestError(422, f"judge {judge.name} rates records, not bare pairs")
        return kind, Plan([], items, pair_costs(items, config))
    return kind, plan_records(items, config, judge, deadline)


def record_lane(judge: Any):
    """What a batch of the records lane runs: chunks of statements for an NLI judge (batches
    of bounded work), whole records for any other."""
    return partial(score_chunks if is_nli_judge(judge) else score_records, judge)


def create_app(config: ServeConfig, judge: Any = None) -> FastAPI:
    """The app for ``config``; ``judge`` (already loaded) is used instead of loading one."""
    hosts = allowed_hosts(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        loaded = judge if judge is not None else await asyncio.to_thread(load_judge, config)
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge")
        batcher = Batcher({"records": record_lane(loaded), "pairs": partial(score_pairs, loaded)},
                          max_batch=config.max_batch, wait_s=config.wait_ms / 1000,
                          executor=executor, max_queue=config.max_queue,
                          max_cost=config.batch_work)
        # parses run beside the judge's thread, a few at a time: many large bodies at once
        # cannot starve the event loop or the judge
        app.state.parsing = anyio.CapacityLimiter(PARSES)
        app.state.judge, app.state.batcher, app.state.started = loaded, batcher, time.time()
        batcher.start(on_dead=partial(_batcher_died, app))
        yield {"guard": config, "drain": batcher.drain}  # read by citetrain.serve.protocol
        await batcher.stop()
        executor.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title="citetrain judge", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None, redirect_slashes=False)
    app.add_middleware(HostGuard, hosts=hosts)  # before routing: unknown paths too
    _add_handlers(app)

    @app.get("/health", **HEALTH_ROUTE)
    async def health(request: Request) -> Any:
        state = request.app.state
        if state.batcher.dead:
            return refusal(503, BATCHER_DEAD, CLOSE)
        if state.batcher.draining:
            return refusal(503, SHUTTING_DOWN, CLOSE)
        if not token_matches(request.headers.get("authorization"), config.token):
            return {"status": "ok"}
        return {"status": "ok", "judge": state.judge.name, "pid": os.getpid(),
                "uptime_s": round(time.time() - state.started, 1), "batches": state.batcher.batches,
                "queued": state.batcher.queued}

    @app.post("/score", **SCORE_ROUTE)
    async def score(request: Request) -> Response:
        deadline = time.monotonic() + config.timeout_s  # parsing and scoring both count
        check_token(request.headers.get("authorization"), config.token)
        check_content_type(request.headers.get("content-type"))
        body = await read_body(request, config.max_body_bytes, config.body_timeout_s)
        state = request.app.state
        parse = partial(parse_request, body, config, state.judge, deadline)
        return await _until(request, _answer(state, parse), deadline, config.timeout_s)

    return app


async def _until(request: Request, work: Any, deadline: float, timeout_s: float) -> Response:
    """``work``'s response, unless the deadline passes first (504) or the client goes away:
    either way the work is cancelled, so its chunks not yet in a batch are dropped."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        done, _ = await asyncio.wait({task, gone}, timeout=max(0.0, deadline - time.monotonic()),
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not task.done():
            task.cancel()
    if task in done:
        return task.result()
    if gone in done:  # nobody reads the answer; the log says why the work stopped
        logger.info("a client went away before its answer; its work is dropped")
        return refusal(400, "the client closed the connection before its answer", CLOSE)
    return refusal(504, f"not scored within {timeout_s:g} s ({flag('timeout_s')})")


async def _disconnected(request: Request) -> None:
    """Returns once the client has closed the connection (its body already read)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def _answer(state: Any, parse: Any) -> Response:
    """Parse (in a thread, under the request's deadline), then score."""
    kind, plan = await anyio.to_thread.run_sync(parse, limiter=state.parsing)
    return await _scored(state, kind, plan)


async def _scored(state: Any, kind: str, plan: Plan) -> Response:
    """The batcher's answer for the plan's items as a response (or the refusal that replaces
    it)."""
    batcher: Batcher = state.batcher
    try:
        results = await batcher.submit(kind, plan.items, plan.costs)
        if kind == "records" and is_nli_judge(state.judge):
            results = assemble(state.judge, plan.records, plan.items, results)
    except Overloaded as exc:
        return refusal(503, f"overloaded: {exc}; retry later", {"Retry-After": str(RETRY_AFTER_S)})
    except Draining:
        return refusal(503, SHUTTING_DOWN, CLOSE)
    except asyncio.CancelledError:
        if batcher.draining:  # the grace period ran out: answered, not logged as a fault
            return refusal(503, SHUTTING_DOWN, CLOSE)
        raise
    except Exception as exc:  # the judge failed on this request: one line, the server goes on
        text = str(exc) or type(exc).__name__
        return refusal(500, f"internal error: {type(exc).__name__}: {text}")
    return JSONResponse({"judge": state.judge.name, kind: results})


def _add_handlers(app: FastAPI) -> None:
    """Every refusal FastAPI or Starlette makes, as ``{"error": "<one line>"}``."""

    @app.exception_handler(RequestError)
    async def refused(request: Request, exc: RequestError) -> Response:
        return refusal(exc.status, exc.message, exc.headers)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        what = {404: "no such route", 405: "method not allowed"}.get(exc.status_code, exc.detail)
        path = request.scope.get("path", "")[:80]
        return refusal(exc.status_code, f"{what}: {request.method} {path} (routes: POST /score, "
                       "GET /health)", exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return refusal(422, f"invalid request: {exc.errors()[0].get('msg', '')}")

    @app.exception_handler(Exception)
    async def fault(request: Request, exc: Exception) -> Response:
        return internal_error()  # Starlette raises it again after: uvicorn logs its traceback


def _batcher_died(app: FastAPI, exc: BaseException | None) -> None:
    """The batcher's loop ended outside a shutdown: said in the log, ``/health`` turns 503 and
    the server is asked to stop (``app.state.stop_server``, set by whoever runs the server)."""
    why = f"{type(exc).__name__}: {exc}" if exc is not None else "its loop returned"
    logger.error("the judge's batcher stopped (%s); nothing can be scored, the server exits", why,
                 exc_info=exc)
    stop = getattr(app.state, "stop_server", None)
    if stop is not None:
        stop()


def app_from_env() -> FastAPI:
    """uvicorn's factory for each worker process: the config from ``CITETRAIN_SERVE_CONFIG`` (the
    token from the file it names). A worker whose batcher dies stops as on SIGTERM and exits by
    it (uvicorn raises the signal again once stopped), so uvicorn starts another in its place."""
    app = create_app(ServeConfig.from_env())
    app.state.stop_server = lambda: signal.raise_signal(signal.SIGTERM)
    return app
