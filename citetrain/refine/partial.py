"""Resumable refinement: refined records are appended to a partial file chunk by chunk, and a
rerun takes them from there instead of generating them again."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Sequence

from tqdm.auto import tqdm

from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_write_text
from citetrain.records import Record
from citetrain.refine.generative import COUNT_KEYS
from citetrain.refine.load import RefineFn


class PartialRefine:
    """``OUT.partial.jsonl``: a header line naming the input and the refiner, then one
    ``{"id", "output"}`` line per finished record. A partial file from another input or
    refiner is refused rather than mixed in."""

    def __init__(self, path: str | os.PathLike[str], source: str, refiner: str) -> None:
        self.path = Path(path)
        name = refiner.removeprefix("classifier:")
        self.header = {"source_sha256": hashlib.sha256(Path(source).read_bytes()).hexdigest(),
                       "refiner": str(Path(name).resolve()) if Path(name).exists() else refiner}

    def _load(self) -> dict[str, str]:
        """The finished records; a last line cut by a kill is dropped from the file, so that
        what this run appends starts on a line of its own."""
        if not self.path.exists():
            return {}
        done: dict[str, str] = {}
        with open(self.path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().split("\n")
        try:
            header = json.loads(lines[0])
        except ValueError:
            header = None
        if header != self.header:
            raise CitetrainError(f"{self.path}: a partial run of another input or refiner; "
                                 "delete it to start again")
        kept = 1
        for line in lines[1:]:
            try:
                row = json.loads(line)
                done[row["id"]] = row["output"]
            except (ValueError, KeyError, TypeError):
                break  # a line cut by a kill: everything after it is redone
            kept += 1
        if kept < len(lines) - 1 or lines[-1] != "":
            atomic_write_text(self.path, "".join(x + "\n" for x in lines[:kept]))
        return done

    def run(self, records: Sequence[Record], refine: RefineFn, *, chunk: int = 64,
            progress: bool = True) -> tuple[list[Record], dict[str, int]]:
        """Refine every record not already in the partial file with ``refine`` (a
        :class:`~citetrain.refine.load.Refiner`'s); counts cover this run's records, plus
        ``resumed``."""
        done = self._load()
        counts: dict[str, int] = {"resumed": sum(r.id in done for r in records)}
        todo = [r for r in records if r.id not in done]
        if not self.path.exists():
            atomic_write_text(self.path, json.dumps(self.header) + "\n")
        with open(self.path, "a", encoding="utf-8") as fh, \
                tqdm(total=len(records), initial=counts["resumed"], desc="refine", unit="record",
                     disable=not progress) as bar:
            for i in range(0, len(todo), chunk):
                part, _ = refine(todo[i:i + chunk], counts)
                fh.writelines(json.dumps({"id": r.id, "output": r.output}, ensure_ascii=False)
                              + "\n" for r in part)
                fh.flush()
                os.fsync(fh.fileno())
                done.update((r.id, r.output) for r in part)
                bar.update(len(part))
        for key in COUNT_KEYS:
            counts.setdefault(key, 0)
        return [r.model_copy(update={"output": done[r.id]}) for r in records], counts

    def finish(self) -> None:
        """Remove the partial file once the output is written."""
        self.path.unlink(missing_ok=True)
