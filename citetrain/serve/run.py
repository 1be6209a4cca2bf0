"""Start a judge server: check the judge, then uvicorn with one or several workers."""
from __future__ import annotations

import os
from pathlib import Path

from citetrain.errors import CitetrainError
from citetrain.serve.config import ENV_CONFIG, ENV_TOKEN, ServeConfig

WILDCARDS = ("0.0.0.0", "::", "")


def check_judge(name: str, token: str | None = None) -> None:
    """A clear error before any worker starts: unknown kind, a model folder that is missing, or
    a ``teacher:`` judge (it spends the operator's API key) without a token."""
    from citetrain.judges.registry import KINDS

    kind, _, arg = name.partition(":")
    if kind not in KINDS or not arg:
        raise CitetrainError(f"judge '{name}': use one of {', '.join(k + ':...' for k in KINDS)}")
    if kind == "teacher" and token is None:
        raise CitetrainError(f"judge '{name}': a teacher judge spends your API key, so it is served "
                             f"only with a token (--token-file PATH or ${ENV_TOKEN})")
    path = arg.partition(":")[2] if kind == "nli" and arg.startswith("classifier:") else arg
    if kind in ("crossencoder", "generative") or arg.startswith("classifier:"):
        if not Path(path).exists():
            raise CitetrainError(f"judge '{name}': {path} does not exist")


def read_token(given: str | None, path: str | None) -> str | None:
    """The token from ``--token``, ``--token-file`` or ``$CITETRAIN_SERVE_TOKEN`` (in that order;
    whitespace around it dropped); a blank one is an error, as are both flags at once."""
    if given is not None and path is not None:
        raise CitetrainError("--token and --token-file: give one")
    where, token = "--token", given
    if path is not None:
        where = f"--token-file {path}"
        try:
            token = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CitetrainError(f"--token-file: cannot read {path}: "
                                 f"{getattr(exc, 'strerror', None) or exc}") from None
    elif given is None:
        where, token = f"${ENV_TOKEN}", os.environ.get(ENV_TOKEN)
    if token is not None and not token.strip():
        raise CitetrainError(f"{where}: the token is blank; a blank token would let anyone in")
    return token.strip() if token is not None else None


def uvicorn_options(config: ServeConfig) -> dict[str, object]:
    """uvicorn's settings for ``config``: the guarded h11 protocol, its timeouts and grace."""
    from citetrain.serve.protocol import GuardedH11Protocol

    return {"host": config.host, "port": config.port, "log_level": "warning",
            "http": GuardedH11Protocol, "timeout_keep_alive": config.keep_alive_s,
            "timeout_graceful_shutdown": config.grace_s, "proxy_headers": False,
            "server_header": False}


def serve(config: ServeConfig) -> int:
    """Serve until interrupted; one line says where and how."""
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError as exc:
        raise CitetrainError(f"citetrain serve needs fastapi and uvicorn ({exc.name} is missing): "
                             "pip install 'citetrain[serve]'") from None
    from citetrain.serve.app import create_app, load_judge

    check_judge(config.judge, config.token)
    guard = "a bearer token" if config.token else "no token"
    if config.host not in ("127.0.0.1", "localhost", "::1") and not config.token:
        print(f"[citetrain] warning: listening on {config.host} with no token: anyone who can "
              "reach this port can use the judge (--token-file)", flush=True)
    if config.host in WILDCARDS and not config.allow_hosts:
        print("[citetrain] warning: clients must name this server localhost or 127.0.0.1 in the "
              "Host header; --allow-host NAME accepts another name", flush=True)
    print(f"[citetrain] serving {config.judge} on http://{config.host}:{config.port} "
          f"({config.workers} worker(s), {guard}; POST /score, GET /health)", flush=True)
    options = uvicorn_options(config)
    if config.workers == 1:
        uvicorn.run(create_app(config, judge=load_judge(config)), **options)
    else:
        os.environ[ENV_CONFIG] = config.to_env()
        uvicorn.run("citetrain.serve.app:app_from_env", factory=True, workers=config.workers,
                    **options)
    return 0
