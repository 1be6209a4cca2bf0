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

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    judge: str
    """The judge served: crossencoder:PATH, nli:NAME or generative:PATH."""
    host: str = "127.0.0.1"
    """Address listened on (127.0.0.1: this machine only)."""
    port: int = Field(8000, ge=0, le=65535)
    """Port listened on."""
    workers: int = Field(1, ge=1)
    """Worker processes, each with the judge loaded once."""
    token: str | None = None
    """Bearer token every /score request must carry (null: none asked for)."""
    max_body_bytes: int = Field(1_000_000, ge=1)
    """Largest request body; above it, 413."""
    max_passages: int = Field(100, ge=1)
    """Most passages per record; above it, 422."""
    max_items: int = Field(64, ge=1)
    """Most records or pairs per request; above it, 422."""
    max_batch: int = Field(32, ge=1)
    """Records (or pairs) scored in one model batch."""
    wait_ms: float = Field(10.0, ge=0)
    """How long the first request of a batch waits for others."""
    timeout_s: float = Field(60.0, gt=0)
    """Seconds a request waits to be scored; after them, 504."""
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
