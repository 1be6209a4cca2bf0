"""Errors that the command line reports as one clear line."""
from __future__ import annotations

import sys
from typing import Callable


class CitetrainError(Exception):
    """A user-facing error: the CLI prints its message on one line and exits non-zero."""


class InputError(CitetrainError):
    """Bad input, located by file, line and field."""

    def __init__(self, path: str, line: int | None, field: str | None, message: str) -> None:
        self.path, self.line, self.field, self.reason = str(path), line, field, message
        where = self.path + (f":{line}" if line is not None else "")
        what = f" field '{field}'" if field else ""
        super().__init__(f"{where}:{what} {message}".replace(":  ", ": "))


def extra_for(module: str) -> str | None:
    """The optional extra of citetrain whose packages provide ``module`` (``deepspeed`` ->
    ``deepspeed``, ``fastapi`` -> ``serve``), read from the installed package's metadata; None
    when no extra provides it (then a missing module is a bug, not a missing install)."""
    import re
    from importlib.metadata import PackageNotFoundError, requires

    try:
        reqs = requires("citetrain") or []
    except PackageNotFoundError:
        return None
    top = module.split(".")[0].lower()
    for req in reqs:
        m = re.match(r"\s*([A-Za-z0-9_.-]+).*;\s*extra\s*==\s*['\"]([\w-]+)['\"]", req)
        if m and m.group(2) not in ("test", "all", "docs"):
            if re.sub(r"[-.]", "_", m.group(1).lower()) == top:
                return m.group(2)
    return None


def error_line(e: Exception) -> tuple[int, str]:
    """Exit code and one-line message for an error: 2 for the user's errors (bad input, a
    missing file, a full disk, an optional extra not installed), 1 for anything else, which is a
    bug to report."""
    if isinstance(e, CitetrainError):
        return 2, f"error: {e}"
    if isinstance(e, ModuleNotFoundError) and e.name and (extra := extra_for(e.name)):
        return 2, (f"error: this needs the optional package '{e.name.split('.')[0]}': "
                   f"pip install \"citetrain[{extra}]\"")
    if isinstance(e, OSError):
        where = getattr(e, "filename", None)
        return 2, f"error: {where + ': ' if where else ''}{e.strerror or e}"
    text = " ".join(str(e).split()) or "(no message)"
    if type(e).__module__ == "sqlite3":  # a cache on a full disk, read-only or locked
        return 2, f"error: cache database: {text}"
    return 1, (f"internal error: {type(e).__name__}: {text} (run with --debug for the "
               "traceback and report it)")


def run_reporting(command: str, fn: Callable[[], int | None], debug: bool = False) -> int:
    """``fn()``'s exit code, or, when it raises, the error as one line on stderr prefixed with
    ``command`` (``citetrain eval: error: ...``) and :func:`error_line`'s code (130 on Ctrl-C);
    ``debug`` re-raises instead. Every entry point runs its command through it."""
    try:
        return int(fn() or 0)
    except KeyboardInterrupt:
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (citetrain ls | head): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:
        if debug:
            raise
        code, msg = error_line(e)
        print(f"{command}: {msg}", file=sys.stderr)
        return code
