"""``citetrain serve JUDGE``: the judge behind HTTP (citetrain/serve/), safe by default."""
from __future__ import annotations

import argparse

# (flag, ServeConfig field, type, help): the limits, each with its default in the help
LIMITS = (("--max-body-bytes", "max_body_bytes", int, "413 above this many bytes"),
          ("--max-passages", "max_passages", int, "passages per record (422 above)"),
          ("--max-items", "max_items", int, "records or pairs per request (422 above)"),
          ("--max-statements", "max_statements", int, "statements of the responses per request "
           "(422 above)"),
          ("--max-marks", "max_marks", int, "citation ids in the responses' marks per request "
           "(422 above)"),
          ("--max-nli-calls", "max_nli_calls", int, "NLI calls per request: the pairs, or an "
           "upper bound for records, counted before any call (422 above)"),
          ("--max-batch", "max_batch", int, "records or pairs scored in one batch, across clients"),
          ("--max-work", "max_work", int, "characters the judge may read per request, "
           "estimated before any NLI call: premises, hypotheses, passages and the text split "
           "(422 above)"),
          ("--batch-work", "batch_work", int, "estimated work (characters) in one batch, across "
           "clients: records are cut into chunks of statements within it"),
          ("--wait-ms", "wait_ms", float, "how long a request waits for others to batch with"),
          ("--max-queue", "max_queue", int, "records and pairs waiting across requests (503 "
           "with Retry-After above)"),
          ("--timeout", "timeout_s", float, "seconds before a request gets 504 and its batches "
           "not yet started are dropped"),
          ("--header-timeout", "header_timeout_s", float, "seconds to send a request's head "
           "(408 and closed after)"),
          ("--body-timeout", "body_timeout_s", float, "seconds to send a request's body (408 "
           "after; head and body together get --header-timeout + --body-timeout, however "
           "slowly they trickle)"),
          ("--send-timeout", "send_timeout_s", float, "seconds a client may leave its reply "
           "unread (the server's send buffer full) before its connection is dropped"),
          ("--keep-alive", "keep_alive_s", float, "seconds an idle connection stays open"),
          ("--max-connections", "max_connections", int, "open connections (503 with Retry-After "
           "above)"),
          ("--grace", "grace_s", float, "on SIGTERM, seconds the batch in progress has to finish; "
           "queued requests get 503"),
          ("--threads", "threads", int, "torch threads per worker (default: cores / workers)"))
OPTIONS = ("judge", "host", "port", "workers", "allow_hosts", "threads", "dtype", "union_first",
           "subsets", "compile", "query_recall", "response_recall")


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    from citetrain.serve.config import ENV_TOKEN, ServeConfig

    d = ServeConfig.model_fields
    p = sub.add_parser(name, help="serve a judge over HTTP (POST /score, GET /health)",
                       description="Serve a judge (crossencoder:PATH, nli:NAME, generative:PATH) with "
                       "FastAPI + uvicorn: POST /score takes {\"records\": [...]} in any format citetrain "
                       "reads or {\"pairs\": [{\"passage\", \"statement\"}]} and returns what citetrain "
                       "judge computes; requests of many clients are batched fairly; GET /health. "
                       "Every refusal is {\"error\": \"<one line>\"} with a 4xx (503 when overloaded).")
    p.add_argument("judge", help="crossencoder:PATH | nli:NAME | generative:PATH | teacher:MODEL "
                   "(teacher: only with a token: it spends your API key)")
    p.add_argument("--host", default=d["host"].default, help="default 127.0.0.1 (this machine only)")
    p.add_argument("--port", type=int, default=d["port"].default)
    p.add_argument("--workers", type=int, default=1, help="worker processes, each with the judge loaded once")
    p.add_argument("--token-file", metavar="PATH", help="read the bearer token asked of every "
                   f"/score request from PATH (or set ${ENV_TOKEN}): exactly one non-empty "
                   "line, whitespace around it dropped")
    p.add_argument("--token", help="the bearer token itself (visible to every user in `ps`: prefer "
                   f"--token-file or ${ENV_TOKEN})")
    p.add_argument("--allow-host", dest="allow_hosts", action="append", default=[], metavar="NAME",
                   help="a Host header name accepted besides the bound address and localhost "
                   "(repeatable; '*' accepts any; others get 421)")
    for flag, key, kind, text in LIMITS:
        p.add_argument(flag, dest=key, type=kind, default=d[key].default,
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
    p.add_argument("--calibrate", action="store_true",
                   help="time this judge here on adversarial requests and print the --max-work "
                   "and --batch-work that give a 5 s request and a 250 ms batch, then exit "
                   "(nothing is served)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from citetrain.errors import CitetrainError
    from citetrain.serve.config import ServeConfig
    from citetrain.serve.run import read_token, serve

    fields = {k: getattr(args, k) for k in OPTIONS}
    fields.update({key: getattr(args, key) for _, key, _, _ in LIMITS})
    flags = {key: flag for flag, key, _, _ in LIMITS}
    token = read_token(args.token, args.token_file)
    try:
        config = ServeConfig(**fields, token=token)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else "max_queue"  # the one check across fields
        where = flags.get(key) or f"--{key.replace('_', '-')}"
        raise CitetrainError(f"{where}: {err['msg'].removeprefix('Value error, ')}") from None
    if args.calibrate:
        return calibrate_flags(config)
    return serve(config)


def calibrate_flags(config) -> int:
    """``--calibrate``: the judge loaded as the server loads it, timed, and the flags printed."""
    from citetrain.serve.app import load_judge
    from citetrain.serve.calibrate import calibrate
    from citetrain.serve.run import check_judge

    check_judge(config.judge, config.token)
    judge = load_judge(config)
    if getattr(judge, "engine", None) is None:
        from citetrain.errors import CitetrainError

        raise CitetrainError(f"--calibrate: judge {config.judge} has no NLI engine; its cost is "
                             "one prompt per record (--max-items bounds it)")
    max_work, batch_work = calibrate(judge, config)
    print(f"{config.judge} on this machine: --max-work {max_work} --batch-work {batch_work} "
          f"(5 s a request, 250 ms a batch, at the slowest rate seen)")
    return 0
