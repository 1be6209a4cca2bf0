"""Finished chunks of a long job, kept in partial files beside its output so that a killed run
resumes without doing a finished chunk again: generation (:mod:`citetrain.evaluation.generate`)
and the teachers' scores of transfer pairs (:mod:`citetrain.judge_training.transfer`).

One file per process: ``<output stem>.rank-R.partial.jsonl``, a header line (what the run reads
and its settings: input files' sha256, checkpoint, models) then one ``{"chunk", "ids", "outputs"}``
line per finished chunk (``outputs``: any JSON values, one per id), appended, flushed and fsynced.
A line cut by a kill is dropped (the chunk is done again); a partial file whose header differs
(another input, checkpoint or setting) is refused with one line rather than mixed in.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Sequence

from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_write_text


def _rows(text: str) -> tuple[Any, list[dict[str, Any]], int]:
    """Header, the whole chunk lines in order, and how many lines (header included) are whole:
    reading stops at the first line that is cut or unreadable, and a last line without its
    newline (still being written, or cut) does not count."""
    lines = text.split("\n")[:-1]  # the piece after the last newline is never a whole line
    try:
        header = json.loads(lines[0]) if lines else None
    except ValueError:
        return None, [], 0
    rows: list[dict[str, Any]] = []
    for line in lines[1:]:
        try:
            row = json.loads(line)
            ok = (isinstance(row, dict) and isinstance(row.get("chunk"), int)
                  and isinstance(row.get("outputs"), list) and isinstance(row.get("ids"), list))
        except ValueError:
            ok = False
        if not ok:
            break
        rows.append(row)
    return header, rows, 1 + len(rows) if lines else 0


def ids_sha256(ids: Sequence[str]) -> str:
    """sha256 of ids joined by newlines: what a header names a run's work list by."""
    return hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()


def partial_path(output: str | os.PathLike[str], rank: int = 0) -> Path:
    """The partial file of process ``rank`` beside ``output``: ``<stem>.rank-R.partial.jsonl``."""
    output = Path(output)
    return output.with_name(f"{output.stem}.rank-{rank}.partial.jsonl")


class ChunkStore:
    """The partial files of the output at ``predictions`` for this process (``rank``)."""

    def __init__(self, predictions: str | os.PathLike[str], header: dict[str, Any],
                 rank: int = 0) -> None:
        self.predictions = Path(predictions)
        self.header = header
        self.path = self._file(rank)

    def _file(self, rank: int) -> Path:
        return partial_path(self.predictions, rank)

    def files(self) -> list[Path]:
        """Every process's partial file, this run's and those an earlier run left."""
        return sorted(self.predictions.parent.glob(f"{self.predictions.stem}.rank-*.partial.jsonl"))

    def prepare(self) -> None:
        """Refuse partial files of another run; cut this process's file after its last whole
        line, or start it with the header."""
        for path in self.files():
            text = path.read_text(encoding="utf-8", errors="replace")
            header, _, _ = _rows(text)
            if header != self.header:
                raise CitetrainError(f"{path}: a partial run of another input, checkpoint or "
                                     "setting; delete it to start again")
        if not self.path.exists():
            atomic_write_text(self.path, json.dumps(self.header) + "\n")
            return
        text = self.path.read_text(encoding="utf-8", errors="replace")
        _, _, kept = _rows(text)
        lines = text.split("\n")
        if kept < len(lines) - 1 or lines[-1] != "":
            atomic_write_text(self.path, "".join(x + "\n" for x in lines[:kept]))

    def finished(self) -> dict[int, dict[str, Any]]:
        """``{chunk: {"ids", "outputs"}}`` over every partial file."""
        done: dict[int, dict[str, Any]] = {}
        for path in self.files():
            header, rows, _ = _rows(path.read_text(encoding="utf-8", errors="replace"))
            if header == self.header:
                done.update((row["chunk"], row) for row in rows)
        return done

    def append(self, chunk: int, ids: Sequence[str], outputs: Sequence[Any]) -> None:
        """Save one finished chunk (on disk when this returns)."""
        row = {"chunk": chunk, "ids": list(ids), "outputs": list(outputs)}
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def finish(self) -> None:
        """Remove every partial file once the output is written."""
        for path in self.files():
            path.unlink(missing_ok=True)
