"""EDITDIST: a statement's citation rating from its edit actions (CiteEval, Xu et al., eq. 3).

Six actions fix a statement's citations (CiteEval §3.1) and every untouched citation is a *keep*:
delete-misleading, delete-substandard, delete-redundant, add-evidence, add-refinement,
add-credibility, keep. With ``A`` the statement's actions (each original citation is one keep,
turned into a delete when a delete names it; each add is one more action) and ``d(a_k)`` the
distance of action ``a_k``, eq. 3 reads

    r = Σ_k d(a_k) · |A_k| / |A| + b        (the mean of the actions' weights, plus the intercept)

:data:`PUBLISHED_WEIGHTS` are the paper's (the repository's ``edit2esitamted_rating``). Two
conventions of this module: a statement with no delete or add edit scores exactly 1.0 (the model
"had nothing to fix"; eq. 3 would give keep + b = 0.9921), and scores are clipped to [0, 1] (the
published weights give at most 0.9921 and at least −0.0109, so clipping only moves −0.0109 to 0).
:func:`fit_editdist_weights` refits ``d`` and ``b`` by least squares on a user's own rated edits.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Mapping, Sequence

import numpy as np


class Action(str, Enum):
    """CiteEval's edit actions, plus keep."""

    DELETE_MISLEADING = "delete-misleading"
    DELETE_SUBSTANDARD = "delete-substandard"
    DELETE_REDUNDANT = "delete-redundant"
    ADD_EVIDENCE = "add-evidence"
    ADD_REFINEMENT = "add-refinement"
    ADD_CREDIBILITY = "add-credibility"
    KEEP = "keep"

    @property
    def is_delete(self) -> bool:
        return self.value.startswith("delete-")

    @property
    def is_add(self) -> bool:
        return self.value.startswith("add-")


ACTIONS: tuple[Action, ...] = tuple(Action)
Edit = tuple[Action, int]  # (action, citation id); id 0 = evidence found in no passage


@dataclass(frozen=True)
class Weights:
    """Per-action distances ``d(a_k)`` and the intercept ``b`` of eq. 3."""

    action: Mapping[Action, float] = field(default_factory=dict)
    intercept: float = 0.0

    def __post_init__(self) -> None:
        missing = [a.value for a in ACTIONS if a not in self.action]
        if missing:
            raise ValueError(f"weights missing for: {', '.join(missing)}")

    def as_dict(self) -> dict[str, float]:
        """JSON-ready ``{action: weight, ..., "intercept": b}``."""
        return {**{a.value: float(self.action[a]) for a in ACTIONS}, "intercept": self.intercept}


PUBLISHED_WEIGHTS = Weights(
    action={
        Action.DELETE_MISLEADING: 0.0694,
        Action.DELETE_SUBSTANDARD: 0.7977,
        Action.DELETE_REDUNDANT: 0.5318,
        Action.ADD_EVIDENCE: 0.0,
        Action.ADD_REFINEMENT: 0.0162,
        Action.ADD_CREDIBILITY: 0.4340,
        Action.KEEP: 1.0030,
    },
    intercept=-0.0109,
)


def as_action(value: Action | str) -> Action:
    """``Action`` from an action or its name (``"delete-misleading"`` / ``"DELETE_MISLEADING"``)."""
    if isinstance(value, Action):
        return value
    text = str(value).strip().lower().replace("_", "-")
    return Action(text)


def edit_actions(
    citations: Sequence[int], edits: Iterable[tuple[Action | str, int]]
) -> list[Action]:
    """The statement's full action list ``A``: one entry per original citation, then one per add.

    Each original citation starts as keep; a delete turns the first still-kept occurrence of its
    id into that delete (a delete of an id that is not cited, or already deleted, is ignored);
    each add appends its action. An explicit ``keep`` edit changes nothing.
    """
    slots: list[Action] = [Action.KEEP] * len(citations)
    adds: list[Action] = []
    where: dict[int, list[int]] = {}  # id -> its positions; only deletes turn a keep, in order
    for k, c in enumerate(citations):
        where.setdefault(c, []).append(k)
    deleted: Counter[int] = Counter()  # how many of each id's occurrences are deleted
    for raw_action, cid in edits:
        action = as_action(raw_action)
        if action.is_add:
            adds.append(action)
        elif action.is_delete:
            spots = where.get(cid, ())
            if deleted[cid] < len(spots):
                slots[spots[deleted[cid]]] = action
                deleted[cid] += 1
    return slots + adds


def editdist_score(
    citations: Sequence[int],
    edits: Iterable[tuple[Action | str, int]],
    weights: Weights = PUBLISHED_WEIGHTS,
    *,
    clip: bool = True,
) -> float:
    """EDITDIST rating of a statement in [0, 1] (eq. 3; see the module docstring).

    ``citations``: the statement's original citation ids (duplicates are separate citations);
    ``edits``: ``(action, id)`` pairs. No effective delete or add -> exactly 1.0; otherwise the mean
    of the actions' weights plus the intercept, clipped to [0, 1] unless ``clip=False``.
    """
    actions = edit_actions(citations, edits)
    if all(a is Action.KEEP for a in actions):
        return 1.0
    raw = sum(weights.action[a] for a in actions) / len(actions) + weights.intercept
    return min(1.0, max(0.0, raw)) if clip else raw


def action_frequencies(actions: Sequence[Action | str]) -> np.ndarray:
    """Eq. 3's features: ``|A_k| / |A|`` for each action of :data:`ACTIONS` (keep included)."""
    counts = Counter(as_action(a) for a in actions)
    total = sum(counts.values())
    return np.array([counts[a] / total if total else 0.0 for a in ACTIONS])


def fit_editdist_weights(
    action_lists: Sequence[Sequence[Action | str]],
    ratings: Sequence[float],
    *,
    positive: bool = True,
) -> Weights:
    """Refit eq. 3 by least squares: ``ratings ≈ F · d + b`` with ``F`` the action frequencies.

    ``action_lists``: per rated statement its full action list, keep included (build it with
    :func:`edit_actions`); ``ratings``: the human ratings on the scale the scores should have (the
    paper's weights were fit to ratings normalised to [0, 1], i.e. (r − 1) / 4). Statements with an
    empty action list have no features and are dropped.

    The frequencies of a statement sum to 1, so the intercept and a common shift of all distances
    are not separately identified. With ``positive=True`` (default) the distances are constrained
    to be ≥ 0 (non-negative least squares on centred data, scikit-learn's
    ``LinearRegression(positive=True)``); this fixes the shift at smallest distance = 0, which
    is what the published weights show (add-evidence = 0.0). With ``positive=False`` ordinary least
    squares returns the minimum-norm distances; only ``d(a_k) + b`` is then meaningful.
    """
    from sklearn.linear_model import LinearRegression

    if len(action_lists) != len(ratings):
        raise ValueError(f"{len(action_lists)} action lists but {len(ratings)} ratings")
    rows = [(action_frequencies(a), float(r)) for a, r in zip(action_lists, ratings) if len(a)]
    if len(rows) < 2:
        raise ValueError("need at least two statements with actions to fit EDITDIST weights")
    x = np.stack([f for f, _ in rows])
    y = np.array([r for _, r in rows])
    model = LinearRegression(positive=positive).fit(x, y)
    coef = [float(c) for c in model.coef_]
    return Weights(action=dict(zip(ACTIONS, coef)), intercept=float(model.intercept_))
