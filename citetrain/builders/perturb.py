"""Meaning-changing edits of one parsed sentence: an entity or number swapped, a negation added
or removed, subject and object swapped. Each returns the edited sentence or ``None`` when it
does not apply; :mod:`citetrain.builders.transforms` labels what they make."""
from __future__ import annotations

import random
import re
from typing import Iterable

from citetrain.builders.edits import Doc, decap, parsed, render, root, tidy

ENTITY_TYPES = ("CARDINAL", "DATE", "PERSON", "GPE", "ORG", "NORP", "QUANTITY", "MONEY", "PERCENT",
                "ORDINAL", "LOC", "EVENT", "FAC", "WORK_OF_ART", "PRODUCT", "LAW", "LANGUAGE",
                "TIME")
NUMERIC = ("CARDINAL", "DATE", "QUANTITY", "MONEY", "PERCENT", "ORDINAL", "TIME")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
          "twelve")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
             "tenth")
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_WORDS + _ORDINALS) + r")\b", re.IGNORECASE)


def distinct(a: str, b: str) -> bool:
    """Neither text contains the other (case aside)."""
    x, y = a.lower().strip(), b.lower().strip()
    return bool(x) and bool(y) and x not in y and y not in x


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def _fits(new: str, old: str) -> bool:
    """Whether ``new`` can stand where ``old`` stood: a name for a name; for numbers, dates and
    amounts, the same number of words and digits in both or in neither ("three years" is not
    replaced by "two weeks later")."""
    if _has_digit(new) != _has_digit(old):
        return False
    return len(new.split()) == len(old.split()) or not any(c.isdigit() for c in old + new) \
        and not new.lower().endswith(("ago", "later", "earlier", "before", "after"))


def entity_texts(docs: Iterable[Doc]) -> dict[str, list[str]]:
    """Entity texts by label, first mention first, each once."""
    out: dict[str, list[str]] = {}
    for doc in docs:
        for e in doc.ents:
            if e.label_ in ENTITY_TYPES and e.text not in out.setdefault(e.label_, []):
                out[e.label_].append(e.text)
    return out


def _new_integer(n: int, rng: random.Random) -> int:
    if 1000 <= n <= 2100:  # a year
        return n + rng.choice((-1, 1)) * rng.randint(1, 9)
    if n < 10:
        return rng.choice([k for k in range(1, 13) if k != n])
    new = round(n * rng.choice((0.5, 0.6, 0.7, 0.8, 1.25, 1.5, 2.0)))
    return new if new != n else n + 1


def new_number(text: str, rng: random.Random) -> str:
    """Another value in the same format: a year moves by 1-9, a small count becomes another
    small count, a larger one is scaled, a decimal changes its last digit."""
    plain = text.replace(",", "")
    if "." in plain:
        last = int(plain[-1])
        return text[:-1] + str((last + rng.randint(1, 9)) % 10)
    n = _new_integer(int(plain), rng)
    return f"{n:,}" if "," in text else str(n)


def perturb_number(text: str, rng: random.Random) -> str | None:
    """``text`` with one of its numbers (digits or number words) changed, or ``None``."""
    found = list(_NUMBER.finditer(text))
    if found:
        m = rng.choice(found)
        return text[:m.start()] + new_number(m.group(), rng) + text[m.end():]
    words = list(_NUMBER_WORD.finditer(text))
    if not words:
        return None
    m = rng.choice(words)
    series = _WORDS if m.group().lower() in _WORDS else _ORDINALS
    new = rng.choice([w for w in series if w != m.group().lower()])
    if m.group()[0].isupper():
        new = new.capitalize()
    return text[:m.start()] + new + text[m.end():]


def in_text(value: str, text: str) -> bool:
    """Whether ``value`` occurs in ``text`` as whole words (case aside)."""
    return re.search(r"(?<!\w)" + re.escape(value.lower()) + r"(?!\w)", text.lower()) is not None


def swap_entity(doc: Doc, pools: list[dict[str, list[str]]], window_text: str,
                rng: random.Random) -> str | None:
    """One entity of ``doc`` replaced by another entity of its type from ``pools`` (the window's
    entities first, then the rest of the passage's), different text and neither inside the
    other; a number whose type has no other entity is changed instead (:func:`perturb_number`),
    only when the new value is nowhere in ``window_text``."""
    ents = [e for e in doc.ents if e.label_ in ENTITY_TYPES]
    rng.shuffle(ents)
    for pool in pools:  # an entity of the window first, then of the passage
        for e in ents:
            alts = [t for t in pool.get(e.label_, []) if distinct(t, e.text) and _fits(t, e.text)
                    and not in_text(t, doc.text)]  # not "Brenfield moved to Brenfield"
            if alts:
                return _replace(doc, e, rng.choice(alts))
    for e in ents:
        if e.label_ not in NUMERIC or any(_fits(t, e.text) and distinct(t, e.text)
                                          for pool in pools for t in pool.get(e.label_, [])):
            continue
        new = perturb_number(e.text, rng)
        if new is None or new == e.text or in_text(new, window_text) or any(
                in_text(m.group(), window_text) for m in _NUMBER.finditer(new)
                if not in_text(m.group(), e.text)):
            continue
        return _replace(doc, e, new)
    return None


def _replace(doc: Doc, e, new: str) -> str:
    if e.start > 0 and re.match(r"(The|A|An) ", new):
        new = new[0].lower() + new[1:]
    return tidy(doc.text[:e.start_char] + new + doc.text[e.end_char:])


_NEGATIVE = {"no", "nobody", "nothing", "none", "neither", "nor", "without", "hardly", "barely",
             "scarcely", "nowhere", "cannot"}
_WEAK_MODALS = {"may", "might", "must", "should", "ought", "shall", "'d", "'ll"}
_DO = {"VBD": "did", "VBZ": "does", "VBP": "do"}
_NT_STEMS = {"ca": "can", "wo": "will", "sha": "shall"}


def negated(doc: Doc, style: str = "not") -> str | None:
    """The sentence with its main verb negated, or its negation removed.

    Adding (``style`` ``"not"`` or ``"never"``): after the first auxiliary ("has moved" -> "has not
    moved"), after a copula ("is" -> "is not"), or with do-support for a simple present / past verb
    ("moved" -> "did not move", with the verb's lemma; "never moved" for ``"never"``). Removing: the
    root's only ``neg`` word is dropped ("was not built" -> "was built", "didn't" -> "did").
    Questions, weak modals ("may", "should": their negation does not contradict), sentences with
    other negative words and verb-first sentences are left alone (``None``)."""
    if not parsed(doc) or doc.text.rstrip().endswith("?"):
        return None
    r = root(doc)
    negs = [t for t in doc if t.dep_ == "neg"]
    if negs:
        if len(negs) > 1 or negs[0].head.i != r.i:
            return None
        n = negs[0]
        fix = {}
        if n.lower_ == "n't" and n.i > 0 and doc[n.i - 1].lower_ in _NT_STEMS:
            prev = doc[n.i - 1]
            word = _NT_STEMS[prev.lower_]
            fix[prev.i] = word.capitalize() if prev.text[0].isupper() else word
        return tidy(render(doc, drop={n.i}, replace=fix))
    if any(t.lower_ in _NEGATIVE for t in doc) or r.pos_ not in ("VERB", "AUX"):
        return None
    subj = [c for c in r.children if c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj")]
    if not subj or subj[0].i > r.i:
        return None
    word = "never" if style == "never" else "not"
    auxes = [c for c in r.children if c.dep_ in ("aux", "auxpass") and c.i < r.i]
    if auxes:
        a = auxes[0]
        if a.lower_ in _WEAK_MODALS or a.lower_ == "to" or a.text.startswith("'"):
            return None
        return tidy(render(doc, after={a.i: word}))
    if r.lemma_ == "be":
        return None if r.text.startswith("'") else tidy(render(doc, after={r.i: word}))
    if r.pos_ == "VERB" and r.tag_ in _DO and r.lemma_.isalpha():
        if word == "never":
            return tidy(render(doc, before={r.i: "never"}))
        return tidy(render(doc, replace={r.i: f"{_DO[r.tag_]} not {r.lemma_.lower()}"}))
    return None


SYMMETRIC = {"marry", "meet", "wed", "fight", "play", "face", "draw", "tie", "join", "partner",
             "merge", "resemble", "equal", "border", "neighbor", "neighbour", "befriend", "date",
             "divorce", "accompany", "battle", "collaborate", "match", "encounter", "rival",
             "kiss", "hug", "compete", "debate", "contact", "know", "love"}
_AGENTS = {"PERSON", "ORG", "NORP"}
_PREPS = {"to", "from", "against", "over", "for", "by"}


def _phrase(doc: Doc, tok) -> tuple[int, int, str] | None:
    """(start, end, entity label or "PROPN") of the entity or proper-noun chunk headed by
    ``tok``; ``None`` for any other noun phrase."""
    for e in doc.ents:
        if e.start <= tok.i < e.end and e.label_ in ENTITY_TYPES:
            return e.start, e.end, e.label_
    for c in doc.noun_chunks:
        if c.root.i == tok.i and tok.pos_ == "PROPN":
            return c.start, c.end, "PROPN"
    return None


def _objects(verb) -> list:
    out = [c for c in verb.children if c.dep_ == "dobj"]
    for p in verb.children:
        if p.dep_ == "agent" or (p.dep_ == "prep" and p.lower_ in _PREPS):
            out += [c for c in p.children if c.dep_ == "pobj"]
    return out


def swap_roles(doc: Doc, rng: random.Random) -> str | None:
    """Subject and object (``dobj``, or ``pobj`` of "by" / "to" / "from" / ...) of one verb
    swapped, when both are entities of one type (or both persons / organisations / peoples, or
    both proper-noun chunks that are not entities) and the verb is not a symmetric one
    ("marry", "meet", "border", ...)."""
    if not parsed(doc):
        return None
    verbs = [t for t in doc if t.pos_ in ("VERB", "AUX") and t.lemma_.lower() not in SYMMETRIC]
    rng.shuffle(verbs)
    for v in verbs:
        subjects = [c for c in v.children if c.dep_ in ("nsubj", "nsubjpass") and c.i < v.i]
        for s in subjects:
            a = _phrase(doc, s)
            for o in _objects(v):
                b = _phrase(doc, o)
                if a is None or b is None or a[1] > b[0]:
                    continue
                if not (a[2] == b[2] or (a[2] in _AGENTS and b[2] in _AGENTS)):
                    continue
                first, second = doc[a[0]:a[1]], doc[b[0]:b[1]]
                if not distinct(first.text, second.text):
                    continue
                to_front = second.text
                to_back = first.text if a[0] else decap(first.text, first[0])
                text = (doc.text[:first.start_char] + to_front
                        + doc.text[first.end_char:second.start_char] + to_back
                        + doc.text[second.end_char:])
                return tidy(text)
    return None
