"""Meaning-keeping edits of parsed sentences: modifiers dropped, clauses reordered, a name and a
pronoun exchanged. Each returns the new sentence or ``None`` when it does not apply;
:mod:`citetrain.builders.transforms` labels what they make."""
from __future__ import annotations

import random
from typing import Sequence

from citetrain.builders.edits import Doc, body, decap, fix_articles, parsed, render, root, tidy

# modifiers whose removal can change what is said ("former president", "almost won")
_KEEP_ADJ = {"former", "alleged", "fake", "false", "supposed", "potential", "possible", "likely",
             "would-be", "so-called", "pseudo", "mock", "counterfeit", "purported", "hypothetical",
             "apparent", "acting", "future", "previous", "ex", "first", "second", "third", "last",
             "only", "sole", "next", "same", "other", "fictional", "imaginary", "artificial",
             "proposed", "planned", "failed", "unsuccessful", "non", "no", "few", "little"}
_KEEP_ADV = {"not", "never", "almost", "nearly", "hardly", "barely", "scarcely", "rarely",
             "seldom", "no", "longer", "allegedly", "reportedly", "supposedly", "falsely",
             "about", "around", "approximately", "roughly", "over", "under", "more", "less",
             "fewer", "most", "least", "than", "as", "so", "too", "enough", "up", "partly",
             "partially", "once", "formerly", "previously", "originally", "initially", "later",
             "before", "after", "ago", "again", "still", "yet", "already", "just"}
_CONDITIONAL = {"if", "unless", "whether", "provided", "providing", "supposing", "lest", "until",
                "though", "although", "even"}
_KEEP_PREP = {"except", "excluding", "but", "barring", "save", "minus", "without", "instead",
              "despite", "than", "like", "unlike", "as"}


_MODIFIERS = {"amod", "advmod", "appos", "relcl", "advcl", "prep"}


def _units(doc: Doc) -> list[set[int]]:
    """The removable modifiers of a sentence, each as its token indices (subtree)."""
    units: list[set[int]] = []
    r = root(doc)
    for t in doc:
        dep = t.dep_
        if dep not in _MODIFIERS:
            continue
        sub = {x.i for x in t.subtree}
        if r.i in sub or any(doc[i].dep_ in ("nsubj", "nsubjpass") and doc[i].head.i == r.i
                             for i in sub):
            continue
        if dep == "amod" and t.lower_ not in _KEEP_ADJ and t.tag_ not in ("JJR", "JJS") \
                and not any(c.dep_ == "neg" for c in t.children):
            units.append(sub)
        elif dep == "advmod" and t.lower_ not in _KEEP_ADV and t.tag_ not in ("WRB", "RBR", "RBS") \
                and t.head.pos_ in ("VERB", "ADJ", "ADV"):
            units.append(sub)
        elif dep == "appos":
            units.append(sub)
        elif dep == "relcl" and t.left_edge.i > 0 and (doc[t.left_edge.i - 1].text == ","
                                                        or t.head.pos_ == "PROPN"):
            units.append(sub)
        elif dep == "advcl" and not any(c.dep_ == "mark" and c.lower_ in _CONDITIONAL
                                        for c in t.children):
            units.append(sub)
        elif dep == "prep" and t.lower_ not in _KEEP_PREP:
            preps = [c for c in t.head.children if c.dep_ == "prep"]
            after = [c for c in preps if c.i > t.head.i]
            kept = after[0] if after else preps[0]
            if len(preps) > 1 and t.i != kept.i:
                units.append(sub)
    for t in doc:
        if t.text == "(":
            close = next((x.i for x in doc[t.i + 1:] if x.text == ")"), None)
            if close is not None and not t.i <= r.i <= close:
                units.append(set(range(t.i, close + 1)))
    return units


def _with_commas(doc: Doc, drop: set[int]) -> set[int]:
    """``drop`` plus the commas that set the dropped words off."""
    out = set(drop)
    i = 0
    while i < len(doc):
        if i not in drop:
            i += 1
            continue
        j = i
        while j + 1 < len(doc) and j + 1 in drop:
            j += 1
        left = i - 1 if i > 0 and doc[i - 1].text == "," else None
        right = j + 1 if j + 1 < len(doc) and doc[j + 1].text == "," else None
        if left is not None and right is not None:
            out |= {left, right}
        elif right is not None and i == 0:
            out.add(right)
        elif left is not None and (j + 1 >= len(doc) or doc[j + 1].is_punct):
            out.add(left)
        i = j + 1
    return out


def dropped_modifiers(doc: Doc, rng: random.Random) -> str | None:
    """The sentence without some of its modifiers (``amod``, ``advmod``, ``appos``, a
    non-restrictive ``relcl``, a non-conditional ``advcl``, all but one ``prep`` of a head,
    parentheticals): each removable one is dropped with probability 0.7, at least one.
    Non-subsective adjectives ("former"), hedges and negative adverbs ("almost", "never"),
    conditional clauses ("if ...") and exceptions ("except ...") stay."""
    if not parsed(doc):
        return None
    units = _units(doc)
    if not units:
        return None
    chosen = [u for u in units if rng.random() < 0.7] or [rng.choice(units)]
    drop = _with_commas(doc, set().union(*chosen))
    claim = tidy(render(doc, drop=drop))
    if any(t.lower_ in ("a", "an") and t.i not in drop and t.i + 1 in drop for t in doc):
        claim = fix_articles(claim)
    return claim if claim and claim != tidy(doc.text) else None


_TEMPORAL = {"then", "later", "afterwards", "afterward", "subsequently", "thereafter", "eventually",
             "finally", "soon", "next", "meanwhile", "previously", "before"}


_FRONTED_PREPS = {"in", "on", "at", "during", "after", "before", "since", "until", "by",
                  "throughout", "within", "following", "over", "under", "from"}
_FRONTED_MARKS = {"because", "when", "after", "before", "since", "while", "although", "though",
                  "as", "once", "until"}


def _end_mark(doc: Doc) -> str:
    last = doc[-1].text
    return last if last in (".", "!") else "."


def fronted_to_end(doc: Doc) -> str | None:
    """"In 1998, she moved to Paris." -> "She moved to Paris in 1998.": a fronted prepositional
    phrase of time or place, adverb or subordinate clause ("because ...", "when ..."), set off
    by a comma, moved to the end (only when the rest is a single clause, so that the moved phrase
    cannot attach elsewhere; not a participle clause, which would dangle)."""
    r = root(doc)
    for c in r.children:
        if c.i > r.i:
            break
        if c.dep_ not in ("prep", "advcl", "advmod", "npadvmod") or c.left_edge.i != 0:
            continue
        if (c.dep_ == "prep" and c.lower_ not in _FRONTED_PREPS) or (c.dep_ == "advcl" and not any(
                m.dep_ == "mark" and m.lower_ in _FRONTED_MARKS for m in c.children)):
            return None  # "Of the 140 items, ..." / "Originally proposed in 1985, ...": keep
        end = c.right_edge.i
        if end + 1 >= len(doc) or doc[end + 1].text != ",":
            return None
        rest = doc[end + 2:]
        if any(t.text in (",", ";", ":", "(") or (t.pos_ == "VERB" and t.i != r.i) for t in rest):
            return None
        phrase = decap(doc[:end + 1].text, doc[0])
        return tidy(f"{body(rest.text)} {phrase}{_end_mark(doc)}")
    return None


def swapped_clauses(doc: Doc) -> str | None:
    """"A moved to X, and B stayed in Y." -> "B stayed in Y, and a moved to X.": two clauses
    joined by "and" / "but", each with its own subject (the second not a pronoun), swapped;
    not when a word orders them in time ("then", "later", ...)."""
    r = root(doc)
    conj = [c for c in r.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")]
    cc = [c for c in r.children if c.dep_ == "cc" and c.lower_ in ("and", "but")]
    if len(conj) != 1 or len(cc) != 1 or any(t.lower_ in _TEMPORAL for t in doc):
        return None
    c, k = conj[0], cc[0]
    words = [t.i for t in doc if not t.is_punct]
    if not (k.i < c.left_edge.i and c.right_edge.i >= words[-1] and k.i > r.i):
        return None
    if not any(x.dep_ in ("nsubj", "nsubjpass") and x.pos_ != "PRON" for x in c.children):
        return None
    first = doc[:k.i].text.rstrip(" ,")
    second = doc[c.left_edge.i:c.right_edge.i + 1].text
    if not first or "," in first or ";" in first:
        return None
    return tidy(f"{body(second)}, {k.lower_} {decap(first, doc[0])}{_end_mark(doc)}")


MALE = {"he", "him", "his", "himself"}
FEMALE = {"she", "her", "hers", "herself"}
_SUBJ = ("nsubj", "nsubjpass")


def _gender(docs: Sequence[Doc]) -> str | None:
    words = {t.lower_ for d in docs for t in d}
    male, female = bool(words & MALE), bool(words & FEMALE)
    return "m" if male and not female else "f" if female and not male else None


def _persons(doc: Doc) -> list:
    return [e for e in doc.ents if e.label_ == "PERSON"]


def _same_person(a: str, b: str) -> bool:
    x, y = a.lower(), b.lower()
    return x in y or y in x


def _propn_runs(doc: Doc) -> list[tuple[int, int]]:
    """``(start, end)`` of each run of proper nouns (a name the NER may have missed)."""
    runs, i = [], 0
    while i < len(doc):
        if doc[i].pos_ == "PROPN":
            j = i
            while j + 1 < len(doc) and doc[j + 1].pos_ == "PROPN":
                j += 1
            runs.append((i, j + 1))
            i = j + 1
        else:
            i += 1
    return runs


def name_to_pronoun(docs: Sequence[Doc], i: int) -> str | None:
    """Sentence ``i`` with a name (subject, object or possessor) replaced by he / she (him / her,
    his / her), only when that name, or the whole name it ends, is a PERSON already mentioned in
    an earlier sentence of ``docs``, no other PERSON is mentioned up to sentence ``i``, and the
    pronouns of ``docs`` name one gender."""
    doc = docs[i]
    if i == 0 or not parsed(doc):
        return None
    earlier = [p.text for d in docs[:i] for p in _persons(d)]
    if not earlier or not all(_same_person(p, earlier[0]) for p in earlier[1:]):
        return None
    if not all(_same_person(p.text, earlier[0]) for p in _persons(doc)):
        return None
    names = {w for p in earlier for w in (p, p.split()[-1])}
    spans = [(e.start, e.end) for e in _persons(doc)] + _propn_runs(doc)
    found = next(((a, b) for a, b in spans if doc[a:b].text in names), None)
    gender = _gender(docs)
    if found is None or gender is None:
        return None
    start, end = found
    head = doc[start:end].root
    if head.dep_ in _SUBJ:
        word = "he" if gender == "m" else "she"
    elif head.dep_ in ("dobj", "pobj", "dative"):
        word = "him" if gender == "m" else "her"
    elif head.dep_ == "poss" and end < len(doc) and doc[end].text in ("'s", "’s", "'"):
        word, end = ("his" if gender == "m" else "her"), end + 1
    else:
        return None
    return tidy(render(doc, drop=set(range(start + 1, end)), replace={start: word}))


def pronoun_to_name(docs: Sequence[Doc], i: int) -> str | None:
    """Sentence ``i`` with its subject "he" / "she" replaced by the name of the one PERSON of
    sentence ``i - 1`` (when sentence ``i`` names no other person)."""
    if i == 0 or not parsed(docs[i]):
        return None
    doc = docs[i]
    names = {e.text for e in _persons(docs[i - 1])}
    if len(names) != 1:
        return None
    name = names.pop()
    if not all(_same_person(p.text, name) for p in _persons(doc)):
        return None  # "When Bennett returned, he ...": he may be Bennett
    for t in doc:
        if t.lower_ in ("he", "she") and t.dep_ in _SUBJ:
            return tidy(render(doc, replace={t.i: name}))
    return None
