"""Converters from published citation-data formats to the canonical :class:`Record`
(docs/concepts/records.md).

Each converter is ``convert_<format>(item: dict, default_id: str) -> list[Record]`` and raises
:class:`RecordError` naming the bad field; the reader adds the file and line.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from citetrain.io.formats._common import RecordError, attach_marks
from citetrain.io.formats.expertqa import convert_expertqa, expertqa_id, parse_evidence
from citetrain.io.formats.longcite import convert_longcite
from citetrain.io.formats.quotesum import convert_quotesum, quotesum_to_marks
from citetrain.io.formats.simple import convert_alce, convert_citeeval, convert_webglm, to_citeeval
from citetrain.io.formats.wice_evidence import convert_wice_evidence
from citetrain.records import Record

Converter = Callable[[dict[str, Any], str], list[Record]]

CONVERTERS: dict[str, Converter] = {
    "alce": convert_alce,
    "webglm": convert_webglm,
    "expertqa": convert_expertqa,
    "quotesum": convert_quotesum,
    "citeeval": convert_citeeval,
    "longcite": convert_longcite,
    "wice_evidence": convert_wice_evidence,  # named only: a WiCE file is a labelled one under auto
}

# (format, keys that identify it), most specific first
_SIGNATURES: list[tuple[str, tuple[str, ...]]] = [
    ("expertqa", ("question", "answers")),
    ("quotesum", ("summary", "source1")),
    ("citeeval", ("query", "passages")),
    ("longcite", ("query", "statements")),
    ("longcite", ("query", "prediction", "context")),  # a raw tagged LongCite generation
    ("alce", ("question", "docs")),
    ("webglm", ("question", "references")),
]


def detect_format(item: dict[str, Any]) -> str | None:
    """The record format an item's keys identify, or ``None``."""
    for name, keys in _SIGNATURES:
        if all(k in item for k in keys):
            return name
    return None


__all__ = [
    "CONVERTERS", "Converter", "RecordError", "attach_marks", "convert_alce", "convert_citeeval",
    "convert_expertqa", "convert_longcite", "convert_quotesum", "convert_webglm",
    "convert_wice_evidence", "detect_format", "expertqa_id", "parse_evidence",
    "quotesum_to_marks", "to_citeeval",
]
