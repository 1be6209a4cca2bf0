"""SelfCite preference pairs: per statement of a refiner set, N candidate citation sets ranked
by the context-ablation reward (:mod:`citetrain.rewards.selfcite`), the best chosen over the
worst, as the DPO rows of :func:`citetrain.rewards.preference.preference_pairs` (``id``, ``unit``,
``prompt``, ``chosen``, ``rejected``; completions as ``" [1][3]"``, ``" []"`` for none).

A statement's candidates, in this order, duplicates removed (ids kept in range, at most
``max_ids`` each): the statement's given citations, the ids of the model's sampled outputs when
given (``sampled``, what ``kind: dpo`` with ``rl.rejected: selfcite`` draws from the starting
model, as SelfCite samples its own model), then sets drawn at random (each passage in with
probability ``max_ids / |C|``, seeded per example with :func:`~citetrain.rewards.preference.unit_rng`)
until there are ``n``. A statement whose candidates all score the same (within ``margin``) makes
no pair and is counted as skipped.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from citetrain.errors import CitetrainError
from citetrain.records import Record
from citetrain.rewards.preference import unit_rng, unit_statements
from citetrain.rewards.selfcite import Case, SelfCiteReward
from citetrain.text import prompts as P


def candidate_sets(given: Sequence[int], outputs: Sequence[str], n_docs: int, n: int,
                   rng: Any | None, max_ids: int | None = 3) -> list[tuple[int, ...]]:
    """Distinct citation sets (see the module docstring): ``given``, the outputs' ids, then
    random sets from ``rng`` until ``n`` (none drawn when ``rng`` is ``None``)."""
    out: dict[tuple[int, ...], None] = {}

    def add(ids: Iterable[int]) -> None:
        keep = [k for k in dict.fromkeys(ids) if 1 <= k <= n_docs][:max_ids]
        out.setdefault(tuple(sorted(keep)), None)

    add(given)
    for text in outputs:
        got = P.parse_ids_strict(text)
        if got is not None:
            add(got)
    cap = min(n, 2 ** n_docs)  # there are only so many sets
    p = min(1.0, (max_ids or n_docs) / max(n_docs, 1))
    tries = 0
    while rng is not None and len(out) < cap and tries < 50 * n:
        tries += 1
        add(k for k in range(1, n_docs + 1) if rng.random() < p)
    return list(out)


def statement_of(rec: Record, unit: str) -> tuple[str, str, tuple[int, ...]]:
    """``(prefix, text, given ids)`` of a per-statement example's unit (``"statement k"``): the
    earlier statements as written, the statement without marks, its citations."""
    sts, k = unit_statements(rec, unit)
    prefix = " ".join(s.raw.strip() for s in sts[:k])
    return prefix, sts[k].text.strip(), tuple(dict.fromkeys(sts[k].citations))


def selfcite_pairs(examples: Sequence[dict[str, Any]], records: dict[str, Record],
                   reward: SelfCiteReward, *, n: int = 4, seed: int = 0, max_ids: int | None = 3,
                   sampled: Sequence[Sequence[str]] | None = None, margin: float = 1e-6,
                   ) -> tuple[list[dict[str, Any]], int]:
    """DPO rows of the best and worst candidate per example, and how many examples made none.
    ``sampled[j]``: the model's outputs for example ``j`` (optional). All candidates of all
    examples are scored in one reward call (batched by the reward's ``max_batch_tokens``)."""
    if n < 2:
        raise CitetrainError(f"selfcite pairs: n must be >= 2 candidates, got {n}")
    cases: list[Case] = []
    spans: list[tuple[int, int, list[tuple[int, ...]]]] = []
    for j, ex in enumerate(examples):
        rec = records.get(ex["id"])
        if rec is None:
            raise CitetrainError(f"example {ex['id']!r} ({ex.get('unit', '')}): no record with this "
                                 "id in the set's records.jsonl (rebuild the set with `citetrain build`)")
        prefix, text, given = statement_of(rec, ex["unit"])
        sets = candidate_sets(given, sampled[j] if sampled else (), len(rec.docs), n,
                              unit_rng(seed, "selfcite", ex["id"], ex["unit"]), max_ids)
        spans.append((len(cases), len(cases) + len(sets), sets))
        cases.extend(Case(rec.question, tuple(rec.docs), prefix, text, ids) for ids in sets)
    values = reward.case_rewards(cases) if cases else []
    rows, skipped = [], 0
    for ex, (lo, hi, sets) in zip(examples, spans):
        mine = values[lo:hi]
        best = max(range(len(mine)), key=mine.__getitem__)
        worst = min(range(len(mine)), key=mine.__getitem__)
        if mine[best] - mine[worst] <= margin:
            skipped += 1
            continue
        rows.append({"id": ex["id"], "unit": ex["unit"], "prompt": ex["prompt"],
                     "chosen": " " + P.render_ids(sets[best]),
                     "rejected": " " + P.render_ids(sets[worst])})
    return rows, skipped
