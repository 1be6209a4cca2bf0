"""What a judge server is told: the judge, where it listens, its limits and its batching.

The command line builds a :class:`ServeConfig`; with several workers, uvicorn starts each worker
process on the import string :func:`citetrain.serve.app.app_from_env`, which reads the same
config back from :data:`ENV_CONFIG` (a JSON object), so every worker loads the judge once.
"""
from __future__ import annotations

import json
import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ENV_CONFIG = "CITETRAIN_SERVE_CONFIG"
ENV_TOKEN = "CITETRAIN_SERVE_TOKEN"


class ServeConfig(BaseModel):
    """A judge server's settings (defaults are the safe ones)."""

    model_config = ConfigDict(extra="forbid")

    judge: str
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    workers: int = Field(1, ge=1)
    token: str | None = None  # bearer token; None: no token asked for
    max_body_bytes: int = Field(1_000_000, ge=1)  # 413 above
    max_passages: int = Field(100, ge=1)  # per record; 422 above
    max_items: int = Field(64, ge=1)  # records or pairs per request; 422 above
    max_batch: int = Field(32, ge=1)  # records (or pairs) scored in one model batch
    wait_ms: float = Field(10.0, ge=0)  # how long the first request waits for others
    timeout_s: float = Field(60.0, gt=0)  # 504 after
    threads: int | None = Field(None, ge=1)  # torch threads per worker (default: cores / workers)
    dtype: str | None = None  # crossencoder / nli: fp32, int8, ...
    union_first: bool | None = None
    subsets: Literal["all", "needed"] | None = None  # crossencoder / nli: "needed", fewer calls
    compile: bool | None = None  # crossencoder / nli: torch.compile the model
    # crossencoder / nli: context gates (citetrain.analysis.support.context_candidates)
    query_recall: float | None = Field(None, ge=0, le=1)
    response_recall: float | None = Field(None, ge=0, le=1)

    def judge_options(self) -> dict:
        """The options :func:`citetrain.judges.registry.make_judge` takes for this judge."""
        kind = self.judge.partition(":")[0]
        opts = ({"dtype": self.dtype, "union_first": self.union_first, "subsets": self.subsets,
                 "compile": self.compile,
                 "query_recall": self.query_recall, "response_recall": self.response_recall}
                if kind in ("nli", "crossencoder") else {})
        return {k: v for k, v in opts.items() if v is not None}

    def to_env(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_env(cls) -> ServeConfig:
        raw = os.environ.get(ENV_CONFIG)
        if not raw:
            raise RuntimeError(f"{ENV_CONFIG} is not set: start the server with `citetrain serve`")
        return cls.model_validate(json.loads(raw))
