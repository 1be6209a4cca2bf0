"""Errors that the command line reports as one clear line."""
from __future__ import annotations


class CitetrainError(Exception):
    """A user-facing error: the CLI prints its message on one line and exits non-zero."""


class InputError(CitetrainError):
    """Bad input, located by file, line and field."""

    def __init__(self, path: str, line: int | None, field: str | None, message: str) -> None:
        self.path, self.line, self.field, self.reason = str(path), line, field, message
        where = self.path + (f":{line}" if line is not None else "")
        what = f" field '{field}'" if field else ""
        super().__init__(f"{where}:{what} {message}".replace(":  ", ": "))
