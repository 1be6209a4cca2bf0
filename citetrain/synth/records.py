"""Seeded synthetic citation data over a fictional world: the project's embedded default data.

:func:`synth_records` builds, from word lists only, a world of invented towns, rivers, companies
and people (founding years, populations, lengths, founders, countries, products, colours, ...),
then writes RAG-style records about it: a question on one entity, 4-6 short passages (some state
facts about the entity, the others are distractors about other entities that share template words
but never the entity's name or any of its values) and an answer of 2-5 statements with ``[k]``
marks, on one line. Nothing is a real-world fact and no data is downloaded.

Besides the canonical fields each record carries, per statement of ``output`` (in order):

* ``gold``: the 1-based ids of the passages that support the statement, the union of its minimal
  supporting sets (``[]`` for an unsupported claim; two ids for a fact split across passages);
* ``case``: how the statement is cited, one of :data:`CASES` (the kind before ``:``):

  ``correct`` cites supporting passage(s) only · ``missing`` supported, no marks ·
  ``misleading`` supported, cites one non-supporting passage instead ·
  ``redundant:extra`` / ``redundant:repeat`` the right id plus an irrelevant one / the same id
  twice (``[2][2]``) · ``multi:both|one|none|mid`` needs two passages together, cited with both
  ids at the end / one of them / none / one mark after each clause (a mid-sentence citation,
  ``"X lies on the river Y [2], and its population is 5,000 [3]."``, in ~15% of records) ·
  ``unsupported:cited|uncited`` a claim no passage states (a number contradicting a passage, or
  an attribute no passage mentions), with one id or none.

Every citation id is within ``1..len(docs)``: no case is meant to produce an out-of-range id.

Statements reuse the passages' words, so a content-word reader (:mod:`citetrain.nli.lexical`)
judges them as ``gold`` says: each gold set entails its statement and no single other passage
does (nor, for ``multi``, any single gold passage). Each record is checked against that rule with
a small surface-word reader before it is kept (redrawn otherwise). Pure Python, no NLI model:
thousands of records take a few seconds. Record ``i`` depends on ``(seed, i, n_docs)`` only, so a
longer run extends a shorter one.
"""
from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citetrain.errors import CitetrainError
from citetrain.records import Doc, Record
from citetrain.synth.world import (
    _DRAW, _POOL, Entity, World, _distinct, _reads, _words, build_world,
)
from citetrain.synth.vocab import (
    _FILLERS, _MULTI, _NO_MID, _NUMERIC, _QUESTIONS, _T, _TITLES, _WEIGHTS, CASES, DUPLICATE_RATE,
    KINDS, MID_RATE,
)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _fill(tpl: str, e: Entity, **kw: str) -> str:
    text = tpl.format(n=e.phrase, pro=e.pro, poss=e.poss, Poss=_cap(e.poss), o=e.obj, **kw)
    return re.sub(r"\b([Aa]) ([aeiou])", r"\1n \2", text)


@dataclass
class _Stmt:
    kind: str
    attrs: tuple[str, ...]  # the entity attributes it states
    text: str = ""
    case: str = ""
    gold: tuple[int, ...] = ()


def _sentence(e: Entity, attr: str, rng: random.Random, first: bool) -> str:
    tpls = _T[e.kind][attr][2]
    tpl = rng.choice([t for t in tpls if "{s}" in t or "{n}" in t] if first else tpls)
    subj = e.phrase if first or rng.random() < 0.5 else e.pro
    return _cap(_fill(tpl, e, s=subj, v=e.attrs[attr])) + "."


def _passage(e: Entity, attrs: list[str], rng: random.Random) -> Doc:
    sents = [_sentence(e, a, rng, i == 0) for i, a in enumerate(attrs)]
    if len(sents) < 2 or (len(sents) < 4 and rng.random() < 0.3):
        sents.insert(rng.randint(1, len(sents)), _fill(rng.choice(_FILLERS), e))
    title = rng.choice(_TITLES[e.kind]).format(b=e.name)
    return Doc(title=title, text=" ".join(sents))


def _plan(e: Entity, n_st: int, mid: bool, rng: random.Random) -> list[_Stmt] | None:
    """Statement kinds and the attributes each uses (None when they do not fit the entity)."""
    kinds = rng.choices(list(_WEIGHTS), weights=list(_WEIGHTS.values()), k=n_st - mid)
    free = list(e.attrs)
    rng.shuffle(free)
    plan = []
    for k in (["mid"] if mid else []) + sorted(kinds, key=lambda k: k != "multi"):
        if k == "multi":
            options = [m for m in _MULTI[e.kind] if m[0] in free and m[1] in free]
            if not options:
                return None
            a, b, _ = rng.choice(options)
        elif k == "mid":
            pairs = [(a, b) for a in free for b in free
                     if a != b and not {a, b} & _NO_MID and _mid_ok(e, a, b)]
            if not pairs:
                return None
            a, b = rng.choice(pairs)
        else:
            if not free:
                return None
            a, b = free[0], None
        used = (a,) if b is None else (a, b)
        free = [x for x in free if x not in used]
        plan.append(_Stmt(k, used))
    return plan


def _mid_text(e: Entity, a: str, b: str, ma: str, mb: str) -> str:
    first = _cap(_fill(_T[e.kind][a][0], e, v=e.attrs[a]))
    return f"{first} {ma}, and {_fill(_T[e.kind][b][1], e, v=e.attrs[b])} {mb}."


def _mid_ok(e: Entity, a: str, b: str) -> bool:
    """Neither clause's own sentence (with the name) reads as the whole compound statement."""
    hyp = _words(_mid_text(e, a, b, "", ""))
    return not any(_reads(_words(e.phrase + " " + _fill(_T[e.kind][x][0], e, v=e.attrs[x])), hyp)
                   for x in (a, b))


def _one(world: World, rng: random.Random, n_docs: tuple[int, int], idx: str) -> Record | None:
    e = rng.choice(world.entities)
    plan = _plan(e, rng.randint(2, 5), rng.random() < MID_RATE, rng)
    if plan is None:
        return None
    used = {a for s in plan for a in s.attrs}
    # numbers an unsupported claim contradicts are stated; other unsupported attrs are not
    stated_unsup = [s.attrs[0] for s in plan
                    if s.kind == "unsupported" and s.attrs[0] in _NUMERIC and rng.random() < 0.5]
    extra = [a for a in e.attrs if a not in used and rng.random() < 0.4]
    groups: list[list[str]] = []  # attrs per group; a group's members go to distinct passages
    for s in plan:
        if s.kind in ("multi", "mid"):
            groups.append(list(s.attrs))
        elif s.kind != "unsupported":
            groups.append([s.attrs[0]] * (2 if rng.random() < DUPLICATE_RATE else 1))
    groups += [[a] for a in stated_unsup + extra]
    total = rng.randint(*n_docs)
    need = sum(len(g) for g in groups)
    lo = max(2 if any(len(g) > 1 for g in groups) else 1, -(-need // 3))
    hi = min(total - 1, need)
    if lo > hi:
        return None
    n_rel = rng.randint(lo, hi)
    slots: list[list[str]] = [[] for _ in range(n_rel)]
    for g in sorted(groups, key=len, reverse=True):
        open_ = [i for i in range(n_rel) if len(slots[i]) < 3]
        if len(open_) < len(g):
            return None
        open_.sort(key=lambda i: (len(slots[i]), rng.random()))
        for a, i in zip(g, open_[: len(g)]):
            slots[i].append(a)
    if any(not s for s in slots):
        return None
    docs = [_passage(e, rng.sample(s, len(s)), rng) for s in slots]
    # distractors: other entities sharing none of this entity's distinctive words
    reserved = _distinct(e.name) | {w for v in e.attrs.values() for w in _distinct(v)}
    titles = {doc.title for doc in docs}

    def distractor(d: Entity) -> None:
        if d is e or _distinct(d.name) & reserved or any(d.name in t for t in titles):
            return
        ok = [a for a in d.attrs if not _distinct(d.attrs[a]) & reserved]
        if len(ok) >= 2:
            docs.append(_passage(d, rng.sample(ok, min(len(ok), rng.randint(2, 3))), rng))
            titles.add(docs[-1].title)

    for _ in range(200):
        if len(docs) == total:
            break
        distractor(rng.choice(world.entities))
    if len(docs) < total:  # many passages: every other entity once, in a seeded order
        for d in rng.sample(world.entities, len(world.entities)):
            if len(docs) == total:
                break
            distractor(d)
    if len(docs) < total:
        raise _TooFew(len(docs))
    order = list(range(total))
    rng.shuffle(order)
    docs = [docs[i] for i in order]
    where: dict[str, list[int]] = {}  # attr -> 1-based ids of the passages stating it
    for new, old in enumerate(order, 1):
        for a in slots[old] if old < n_rel else []:
            where.setdefault(a, []).append(new)
    rel_ids = sorted({i for ids in where.values() for i in ids})
    all_words = set().union(*(_words(d.title + " " + d.text) for d in docs))

    if not all(_write(s, e, where, rel_ids, total, all_words, world.pools, rng) for s in plan):
        return None
    rng.shuffle(plan)
    if not _consistent(docs, plan):
        return None
    return Record(id=idx, question=_fill(rng.choice(_QUESTIONS[e.kind]), e), docs=docs,
                  output=" ".join(s.text for s in plan), gold=[list(s.gold) for s in plan],
                  case=[s.case for s in plan])


def _marks(ids: Iterable[int]) -> str:
    return "".join(f"[{i}]" for i in ids)


def _write(s: _Stmt, e: Entity, where: dict[str, list[int]], rel_ids: list[int], total: int,
           all_words: set[str], pools: dict[str, list[str]], rng: random.Random) -> bool:
    """Fill a planned statement's text, gold ids and case (False: no unused claim value)."""
    if s.kind == "mid":
        a, b = s.attrs
        s.gold = tuple(sorted(where[a] + where[b]))
        s.text = _mid_text(e, a, b, _marks(where[a]), _marks(where[b]))
        s.case = "multi:mid"
        return True
    if s.kind == "multi":
        a, b = s.attrs
        tpl = next(m[2] for m in _MULTI[e.kind] if m[:2] == (a, b))
        body = _cap(_fill(tpl, e, a=e.attrs[a], b=e.attrs[b]))
        s.gold = tuple(sorted(where[a] + where[b]))
        how = rng.choices(("both", "one", "none"), weights=(5, 3, 2))[0]
        cites = {"both": list(s.gold), "one": [rng.choice(s.gold)], "none": []}[how]
        s.case = f"multi:{how}"
    else:
        a = s.attrs[0]
        value = e.attrs[a]
        if s.kind == "unsupported":
            pool = None if a in _DRAW else pools[_POOL[a]]
            for _ in range(50):
                value = _DRAW[a](rng) if pool is None else rng.choice(pool)
                if not _words(value) & all_words:
                    break
            else:
                return False
        body = _cap(_fill(_T[e.kind][a][0], e, v=value))
        s.gold = tuple(where.get(a, [])) if s.kind != "unsupported" else ()
        g = list(s.gold)
        others = [i for i in range(1, total + 1) if i not in g]
        if s.kind == "correct":
            cites, s.case = (g if len(g) > 1 and rng.random() < 0.4 else [rng.choice(g)]), "correct"
        elif s.kind == "missing":
            cites, s.case = [], "missing"
        elif s.kind == "misleading":
            far = [i for i in others if i not in rel_ids]
            near = [i for i in others if i in rel_ids]
            cites = [rng.choice(far if far and (not near or rng.random() < 0.75) else near)]
            s.case = "misleading"
        elif s.kind == "redundant":
            right = rng.choice(g)
            if rng.random() < 0.25:
                cites, s.case = [right, right], "redundant:repeat"
            else:
                extra = rng.choice(others)
                cites = [right, extra] if rng.random() < 0.7 else [extra, right]
                s.case = "redundant:extra"
        else:
            cited = rng.random() < 0.6
            pick = rel_ids if rel_ids and rng.random() < 0.7 else list(range(1, total + 1))
            cites = [rng.choice(pick)] if cited else []
            s.case = "unsupported:cited" if cited else "unsupported:uncited"
    s.text = f"{body} {_marks(cites)}." if cites else f"{body}."
    return True


class _TooFew(Exception):
    """The world has too few entities unrelated to a record's subject for its passages."""

    def __init__(self, found: int) -> None:
        super().__init__(found)
        self.found = found


def _consistent(docs: list[Doc], plan: list[_Stmt]) -> bool:
    """Gold agrees with the surface reading: gold sets entail, no other single passage does."""
    words = [_words(d.title + " " + d.text) for d in docs]
    for s in plan:
        hyp = _words(re.sub(r"\[\d+\]", "", s.text))
        if s.gold and not hyp <= set().union(*(words[i - 1] for i in s.gold)):
            return False
        singles = {i for i, w in enumerate(words, 1) if _reads(w, hyp)}
        want = set() if s.kind in ("multi", "mid", "unsupported") else set(s.gold)
        if singles != want:
            return False
    return True


DOCS = (4, 6)
"""Passages per record unless told otherwise: ``(min, max)``."""


def docs_range(n_docs: Sequence[int]) -> tuple[int, int]:
    """``(min, max)`` passages per record; ``ValueError`` unless ``3 <= min <= max`` (room for two
    relevant passages, a split fact, and a distractor)."""
    lo, hi = n_docs
    if not 3 <= lo <= hi:
        raise ValueError(f"docs must be (min, max) with 3 <= min <= max, got ({lo}, {hi})")
    return lo, hi


def synth_records(n: int, seed: int = 0, *, n_docs: tuple[int, int] = DOCS,
                  start: int = 0) -> list[Record]:
    """Seeded synthetic records ``start .. n - 1`` (see the module docstring for the schema and
    cases).

    Record ``i`` depends only on ``(seed, i, n_docs)``: the same arguments give the same records,
    a larger ``n`` extends a smaller one, and ``start`` makes a long stream piece by piece. ``n_docs = (lo, hi)`` bounds the passages per record;
    ``lo >= 3`` leaves room for two relevant passages (split facts) and a distractor.
    """
    lo, hi = docs_range(n_docs)
    world = build_world(seed)
    if hi > len(world.entities):
        raise CitetrainError(f"{hi} passages per record: the synthetic world has "
                             f"{len(world.entities)} entities, one passage each at most")
    out = []
    for i in range(start, n):
        rng = random.Random(f"citetrain-synth/{seed}/{i}/{lo}-{hi}")
        short: list[int] = []
        for _ in range(1000):
            try:
                rec = _one(world, rng, n_docs, f"synth-{seed}-{i:06d}")
            except _TooFew as few:
                short.append(few.found)
                if len(short) < 5:
                    continue
                raise CitetrainError(
                    f"{lo}-{hi} passages per record: the synthetic world (seed {seed}) holds "
                    f"about {max(short)} passages unrelated to a record's subject; ask for "
                    f"at most that many") from None
            if rec is not None:
                out.append(rec)
                break
        else:  # pragma: no cover - the plan space is wide; a record always fits
            raise CitetrainError(f"could not generate synthetic record {i} with {lo}-{hi} passages")
    return out


def case_counts(records: Iterable[Record]) -> Counter:
    """Statements per case label over ``records`` (labels in :data:`CASES`)."""
    return Counter(c for r in records for c in (r.model_extra or {}).get("case", []))


__all__ = ["CASES", "KINDS", "Entity", "World", "build_world", "case_counts", "synth_records"]
