"""Transfer pairs for distillation: pairs the teachers never trained on, read by all of them.

A student distilled on the human pairs alone sees each pair's out-of-fold teacher scores once
(:mod:`citetrain.judge_training.teacher_scores`); what the teachers' ensemble knows beyond those 3,700 pairs never
reaches it. Transfer pairs carry more of it (Hinton et al. 2015 train the student on a *transfer
set*): the train split of a ``kind: pairs`` build (real passages, claims made from them), which no
teacher trained on, so every teacher may score every pair, and the average is the ensemble's
reading of them.

:func:`add_transfer` scores the pairs with every teacher run's final model and appends them to a
merged teacher file as rows ``{key, probs, teachers, weight}``: ``weight`` is the pair's own
teacher weight (default 1.0: the student learns the teachers' reading, not the build's label,
which does not transfer to human claims). A student reads them where its training pairs include
the build (``crossencoder.built``): ``citetrain teacher RUN... --out FILE --transfer data/pairs``, then
``distill.teacher: FILE`` with ``crossencoder.built: [data/pairs]``.

The scoring is the long part (10,012 pairs read by three teachers: 14 minutes on 2 CPU cores), so
it goes in chunks of ``chunk`` pairs, each saved when every teacher has read it
(:class:`~citetrain.io.chunks.ChunkStore`, ``FILE.rank-0.partial.jsonl`` beside the teacher file):
a killed run started again with the same runs, build, weight and limit scores only the chunks it
had not finished, and the partial file goes once the teacher file is written.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from citetrain.errors import CitetrainError

CHUNK = 512  # transfer pairs per saved chunk


def teacher_finals(runs: Iterable[str | Path]) -> list[Path]:
    """The saved model of each teacher run (``RUN/final``, or RUN itself when it holds a model);
    a run without one is a clear error."""
    out = []
    for run in runs:
        path = Path(run)
        path = path.parent if path.is_file() else path  # RUN/fold_scores.jsonl names the run
        final = path / "final" if (path / "final" / "config.json").is_file() else path
        if not (final / "config.json").is_file():
            raise CitetrainError(f"{run}: no saved model (RUN/final/config.json) to score "
                                 "transfer pairs with")
        out.append(final)
    return out


def transfer_split(build: str | Path, split: str = "train") -> Any:
    """The ``split`` of a ``kind: pairs`` build (the build folder or its ``dataset``), mapped
    from disk, not read; a folder that is not such a build is a clear error."""
    from datasets import load_from_disk

    root = Path(build)
    path = root / "dataset" if (root / "dataset").is_dir() else root
    try:
        data = load_from_disk(str(path))
    except FileNotFoundError as e:
        raise CitetrainError(f"--transfer: {build} is not a pairs build ({e})") from None
    if split not in data:
        raise CitetrainError(f"--transfer: {build} has no {split!r} split ({', '.join(data)})")
    return data[split]


def transfer_pairs(build: str | Path, split: str = "train") -> list[tuple[str, str]]:
    """The ``(premise, hypothesis)`` pairs of a ``kind: pairs`` build's split
    (:func:`transfer_split`), deduplicated in order."""
    data = transfer_split(build, split)
    seen, out = set(), []
    for p, h in zip(data["premise"], data["hypothesis"]):
        if (p, h) not in seen:
            seen.add((p, h))
            out.append((p, h))
    return out


def drawn_keys(build: str | Path, built_max: int, seeds: Iterable[int]) -> set[str]:
    """The pair keys of the built pairs that students of these ``seeds`` train on with
    ``crossencoder.built: [build]`` and ``crossencoder.built_max: built_max`` (the seeded sample of
    :func:`~citetrain.judge_training.pairs.training_pairs`): what their teacher file needs to hold."""
    from citetrain.judge_training.teacher_scores import pair_key
    from citetrain.judge_training.pairs import training_pairs

    keys: set[str] = set()
    for seed in seeds:
        rows = training_pairs(None, [str(build)], built_max, False, seed)
        keys.update(pair_key(p, h) for p, h in zip(rows["premise"], rows["hypothesis"]))
    return keys


def average_scores(finals: list[Path], pairs: list[tuple[str, str]],
                   engine: Any = None) -> list[list[float]]:
    """Per pair, the teachers' support probabilities (no, partial, full) averaged over ``finals``;
    ``engine(final)`` loads a judge (default :func:`~citetrain.judge_training.card.load_judge`)."""
    from citetrain.judge_training.teacher_scores import LEVELS

    engine = engine or _load
    sums = [[0.0] * LEVELS for _ in pairs]
    for final in finals:
        for acc, r in zip(sums, engine(final).results(pairs)):
            if r.support is None:
                raise CitetrainError(f"--transfer: {final} is a two-way judge; teachers need the "
                                     "three-way head")
            full, partial, no = r.support
            for i, x in enumerate((no, partial, full)):
                acc[i] += x
    return [[x / len(finals) for x in acc] for acc in sums]


def add_transfer(teacher: str | Path, runs: Iterable[str | Path], build: str | Path,
                 weight: float = 1.0, limit: int | None = None, engine: Any = None,
                 chunk: int = CHUNK, progress: bool = True, read: str = "whole",
                 dtype: str = "auto", only: set[str] | None = None,
                 missing_ok: bool = False) -> dict[str, Any]:
    """Append to the merged ``teacher`` file the pairs of ``build``'s train split (those whose
    key is in ``only`` when given, e.g. :func:`drawn_keys`; the first ``limit``), scored by every
    run's model and averaged, with their own ``weight``; pairs the file holds already (human
    pairs' out-of-fold scores) are kept as they are, and a build the file holds whole is an
    error unless ``missing_ok`` (a resumed chain of builds: nothing to add, ``pairs`` 0). ``read``: how the models read the statements
    (``whole`` or ``clauses``, as the teachers read their folds; the default ``engine`` is
    :func:`~citetrain.judge_training.card.load_judge` with it and ``dtype``, the weights': ``bf16``
    on a CPU that multiplies it natively). Scored ``chunk`` pairs at a time, resumable (module
    docstring); written atomically; returns ``{"pairs", "teachers", "weight", "resumed"}``
    (``resumed``: pairs a killed run had scored already)."""
    from tqdm.auto import tqdm

    from citetrain.io.chunks import ChunkStore, ids_sha256
    from citetrain.io.writers import atomic_write_text
    from citetrain.judge_training.teacher_scores import pair_key, read_teacher

    if not 0.0 <= weight <= 1.0:
        raise CitetrainError(f"--transfer-weight {weight} is outside [0, 1]")
    if chunk < 1:
        raise CitetrainError(f"transfer chunk {chunk} must be at least 1")
    text = Path(teacher).read_text(encoding="utf-8")
    have = read_teacher(teacher)
    finals = teacher_finals(runs)
    pairs = [(p, h) for p, h in transfer_pairs(build) if pair_key(p, h) not in have
             and (only is None or pair_key(p, h) in only)][:limit]
    if not pairs:
        if missing_ok:
            return {"pairs": 0, "teachers": len(finals), "weight": weight, "resumed": 0}
        raise CitetrainError(f"--transfer: no pairs of {build} that {teacher} lacks")
    keys = [pair_key(p, h) for p, h in pairs]
    header = {"transfer": str(build), "teachers": [_identity(f) for f in finals],
              "weight": weight, "limit": limit, "chunk": chunk, "pairs_sha256": ids_sha256(keys)}
    if read != "whole":  # a partial file of whole-statement readings stays valid
        header["read"] = read
    if dtype != "auto":  # nor is a partial file of other weights resumed
        header["dtype"] = dtype
    store = ChunkStore(teacher, header)
    store.prepare()
    done = {c: row["outputs"] for c, row in store.finished().items()}
    loaded: dict[Path, Any] = {}

    def judge(final: Path) -> Any:  # each teacher loaded once, for all chunks
        if final not in loaded:
            loaded[final] = engine(final) if engine is not None else _load(final, read, dtype)
        return loaded[final]

    starts = range(0, len(pairs), chunk)
    resumed = sum(len(x) for x in done.values())  # the header fixes the pairs and the chunk size
    bar = tqdm(total=len(pairs), initial=resumed, desc="transfer pairs", unit="pair",
               disable=not progress)
    probs: list[list[float]] = []
    for start in starts:
        c = start // chunk
        if c not in done:
            done[c] = average_scores(finals, pairs[start:start + chunk], judge)
            store.append(c, keys[start:start + chunk], done[c])
            bar.update(len(done[c]))
        probs += done[c]
    bar.close()
    lines = [line for line in text.split("\n") if line.strip()]  # none: a compression teacher
    lines += [json.dumps({"key": k, "probs": pr, "teachers": len(finals), "weight": weight})
              for k, pr in zip(keys, probs)]
    atomic_write_text(teacher, "\n".join(lines) + "\n")
    store.finish()
    return {"pairs": len(pairs), "teachers": len(finals), "weight": weight, "resumed": resumed}


def add_transfers(teacher: str | Path, runs: list[str | Path], builds: list[str | Path],
                  weight: float = 1.0, limit: int | None = None, read: str = "whole",
                  dtype: str = "auto", drawn: tuple[list[int], int] | None = None,
                  progress: bool = True, missing_ok: bool = False) -> list[dict[str, Any]]:
    """:func:`add_transfer` of each build in turn (``citetrain teacher --transfer``), every run's
    model loaded once for all of them; with ``drawn`` ``(seeds, built_max)``, only the pairs
    students of those seeds draw (:func:`drawn_keys`); ``missing_ok`` as there."""
    loaded: dict[Path, Any] = {}

    def engine(final: Path) -> Any:
        if final not in loaded:
            loaded[final] = _load(final, read, dtype)
        return loaded[final]

    return [add_transfer(teacher, runs, build, weight, limit, engine, read=read, dtype=dtype,
                         progress=progress, missing_ok=missing_ok,
                         only=drawn_keys(build, drawn[1], drawn[0]) if drawn else None)
            for build in builds]


def _load(final: Path, read: str = "whole", dtype: str = "auto") -> Any:
    from citetrain.judge_training.card import load_judge

    return load_judge(final, read, dtype)


def _identity(final: Path) -> list[Any]:
    """A teacher as a partial file's header names it: its folder and its files' newest mtime
    (a model saved again there is another teacher)."""
    files = [f for f in final.iterdir() if f.is_file()]
    return [str(final), max((f.stat().st_mtime_ns for f in files), default=0)]

