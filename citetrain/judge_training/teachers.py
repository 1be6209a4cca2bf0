"""Teacher files: the soft labels a student judge is distilled from.

One writer begins every teacher file (:func:`start_teacher`): the fold teachers' out-of-fold
scores merged (:func:`~citetrain.judge_training.teacher_scores.merge_teachers`), or, for runs
without fold scores, an empty file (a compression teacher: their models read the transfer pairs
alone); the transfer pairs of each build are added next
(:func:`~citetrain.judge_training.transfer.add_transfers`). Two more teachers read pairs with a
model that did not train on them:

- :func:`write_engine_teacher`: an NLI engine (an MNLI or TRUE model, an LLM judge, any
  :mod:`citetrain.nli.registry` spec) reads the train split of the human pairs dataset (rows
  ``{key, probs, teachers}``, mixed with the label by the student's ``distill.teacher_weight``)
  and of each pairs build (rows with their own ``weight``, as transfer pairs). A two-way
  engine's P(entailment) p is read as the levels (1 − p, 0, p). Scored ``chunk`` pairs at a time
  beside the output (:class:`~citetrain.io.chunks.ChunkStore`), so a killed call scores only
  what it had not; the file is written whole at the end.
- :func:`write_self_teacher`: a judge as its own teacher, teaching a smaller copy of itself
  (pruned by ``citetrain prune``, or cut from it) its own reading of every human training pair
  and of the built pairs its students draw; resumable, renamed into place when whole.
"""
from __future__ import annotations

import json
import os
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
    from citetrain.judge_training.teacher_scores import pair_key
    from citetrain.judge_training.transfer import transfer_pairs

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





def start_teacher(runs: list[str | Path], out: str | Path,
                  builds: list[str | Path] | None = None) -> dict[str, Any]:
    """Write the teacher file ``out`` before its transfer pairs and return ``{"merged",
    "warnings", "read"}``: ``merged`` the merge's summary (``None`` for a compression teacher),
    ``warnings`` the folds the runs leave out, ``read`` how the transfer pairs are to be read (as
    the folds were). Bad runs or ``builds`` are refused before anything is written."""
    from citetrain.judge_training.teacher_scores import (fold_score_files, has_fold_scores,
                                                         merge_teachers, missing_folds)
    from citetrain.judge_training.transfer import teacher_finals, transfer_split

    builds = list(builds or [])
    compress = bool(builds) and not any(has_fold_scores(r) for r in runs)
    files = [] if compress else fold_score_files(runs)
    if builds:
        teacher_finals(runs)
        for build in builds:
            transfer_split(build)
    if not compress:
        merged = merge_teachers(files, out)
        return {"merged": merged, "warnings": missing_folds(runs),
                "read": merged.get("read", "whole")}
    from citetrain.io.writers import atomic_write_text

    atomic_write_text(out, "")
    return {"merged": None, "warnings": [], "read": "whole"}


def part_path(out: str | Path) -> Path:
    """The file a teacher file is written through (``OUT.part.jsonl``), renamed to ``out`` when
    whole; its transfer pairs' finished chunks lie beside it."""
    out = Path(out)
    return out.with_name(out.stem + ".part.jsonl")


def write_teacher_file(runs: list[str | Path], out: str | Path, builds: list[str | Path],
                       weight: float = 1.0, limit: int | None = None, dtype: str = "auto",
                       drawn: tuple[list[int], int] | None = None) -> dict[str, Any]:
    """The one writer of a teacher file from teacher runs (``citetrain teacher``, and the
    ``teacher-file`` step of ``citetrain distill``, which runs that command): the runs' fold
    scores merged (:func:`start_teacher`), then each build's transfer pairs read by every run
    (resumable chunk by chunk), all through :func:`part_path` and renamed to ``out`` when whole,
    so ``out`` is there whole or not at all. Returns :func:`start_teacher`'s dict with
    ``"transfers"``, one summary per build."""
    from citetrain.judge_training.transfer import add_transfers

    part = part_path(out)
    started = start_teacher(runs, part, builds)
    started["transfers"] = add_transfers(part, runs, builds, weight, limit, started["read"],
                                         dtype, drawn) if builds else []
    os.replace(part, out)
    return started


def write_self_teacher(judge: str | Path, teacher: str | Path, human: str | Path,
                       built: str | Path, seeds: list[int], built_max: int | None,
                       dtype: str = "auto") -> bool:
    """Write ``teacher`` from the run folder ``judge`` (its ``final`` model) unless it is there
    already (written whole or not at all); ``human`` and ``built``: the human pairs dataset and
    the pairs build; ``built_max None``: every built pair. Returns whether it was written now."""
    from citetrain.judge_training.transfer import add_transfers

    teacher = Path(teacher)
    if teacher.is_file():
        return False
    part = teacher.with_suffix(".tmp")
    if not part.is_file():  # the judge has no fold scores: an empty file to add its reading to
        start_teacher([judge], part, builds=[human, built])
    # every human training pair; a part file of a killed call keeps what it had read
    add_transfers(part, [judge], [human], dtype=dtype, missing_ok=True)
    drawn = (seeds, built_max) if built_max is not None else None
    add_transfers(part, [judge], [built], dtype=dtype, drawn=drawn, missing_ok=True)
    os.replace(part, teacher)
    return True
