"""Write records and reports atomically: a reader never sees a half-written file.

:func:`atomic_writer` writes to a temporary file in the target's directory, flushes and fsyncs
it, then ``os.replace``s it over the target (atomic on POSIX and Windows when both sit on one
filesystem); on error the temporary file is removed and the target is left untouched.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from citetrain.errors import CitetrainError
from citetrain.io.formats import to_citeeval
from citetrain.records import Record


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import: os.umask is process-wide and not thread-safe


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], mode: str = "w",
                  encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Context manager yielding a file that replaces ``path`` only when the block succeeds.

    ``mode`` is ``"w"`` (text, ``encoding``) or ``"wb"``. Parent directories are created; the new
    file gets the usual permissions (``0o666`` less the umask), not ``mkstemp``'s ``0o600``.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding,
                       newline=None if "b" in mode else "") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable where the OS allows
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_writer`); returns the path."""
    with atomic_writer(path, "w", encoding) as fh:
        fh.write(text)
    return Path(path)


WRITE_FORMATS = {
    "alce": lambda r: r.to_dict(),
    "citeeval": to_citeeval,
}


def write_records(records: Iterable[Record], path: str | os.PathLike[str],
                  fmt: str = "alce") -> Path:
    """Write records atomically: a JSON list for a ``.json`` path, JSONL otherwise.

    ``fmt``: ``"alce"`` (the canonical record, unset optional gold fields left out; reads back
    with :func:`~citetrain.io.readers.read_records` to equal records) or ``"citeeval"``
    (``{id, query, passages, pred}`` for CiteEval's own scripts). Returns the path.
    """
    if fmt not in WRITE_FORMATS:
        raise CitetrainError(f"cannot write format {fmt!r}; known: {', '.join(WRITE_FORMATS)}")
    convert = WRITE_FORMATS[fmt]
    rows = (convert(r) for r in records)
    with atomic_writer(path) as fh:
        if Path(path).suffix.lower() == ".json":
            json.dump(list(rows), fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        else:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return Path(path)
