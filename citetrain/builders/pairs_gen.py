"""The pairs of one shard of passages: per passage, ``per_passage`` slots, each a drawn
transformation over a drawn window; the window sentences are parsed with spaCy (one ``nlp.pipe``
per shard) and the transformation makes the claim (:mod:`citetrain.builders.transforms`).

Each passage draws from its own ``random.Random(f"{seed}:{sha1}")``: first every slot's
transformation and window, then (after parsing) the claims, so a passage's pairs do not depend
on the shard or process it is in. A transformation that does not apply, or whose claim fails the
checks, is counted with its reason, and the slot falls back to another transformation drawn by
weight among those not yet tried there: one of the same label while there is one (so the labels
keep the shares the weights give them), then any; ``unrelated``, the easy negative, only last
(so its share stays the one its weight gives).
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from citetrain.builders.edits import n_words, norm
from citetrain.builders.passages import Passage
from citetrain.builders.sets import split_of
from citetrain.builders.transforms import LABELS, MAX_WORDS, Others, Window, apply

EASY = "unrelated"
Plan = tuple[str, int, int]  # (transformation, window start, window end)


@dataclass(frozen=True)
class GenConfig:
    """What decides a passage's pairs (besides the passage and the sentence pool)."""

    per_passage: int
    window: int
    weights: dict[str, float]
    min_words: int
    seed: int
    validation: float
    split_seed: int


def passage_rng(seed: int, p: Passage) -> random.Random:
    return random.Random(f"{seed}:{p.sha1}")


def _draw(weights: dict[str, float], rng: random.Random, exclude: set[str] = set()) -> str | None:
    names = [n for n, w in weights.items() if w > 0 and n not in exclude]
    if not names:
        return None
    return rng.choices(names, [weights[n] for n in names])[0]


def plan(p: Passage, cfg: GenConfig, rng: random.Random) -> list[Plan]:
    """Each slot's transformation and window (at most ``window`` sentences around a random one)."""
    n = len(p.sentences)
    out = []
    for _ in range(cfg.per_passage):
        name = _draw(cfg.weights, rng)
        a = rng.randrange(n)
        start = min(max(0, a - rng.randrange(cfg.window)), max(0, n - cfg.window))
        out.append((name or "copy", start, min(n, start + cfg.window)))
    return out


def to_parse(p: Passage, plans: Sequence[Plan]) -> list[int]:
    """Sentence indices the plans' windows cover (in order)."""
    return sorted({i for _, a, b in plans for i in range(a, b)})


def passage_pairs(p: Passage, index: int, plans: Sequence[Plan], docs: dict[int, Any],
                  others: Others | None, cfg: GenConfig, rng: random.Random,
                  skipped: Counter) -> list[dict[str, Any]]:
    """The pairs of one passage (``docs``: its parsed sentences by index); refusals are added
    to ``skipped`` as ``(transformation, reason)``."""
    context = [docs[i] for i in sorted(docs)]
    used: set[int] = set()
    claims: set[str] = set()
    split = split_of(p.id, cfg.validation, cfg.split_seed)
    rows = []
    for name, a, b in plans:
        win = Window([docs[i] for i in range(a, b)], context, others, index, cfg.min_words, used)
        tried: set[str] = set()
        current: str | None = name
        while current is not None:
            claim, why = apply(current, win, rng)
            if claim is not None and norm(claim) in claims:
                claim, why = None, "duplicate claim"
            if claim is not None:
                claims.add(norm(claim))
                rows.append({"premise": win.premise, "hypothesis": claim,
                             "label": LABELS[current], "group": p.id, "source": p.source,
                             "transform": current, "split": split})
                break
            skipped[(current, why)] += 1
            tried.add(current)
            hard = {n: w for n, w in cfg.weights.items() if n != EASY}
            same = {n: w for n, w in hard.items() if LABELS[n] == LABELS[name]}
            current = _draw(same, rng, tried) or _draw(hard, rng, tried) \
                or _draw(cfg.weights, rng, tried)
        else:
            skipped[("(any)", "no transformation applies to the window")] += 1
    return rows


def shard_pairs(items: Sequence[tuple[int, Passage]], cfg: GenConfig, others: Others | None,
                nlp: Any, batch_size: int = 64) -> tuple[list[dict[str, Any]], Counter]:
    """The pairs of a shard (``items``: ``(passage index, passage)``) and the refusals."""
    rngs = [passage_rng(cfg.seed, p) for _, p in items]
    plans = [plan(p, cfg, rng) for (_, p), rng in zip(items, rngs)]
    need = [to_parse(p, pl) for (_, p), pl in zip(items, plans)]
    texts = [p.sentences[i] for (_, p), idx in zip(items, need) for i in idx
             if n_words(p.sentences[i]) <= MAX_WORDS]
    parsed = iter(nlp.pipe(texts, batch_size=batch_size))
    rows: list[dict[str, Any]] = []
    skipped: Counter = Counter()
    for (k, p), pl, idx, rng in zip(items, plans, need, rngs):
        docs = {i: next(parsed) if n_words(p.sentences[i]) <= MAX_WORDS
                else nlp.make_doc(p.sentences[i]) for i in idx}
        rows += passage_pairs(p, k, pl, docs, others, cfg, rng, skipped)
    return rows, skipped
