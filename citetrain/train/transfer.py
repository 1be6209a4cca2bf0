"""Transfer pairs for distillation: pairs the teachers never trained on, read by all of them.

A student distilled on the human pairs alone sees each pair's out-of-fold teacher scores once
(:mod:`citetrain.train.distill`); what the teachers' ensemble knows beyond those 3,700 pairs never
reaches it. Transfer pairs carry more of it (Hinton et al. 2015 train the student on a *transfer
set*): the train split of a ``kind: pairs`` build (real passages, claims made from them), which no
teacher trained on, so every teacher may score every pair, and the average is the ensemble's
reading of them.

:func:`add_transfer` scores the pairs with every teacher run's final model and appends them to a
merged teacher file as rows ``{key, probs, teachers, weight}``: ``weight`` is the pair's own
teacher weight (default 1.0: the student learns the teachers' reading, not the build's label,
which does not transfer to human claims). A student reads them where its training pairs include
the build (``data.built``): ``citetrain teacher RUN... --out FILE --transfer data/pairs``, then
``data.teacher: FILE`` with ``data.built: [data/pairs]``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from citetrain.errors import CitetrainError


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


def transfer_pairs(build: str | Path, split: str = "train") -> list[tuple[str, str]]:
    """The ``(premise, hypothesis)`` pairs of a ``kind: pairs`` build's split (the build folder
    or its ``dataset``), deduplicated in order."""
    from datasets import load_from_disk

    root = Path(build)
    path = root / "dataset" if (root / "dataset").is_dir() else root
    try:
        data = load_from_disk(str(path))
    except FileNotFoundError as e:
        raise CitetrainError(f"--transfer: {build} is not a pairs build ({e})") from None
    if split not in data:
        raise CitetrainError(f"--transfer: {build} has no {split!r} split ({', '.join(data)})")
    seen, out = set(), []
    for p, h in zip(data[split]["premise"], data[split]["hypothesis"]):
        if (p, h) not in seen:
            seen.add((p, h))
            out.append((p, h))
    return out


def average_scores(finals: list[Path], pairs: list[tuple[str, str]],
                   engine: Any = None) -> list[list[float]]:
    """Per pair, the teachers' support probabilities (no, partial, full) averaged over ``finals``;
    ``engine(final)`` loads a judge (default :func:`~citetrain.train.judge_card.load_judge`)."""
    from citetrain.train.distill import LEVELS

    if engine is None:
        from citetrain.train.judge_card import load_judge as engine
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
                 weight: float = 1.0, limit: int | None = None, engine: Any = None) -> dict[str, Any]:
    """Append to the merged ``teacher`` file the pairs of ``build``'s train split (the first
    ``limit``), scored by every run's model and averaged, with their own ``weight``; pairs the file
    holds already (human pairs' out-of-fold scores) are kept as they are. Written atomically;
    returns ``{"pairs", "teachers", "weight"}``."""
    from citetrain.io.writers import atomic_write_text
    from citetrain.train.distill import pair_key, read_teacher

    if not 0.0 <= weight <= 1.0:
        raise CitetrainError(f"--transfer-weight {weight} is outside [0, 1]")
    have = read_teacher(teacher)
    finals = teacher_finals(runs)
    pairs = [(p, h) for p, h in transfer_pairs(build) if pair_key(p, h) not in have][:limit]
    if not pairs:
        raise CitetrainError(f"--transfer: no pairs of {build} that {teacher} lacks")
    probs = average_scores(finals, pairs, engine)
    lines = Path(teacher).read_text(encoding="utf-8").rstrip("\n").split("\n")
    lines += [json.dumps({"key": pair_key(p, h), "probs": pr, "teachers": len(finals),
                          "weight": weight}) for (p, h), pr in zip(pairs, probs)]
    atomic_write_text(teacher, "\n".join(lines) + "\n")
    return {"pairs": len(pairs), "teachers": len(finals), "weight": weight}
