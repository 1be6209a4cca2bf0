"""A judge as its own teacher: the teacher file that teaches a smaller copy of a judge (pruned by
``citetrain prune``, or cut from it) the judge's own reading.

The judge's saved model reads every human training pair whole and the built pairs that students
of ``seeds`` draw (``built_max`` each, :func:`~citetrain.train.transfer.drawn_keys`); a student
trained on the file at teacher weight 1 learns that reading (experiments/studies/pruned-judge.md).
The reading goes to ``TEACHER.tmp`` chunk by chunk (resumable,
:func:`~citetrain.train.transfer.add_transfer`) and is renamed to ``TEACHER`` when whole.
"""
from __future__ import annotations

import os
from pathlib import Path


def write_self_teacher(judge: str | Path, teacher: str | Path, human: str | Path,
                       built: str | Path, seeds: list[int], built_max: int | None,
                       dtype: str = "auto") -> bool:
    """Write ``teacher`` from the run folder ``judge`` (its ``final`` model) unless it is there
    already (written whole or not at all); ``human`` and ``built``: the human pairs dataset and
    the pairs build; ``built_max None``: every built pair. Returns whether it was written now."""
    from citetrain.train.teacher_file import start_teacher
    from citetrain.train.transfer import add_transfers

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
