"""Write changed responses back in the format they were read from.

The input file's own items are re-read and only the response field of each record is replaced
(ALCE ``output``, WebGLM-QA ``answer``, CiteEval ``pred``, ExpertQA
``answers.<system>.answer_string``), so every other field, the item order and the file's shape
(JSON list or JSONL) stay as they were. Formats whose response cannot be set back without loss
(QuoteSum's ``[k span]`` marks, LongCite's statement lists) raise :class:`CitetrainError`.
"""
from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any, Callable, Sequence

from citetrain.errors import CitetrainError
from citetrain.io.readers import Problems, load_items
from citetrain.io.writers import atomic_writer, write_records
from citetrain.records import Record


def _set_key(key: str) -> Callable[[dict[str, Any], Record], None]:
    def setter(item: dict[str, Any], rec: Record) -> None:
        item[key] = rec.output
    return setter


def _set_expertqa(item: dict[str, Any], rec: Record) -> None:
    system = (rec.model_extra or {}).get("system")
    item["answers"][system]["answer_string"] = rec.output


SETTERS: dict[str, Callable[[dict[str, Any], Record], None]] = {
    "alce": _set_key("output"), "webglm": _set_key("answer"), "citeeval": _set_key("pred"),
    "expertqa": _set_expertqa,
}


def write_in_input_format(res: Any, records: Sequence[Record], out: str | os.PathLike[str]) -> str:
    """``records`` (one per record of the :class:`ReadResult` ``res``) written in ``res``'s format
    when it can be written back, else as ALCE records with a printed note; returns the format."""
    try:
        write_like_input(res.paths[0], res.format, records, res.origins, out)
        return res.format
    except CitetrainError as exc:
        print(f"note: {exc}; writing ALCE records instead")
        write_records(records, out, "alce")
        return "alce"


def write_like_input(source: str | os.PathLike[str], fmt: str, records: Sequence[Record],
                     origins: Sequence[tuple[str, int]], out: str | os.PathLike[str]) -> Path:
    """``source``'s items with each record's response replaced, written atomically to ``out``.

    ``origins[i]`` is the ``(path, line)`` record ``i`` came from (:class:`ReadResult.origins`).
    Items that were not records (skipped as invalid) are left out.
    """
    if fmt not in SETTERS:
        raise CitetrainError(f"cannot write format {fmt!r} back; writable: {', '.join(SETTERS)}")
    items = {line: item for line, item in load_items(source, Problems(str(source), True))
             if isinstance(item, dict)}
    lines = list(dict.fromkeys(line for _, line in origins))
    patched = {line: copy.deepcopy(items[line]) for line in lines}
    for rec, (_, line) in zip(records, origins):
        SETTERS[fmt](patched[line], rec)
    rows = [patched[line] for line in lines]
    with atomic_writer(out) as fh:
        if Path(out).suffix.lower() == ".json":
            json.dump(rows, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        else:
            fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return Path(out)
