"""Read record files of any supported format into canonical :class:`Record` objects
(docs/concepts/records.md).

``.jsonl`` files hold one JSON object a line; ``.json`` files a list of objects or ALCE's
``{"args": ..., "data": [...]}``. Bad input never passes silently: it raises
:class:`~citetrain.errors.InputError` naming the file, the line (for a JSON list: the 1-based
item number, said so in the message) and the field, or, with ``skip_invalid=True``, the record is
skipped and counted in :attr:`ReadResult.skipped` with its reason.
"""
from __future__ import annotations

__all__ = ["read_records", "iter_records", "read_many", "ReadResult"]

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from citetrain.errors import CitetrainError, InputError
from citetrain.io.formats import CONVERTERS, RecordError, detect_format
from citetrain.records import Record

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class BadLine:
    """A JSONL line that could not be decoded or parsed; reported in line order with the rest."""

    reason: str
    message: str


@dataclass(frozen=True)
class Skip:
    """One skipped input record: where it was and why (``reason`` groups skips in summaries)."""

    path: str
    line: int | None
    field: str | None
    reason: str
    detail: str = ""


def summarize_skips(skipped: list[Skip], n_items: int, noun: str = "records") -> str:
    """``"skipped 3 of 120 records: 2 missing field 'question', 1 malformed JSON"``."""
    if not skipped:
        return f"read {n_items} {noun}, none skipped"
    counts = Counter(s.reason for s in skipped)
    parts = ", ".join(f"{n} {reason}" for reason, n in counts.most_common())
    return f"skipped {len(skipped)} of {n_items} {noun}: {parts}"


@dataclass
class Problems:
    """Where a reader reports bad input: raised as an :class:`InputError` or kept as a Skip."""

    path: str
    skip_invalid: bool = False
    json_list: bool = False
    skipped: list[Skip] = field(default_factory=list)

    def report(self, line: int | None, field: str | None, reason: str,
               message: str | None = None) -> None:
        """Record a skip when skipping is on; raise an :class:`InputError` otherwise."""
        if self.skip_invalid:
            self.skipped.append(Skip(self.path, line, field, reason, message or reason))
            return
        self.fail(line, field, message or reason)

    def fail(self, line: int | None, field: str | None, message: str) -> NoReturn:
        """Raise an :class:`InputError` (whole-file problems cannot be skipped around)."""
        if self.json_list and line is not None:
            message = f"{message} (item {line} of the JSON list)"
        raise InputError(self.path, line, field, message)

    def record_error(self, line: int, err: RecordError) -> None:
        """Report a converter's :class:`RecordError` at ``line``."""
        self.report(line, err.field, err.reason, err.message)


def _decode_error(data: bytes, err: UnicodeDecodeError) -> tuple[int, str]:
    line = data.count(b"\n", 0, err.start) + 1
    col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
    return line, f"byte 0x{data[err.start]:02x} at column {col} is not valid UTF-8"


def _load_json(data: bytes, problems: Problems) -> list[tuple[int, Any]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line, msg = _decode_error(data, err)
        problems.fail(line, None, f"{msg} (line {line})")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        problems.fail(err.lineno, None,
                      f"malformed JSON at line {err.lineno} column {err.colno}: {err.msg}")
    if isinstance(obj, dict) and isinstance(obj.get("data"), list):
        obj = obj["data"]  # ALCE result files: {"args": ..., "data": [...]}
    if not isinstance(obj, list):
        what = "an object without a 'data' list" if isinstance(obj, dict) else type(obj).__name__
        problems.fail(None, None, "not a record file: expected a JSON list of records or "
                      f"ALCE's {{'data': [...]}}, got {what}")
    problems.json_list = True
    return [(i + 1, item) for i, item in enumerate(obj)]


def _jsonl_item(n: int, raw: bytes) -> tuple[int, Any] | None:
    """Line ``n`` of a JSONL file as ``(n, value)`` (a :class:`BadLine` when it does not decode
    or parse); None for a blank line."""
    try:
        text = raw.decode("utf-8-sig" if n == 1 else "utf-8")
    except UnicodeDecodeError as err:
        return n, BadLine("not valid UTF-8", _decode_error(raw, err)[1])
    if not text.strip():
        return None
    try:
        return n, json.loads(text)
    except json.JSONDecodeError as err:
        return n, BadLine("malformed JSON", f"malformed JSON at column {err.colno}: {err.msg}")


def _load_jsonl(data: bytes, problems: Problems) -> list[tuple[int, Any]]:
    return [item for n, raw in enumerate(data.split(b"\n"), start=1)
            if (item := _jsonl_item(n, raw)) is not None]


def require_file(path: PathLike) -> Path:
    """``path`` as a Path when it is a file; an :class:`InputError` (file not found, a
    directory) otherwise."""
    p = Path(path)
    if p.is_dir():
        raise InputError(str(p), None, None, "is a directory, not a record file")
    if not p.is_file():
        raise InputError(str(p), None, None, "file not found")
    return p


def load_items(path: PathLike, problems: Problems) -> list[tuple[int, Any]]:
    """The raw JSON items of a file as ``(line or item number, value)``.

    ``.jsonl`` / ``.ndjson`` are read a line at a time (a line that does not decode or parse is a
    :class:`BadLine`, reported in order by :func:`check_object`), ``.json`` as one document;
    other suffixes are sniffed (a leading ``[`` means a JSON document).
    """
    p = require_file(path)
    data = p.read_bytes()
    if not data.strip():
        raise InputError(str(p), None, None, "empty file: no records")
    suffix = p.suffix.lower()
    as_json = suffix == ".json" or (
        suffix not in (".jsonl", ".ndjson") and data.lstrip().lstrip(b"\xef\xbb\xbf")[:1] == b"[")
    items = _load_json(data, problems) if as_json else _load_jsonl(data, problems)
    if not items:
        raise InputError(str(p), None, None, "empty file: no records")
    return items


def resolve_format(fmt: str, items: list[tuple[int, Any]], problems: Problems,
                   known: dict[str, Any],
                   detect: Callable[[dict[str, Any]], str | None]) -> str:
    """``fmt`` checked against ``known``, or detected from the first object item's keys."""
    if fmt != "auto":
        if fmt not in known:
            raise CitetrainError(f"unknown format {fmt!r}; known: auto, {', '.join(known)}")
        return fmt
    for line, item in items:
        if isinstance(item, dict):
            found = detect(item)
            if found is None:
                problems.fail(line, None, f"cannot tell the format from keys {sorted(item)[:12]}; "
                                          f"pass fmt= one of {', '.join(known)}")
            return found
    return "unknown"


def check_object(line: int, item: Any, problems: Problems) -> bool:
    """Whether ``item`` is a JSON object; reports it (or the :class:`BadLine`) otherwise."""
    if isinstance(item, dict):
        return True
    if isinstance(item, BadLine):
        problems.report(line, None, item.reason, item.message)
        return False
    problems.report(line, None, "not a JSON object",
                    f"expected a JSON object, got {type(item).__name__}")
    return False


@dataclass
class ReadResult:
    """Records read from one or more files, with every skipped input record and why."""

    records: list[Record]
    skipped: list[Skip]
    format: str
    n_items: int = 0
    duplicates: int = 0
    conflicting: int = 0
    paths: list[str] = field(default_factory=list)
    origins: list[tuple[str, int]] = field(default_factory=list)  # (path, line) per record

    def summary(self) -> str:
        """``"skipped 3 of 120 records: 2 missing field 'question', 1 malformed JSON"``
        (counts are of input records: lines or list items), plus dropped duplicates."""
        text = summarize_skips(self.skipped, self.n_items)
        if self.duplicates:
            text += f"; dropped {self.duplicates} duplicate ids"
            if self.conflicting:
                text += f" ({self.conflicting} with different content, first kept)"
        return text


def read_records(path: PathLike, fmt: str = "auto", *, skip_invalid: bool = False) -> ReadResult:
    """Read a record file of format ``fmt`` (``"auto"``: from the first object's keys) as
    canonical records. See the module docstring for the error rules."""
    problems = Problems(str(path), skip_invalid)
    items = load_items(path, problems)
    name = resolve_format(fmt, items, problems, CONVERTERS, detect_format)
    records: list[Record] = []
    origins: list[tuple[str, int]] = []
    for line, item in items:
        if not check_object(line, item, problems):
            continue
        try:
            got = CONVERTERS[name](item, str(line))
        except RecordError as err:
            problems.record_error(line, err)
            continue
        records.extend(got)
        origins.extend([(str(path), line)] * len(got))
    return ReadResult(records, problems.skipped, name, len(items), paths=[str(path)],
                      origins=origins)


def iter_records(path: PathLike, fmt: str = "auto", *, skip_invalid: bool = False,
                 problems: Problems | None = None) -> Iterator[Record]:
    """:func:`read_records`, one record at a time: a ``.jsonl`` / ``.ndjson`` file is read a line
    at a time (memory flat in its length), any other file as :func:`load_items` reads it. The
    same errors; with ``skip_invalid`` the skips go to ``problems.skipped`` (pass one to see them).
    """
    problems = problems or Problems(str(path), skip_invalid)
    p = Path(path)
    if p.suffix.lower() not in (".jsonl", ".ndjson"):
        yield from read_records(path, fmt, skip_invalid=skip_invalid).records
        return
    handle = require_file(p).open("rb")
    name, seen = None if fmt == "auto" else fmt, False
    if name is not None and name not in CONVERTERS:
        raise CitetrainError(f"unknown format {fmt!r}; known: auto, {', '.join(CONVERTERS)}")
    with handle:
        for n, raw in enumerate(handle, start=1):
            got = _jsonl_item(n, raw.rstrip(b"\n"))
            if got is None:
                continue
            seen = True
            line, item = got
            if name is None and isinstance(item, dict):
                name = resolve_format("auto", [got], problems, CONVERTERS, detect_format)
            if not check_object(line, item, problems):
                continue
            try:
                yield from CONVERTERS[name](item, str(line))  # type: ignore[index]
            except RecordError as err:
                problems.record_error(line, err)
    if not seen:
        raise InputError(str(p), None, None, "empty file: no records")


def read_many(paths: Iterable[PathLike], fmt: str = "auto", *,
              skip_invalid: bool = False) -> ReadResult:
    """Read several files and drop records whose id was already read (first kept, counted in
    ``duplicates``; ``conflicting`` counts those whose content differs). ExpertQA's four
    annotated splits are two partitions of one pool, so their (question, system) ids repeat."""
    seen: dict[str, Record] = {}
    where: dict[str, tuple[str, int]] = {}
    skipped: list[Skip] = []
    formats: list[str] = []
    n_items = duplicates = conflicting = 0
    names = []
    for path in paths:
        part = read_records(path, fmt, skip_invalid=skip_invalid)
        skipped += part.skipped
        n_items += part.n_items
        names.append(str(path))
        if part.format not in formats:
            formats.append(part.format)
        for rec, origin in zip(part.records, part.origins):
            if rec.id in seen:
                duplicates += 1
                conflicting += seen[rec.id] != rec
            else:
                seen[rec.id], where[rec.id] = rec, origin
    return ReadResult(list(seen.values()), skipped, formats[0] if len(formats) == 1 else
                      "+".join(formats), n_items, duplicates, conflicting, names,
                      [where[k] for k in seen])


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The sha256 of a file's bytes, read in 1 MiB blocks (what resumable jobs check their
    inputs against)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class LineProblem(ValueError):
    """Why a line of a JSON-lines file is refused: :func:`json_rows` prints it as
    ``PATH:LINE: reason``."""


def json_rows(path: PathLike, parse: Callable[[Any], Any], what: str,
              setting: str = "") -> Iterator[tuple[int, Any]]:
    """``(line, parse(value))`` for each non-blank line of a JSON-lines file (lines from 1). A line
    that is not JSON, or that ``parse`` refuses (KeyError, TypeError, ValueError), stops the read
    with one line: ``[setting: ]PATH:LINE: not WHAT (why)``, or ``PATH:LINE: reason`` for a
    :class:`LineProblem`. The file is read as it is consumed (one line in memory)."""
    where = f"{setting}: {path}" if setting else str(path)
    with open(path, encoding="utf-8") as fh:
        for n, text in enumerate(fh, 1):
            if not text.strip():
                continue
            try:
                row = parse(json.loads(text))
            except LineProblem as e:
                raise CitetrainError(f"{where}:{n}: {e}") from None
            except (KeyError, TypeError, ValueError) as e:
                raise CitetrainError(f"{where}:{n}: not {what} ({e})") from None
            yield n, row
