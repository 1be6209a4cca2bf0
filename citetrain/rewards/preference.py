"""The preference and reward sets GRPO and DPO read, made from a built refiner or generator
set and its records (``citetrain build`` and the DPO run both make them).

* :func:`reward_columns`: each example with the columns the citation rewards
  (:mod:`citetrain.rewards.citation`) read: ``docs`` (the record's passages), and for a refiner's
  per-statement examples ``statement`` (the statement's text, marks removed) and ``gold`` (the
  reference ids of its completion); an ``original`` column of the examples (the answer a
  refiner rewrites, for the ``preservation`` reward) is kept.
* :func:`preference_pairs`: DPO's ``prompt`` / ``chosen`` / ``rejected`` rows. ``chosen`` is the
  example's gold completion; ``rejected`` is, by ``rejected``:

  - ``"perturbed"``: the gold citations with one id dropped or one uncited id added
    (:func:`perturb`, seeded per example; a generator's answer has
    each sentence's marks perturbed so);
  - ``"original"``: the citations the statement had in its record (what a generator wrote), when
    they differ from the gold; otherwise perturbed as above (refiner sets only).

  Sampled completions ranked by a reward are made in :mod:`citetrain.train.dpo` (they need the
  model).
"""
from __future__ import annotations

import hashlib
import random
from typing import Any, Iterable, Sequence

from citetrain.errors import CitetrainError
from citetrain.records import Record
from citetrain.text import prompts as P
from citetrain.text.marks import attach_marks
from citetrain.text.statements import statements

REJECTED = ("perturbed", "original")


def unit_rng(seed: int, *key: Any) -> random.Random:
    """A random generator that depends only on the seed and the unit (order-independent)."""
    digest = hashlib.sha256(repr((seed, *key)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def perturb(cites: Sequence[int], n_docs: int, rng: random.Random) -> list[int]:
    """Drop one cited id, or add one uncited doc id, at random (each when possible)."""
    cites = list(dict.fromkeys(cites))
    spare = [d for d in range(1, n_docs + 1) if d not in cites]
    moves = (["drop"] if cites else []) + (["add"] if spare else [])
    if not moves:
        return cites
    if rng.choice(moves) == "drop":
        cites.pop(rng.randrange(len(cites)))
    else:
        cites.append(rng.choice(spare))
    return cites


def _record(records: dict[str, Record], ex: dict[str, Any]) -> Record:
    rec = records.get(ex["id"])
    if rec is None:
        raise CitetrainError(f"example {ex['id']!r} ({ex.get('unit', '')}): no record with this id "
                             "in the set's records.jsonl (rebuild the set with `citetrain build`)")
    return rec


def unit_statements(rec: Record, unit: str) -> tuple[list, int]:
    """The record's statements and the index ``k`` of a per-statement example's unit
    (``"statement k"``); one error line for another unit or a record with fewer statements."""
    if not unit.startswith("statement "):
        raise CitetrainError(f"example {rec.id!r}: unit {unit!r}; GRPO, DPO and SelfCite pairs on a "
                             "refiner set read per-statement examples (build it with refiner.unit: "
                             "statement)")
    k = int(unit.split()[-1])
    sts = statements(rec.output, first_line_only=False)
    if k >= len(sts):
        raise CitetrainError(f"example {rec.id!r}: unit {unit!r}, but its record's output has "
                             f"{len(sts)} statements (records.jsonl and the dataset disagree)")
    return sts, k


def _statement(rec: Record, unit: str):
    sts, k = unit_statements(rec, unit)
    return sts[k]


def reward_columns(examples: Iterable[dict[str, Any]], records: dict[str, Record],
                   task: str) -> list[dict[str, Any]]:
    """``prompt`` and the reward columns of every example (see the module docstring); ``id``
    and ``unit`` are kept for reading the outputs back."""
    rows = []
    for ex in examples:
        rec = _record(records, ex)
        row = {"id": ex["id"], "unit": ex["unit"], "prompt": ex["prompt"],
               "docs": [{"title": d.title, "text": d.text} for d in rec.docs]}
        if task == "refiner":
            row["statement"] = _statement(rec, ex["unit"]).text
            row["gold"] = P.parse_ids(ex["completion"])
        if "original" in ex:
            row["original"] = ex["original"]
        rows.append(row)
    return rows


def _rejected_refiner(ex: dict[str, Any], rec: Record, rejected: str, seed: int) -> str:
    gold = P.parse_ids(ex["completion"])
    if rejected == "original":
        given = list(dict.fromkeys(_statement(rec, ex["unit"]).citations))
        if sorted(given) != sorted(gold):
            return " " + P.render_ids(given)
    rng = unit_rng(seed, "rejected", ex["id"], ex["unit"])
    wrong = perturb(gold, len(rec.docs), rng)
    return " " + P.render_ids(wrong) if sorted(wrong) != sorted(gold) else ""


def _rejected_answer(ex: dict[str, Any], rec: Record, seed: int) -> str:
    parts, changed = [], False
    for k, st in enumerate(statements(ex["completion"].strip(), first_line_only=False)):
        ids = list(dict.fromkeys(st.citations))
        wrong = perturb(ids, len(rec.docs), unit_rng(seed, "rejected", ex["id"], k))
        changed |= sorted(wrong) != sorted(ids)
        parts.append(attach_marks(st.text, wrong))
    return " " + " ".join(parts) if changed else ""


def preference_pairs(examples: Iterable[dict[str, Any]], records: dict[str, Record], task: str,
                     rejected: str = "perturbed", seed: int = 0) -> tuple[list[dict[str, Any]], int]:
    """DPO rows (``id``, ``unit``, ``prompt``, ``chosen``, ``rejected``) and the number of
    examples left out because nothing differs from their gold (one passage, nothing to perturb)."""
    if rejected not in REJECTED:
        raise CitetrainError(f"rejected: {rejected!r}; choose from {', '.join(REJECTED)}")
    if rejected == "original" and task != "refiner":
        raise CitetrainError("rejected: original reads a refiner set's given citations; a "
                             "generator set has none (use perturbed or sampled)")
    rows, skipped = [], 0
    for ex in examples:
        rec = _record(records, ex)
        bad = (_rejected_refiner(ex, rec, rejected, seed) if task == "refiner"
               else _rejected_answer(ex, rec, seed))
        if not bad:
            skipped += 1
            continue
        rows.append({"id": ex["id"], "unit": ex["unit"], "prompt": ex["prompt"],
                     "chosen": ex["completion"], "rejected": bad})
    return rows, skipped


def ranked_pair(prompt: str, completions: Sequence[str], rewards: Sequence[float],
                margin: float = 1e-6) -> dict[str, str] | None:
    """The best and the worst of sampled ``completions`` by ``rewards`` as a DPO pair; ``None``
    when they tie (within ``margin``)."""
    best = max(range(len(rewards)), key=lambda i: rewards[i])
    worst = min(range(len(rewards)), key=lambda i: rewards[i])
    if rewards[best] - rewards[worst] <= margin:
        return None
    return {"prompt": prompt, "chosen": completions[best], "rejected": completions[worst]}
