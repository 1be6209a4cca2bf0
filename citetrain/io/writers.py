"""Write files and folders atomically: a reader never sees a half-written output.

The one way citetrain writes an output. :func:`atomic_writer` writes to a temporary file in the
target's directory, flushes and fsyncs it, then ``os.replace``s it over the target (atomic on
POSIX and Windows when both sit on one filesystem); on error the temporary file is removed and
the target is left untouched. :func:`atomic_dir` does the same for a folder (a ``datasets`` save,
a model): it is filled under a temporary name beside the target and put in place by
:func:`replace_dir` only when the block succeeds.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
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
    make_parent(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding,
                       newline=None if "b" in mode else "") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise _naming(e, target)
    _fsync_dir(target.parent)


def make_parent(target: Path) -> None:
    """Create ``target``'s parent folders; a file in the way is named as such."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in target.parents if p.exists() and not p.is_dir()), target.parent)
        raise CitetrainError(f"{target}: cannot create its folder, {blocker} is a file") from None


def _fsync_dir(folder: Path) -> None:
    """Make a rename inside ``folder`` durable where the OS allows it."""
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def restore_old_dir(target: str | os.PathLike[str]) -> Path:
    """A run killed between :func:`replace_dir`'s two renames leaves the previous folder at
    ``TARGET.old`` and none at ``target``: put it back. Returns the ``TARGET.old`` path."""
    target = Path(target)
    old = target.with_name(target.name + ".old")
    if target.name and old.is_dir() and not target.exists():
        os.replace(old, target)
    return old


def replace_dir(tmp: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Put the finished folder ``tmp`` in place of ``target``: the old one is moved aside to
    ``TARGET.old`` first and removed last, so a crash never leaves a half-written folder at
    ``target`` (between the two renames the old one waits at ``TARGET.old``)."""
    tmp, target = Path(tmp), Path(target)
    old = restore_old_dir(target)
    if target.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
    os.replace(tmp, target)
    _fsync_dir(target.parent)
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike[str], replace: bool = True) -> Iterator[Path]:
    """Context manager yielding an empty temporary folder beside ``path``; when the block
    succeeds the folder replaces ``path`` (:func:`replace_dir`), when it fails it is removed and
    ``path`` is left as it was. ``replace=False`` refuses to put it over an existing ``path``."""
    target = Path(path)
    make_parent(target)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        os.chmod(tmp, 0o777 & ~_UMASK)
        yield tmp
        if not replace and target.exists():
            raise CitetrainError(f"{target} exists: choose a new folder")
        replace_dir(tmp, target)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise _naming(e, target)


def _naming(e: BaseException, target: Path) -> BaseException:
    """An ``OSError`` without a file name (a full disk while writing) gets the target's."""
    if isinstance(e, OSError) and not e.filename and e.errno is not None:
        named = OSError(e.errno, e.strerror or str(e), str(target))
        named.__cause__ = e
        return named
    return e


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


def save_atomically(dd: Any, target: Path) -> None:
    """``dd.save_to_disk(target)`` through a temporary folder and a rename (:func:`atomic_dir`)."""
    import datasets

    datasets.disable_progress_bars()
    with atomic_dir(target) as tmp:
        dd.save_to_disk(str(tmp))
