"""What a judge server is told: the judge, where it listens, its limits and its batching.

The command line builds a :class:`ServeConfig`; with several workers, uvicorn starts each worker
process on the import string :func:`citetrain.serve.app.app_from_env`, which reads the same
config back from :data:`ENV_CONFIG` (a JSON object without the token), so every worker loads the
judge once. The token never goes through the environment: the workers read it from the file named
by :data:`ENV_TOKEN_FILE`, which only the user can read (:func:`citetrain.serve.server.serve` writes
it in a private folder and removes it at exit).

The fields are the one source of each setting: ``citetrain serve``'s flags (:func:`flag`), their
help (:func:`description`), types and defaults, the HTTP API reference's refusals
(:func:`refused_with`) and every refusal message that names a limit read them from here.
"""
from __future__ import annotations

import json
import os
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ENV_CONFIG = "CITETRAIN_SERVE_CONFIG"
ENV_TOKEN = "CITETRAIN_SERVE_TOKEN"
ENV_TOKEN_FILE = "CITETRAIN_SERVE_TOKEN_FILE"  # the workers' token: a path, never the token
# the limits: the fields `citetrain serve` sets with a flag of their own (:func:`flag`) whose help,
# type and default are the field's (the other fields' flags are written in citetrain.cli.serve_cmd)
LIMITS = ("max_body_bytes", "max_passages", "max_items", "max_statements", "max_marks",
          "max_nli_calls", "max_work", "max_batch", "batch_work", "wait_ms", "max_queue",
          "timeout_s", "header_timeout_s", "body_timeout_s", "send_timeout_s", "keep_alive_s",
          "max_connections", "grace_s", "threads")
# how a limit's description states the status of a request past it: "above it, 422"
_REFUSED = re.compile(r"\b(?:above it|after them|beyond them gets),? ([45]\d\d)\b")


class ServeConfig(BaseModel):
    """A judge server's settings (defaults are the safe ones)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    judge: str
    """The judge served: crossencoder:PATH, nli:NAME, generative:PATH or (with a token only)
    teacher:MODEL."""
    host: str = "127.0.0.1"
    """Address listened on (127.0.0.1: this machine only)."""
    port: int = Field(8000, ge=0, le=65535)
    """Port listened on."""
    workers: int = Field(1, ge=1)
    """Worker processes, each with the judge loaded once."""
    token: str | None = None
    """Bearer token every /score request must carry (null: none asked for); surrounding
    whitespace is dropped, a blank token or one of several lines is an error."""
    allow_hosts: list[str] = Field(default_factory=list)
    """Host header names accepted besides the bound address, localhost, 127.0.0.1 and [::1]
    ("*": any; the check guards against DNS rebinding)."""
    max_body_bytes: int = Field(1_000_000, ge=1)
    """Largest request body; above it, 413."""
    max_passages: int = Field(100, ge=1)
    """Most passages per record; above it, 422."""
    max_items: int = Field(64, ge=1)
    """Most records or pairs per request; above it, 422."""
    max_statements: int = Field(2000, ge=1)
    """Most statements (sentences of the responses) per request; above it, 422."""
    max_marks: int = Field(5000, ge=1)
    """Most citation ids in the responses' marks per request; above it, 422."""
    max_nli_calls: int = Field(250_000, ge=1)
    """Most NLI calls per request: the pairs sent, or for records an upper bound on the judge's
    calls counted from their statements and passages before any is made; above it, 422."""
    max_work: int = Field(2_000_000, ge=1)
    """Most characters the judge may read for one request, estimated before any NLI call: every
    premise and hypothesis it may ask (subset premises and contexts included), the passages and
    the text it splits, plus each call's bookkeeping; above it, 422. The default keeps the
    costliest request within every cap to about 5 s with nli:lexical on 2 cores; `citetrain serve
    JUDGE --calibrate` measures it for another judge or machine."""
    max_batch: int = Field(32, ge=1)
    """Items (chunks of a record's statements, or pairs) scored in one model batch."""
    batch_work: int = Field(120_000, ge=1)
    """Most estimated work (characters, as --max-work counts them) in one batch: records are cut
    into chunks of statements within it, so one batch takes about 250 ms with nli:lexical on 2
    cores, a light request waits at most about one batch, and a cancelled one stops within one."""
    wait_ms: float = Field(10.0, ge=0)
    """How long the first request of a batch waits for others."""
    max_queue: int = Field(1024, ge=1)
    """Most records and pairs waiting to be scored, across requests; above it, 503 with
    Retry-After."""
    timeout_s: float = Field(60.0, gt=0)
    """Seconds a request waits to be scored; after them, 504, and its batches not yet started
    are dropped."""
    header_timeout_s: float = Field(10.0, gt=0)
    """Seconds a connection has to send a request's head; after them, 408 and closed."""
    body_timeout_s: float = Field(30.0, gt=0)
    """Seconds a request has to send its body; after them, 408 and closed."""
    send_timeout_s: float = Field(30.0, gt=0)
    """Seconds a client may leave its reply unread (the server's send buffer full); after them,
    the connection is dropped."""
    keep_alive_s: float = Field(5.0, gt=0)
    """Seconds an idle kept-alive connection stays open."""
    max_connections: int = Field(100, ge=1)
    """Most open connections; a request beyond them gets 503 with Retry-After."""
    grace_s: float = Field(10.0, ge=0)
    """On SIGTERM: seconds the batch in progress has to finish (queued requests get 503 at once)."""
    threads: int | None = Field(None, ge=1)
    """Torch threads per worker (null: the cores shared out among the workers)."""
    dtype: str | None = None
    """crossencoder / nli: the model's dtype (fp32, bf16, fp16 or int8)."""
    union_first: bool | None = None
    """crossencoder / nli: ask a statement's cited passages alone, then the union of all, before the
    other passages alone."""
    subsets: Literal["all", "needed"] | None = None
    """crossencoder / nli: needed stops a statement's subset search once its edits are settled (the
    same ratings, fewer calls)."""
    compile: bool | None = None
    """crossencoder / nli: torch.compile the model (each worker compiles once)."""
    query_recall: float | None = Field(None, ge=0, le=1)
    """crossencoder / nli: ask a statement against the question only if it holds this share of its
    content words (null: 1.0)."""
    response_recall: float | None = Field(None, ge=0, le=1)
    """crossencoder / nli: the same against the earlier statements (null: 0.8; 0 and 0: the NLI
    alone decides)."""

    @field_validator("token")
    @classmethod
    def _token(cls, value: str | None) -> str | None:
        if value is not None:
            value = value.strip()
            if not value:
                raise ValueError("a blank token would let anyone in; give a token or none")
            if "\n" in value or "\r" in value:
                raise ValueError("the token is one line; this one has several")
        return value

    @model_validator(mode="after")
    def _queue_holds_a_request(self) -> ServeConfig:
        if self.max_queue < self.max_items:
            raise ValueError(f"max_queue ({self.max_queue}) must hold one request of max_items "
                             f"({self.max_items})")
        return self

    def judge_options(self) -> dict:
        """The options :func:`citetrain.judges.registry.make_judge` takes for this judge."""
        kind = self.judge.partition(":")[0]
        opts = ({"dtype": self.dtype, "union_first": self.union_first, "subsets": self.subsets,
                 "compile": self.compile,
                 "query_recall": self.query_recall, "response_recall": self.response_recall}
                if kind in ("nli", "crossencoder") else {})
        return {k: v for k, v in opts.items() if v is not None}

    def to_env(self) -> str:
        """The config for the workers' environment: everything but the token."""
        return self.model_dump_json(exclude={"token"})

    @classmethod
    def from_env(cls) -> ServeConfig:
        """The config of :meth:`to_env`, with the token read from the file named by
        :data:`ENV_TOKEN_FILE` (if set)."""
        raw = os.environ.get(ENV_CONFIG)
        if not raw:
            raise RuntimeError(f"{ENV_CONFIG} is not set: start the server with `citetrain serve`")
        data = json.loads(raw)
        path = os.environ.get(ENV_TOKEN_FILE)
        if path:
            with open(path, encoding="utf-8") as f:
                data["token"] = f.read()
        return cls.model_validate(data)


def flag(name: str) -> str:
    """The command-line flag of the field ``name``, the one way a refusal or a page names it: the
    name with dashes, a field in seconds without its ``_s`` (``timeout_s``: ``--timeout``)."""
    if name not in ServeConfig.model_fields:
        raise KeyError(f"ServeConfig has no field {name!r}")
    return "--" + name.removesuffix("_s").replace("_", "-")


def description(name: str) -> str:
    """The field's description (its docstring) on one line: ``--help``'s text for its flag."""
    return " ".join((ServeConfig.model_fields[name].description or "").split())


def refused_with(name: str) -> int | None:
    """The HTTP status of a request past the limit ``name``, as its description states it
    (``above it, 422``, ``after them, 408``); None for a setting that refuses nothing."""
    found = _REFUSED.search(description(name))
    return int(found.group(1)) if found else None
