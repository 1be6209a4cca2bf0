"""Request bodies of ``POST /score``, read and checked before anything is scored.

A body is a JSON object with one of

* ``"records"``: a list of records in any format citetrain reads (``"format"``: ``auto`` by
  default, detected per record from its keys, as ``citetrain judge`` reads a file), converted by
  the same converters (:data:`citetrain.io.formats.CONVERTERS`);
* ``"pairs"``: a list of ``{"passage": ..., "statement": ...}`` objects (or ``[passage,
  statement]`` lists), scored by the judge's NLI model with its own preprocessing.

Every problem is a :class:`RequestError`: an HTTP status and one line naming the item and field.
"""
from __future__ import annotations

import json
from typing import Any

from citetrain.io.formats import CONVERTERS, RecordError, detect_format
from citetrain.records import Record
from citetrain.serve.config import ServeConfig

KEYS = ("records", "pairs", "format")


class RequestError(Exception):
    """A request the server refuses: ``status`` (4xx) and a one-line ``message``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def parse_body(body: bytes, config: ServeConfig) -> tuple[str, list[Any]]:
    """``("records", [Record, ...])`` or ``("pairs", [(passage, statement), ...])``."""
    try:
        data = json.loads(body)
    except UnicodeDecodeError as exc:
        raise RequestError(400, f"body is not UTF-8 JSON: {exc.reason} at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise RequestError(400, f"body is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict):
        raise RequestError(422, f"body must be a JSON object with 'records' or 'pairs', got {_kind(data)}")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise RequestError(422, f"unknown key '{unknown[0]}': a body has 'records' or 'pairs' (and 'format')")
    given = [k for k in ("records", "pairs") if k in data]
    if len(given) != 1:
        raise RequestError(422, "a body has exactly one of 'records' and 'pairs'")
    key = given[0]
    items = data[key]
    if not isinstance(items, list):
        raise RequestError(422, f"'{key}' must be a list, got {_kind(items)}")
    if not items:
        raise RequestError(422, f"'{key}' is empty")
    if len(items) > config.max_items:
        raise RequestError(422, f"{len(items)} {key} in one request; at most {config.max_items} (--max-items)")
    if key == "pairs":
        if "format" in data:
            raise RequestError(422, "'format' is for records, not pairs")
        return key, [_pair(i, item) for i, item in enumerate(items)]
    fmt = data.get("format", "auto")
    if not isinstance(fmt, str) or (fmt != "auto" and fmt not in CONVERTERS):
        raise RequestError(422, f"format {fmt!r} unknown; known: auto, {', '.join(CONVERTERS)}")
    records: list[Record] = []
    for i, item in enumerate(items):
        records.extend(_records(i, item, fmt, config))
    return key, records


def _kind(value: Any) -> str:
    """A JSON value's type as the record converters name it (``str``, ``list``, ...)."""
    return "null" if value is None else type(value).__name__


def _pair(i: int, item: Any) -> tuple[str, str]:
    if isinstance(item, list) and len(item) == 2:
        item = {"passage": item[0], "statement": item[1]}
    if not isinstance(item, dict):
        raise RequestError(422, f"pairs[{i}]: must be an object {{passage, statement}}, got {_kind(item)}")
    for field in ("passage", "statement"):
        if field not in item:
            raise RequestError(422, f"pairs[{i}].{field}: required field is missing")
        if not isinstance(item[field], str):
            raise RequestError(422, f"pairs[{i}].{field}: must be a string, got {_kind(item[field])}")
    extra = sorted(set(item) - {"passage", "statement"})
    if extra:
        raise RequestError(422, f"pairs[{i}]: unknown field '{extra[0]}' (a pair has passage, statement)")
    return item["passage"], item["statement"]


def _records(i: int, item: Any, fmt: str, config: ServeConfig) -> list[Record]:
    if not isinstance(item, dict):
        raise RequestError(422, f"records[{i}]: must be an object, got {_kind(item)}")
    name = fmt if fmt != "auto" else detect_format(item)
    if name is None:
        raise RequestError(422, f"records[{i}]: cannot tell the format from keys {sorted(item)[:12]}; "
                                f"give 'format' (one of {', '.join(CONVERTERS)})")
    try:
        got = CONVERTERS[name](item, str(i))
    except RecordError as err:
        where = f"records[{i}]" + (f".{err.field}" if err.field else "")
        raise RequestError(422, f"{where}: {err.message}") from None
    for record in got:
        if len(record.docs) > config.max_passages:
            raise RequestError(422, f"records[{i}]: {len(record.docs)} passages; at most "
                                    f"{config.max_passages} per record (--max-passages)")
    return got
