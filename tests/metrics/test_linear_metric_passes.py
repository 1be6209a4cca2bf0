"""Metric passes made linear in the marks of a sentence give what their originals gave.

Oracles kept here: EDITDIST's action list, and ALCE's single-doc and leave-one-out rounds (the
rounds ALiiCE runs on its claims too), which once built a premise per mark.
"""
from __future__ import annotations

import random
import time
from typing import Iterable, Sequence

from citetrain.analysis.editdist import ACTIONS, Action, as_action, edit_actions
from citetrain.analysis.support import silver_edits
from citetrain.metrics.alce import (
    Sentence,
    _leave_one_out,
    _leave_one_out_pairs,
    _single_pairs,
)
from citetrain.records import Doc, format_doc, join_docs


def old_edit_actions(citations: Sequence[int], edits: Iterable[tuple[Action | str, int]]
                     ) -> list[Action]:
    slots: list[Action] = [Action.KEEP] * len(citations)
    adds: list[Action] = []
    for raw_action, cid in edits:
        action = as_action(raw_action)
        if action.is_add:
            adds.append(action)
        elif action.is_delete:
            for k, c in enumerate(citations):
                if c == cid and slots[k] is Action.KEEP:
                    slots[k] = action
                    break
    return slots + adds


def test_edit_actions_match_the_original() -> None:
    rng = random.Random(76)
    for _ in range(3000):
        cites = [rng.randint(0, 5) for _ in range(rng.randint(0, 10))]
        edits = [(rng.choice(ACTIONS).value if rng.random() < 0.5 else rng.choice(ACTIONS),
                  rng.randint(0, 6)) for _ in range(rng.randint(0, 10))]
        assert edit_actions(cites, edits) == old_edit_actions(cites, edits), (cites, edits)


def test_silver_edits_of_repeated_marks() -> None:
    cites = [1, 2, 1, 7, 2, 1]
    edits = silver_edits(cites, 3, [True, False, False], [False] * 3, True, {}, [frozenset({1})])
    assert edits[:4] == [(Action.DELETE_REDUNDANT, 1), (Action.DELETE_MISLEADING, 7),
                         (Action.DELETE_REDUNDANT, 2), (Action.DELETE_REDUNDANT, 1)]


def _sentences(rng: random.Random, docs: list[Doc]) -> list[Sentence]:
    out = []
    for k in range(40):
        ref = [rng.randint(1, len(docs)) for _ in range(rng.randint(0, 8))]
        s = Sentence("r", k, "s", f"h{k}", docs, ref, ref, None, joint=rng.random() < 0.7,
                     single=[rng.choice([True, False, None]) for _ in ref])
        out.append(s)
    return out


def test_alce_rounds_ask_the_same_pairs_as_before() -> None:
    rng = random.Random(5)
    docs = [Doc(title=f"T{i}", text=f"text {i}") for i in range(1, 5)]
    sents = _sentences(rng, docs)
    single = [(s, k, (format_doc(s.docs[i - 1]), s.hypothesis))
              for s in sents if s.joint and len(s.ref) > 1 for k, i in enumerate(s.ref)]
    loo = [(s, k, (join_docs(s.docs, _leave_one_out(s.ref, i)), s.hypothesis))
           for s in sents for k, i in enumerate(s.ref) if s.single[k] is False]
    assert _single_pairs(sents) == single
    assert _leave_one_out_pairs(sents) == loo


def _best(fn, repeats: int = 3) -> float:
    out = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def test_leave_one_out_and_edits_cost_linear_in_the_marks() -> None:
    """8× the marks costs about 8× (building a premise, or scanning the marks, per mark: 64×)."""
    docs = [Doc(title=f"T{i}", text=f"text {i} " * 20) for i in range(1, 6)]

    def run(n: int) -> None:
        ref = [k % 5 + 1 for k in range(n)]
        s = Sentence("r", 0, "s", "h", docs, ref, ref, None, joint=True, single=[False] * n)
        _leave_one_out_pairs([s])
        edit_actions(ref, [("delete-redundant", c) for c in ref])

    assert _best(lambda: run(16000)) / _best(lambda: run(2000)) < 20
