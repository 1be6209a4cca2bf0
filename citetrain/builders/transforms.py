"""The transformations of a ``pairs`` build: (window of a passage, claim) pairs whose support
label follows from how the claim was made, with word overlap a poor guide to it.

Each transformation is a function ``(window, rng) -> claim | Skip | None`` over the window's
spaCy-parsed sentences (``None``: it does not apply here). Labels: 2 supported, 1 partially
supported, 0 not supported.

- ``copy`` (2): a sentence of the window as it is; the baseline positive.
- ``drop_modifiers`` (2): a window sentence without some modifiers (adjectives, adverbs,
  appositions, non-restrictive relative clauses, non-conditional adverbial clauses, all but one
  prepositional phrase of a head, parentheticals): a sentence entails its own core; meaning-bearing
  modifiers ("former", "almost", "never", "if ...", "except ...") are kept.
- ``merge`` (2): two adjacent window sentences as one claim ("A, and b." / "A; b."): both are
  in the passage.
- ``reorder`` (2): a fronted phrase moved to the end, or two conjoined clauses swapped: the same
  content in another order.
- ``pronoun`` (2): a PERSON name replaced by he / she (him / her, his / her) only when the name
  is already mentioned earlier in the window and no other person is; or a subject he / she
  replaced by the only PERSON of the preceding sentence: the reference stays resolvable.
- ``swap_entity`` (0): an entity (CARDINAL, DATE, PERSON, GPE, ORG, NORP, ...) replaced by
  another of its type from the same passage, neither text inside the other; with none, a number
  changed (1998 -> 1994) when the new value is nowhere in the window: the claim now states a
  fact the passage does not.
- ``negate`` (0): a negation added to the main verb ("did not move", "was not", "has never")
  or the only negation of the main verb removed: the claim contradicts the passage.
- ``swap_roles`` (0): subject and object of one verb swapped, both entities (or proper-noun
  chunks) of a compatible type and the verb not symmetric: who did what to whom changes.
- ``other_passage`` (0): the sentence of another passage (another record or page) that shares
  the most content words with the window, only when its lexical recall against the window is
  below 1: related words, a fact the window does not state.
- ``unrelated`` (0): a random sentence of another passage; the easy negative.
- ``add_fact`` (1): a window sentence joined with a sentence of another passage whose content
  words are not all in the window: one part supported, one not.
- ``alter_one`` (1): two adjacent window sentences merged with one of them altered by
  ``swap_entity`` or ``negate``: one part supported, one not.

Every candidate is checked (:func:`check`): at least ``min_words`` words and, except for
``copy``, different from every window sentence (case, spaces and final punctuation aside).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterator, Protocol, Sequence

from citetrain.builders import perturb as P
from citetrain.builders import rephrase as R
from citetrain.builders.edits import Doc, is_clean, join, n_words, norm, parsed
from citetrain.io.labelled import TRANSFORM_LEVELS
from citetrain.nli.lexical import content_words

MAX_WORDS = 60  # longer sentences are used as context only
NEVER_SHARE = 0.2  # share of added negations that say "never" rather than "not"


@dataclass(frozen=True)
class Skip:
    """A candidate that a transformation refused, and why."""

    reason: str


class Others(Protocol):
    """Sentences of the other passages (:class:`citetrain.builders.pool.SentencePool`)."""

    def related(self, words: set[str], passage: int) -> Iterator[tuple[int, str]]: ...

    def random(self, rng: random.Random, passage: int) -> tuple[int, str] | None: ...


@dataclass
class Window:
    """The sentences a claim is made from (the premise), the passage's other parsed sentences
    (entity candidates) and access to other passages' sentences."""

    docs: Sequence[Doc]
    context: Sequence[Doc] = ()
    others: Others | None = None
    passage: int = -1
    min_words: int = 5
    used: set[int] = field(default_factory=set)  # other passages' sentences already used

    @cached_property
    def entities(self) -> list[dict[str, list[str]]]:
        """Entity texts by label: the window's, then the whole parsed passage's."""
        return [P.entity_texts(self.docs), P.entity_texts(self.context)]

    @property
    def texts(self) -> list[str]:
        return [d.text for d in self.docs]

    @property
    def premise(self) -> str:
        return " ".join(self.texts)


Result = str | Skip | None


def _fits(win: Window, text: str) -> bool:
    """A sentence a claim can be made from, or taken as one: length and :func:`is_clean`."""
    return win.min_words <= n_words(text) <= MAX_WORDS and is_clean(text)


def _usable(win: Window, rng: random.Random, parse: bool = True) -> list[int]:
    """Window sentences a claim can be made from (length, parse), in random order."""
    idx = [i for i, d in enumerate(win.docs) if _fits(win, d.text) and (parsed(d) or not parse)]
    rng.shuffle(idx)
    return idx


def _first(win: Window, rng: random.Random, make: Callable[[int], str | None]) -> str | None:
    for i in _usable(win, rng):
        claim = make(i)
        if claim:
            return claim
    return None


def _pairs(win: Window, rng: random.Random) -> list[int]:
    """Starts ``i`` of adjacent usable sentences ``(i, i + 1)``, in random order."""
    ok = set(_usable(win, rng, parse=False))
    starts = [i for i in range(len(win.docs) - 1) if i in ok and i + 1 in ok]
    rng.shuffle(starts)
    return starts


def copy(win: Window, rng: random.Random) -> Result:
    idx = _usable(win, rng, parse=False)
    return win.docs[idx[0]].text.strip() if idx else None


def drop_modifiers(win: Window, rng: random.Random) -> Result:
    return _first(win, rng, lambda i: R.dropped_modifiers(win.docs[i], rng))


def merge(win: Window, rng: random.Random) -> Result:
    starts = _pairs(win, rng)
    if not starts:
        return None
    i = starts[0]
    return join(win.docs[i].text, win.docs[i + 1], rng.choice(("and", "semicolon")))


def reorder(win: Window, rng: random.Random) -> Result:
    return _first(win, rng, lambda i: R.fronted_to_end(win.docs[i])
                  or R.swapped_clauses(win.docs[i]))


def pronoun(win: Window, rng: random.Random) -> Result:
    order = [R.name_to_pronoun, R.pronoun_to_name]
    rng.shuffle(order)
    return _first(win, rng, lambda i: order[0](win.docs, i) or order[1](win.docs, i))


def _entity_swap(win: Window, doc: Doc, rng: random.Random) -> str | None:
    return P.swap_entity(doc, win.entities, win.premise, rng)


def _high_overlap(win: Window, rng: random.Random, make: Callable[[int], str | None]
                  ) -> str | None:
    """The first claim (sentences in random order) whose content words are all in the window,
    else the first claim: a negative that word overlap cannot tell apart."""
    claims = [c for c in (make(i) for i in _usable(win, rng)) if c]
    words = content_words(win.premise)[0]
    return next((c for c in claims if recall(c, words) == 1.0), claims[0] if claims else None)


def swap_entity(win: Window, rng: random.Random) -> Result:
    return _high_overlap(win, rng, lambda i: _entity_swap(win, win.docs[i], rng))


def _negation(doc: Doc, rng: random.Random) -> str | None:
    return P.negated(doc, "never" if rng.random() < NEVER_SHARE else "not")


def negate(win: Window, rng: random.Random) -> Result:
    return _high_overlap(win, rng, lambda i: _negation(win.docs[i], rng))


def swap_roles(win: Window, rng: random.Random) -> Result:
    return _first(win, rng, lambda i: P.swap_roles(win.docs[i], rng))


def recall(text: str, words: set[str]) -> float:
    """Share of ``text``'s content words (and numbers) found in ``words``."""
    own = content_words(text)[0]
    return len(own & words) / len(own) if own else 1.0


def _related(win: Window, limit: int = 50) -> tuple[int, str] | Skip:
    """The other-passage sentence sharing the most content words with the window, among those
    whose recall against the window is below 1 (and not already used)."""
    if win.others is None:
        return Skip("no other passages")
    words = content_words(win.premise)[0]
    for n, (k, text) in enumerate(win.others.related(words, win.passage)):
        if n >= limit:
            break
        if k in win.used or not _fits(win, text):
            continue
        if recall(text, words) < 1.0:
            return k, text
    return Skip("no related sentence with recall below 1")


def other_passage(win: Window, rng: random.Random) -> Result:
    got = _related(win)
    if isinstance(got, Skip):
        return got
    win.used.add(got[0])
    return got[1]


def _random_other(win: Window, rng: random.Random) -> tuple[int, str] | None:
    if win.others is None:
        return None
    for _ in range(10):
        got = win.others.random(rng, win.passage)
        if got and got[0] not in win.used and _fits(win, got[1]):
            return got
    return None


def unrelated(win: Window, rng: random.Random) -> Result:
    got = _random_other(win, rng)
    if got is None:
        return Skip("no other passages")
    win.used.add(got[0])
    return got[1]


def add_fact(win: Window, rng: random.Random) -> Result:
    idx = _usable(win, rng, parse=False)
    if not idx:
        return None
    got: tuple[int, str] | Skip | None = _related(win) if rng.random() < 0.7 else None
    if not isinstance(got, tuple):
        got = _random_other(win, rng)
        if got is None or recall(got[1], content_words(win.premise)[0]) >= 1.0:
            return Skip("no other-passage sentence the window lacks")
    win.used.add(got[0])
    return join(win.docs[idx[0]].text, got[1], rng.choice(("and", "semicolon")))


def alter_one(win: Window, rng: random.Random) -> Result:
    for i in _pairs(win, rng):
        which = rng.randrange(2)
        doc = win.docs[i + which]
        edits = [lambda: _entity_swap(win, doc, rng), lambda: _negation(doc, rng)]
        rng.shuffle(edits)
        altered = edits[0]() or edits[1]()
        if not altered:
            continue
        style = rng.choice(("and", "semicolon"))
        if which == 0:
            return join(altered, win.docs[i + 1], style)
        return join(win.docs[i].text, altered, style)
    return None


_FUNCTIONS: dict[str, Callable[[Window, random.Random], Result]] = {
    "copy": copy, "drop_modifiers": drop_modifiers, "merge": merge, "reorder": reorder,
    "pronoun": pronoun, "swap_entity": swap_entity, "negate": negate, "swap_roles": swap_roles,
    "other_passage": other_passage, "unrelated": unrelated, "add_fact": add_fact,
    "alter_one": alter_one,
}
# each transformation with the support level it leaves (the names and levels are the pairs
# dataset's, in citetrain.io.labelled, where recipes read them)
TRANSFORMS: dict[str, tuple[Callable[[Window, random.Random], Result], int]] = {
    name: (_FUNCTIONS[name], level) for name, level in TRANSFORM_LEVELS.items()}
LABELS = {name: label for name, (_, label) in TRANSFORMS.items()}


def check(name: str, claim: str, win: Window) -> str | None:
    """Why a candidate claim is refused, or ``None`` when it is kept."""
    if not claim or not claim.strip():
        return "empty claim"
    if n_words(claim) < win.min_words:
        return "too short"
    if name != "copy" and any(norm(claim) == norm(t) for t in win.texts):
        return "same as a window sentence"
    return None


def apply(name: str, win: Window, rng: random.Random) -> tuple[str | None, str | None]:
    """``(claim, None)`` or ``(None, why it was refused)``."""
    fn, _ = TRANSFORMS[name]
    got = fn(win, rng)
    if got is None:
        return None, "does not apply"
    if isinstance(got, Skip):
        return None, got.reason
    why = check(name, got, win)
    return (None, why) if why else (got, None)
