"""``citetrain serve JUDGE``: the judge behind HTTP (citetrain/serve/), safe by default."""
from __future__ import annotations

import argparse

# the settings whose flags are written here; the limits' flags (citetrain.serve.config.LIMITS) are
# built from their fields: each flag's name, type, help and default are the field's own (its name,
# annotation, docstring and default), so the help, the references, the refusals and the config agree
OPTIONS = ("judge", "host", "port", "workers", "allow_hosts", "dtype", "union_first",
           "subsets", "compile", "query_recall", "response_recall")


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    from citetrain.serve.config import ENV_TOKEN, LIMITS, ServeConfig, description, flag

    d = ServeConfig.model_fields
    p = sub.add_parser(name, help="serve a judge over HTTP (POST /score, GET /health)",
                       description="Serve a judge (crossencoder:PATH, nli:NAME, generative:PATH) with "
                       "FastAPI + uvicorn: POST /score takes {\"records\": [...]} in any format citetrain "
                       "reads or {\"pairs\": [{\"passage\", \"statement\"}]} and returns what citetrain "
                       "judge computes; requests of many clients are batched fairly; GET /health. "
                       "Every refusal is {\"error\": \"<one line>\"} with a 4xx (503 when overloaded).")
    p.add_argument("judge", help="crossencoder:PATH | nli:NAME | generative:PATH | teacher:MODEL "
                   "(teacher: only with a token: it spends your API key)")
    p.add_argument("--host", default=d["host"].default, help="address to listen on (default 127.0.0.1: this "
                   "machine only)")
    p.add_argument("--port", type=int, default=d["port"].default,
                   help=f"port to listen on (default {d['port'].default})")
    p.add_argument("--workers", type=int, default=d["workers"].default,
                   help=description("workers"))
    p.add_argument("--token-file", metavar="PATH", help="read the bearer token asked of every "
                   f"/score request from PATH (or set ${ENV_TOKEN}): exactly one non-empty "
                   "line, whitespace around it dropped (default: none)")
    p.add_argument("--token", help="the bearer token itself (visible to every user in `ps`: prefer "
                   f"--token-file or ${ENV_TOKEN}; default: none)")
    p.add_argument("--allow-host", dest="allow_hosts", action="append", default=[], metavar="NAME",
                   help="a Host header name accepted besides the bound address and localhost "
                   "(repeatable; '*' accepts any; others get 421)")
    for key in LIMITS:
        field = d[key]
        default = "cores / workers" if field.default is None else field.default
        p.add_argument(flag(key), dest=key, type=float if field.annotation is float else int,
                       default=field.default, help=f"{description(key)} (default {default})")
    p.add_argument("--dtype", help="crossencoder / nli: fp32, bf16, fp16 or int8 "
                   "(default: the model's own, auto)")
    p.add_argument("--union-first", action="store_true", default=None,
                   help="crossencoder / nli: ask the cited passages alone, then the union of all, "
                   "before the other passages alone (default: off)")
    p.add_argument("--subsets", choices=("all", "needed"), help="crossencoder / nli: 'needed' stops "
                   "a statement's subset search once its edits are settled (same ratings, fewer calls; "
                   "default all)")
    p.add_argument("--compile", action="store_true", default=None,
                   help="crossencoder / nli: torch.compile the model (each worker compiles once; default: off)")
    p.add_argument("--query-recall", type=float, help="crossencoder / nli: ask a statement against "
                   "the question only if it holds this share of its content words (default 1.0)")
    p.add_argument("--response-recall", type=float, help="crossencoder / nli: the same against the "
                   "earlier statements (default 0.8; 0 and 0: the NLI alone decides)")
    p.add_argument("--calibrate", action="store_true",
                   help="time this judge here on adversarial requests and print the "
                   f"{flag('max_work')} and {flag('batch_work')} that give a 5 s request and a "
                   "250 ms batch, then exit (nothing is served)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from citetrain.errors import CitetrainError
    from citetrain.serve.config import LIMITS, ServeConfig, flag
    from citetrain.serve.server import read_token, serve

    fields = {k: getattr(args, k) for k in (*OPTIONS, *LIMITS)}
    token = read_token(args.token, args.token_file)
    try:
        config = ServeConfig(**fields, token=token)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else "max_queue"  # the one check across fields
        where = flag(key)
        raise CitetrainError(f"{where}: {err['msg'].removeprefix('Value error, ')}") from None
    if args.calibrate:
        return calibrate_flags(config)
    return serve(config)


def calibrate_flags(config) -> int:
    """``--calibrate``: the judge loaded as the server loads it, timed, and the flags printed."""
    from citetrain.serve.app import load_judge
    from citetrain.serve.calibrate import calibrate
    from citetrain.serve.config import flag
    from citetrain.serve.server import check_judge
    from citetrain.serve.scoring import is_nli_judge

    check_judge(config.judge, config.token)
    judge = load_judge(config)
    if not is_nli_judge(judge):
        from citetrain.errors import CitetrainError

        raise CitetrainError(f"--calibrate: judge {config.judge} has no NLI engine; its cost is "
                             f"one prompt per record ({flag('max_items')} bounds it)")
    max_work, batch_work = calibrate(judge, config)
    print(f"{config.judge} on this machine: {flag('max_work')} {max_work} {flag('batch_work')} "
          f"{batch_work} (5 s a request, 250 ms a batch, at the slowest rate seen)")
    return 0
