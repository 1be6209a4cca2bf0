"""Distilling an ensemble of cross-encoder judges into one, with out-of-fold teacher scores.

An ensemble of judges trained with different seeds reads held-out claims better than its members
(issue 14: three seeds' average gains ~0.04 ROC-AUC on WiCE), at three times the cost. A student
trained on the ensemble's probabilities instead of the human labels can keep part of that gain at
one judge's cost (Hinton et al. 2015, *Distilling the knowledge in a neural network*). The
teachers' probabilities on the training pairs must be **out of fold**: a teacher that trained on
a pair has learnt its label, and its probabilities there say nothing the label does not.

1. ``distill.folds: K`` and ``distill.fold: k`` (teacher runs): the training claims are cut into K folds
   by hash of the claim (:func:`fold_of`, ``split_seed``); fold k is left out of training and,
   after it, the saved model scores its pairs into ``<output_dir>/fold_scores.jsonl``
   (:func:`write_fold_scores`: the pair's key and its three support probabilities).
2. :func:`merge_teachers` (``citetrain teacher RUN... --out FILE``) averages the fold scores of
   several teacher runs (every fold, any number of seeds) per pair into one teacher file.
3. ``distill.teacher: FILE`` (the student): each training pair whose key the file holds is trained on
   the soft target ``w·teacher + (1 − w)·label`` (``distill.teacher_weight`` w, the label one-hot),
   with the cross-entropy against it (:mod:`citetrain.judge_training.targets`); pairs the file lacks (built
   pairs) keep their label, and a row with its own ``weight`` (transfer pairs: built pairs the
   teachers scored, :mod:`citetrain.judge_training.transfer`) is mixed with that weight instead.
"""
from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from citetrain.errors import CitetrainError
from citetrain.io.readers import LineProblem, json_rows

FOLD_SCORES = "fold_scores.jsonl"  # a teacher run's scores of the fold it left out
LEVELS = 3  # not supported, partially supported, supported: the support level is the index


def pair_key(premise: str, hypothesis: str) -> str:
    """A pair's identity across runs that read the same pairs: sha256 of premise and statement."""
    return hashlib.sha256(f"{premise}\0{hypothesis}".encode()).hexdigest()[:20]


def fold_of(key: str, folds: int, seed: int) -> int:
    """The fold (0..folds-1) of a claim key, by hash with ``seed``."""
    digest = hashlib.sha256(f"fold\0{seed}\0{key}".encode()).digest()[:8]
    return int.from_bytes(digest, "big") % folds


def claim_keys(groups: list[str], hypotheses: list[str]) -> list[str]:
    """Per pair, the key its fold is drawn by: pairs that share a group or a statement (lower-cased,
    spaces collapsed) are one claim, so a statement read under two ids (AttributionBench repeats
    ExpertQA's) never sits in two folds, and the teacher that scores it never trained on it. The
    key is the smallest group of the connected pairs."""
    from citetrain.io.labelled import text_key

    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for g, h in zip(groups, hypotheses):
        a, b = find("g\0" + g), find("t\0" + text_key(h))
        if a != b:
            parent[max(a, b)] = min(a, b)  # groups ("g") sort before texts ("t"): a group is root
    return [find("g\0" + g)[2:] for g in groups]


def fold_split(train: Any, folds: int, fold: int, seed: int) -> tuple[Any, Any]:
    """``(train, held)``: the training pairs outside fold ``fold`` and those in it (whole claims,
    :func:`claim_keys`)."""
    from citetrain.judge_training.pairs import hold_out

    keys = claim_keys(list(train["group"]), list(train["hypothesis"]))
    return hold_out(train, [fold_of(k, folds, seed) == fold for k in keys],
                    f"distill.fold={fold} of distill.folds={folds}", "held-out")


def write_fold_scores(final: str | Path, held: Any, path: str | Path, model: Any = None,
                      read: str = "whole") -> int:
    """Score the held-out fold's pairs with the model saved at ``final`` (``model``: its
    :func:`~citetrain.judge_training.card.load_judge` engine read ``read``, when loaded already);
    JSON lines of ``{key, group, source, probs}`` (probs by support level: no, partial, full;
    ``read`` when the statements were read clause by clause), written atomically; returns the
    number of pairs."""
    from citetrain.io.writers import atomic_write_text
    from citetrain.judge_training.card import load_judge

    pairs = list(zip(held["premise"], held["hypothesis"]))
    results = (model if model is not None else load_judge(final, read)).results(pairs)
    extra = {} if read == "whole" else {"read": read}
    lines = []
    for (p, h), grp, src, r in zip(pairs, held["group"], held["source"], results):
        if r.support is None:
            raise CitetrainError(f"distill.fold: {final} is a two-way judge; teachers need the "
                                 "three-way head (training pairs labelled partial)")
        full, partial, no = r.support
        lines.append(json.dumps({"key": pair_key(p, h), "group": grp,
                                 "source": src.partition(":")[0], "probs": [no, partial, full],
                                 **extra}))
    atomic_write_text(path, "\n".join(lines) + "\n")
    return len(lines)


def has_fold_scores(run: str | Path) -> bool:
    """Whether a teacher run folder holds its ``fold_scores.jsonl`` (or ``run`` is such a file)."""
    path = Path(run)
    return (path / FOLD_SCORES if path.is_dir() else path).is_file()


def fold_score_files(runs: Iterable[str | Path]) -> list[Path]:
    """The ``fold_scores.jsonl`` of each teacher run folder (or the file itself); a run without
    one is a clear error."""
    out = []
    for run in runs:
        path = Path(run)
        path = path / FOLD_SCORES if path.is_dir() else path
        if not path.is_file():
            raise CitetrainError(f"{run}: no {FOLD_SCORES} (a teacher run sets distill.folds and "
                                 "distill.fold)")
        out.append(path)
    return out


def missing_folds(runs: Iterable[str | Path]) -> list[str]:
    """The folds that teacher runs leave out, one line per seed: runs are grouped by the fold split
    (``crossencoder.split_seed``, ``distill.folds``, from each run folder's
    ``citetrain_run.json``) and by ``train.seed``, and a group without every fold ``0..folds-1`` is
    named, e.g. ``"train.seed 42 (distill.folds 4, crossencoder.split_seed 0): no fold 1, 3"``. The
    pairs of a missing fold get no score from that seed's teachers; where no seed has that fold, a
    student reads them by their labels alone. Fold-score files given as files, and runs without a
    ``citetrain_run.json``, are not checked."""
    have: dict[tuple[int, int, int], set[int]] = defaultdict(set)
    for run in runs:
        meta = Path(run) / "citetrain_run.json"
        if not meta.is_file():
            continue
        recipe = json.loads(meta.read_text()).get("recipe", {})
        dist, train = recipe.get("distill") or {}, recipe.get("train", {})
        if dist.get("folds") is None or dist.get("fold") is None:
            continue
        split = (recipe.get("crossencoder") or {}).get("split_seed", 0)
        have[(int(train.get("seed", 42)), int(dist["folds"]), int(split))].add(int(dist["fold"]))
    return [f"train.seed {seed} (distill.folds {folds}, crossencoder.split_seed {split}): no fold "
            + ", ".join(str(k) for k in range(folds) if k not in got)
            for (seed, folds, split), got in sorted(have.items()) if len(got) < folds]


def _fold_line(row: dict[str, Any]) -> tuple[str, list[float], str]:
    """(key, probs, how the statement was read) of one fold-score line."""
    probs = [float(x) for x in row["probs"]]
    if len(probs) != LEVELS:
        raise LineProblem(f"probs has {len(probs)} values, not {LEVELS}")
    return row["key"], probs, row.get("read", "whole")


def merge_teachers(files: Iterable[str | Path], out: str | Path) -> dict[str, Any]:
    """Average the ``probs`` of every key over the fold-score ``files`` (the folds of several
    teacher runs; a key repeated within one file, a pair read from two sources, is read once)
    into ``out`` (JSON lines ``{key, probs, teachers}``, atomically). Files of teachers that read
    the statements differently (whole, clause by clause) are not mixed. Returns ``{"pairs",
    "files", "teachers_per_pair"}`` (and ``"read"`` when not whole)."""
    from citetrain.io.writers import atomic_write_text

    sums: dict[str, list[float]] = {}
    seen: dict[str, int] = defaultdict(int)
    names = [str(f) for f in files]
    reads: dict[str, str] = {}  # each reading and the first file that has it
    for name in names:
        mine: dict[str, list[float]] = {}  # a pair read twice by one teacher counts once
        for _, (key, probs, read) in json_rows(name, _fold_line, "a fold-score line"):
            mine.setdefault(key, probs)
            reads.setdefault(read, name)
        for key, probs in mine.items():
            acc = sums.setdefault(key, [0.0] * LEVELS)
            for i, p in enumerate(probs):
                acc[i] += p
            seen[key] += 1
    if not sums:
        raise CitetrainError(f"merge_teachers: no fold scores in {', '.join(names) or '(no files)'}")
    if len(reads) > 1:
        raise CitetrainError("merge_teachers: the teachers read the statements differently ("
                             + "; ".join(f"{r} in {f}" for r, f in reads.items())
                             + "): train them with one distill.fold_read")
    merged = {k: [v / seen[k] for v in acc] for k, acc in sums.items()}
    info: dict[str, Any] = {"pairs": len(sums), "files": len(names),
                            "teachers_per_pair": sorted(set(seen.values()))}
    if (read := next(iter(reads))) != "whole":
        info["read"] = read
    lines = [json.dumps({"key": k, "probs": p, "teachers": seen[k]}) for k, p in merged.items()]
    atomic_write_text(out, "\n".join(lines) + "\n")
    return info


def _teacher_line(row: dict[str, Any]) -> tuple[str, list[float], float | None]:
    probs = [float(x) for x in row["probs"]]
    if len(probs) != LEVELS:
        raise LineProblem(f"probs has {len(probs)} values, not {LEVELS}")
    weight = row.get("weight")
    if weight is not None and not 0.0 <= float(weight) <= 1.0:
        raise LineProblem(f"weight {weight} is outside [0, 1]")
    return row["key"], probs, None if weight is None else float(weight)


def read_teacher(path: str | Path) -> dict[str, list[float]]:
    """``{key: probs}`` of a merged teacher file."""
    return {k: p for k, (p, _) in read_teacher_rows(path).items()}


def read_teacher_rows(path: str | Path) -> dict[str, tuple[list[float], float | None]]:
    """``{key: (probs, weight)}`` of a teacher file; ``weight`` is a row's own teacher weight
    (transfer pairs, :mod:`citetrain.judge_training.transfer`), ``None`` where the row has none."""
    rows = json_rows(path, _teacher_line, "a teacher line", setting="distill.teacher")
    return {k: (p, w) for _, (k, p, w) in rows}
