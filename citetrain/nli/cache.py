"""A persistent NLI cache in SQLite, safe for several processes (WAL, busy timeout; the
shared helpers of :mod:`citetrain.llm.cache`).

Keyed by (model id, revision, premise, hypothesis); values are :class:`NLIResult`.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Iterable, Sequence

from citetrain.llm.cache import connect, init_db
from citetrain.nli.base import NLIResult, Pair

_SCHEMA = """CREATE TABLE IF NOT EXISTS nli (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, revision TEXT NOT NULL,
    prob REAL NOT NULL, label INTEGER NOT NULL, support TEXT)"""


def default_cache_path() -> Path:
    """``$CITETRAIN_CACHE`` or ``~/.cache/citetrain/nli.sqlite``."""
    env = os.environ.get("CITETRAIN_CACHE")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "citetrain" / "nli.sqlite"


def cache_key(model_id: str, revision: str, pair: Pair) -> str:
    """SHA-256 of the four key fields, unambiguous whatever the texts hold."""
    blob = json.dumps([model_id, revision, pair[0], pair[1]], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class NLICache:
    """Get and put NLI results; each call is one short transaction."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = init_db(path if path is not None else default_cache_path(), _SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return connect(self.path)

    def get_many(self, keys: Sequence[str]) -> dict[str, NLIResult]:
        """The cached results among ``keys``."""
        out: dict[str, NLIResult] = {}
        con = self._connect()
        try:
            for i in range(0, len(keys), 500):
                chunk = list(keys[i : i + 500])
                marks = ",".join("?" * len(chunk))
                rows = con.execute(
                    f"SELECT key, prob, label, support FROM nli WHERE key IN ({marks})", chunk
                )
                for key, prob, label, support in rows:
                    sup = tuple(json.loads(support)) if support else None
                    out[key] = NLIResult(float(prob), bool(label), sup)  # type: ignore[arg-type]
        finally:
            con.close()
        return out

    def put_many(self, model_id: str, revision: str, items: Iterable[tuple[str, NLIResult]]) -> None:
        """Store results; a key already present is left as it is."""
        rows = [
            (k, model_id, revision, r.prob, int(r.label), json.dumps(r.support) if r.support else None)
            for k, r in items
        ]
        if not rows:
            return
        con = self._connect()
        try:
            with con:
                con.executemany("INSERT OR IGNORE INTO nli VALUES (?,?,?,?,?,?)", rows)
        finally:
            con.close()

    def __len__(self) -> int:
        con = self._connect()
        try:
            return int(con.execute("SELECT COUNT(*) FROM nli").fetchone()[0])
        finally:
            con.close()
