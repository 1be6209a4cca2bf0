"""SQLite helpers shared by the caches, and the persistent cache of chat answers.

Every cache file is in WAL mode with a long busy timeout, so several processes can read and
write one file at once; each call is one short transaction.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

_SCHEMA = """CREATE TABLE IF NOT EXISTS chat (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, answer TEXT NOT NULL)"""


def connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A connection that waits up to two minutes for another process's write lock."""
    con = sqlite3.connect(path, timeout=120)
    con.execute("PRAGMA busy_timeout=120000")
    return con


def init_db(path: str | os.PathLike[str], schema: str) -> Path:
    """Create the parent folder and the table, and switch the file to WAL mode."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    attempt = 0
    while True:
        con = connect(path)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute(schema)
            con.commit()
            return path
        except sqlite3.OperationalError as exc:
            # switching a new file to WAL does not wait on the busy timeout: another process
            # creating the same cache at this moment makes it fail at once, so try again
            attempt += 1
            if "locked" not in str(exc) or attempt == 100:
                raise
        finally:
            con.close()
        time.sleep(0.05)


def cache_folder() -> Path:
    """The folder of the persistent caches: that of ``$CITETRAIN_CACHE`` (the NLI cache file),
    or ``~/.cache/citetrain``."""
    env = os.environ.get("CITETRAIN_CACHE")
    return Path(env).expanduser().parent if env else Path.home() / ".cache" / "citetrain"


def judge_cache_path() -> Path:
    """The LLM judges' answer cache: ``judge.sqlite`` in :func:`cache_folder` (the
    ``longbench_cite`` LLM judge and the ``llm:`` NLI backend share it; keys differ by prompt)."""
    return cache_folder() / "judge.sqlite"


def chat_key(model: str, temperature: float, max_tokens: int, prompt: str,
             extra: Mapping[str, Any] | None = None) -> str:
    """SHA-256 of the fields that decide an answer, unambiguous whatever the prompt holds;
    ``extra``: other request fields that decide it (e.g. ``stop``, ``logprobs``, the attempt)."""
    fields: list[Any] = [model, float(temperature), int(max_tokens), prompt]
    if extra:
        fields.append(sorted(extra.items()))
    blob = json.dumps(fields, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ChatCache:
    """Get and put chat answers by :func:`chat_key`."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = init_db(path, _SCHEMA)

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        """The cached answers among ``keys``."""
        out: dict[str, str] = {}
        con = connect(self.path)
        try:
            for i in range(0, len(keys), 500):
                chunk = list(keys[i : i + 500])
                marks = ",".join("?" * len(chunk))
                rows = con.execute(f"SELECT key, answer FROM chat WHERE key IN ({marks})", chunk)
                out.update((str(k), str(a)) for k, a in rows)
        finally:
            con.close()
        return out

    def put(self, key: str, model: str, answer: str) -> None:
        """Store one answer at once; a key already present is left as it is."""
        con = connect(self.path)
        try:
            with con:
                con.execute("INSERT OR IGNORE INTO chat VALUES (?,?,?)", (key, model, answer))
        finally:
            con.close()

    def __len__(self) -> int:
        con = connect(self.path)
        try:
            return int(con.execute("SELECT COUNT(*) FROM chat").fetchone()[0])
        finally:
            con.close()
