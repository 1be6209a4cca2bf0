"""Start a judge server: check the judge, then uvicorn with one or several workers.

With several workers, the token reaches them through a file only the user can read (mode 0600, in
a private temporary folder removed at exit), never through the environment. A server whose
batcher died exits with status 1 (with several workers, uvicorn starts a new worker in place of
the one that exited).
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from citetrain.errors import CitetrainError
from citetrain.serve.config import ENV_CONFIG, ENV_TOKEN, ENV_TOKEN_FILE, ServeConfig

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
    whitespace around it dropped); a blank one is an error, as are a token of several lines (a
    token file holds exactly one non-empty line) and both flags at once."""
    if given is not None and path is not None:
        raise CitetrainError("--token and --token-file: give one")
    where, token = "--token", given
    if path is not None:
        where, token = f"--token-file {path}", _token_file(path)
    elif given is None:
        where, token = f"${ENV_TOKEN}", os.environ.get(ENV_TOKEN)
    if token is None:
        return None
    if not token.strip():
        raise CitetrainError(f"{where}: the token is blank; a blank token would let anyone in")
    lines = [line for line in token.splitlines() if line.strip()]
    if len(lines) > 1 or "\r" in token.strip() or "\n" in token.strip():
        raise CitetrainError(f"{where}: {len(lines)} non-empty lines; the token is exactly one line")
    return token.strip()


def _token_file(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CitetrainError(f"--token-file: cannot read {path}: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None


@contextmanager
def worker_environment(config: ServeConfig) -> Iterator[None]:
    """The environment the workers start in: the config without its token, and the path of a
    file holding the token (mode 0600 in a private folder, removed on the way out); the token's
    own variable is taken out, so no worker inherits it."""
    saved = {k: os.environ.get(k) for k in (ENV_CONFIG, ENV_TOKEN, ENV_TOKEN_FILE)}
    folder = tempfile.mkdtemp(prefix="citetrain-serve-")  # mode 0700
    try:
        os.environ.pop(ENV_TOKEN, None)
        os.environ.pop(ENV_TOKEN_FILE, None)
        os.environ[ENV_CONFIG] = config.to_env()
        if config.token is not None:
            path = os.path.join(folder, "token")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(config.token)
            os.environ[ENV_TOKEN_FILE] = path
        yield
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


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
        return _serve_one(create_app(config, judge=load_judge(config)), options)
    with worker_environment(config):
        uvicorn.run("citetrain.serve.app:app_from_env", factory=True, workers=config.workers,
                    **options)
    return 0


def _serve_one(app: Any, options: dict[str, object]) -> int:
    """One worker in this process; 1 when its batcher died (the app asks the server to stop)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, **options))
    app.state.stop_server = lambda: setattr(server, "should_exit", True)
    server.run()
    if not server.started:
        sys.exit(3)  # uvicorn's own status when it cannot start (it said why)
    batcher = getattr(app.state, "batcher", None)
    if batcher is not None and batcher.dead:
        print("[citetrain] error: the judge's batcher stopped (see the log above); the server "
              "exited", file=sys.stderr, flush=True)
        return 1
    return 0
