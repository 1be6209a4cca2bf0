"""``citetrain serve JUDGE``: the judge behind HTTP (citetrain/serve/), safe by default."""
from __future__ import annotations

import argparse

LIMITS = (("--max-body-bytes", int, "413 above this many bytes"),
          ("--max-passages", int, "passages per record (422 above)"),
          ("--max-items", int, "records or pairs per request (422 above)"),
          ("--max-batch", int, "records or pairs scored in one batch, across clients"),
          ("--wait-ms", float, "how long a request waits for others to batch with"),
          ("--timeout", float, "seconds before a request gets 504"),
          ("--threads", int, "torch threads per worker (default: cores / workers)"))


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    from citetrain.serve.config import ENV_TOKEN, ServeConfig

    d = ServeConfig.model_fields
    p = sub.add_parser(name, help="serve a judge over HTTP (POST /score, GET /health)",
                       description="Serve a judge (crossencoder:PATH, nli:NAME, generative:PATH) with "
                       "FastAPI + uvicorn: POST /score takes {\"records\": [...]} in any format citetrain "
                       "reads or {\"pairs\": [{\"passage\", \"statement\"}]} and returns what citetrain "
                       "judge computes; requests of many clients are batched; GET /health.")
    p.add_argument("judge", help="crossencoder:PATH | nli:NAME | generative:PATH")
    p.add_argument("--host", default=d["host"].default, help="default 127.0.0.1 (this machine only)")
    p.add_argument("--port", type=int, default=d["port"].default)
    p.add_argument("--workers", type=int, default=1, help="worker processes, each with the judge loaded once")
    p.add_argument("--token", help=f"bearer token asked of every /score request (or ${ENV_TOKEN})")
    for flag, kind, text in LIMITS:
        key = "timeout_s" if flag == "--timeout" else flag[2:].replace("-", "_")
        p.add_argument(flag, type=kind, default=d[key].default,
                       help=f"{text} (default {d[key].default})")
    p.add_argument("--dtype", help="crossencoder / nli: fp32, bf16, fp16 or int8")
    p.add_argument("--union-first", action="store_true", default=None,
                   help="crossencoder / nli: ask the cited passages alone, then the union of all, "
                   "before the other passages alone")
    p.add_argument("--subsets", choices=("all", "needed"), help="crossencoder / nli: 'needed' stops "
                   "a statement's subset search once its edits are settled (same ratings, fewer calls)")
    p.add_argument("--compile", action="store_true", default=None,
                   help="crossencoder / nli: torch.compile the model (each worker compiles once)")
    p.add_argument("--query-recall", type=float, help="crossencoder / nli: ask a statement against "
                   "the question only if it holds this share of its content words (default 1.0)")
    p.add_argument("--response-recall", type=float, help="crossencoder / nli: the same against the "
                   "earlier statements (default 0.8; 0 and 0: the NLI alone decides)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import os

    from pydantic import ValidationError

    from citetrain.errors import CitetrainError
    from citetrain.serve.config import ENV_TOKEN, ServeConfig
    from citetrain.serve.run import serve

    fields = {k: getattr(args, k) for k in ("judge", "host", "port", "workers", "max_body_bytes",
                                            "max_passages", "max_items", "max_batch", "wait_ms",
                                            "threads", "dtype", "union_first", "subsets", "compile",
                                            "query_recall", "response_recall")}
    try:
        config = ServeConfig(**fields, timeout_s=args.timeout,
                             token=args.token or os.environ.get(ENV_TOKEN) or None)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise CitetrainError(f"--{'-'.join(map(str, err['loc'])).replace('_', '-')}: {err['msg']}") from None
    return serve(config)
