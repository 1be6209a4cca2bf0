"""A student's teacher file begun (``citetrain teacher``): the fold teachers' out-of-fold scores
merged (:func:`~citetrain.train.distill.merge_teachers`), or, for runs without fold scores, an
empty file (a compression teacher: their models read the transfer pairs alone); the transfer
pairs of each build are added next (:func:`~citetrain.train.transfer.add_transfers`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError


def start_teacher(runs: list[str | Path], out: str | Path, stack: str = "none",
                  builds: list[str | Path] | None = None) -> dict[str, Any]:
    """Write the teacher file ``out`` before its transfer pairs and return ``{"merged",
    "warnings", "read"}``: ``merged`` the merge's summary (``None`` for a compression teacher),
    ``warnings`` the folds the runs leave out, ``read`` how the transfer pairs are to be read (as
    the folds were). Bad runs or ``builds`` are refused before anything is written."""
    from citetrain.train.distill import (fold_score_files, has_fold_scores, merge_teachers,
                                         missing_folds)
    from citetrain.train.transfer import teacher_finals, transfer_split

    builds = list(builds or [])
    compress = bool(builds) and not any(has_fold_scores(r) for r in runs)
    files = [] if compress else fold_score_files(runs)
    if builds:
        teacher_finals(runs)
        for build in builds:
            transfer_split(build)
    if not compress:
        merged = merge_teachers(files, out, stack=stack == "lexical")
        return {"merged": merged, "warnings": missing_folds(runs),
                "read": merged.get("read", "whole")}
    if stack != "none":
        raise CitetrainError("--stack is fitted on fold scores; these runs have none")
    from citetrain.io.writers import atomic_write_text

    atomic_write_text(out, "")
    return {"merged": None, "warnings": [], "read": "whole"}
