"""Start a judge server: check the judge, then uvicorn with one or several workers."""
from __future__ import annotations

from pathlib import Path

from citetrain.errors import CitetrainError
from citetrain.serve.config import ENV_CONFIG, ServeConfig


def check_judge(name: str) -> None:
    """A clear error before any worker starts: unknown kind, or a model folder that is missing."""
    from citetrain.judges.registry import KINDS

    kind, _, arg = name.partition(":")
    if kind not in KINDS or not arg:
        raise CitetrainError(f"judge '{name}': use one of {', '.join(k + ':...' for k in KINDS)}")
    path = arg.partition(":")[2] if kind == "nli" and arg.startswith("classifier:") else arg
    if kind in ("crossencoder", "generative") or arg.startswith("classifier:"):
        if not Path(path).exists():
            raise CitetrainError(f"judge '{name}': {path} does not exist")


def serve(config: ServeConfig) -> int:
    """Serve until interrupted; one line says where and how."""
    import os

    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError as exc:
        raise CitetrainError(f"citetrain serve needs fastapi and uvicorn ({exc.name} is missing): "
                             "pip install 'citetrain[serve]'") from None
    from citetrain.serve.app import create_app, load_judge

    check_judge(config.judge)
    guard = "a bearer token" if config.token else "no token"
    if config.host not in ("127.0.0.1", "localhost", "::1") and not config.token:
        print(f"[citetrain] warning: listening on {config.host} with no token: anyone who can "
              "reach this port can use the judge (--token)", flush=True)
    print(f"[citetrain] serving {config.judge} on http://{config.host}:{config.port} "
          f"({config.workers} worker(s), {guard}; POST /score, GET /health)", flush=True)
    common = {"host": config.host, "port": config.port, "log_level": "warning",
              "timeout_graceful_shutdown": 5}
    if config.workers == 1:
        app = create_app(config, judge=load_judge(config))
        uvicorn.run(app, **common)
    else:
        os.environ[ENV_CONFIG] = config.to_env()
        uvicorn.run("citetrain.serve.app:app_from_env", factory=True, workers=config.workers, **common)
    return 0
