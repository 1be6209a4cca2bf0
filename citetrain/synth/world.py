"""The fictional world of :mod:`citetrain.synth.records`: invented towns, rivers, companies and
people drawn from the word lists of :mod:`citetrain.synth.vocab` (seeded, cached), and the small
surface-word reader the records are checked with."""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from citetrain.synth.vocab import (
    _COLOURS, _COMPANY_SUFFIX, _ENDS, _FIRST_F, _FIRST_M, _INSTRUMENTS, _OCCUPATIONS, _PRODUCTS,
    _STARTS, _T,
)


# ---------------------------------------------------------------------------------------- world
@dataclass
class Entity:
    """One invented thing: ``kind`` (town, river, company, person), bare name and attributes."""

    kind: str
    name: str
    attrs: dict[str, str]
    pro: str = "it"

    @property
    def phrase(self) -> str:
        """How statements name it: ``the river Ostra`` for rivers, the name otherwise."""
        return f"the river {self.name}" if self.kind == "river" else self.name

    @property
    def poss(self) -> str:
        return {"it": "its", "she": "her", "he": "his"}[self.pro]

    @property
    def obj(self) -> str:
        return {"it": "it", "she": "her", "he": "him"}[self.pro]


@dataclass
class World:
    entities: list[Entity]
    pools: dict[str, list[str]]


def _num(lo: int, hi: int, step: int = 1) -> Callable[[random.Random], str]:
    def draw(rng: random.Random) -> str:
        v = rng.randrange(lo, hi + 1, step)
        return f"{v:,}" if v >= 10_000 or step > 1 else str(v)
    return draw


_DRAW = {
    "founded": _num(1400, 2005), "population": _num(2_100, 250_000, 10),
    "length": _num(70, 1_390), "bridges": _num(3, 60), "employees": _num(2_100, 90_000, 10),
    "born": _num(1700, 1990), "books": _num(2, 60),
}
_POOL = {  # non-numeric attr -> pool of values it draws from
    "country": "country", "river": "river", "founder": "person", "known_for": "product",
    "colour": "colour", "source": "mountain", "mouth": "lake", "mapper": "person",
    "hq": "town", "product": "product", "ceo": "person", "birthplace": "town",
    "occupation": "occupation", "employer": "company", "instrument": "instrument",
}


@lru_cache(maxsize=8)
def build_world(seed: int = 0) -> World:
    """The fictional world of ``seed``: unique invented names and each entity's attributes."""
    from nltk.stem.porter import PorterStemmer

    rng, stem = random.Random(f"citetrain-synth-world/{seed}"), PorterStemmer().stem
    seen: set[str] = {w.lower() for w in _FIRST_F + _FIRST_M}

    def names(style: str, k: int) -> list[str]:
        out: list[str] = []
        while len(out) < k:
            infix = rng.choice(("", "", "an", "el", "or")) if style != "river" else ""
            word = rng.choice(_STARTS) + infix + rng.choice(_ENDS[style])
            if stem(word.lower()) not in seen:
                seen.add(stem(word.lower()))
                out.append(word)
        return out

    pools = {
        "country": names("country", 16), "mountain": names("mountain", 50),
        "lake": names("lake", 50), "river": names("river", 150), "town": names("town", 400),
        "company": [f"{w} {rng.choice(_COMPANY_SUFFIX)}" for w in names("company", 200)],
        "person": [f"{rng.choice(_FIRST_F + _FIRST_M)} {w}" for w in names("surname", 500)],
        "product": list(_PRODUCTS), "colour": list(_COLOURS), "occupation": list(_OCCUPATIONS),
        "instrument": list(_INSTRUMENTS),
    }
    entities = []
    for kind in ("town", "river", "company", "person"):
        for name in pools[kind]:
            pro = "it" if kind != "person" else "she" if name.split()[0] in _FIRST_F else "he"
            attrs: dict[str, str] = {}
            taken = _distinct(name)  # no two values of one entity share a distinctive word
            for a in _T[kind]:
                attrs[a] = _draw_value(a, rng, pools, taken)
                taken |= _distinct(attrs[a])
            entities.append(Entity(kind, name, attrs, pro))
    return World(entities, pools)


def _draw_value(attr: str, rng: random.Random, pools: dict[str, list[str]],
                taken: set[str]) -> str:
    while True:
        v = _DRAW[attr](rng) if attr in _DRAW else rng.choice(pools[_POOL[attr]])
        if not _distinct(v) & taken:
            return v


# ------------------------------------------------------------------------------ surface reading
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
_STOP = frozenset("the a an is was in on of by and it its has for to as which she he her his him "
                  "about some several have often first title high old near are".split())
_GENERIC = frozenset(w.lower() for w in _COMPANY_SUFFIX)


def _words(text: str) -> set[str]:
    return {t.replace(",", "") for t in _TOKEN.findall(text.lower())
            if t[0].isdigit() or (t not in _STOP and len(t) > 1)}


def _reads(premise: set[str], hyp: set[str]) -> bool:
    """The lexical rule on surface words: recall >= 0.7 and every number present."""
    nums = {w for w in hyp if w[0].isdigit()}
    return bool(hyp) and len(hyp & premise) >= 0.7 * len(hyp) and nums <= premise


def _distinct(text: str) -> set[str]:
    return _words(text) - _GENERIC


# ------------------------------------------------------------------------------------ records
