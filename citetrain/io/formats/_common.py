"""Shared pieces of the format converters: the per-record error and field checks."""
from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from citetrain.records import Doc, Record


class RecordError(Exception):
    """A bad input record, located by field; the reader adds the file and line.

    ``reason`` is a short label that reads on its own and groups skips in a summary
    (``"missing field 'question'"``); ``message`` is the sentence shown in the error.
    """

    def __init__(self, field: str | None, reason: str, message: str | None = None) -> None:
        self.field, self.reason, self.message = field, reason, message or reason
        super().__init__(self.message)


def require(item: dict[str, Any], key: str, kind: type | tuple[type, ...] = str,
            prefix: str = "") -> Any:
    """``item[key]``, which must be present (not null) and of type ``kind``."""
    field = prefix + key
    if key not in item or item[key] is None:
        raise RecordError(field, f"missing field '{field}'", "required field is missing")
    return check_type(item[key], kind, field)


def optional(item: dict[str, Any], key: str, kind: type | tuple[type, ...] = str,
             default: Any = None, prefix: str = "") -> Any:
    """``item[key]`` when present and not null (type-checked), else ``default``."""
    if item.get(key) is None:
        return default
    return check_type(item[key], kind, prefix + key)


def check_type(value: Any, kind: type | tuple[type, ...], field: str) -> Any:
    """``value`` itself when it is a ``kind``; a :class:`RecordError` naming ``field`` otherwise."""
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
    label = {"list": "a list", "dict": "an object", "str": "a string"}.get(names, names)
    raise RecordError(field, f"'{field}' not {label}",
                      f"must be {label}, got {type(value).__name__}")


def make_docs(raw: Any, field: str = "docs", text_key: str = "text") -> list[Doc]:
    """Passages from a list of ``{title?, text, ...}`` objects (extra keys are kept)."""
    items = check_type(raw, list, field)
    docs = []
    for i, d in enumerate(items):
        where = f"{field}[{i}]"
        check_type(d, dict, where)
        if d.get(text_key) is None:
            raise RecordError(f"{where}.{text_key}", f"doc without '{text_key}'",
                              f"passage has no '{text_key}'")
        text = check_type(d[text_key], str, f"{where}.{text_key}")
        title = check_type(d.get("title") or "", str, f"{where}.title")
        extra = {k: v for k, v in d.items() if k not in ("title", text_key)}
        docs.append(Doc(title=title, text=text, **extra))
    return docs


def make_record(**fields: Any) -> Record:
    """A :class:`Record`, with pydantic's complaints turned into a :class:`RecordError`."""
    try:
        return Record(**fields)
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise RecordError(field, f"invalid field '{field}'", first["msg"]) from None


_TRAIL = re.compile(r"([.!?;:,]+)$")


def attach_marks(span: str, marks: str) -> str:
    """``span`` followed by ``marks``, placed before any trailing punctuation.

    ``"in the soil."`` + ``"[2]"`` -> ``"in the soil [2]."``: marks stay with their own sentence
    whichever splitter runs later (ALCE's convention ``"... text [1]."``).
    """
    span = span.strip()
    m = _TRAIL.search(span)
    if m is None:
        return f"{span} {marks}" if span else marks
    core = span[: m.start()].rstrip()
    return f"{core} {marks}{m.group(1)}" if core else f"{marks}{m.group(1)}"
