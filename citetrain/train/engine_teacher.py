"""A teacher file read by an NLI engine: an MNLI or TRUE model, an LLM judge, any
:mod:`citetrain.nli.registry` spec, in place of fold teachers trained here.

The engine never trained on the human pairs, so every training pair may take its reading (no
folds): :func:`write_engine_teacher` scores the train split of the human pairs dataset (rows
``{key, probs, teachers}``, mixed with the label by the student's ``distill.teacher_weight``) and
of each pairs build (rows with their own ``weight``, as transfer pairs,
:mod:`citetrain.train.transfer`), in the teacher-file format of :mod:`citetrain.train.distill`.
A two-way engine's P(entailment) p is read as the levels (1 − p, 0, p). Scored ``chunk`` pairs at
a time beside the output (:class:`~citetrain.io.chunks.ChunkStore`), so a killed call scores only
what it had not; the file is written whole at the end.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

CHUNK = 256  # pairs per saved chunk


def engine_probs(result: Any) -> list[float]:
    """An :class:`~citetrain.nli.base.NLIResult` as probabilities by level (no, partial, full)."""
    if result.support is None:
        return [1.0 - float(result.prob), 0.0, float(result.prob)]
    full, partial, no = result.support
    return [float(no), float(partial), float(full)]


def teacher_rows(human: str | Path, builds: Iterable[str | Path], weight: float,
                 only: set[str] | None = None) -> list[tuple[str, tuple[str, str], float | None]]:
    """``(key, pair, weight)`` of every pair to read, in order: the human training pairs
    (weight ``None``) and the train split of each build not among them (``weight``; those whose
    key is in ``only`` when given), each key once."""
    from citetrain.train.distill import pair_key
    from citetrain.train.transfer import transfer_pairs

    rows: list[tuple[str, tuple[str, str], float | None]] = []
    seen: set[str] = set()
    sources: list[tuple[str | Path, float | None]] = [(human, None)]
    sources += [(b, weight) for b in builds]
    for source, w in sources:
        for pair in transfer_pairs(source):
            key = pair_key(*pair)
            if key in seen or (w is not None and only is not None and key not in only):
                continue
            seen.add(key)
            rows.append((key, pair, w))
    return rows


def write_engine_teacher(out: str | Path, engine: Any, human: str | Path,
                         builds: Iterable[str | Path] = (), weight: float = 1.0,
                         only: set[str] | None = None, chunk: int = CHUNK,
                         progress: bool = True) -> dict[str, Any]:
    """Write the teacher file ``out`` from ``engine`` (an :class:`~citetrain.nli.engine.NLIEngine`)
    over the pairs of :func:`teacher_rows`; returns ``{"human", "built", "resumed"}`` (pairs of
    each kind, and those a killed call had scored)."""
    from tqdm.auto import tqdm

    from citetrain.io.chunks import ChunkStore, ids_sha256
    from citetrain.io.writers import atomic_write_text

    builds = [str(b) for b in builds]
    rows = teacher_rows(human, builds, weight, only)
    keys = [k for k, _, _ in rows]
    b = engine.backend
    header = {"engine": [b.model_id, b.revision], "human": str(human), "builds": builds,
              "weight": weight, "chunk": chunk, "pairs_sha256": ids_sha256(keys)}
    store = ChunkStore(out, header)
    store.prepare()
    done = {c: row["outputs"] for c, row in store.finished().items()}
    resumed = sum(len(x) for x in done.values())
    bar = tqdm(total=len(rows), initial=resumed, desc="teacher pairs", unit="pair",
               disable=not progress)
    lines = []
    for start in range(0, len(rows), chunk):
        c = start // chunk
        part = rows[start:start + chunk]
        if c not in done:
            done[c] = [engine_probs(r) for r in engine.results([p for _, p, _ in part])]
            store.append(c, [k for k, _, _ in part], done[c])
            bar.update(len(part))
        for (key, _, w), probs in zip(part, done[c]):
            line = {"key": key, "probs": probs, "teachers": 1}
            lines.append(json.dumps(line if w is None else {**line, "weight": w}))
    bar.close()
    atomic_write_text(out, "\n".join(lines) + "\n")
    store.finish()
    human_n = sum(w is None for _, _, w in rows)
    return {"human": human_n, "built": len(rows) - human_n, "resumed": resumed}
