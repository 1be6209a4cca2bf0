"""ALiiCE atomic claims (``semantics="paper"``): the paper's appendix D examples, the appendix C branches and the fallbacks.

The expected claims of appendix D (Figures 6, 7, 9, 10, 12, 13) are compared as exact strings: the
paper's claims are the cleaned words (apostrophes and periods dropped, commas kept) in sentence order,
which is exactly what :func:`atomic_claims` returns. en_core_web_sm 3.8 parses the three sentences
as the paper's figures show (Figure 12's tree text — became:2 ROOT, on:8 prep, 1837:11 under June:10
— matches token for token), and the algorithm gives the paper's six claims, so nothing is pinned
against the paper here.
"""
from __future__ import annotations

import pytest

from functools import partial

from citetrain.text import claims
from citetrain.text.claims import ROOT_CITED, SINGLE_GROUP, TOO_LONG
from citetrain.text.spacy_model import load_spacy

# this file pins the paper's semantics (tests/text/test_claims_authors.py: the released parser's)
atomic_claims = partial(claims.atomic_claims, semantics="paper")
atomic_claims_many = partial(claims.atomic_claims_many, semantics="paper")

GREY = ("In the plane crash on Grey's Anatomy, the characters who die are Dr. Lexie Grey [1][2] "
        "and Dr. Mark Sloan [3][4][5].")
CIGS = ("Some brands, such as Export As, come in packs of 25 [2], while standard packs typically "
        "contain 20 cigarettes [4].")
QUEEN = ("Queen Victoria became Queen of the United Kingdom on 20 June 1837[3], while Queen Anne "
         "became Queen of England, Scotland, and Ireland on 8 March 1702[1].")


def texts(parse) -> list[tuple[tuple[int, ...], str]]:
    return [(c.ids, c.text) for c in parse.claims]


def test_appendix_d_plane_crash_figures_6_7():
    p = atomic_claims(GREY)
    assert p.fallback is None
    assert p.cleaned == ("In the plane crash on Greys Anatomy, the characters who die are "
                         "Dr Lexie Grey and Dr Mark Sloan")
    # Grey is the LCA of Grey and Sloan (conj): for [1][2] LCA = i, Sloan's branch goes (Fig. 6);
    # for [3][4][5] LCA = j, Grey's subtree is replaced by Sloan's (Fig. 7)
    assert texts(p) == [
        ((1, 2), "In the plane crash on Greys Anatomy, the characters who die are Dr Lexie Grey and"),
        ((3, 4, 5), "In the plane crash on Greys Anatomy, the characters who die are Dr Mark Sloan"),
    ]


def test_appendix_d_cigarettes_figures_9_10():
    # LCA "come" is the root; the comma between "in" (prep, T_i) and "contain" (advcl, T_j) is T_c;
    # [2]: T_i first and not introductory -> drop T_j and the comma; [4]: T_i after T_j, T_j is not
    # introductory -> the root becomes T_i
    assert texts(atomic_claims(CIGS)) == [
        ((2,), "Some brands, such as Export As, come in packs of 25"),
        ((4,), "while standard packs typically contain 20 cigarettes"),
    ]


def test_appendix_d_queens_figures_12_13():
    # same shape as the cigarettes: "on" (prep) and "became" (advcl) under the root, comma between
    assert texts(atomic_claims(QUEEN)) == [
        ((3,), "Queen Victoria became Queen of the United Kingdom on 20 June 1837"),
        ((1,), "while Queen Anne became Queen of England, Scotland, and Ireland on 8 March 1702"),
    ]


def test_introductory_phrase_branch():
    # an example sentence of the authors' parser: "In addition to ... articles" is a prep of the
    # root that holds the first word, so for [36] (T_i first, introductory) the root becomes T_i,
    # and for [37] (T_i after the introductory T_j) T_j and the comma are dropped
    p = atomic_claims("In addition to logistic growth in the number of its articles[36], Wikipedia "
                      "has steadily gained status as a general reference website since its "
                      "inception in 2001[37].")
    assert texts(p) == [
        ((36,), "In addition to logistic growth in the number of its articles"),
        ((37,), "Wikipedia has steadily gained status as a general reference website since its "
                "inception in 2001"),
    ]


def test_coordinated_objects_and_cc_between_clauses():
    # the paper's prompt example: glass / plastic are conjuncts (LCA = one of them)
    assert texts(atomic_claims("Cups can be made of glass[1] or plastic[2][3].")) == [
        ((1,), "Cups can be made of glass or"), ((2, 3), "Cups can be made of plastic"),
    ]
    # two clauses joined by "and" (cc, T_c) under the root "released"
    assert texts(atomic_claims("It was released in 2016 [1] and it grossed a lot [2] in Europe.")) == [
        ((1,), "It was released in 2016"), ((2,), "it grossed a lot in Europe"),
    ]


def test_marks_opening_the_sentence_attach_to_the_first_word():
    # [1] attaches to "Paris" (nsubj), [2] to "big" (acomp); LCA "is" is the root, no cc/comma
    # between them -> each claim is its own branch (pinned output of today's parse)
    p = atomic_claims("[1] Paris is big [2] and old.")
    assert p.fallback is None
    assert texts(p) == [((1,), "Paris"), ((2,), "big and old")]


@pytest.mark.parametrize("sentence, reason, text, ids", [
    ("Paris is big [1][2].", SINGLE_GROUP, "Paris is big.", (1, 2)),
    ("Paris [1] is big.", SINGLE_GROUP, "Paris is big.", (1,)),
    # two groups on the same word: nothing to split
    ("Paris [1], [2] is big.", SINGLE_GROUP, "Paris, is big.", (1, 2)),
    # [1] attaches to "is", the root
    ("Paris is [1] big and old [2].", ROOT_CITED, "Paris is big and old.", (1, 2)),
])
def test_sentence_level_fallbacks(sentence, reason, text, ids):
    p = atomic_claims(sentence)
    assert p.fallback == reason
    assert len(p.claims) == 1 and p.claims[0].text == text and p.claims[0].ids == ids


def test_too_long_falls_back():
    words = " ".join(f"w{k}" for k in range(48))
    # 48 + "end" + "there" = 50 words: parsed; one more word: over 50
    assert atomic_claims(f"{words} end [1] there [2].").fallback != TOO_LONG
    p = atomic_claims(f"{words} end [1] there [2] too.")
    assert p.fallback == TOO_LONG and p.claims[0].ids == (1, 2)
    assert atomic_claims("A b c [1] d e [2].", max_words=4).fallback == TOO_LONG


def test_no_marks_no_claims():
    p = atomic_claims("Nothing is cited here.")
    assert p.claims == () and p.fallback is None


def test_words_emptied_by_cleaning_hand_their_group_back():
    # "&" disappears in cleaning ("Cooks use salt pepper"): its group [1] goes to the kept word
    # before it, "salt"; salt and pepper are then parsed as compound + object (pinned output)
    p = atomic_claims("Cooks use salt & [1] pepper [2].")
    assert p.fallback is None and p.cleaned == "Cooks use salt pepper"
    assert texts(p) == [((1,), "Cooks use salt"), ((2,), "Cooks use pepper")]


class CountingNLP:
    """A spaCy pipeline that counts ``pipe`` calls."""

    def __init__(self) -> None:
        self.nlp = load_spacy()
        self.meta = self.nlp.meta
        self.pipe_calls = 0

    def make_doc(self, text):
        return self.nlp.make_doc(text)

    def pipe(self, docs, batch_size=256):
        self.pipe_calls += 1
        return self.nlp.pipe(docs, batch_size=batch_size)


def test_many_parses_once_and_matches_one_by_one():
    nlp = CountingNLP()
    sents = [GREY, "Nothing cited.", CIGS, "Paris is big [1].", QUEEN]
    many = atomic_claims_many(sents, nlp=nlp)
    assert nlp.pipe_calls == 1
    assert [texts(p) for p in many] == [texts(atomic_claims(s)) for s in sents]
    # sentences needing no parse do not call spaCy at all
    nlp.pipe_calls = 0
    atomic_claims_many(["Paris is big [1].", "No marks."], nlp=nlp)
    assert nlp.pipe_calls == 0
