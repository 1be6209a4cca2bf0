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
import math
import re
import sys
from typing import Any

from citetrain.io.formats import CONVERTERS, RecordError, detect_format
from citetrain.records import Record
from citetrain.serve.config import ServeConfig, flag

KEYS = ("records", "pairs", "format")


def error_body(message: str) -> bytes:
    """The body of every refusal and error the server sends, whoever sends it (the app, the
    Host guard, the connection protocol): ``{"error": "<message>"}`` as UTF-8 JSON."""
    return json.dumps({"error": message}, ensure_ascii=False).encode()


class RequestError(Exception):
    """A request the server refuses: ``status`` (4xx, or 503) and a one-line ``message``, and
    any ``headers`` the answer carries (``Retry-After``, ``Connection: close``)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


def parse_body(body: bytes, config: ServeConfig) -> tuple[str, list[Any]]:
    """``("records", [Record, ...])`` or ``("pairs", [(passage, statement), ...])``."""
    data = load_json(body)
    if not isinstance(data, dict):
        raise RequestError(422, f"body must be a JSON object with 'records' or 'pairs', got {_kind(data)}")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise RequestError(422, f"unknown key {_show(unknown[0])}: a body has 'records' or 'pairs' (and 'format')")
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
        raise RequestError(422, f"{len(items)} {key} in one request; at most {config.max_items} "
                                f"({flag('max_items')})")
    if key == "pairs":
        if "format" in data:
            raise RequestError(422, "'format' is for records, not pairs")
        return key, [_pair(i, item) for i, item in enumerate(items)]
    fmt = data.get("format", "auto")
    if not isinstance(fmt, str) or (fmt != "auto" and fmt not in CONVERTERS):
        raise RequestError(422, f"format {_show(fmt)} unknown; known: auto, {', '.join(CONVERTERS)}")
    records: list[Record] = []
    for i, item in enumerate(items):
        records.extend(_records(i, item, fmt, config))
    return key, records


def load_json(body: bytes) -> Any:
    """The body as JSON, or a 400: not UTF-8, not JSON, nested too deeply for the parser, a
    number past Python's digit limit or out of float range, NaN / Infinity, or a lone surrogate
    (``\\ud800``) in a string."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(400, f"body is not UTF-8 JSON: {exc.reason} at byte {exc.start}") from None
    try:
        data = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise RequestError(400, f"body is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise RequestError(400, "body is not JSON this server reads: nested too deeply") from None
    except ValueError as exc:  # a number past the digit limit, out of range, or NaN / Infinity
        raise RequestError(400, f"body is not JSON this server reads: {_number_error(exc)}") from None
    if _ESCAPED_SURROGATE.search(text):
        where = _surrogate_path(data)
        if where is not None:
            raise RequestError(400, f"body is not valid Unicode: a lone surrogate in {where}")
    return data


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _number_error(exc: ValueError) -> str:
    text = str(exc)
    if "integer string conversion" in text:
        return f"an integer has more than {sys.get_int_max_str_digits()} digits"
    return " ".join(text.split())[:200]


def _surrogate_path(data: Any) -> str | None:
    """Where the first string with a lone surrogate is (``records[0].output``), else None."""
    stack: list[tuple[Any, str]] = [(data, "body")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return where
        elif isinstance(node, dict):
            for key, value in node.items():
                name = key if _SURROGATE.search(key) is None else "?"
                if name == "?":
                    return f"a key of {where}"
                stack.append((value, name if where == "body" else f"{where}.{name}"))
        elif isinstance(node, list):
            stack.extend((v, f"{where}[{k}]") for k, v in enumerate(node))
    return None


def _show(value: Any) -> str:
    """A client's value in a message: quoted, at most 40 characters, lone surrogates escaped."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


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
        keys = ", ".join(_show(k) for k in sorted(item)[:12])
        raise RequestError(422, f"records[{i}]: cannot tell the format from keys [{keys}]; "
                                f"give 'format' (one of {', '.join(CONVERTERS)})")
    try:
        got = CONVERTERS[name](item, str(i))
    except RecordError as err:
        where = f"records[{i}]" + (f".{err.field}" if err.field else "")
        raise RequestError(422, f"{where}: {err.message}") from None
    except RecursionError:
        raise RequestError(422, f"records[{i}]: nested too deeply") from None
    except ValueError as exc:  # e.g. a number in the text past Python's digit limit
        raise RequestError(422, f"records[{i}]: {_number_error(exc)}") from None
    for record in got:
        if len(record.docs) > config.max_passages:
            raise RequestError(422, f"records[{i}]: {len(record.docs)} passages; at most "
                                    f"{config.max_passages} per record ({flag('max_passages')})")
    return got
