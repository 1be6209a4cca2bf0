"""The pairs builder's transformations, one label rule at a time, on hand-written sentences."""
from __future__ import annotations

import random
import re

import pytest

from citetrain.builders import perturb as P
from citetrain.builders import rephrase as R
from citetrain.builders import transforms as T
from citetrain.builders.pool import SentencePool
from citetrain.builders.spec import TRANSFORMS as SPEC_TRANSFORMS


@pytest.fixture(scope="module")
def nlp():
    from citetrain.text.spacy_model import load_spacy

    return load_spacy(disable=())


def window(nlp, *sentences, others=None, passage=0):
    docs = list(nlp.pipe(sentences))
    return T.Window(docs, docs, others, passage)


def test_labels_and_docstring_rules():
    assert T.LABELS == {"copy": 2, "drop_modifiers": 2, "merge": 2, "reorder": 2, "pronoun": 2,
                        "swap_entity": 0, "negate": 0, "swap_roles": 0, "other_passage": 0,
                        "unrelated": 0, "add_fact": 1, "alter_one": 1}
    assert tuple(T.TRANSFORMS) == SPEC_TRANSFORMS
    rules = dict(re.findall(r"^- ``(\w+)`` \((\d)\):", T.__doc__, re.M))
    assert {k: int(v) for k, v in rules.items()} == T.LABELS


# -- negate (0) ---------------------------------------------------------------------------

@pytest.mark.parametrize("sentence, negated", [
    ("She moved to Paris in 1998.", "She did not move to Paris in 1998."),
    ("The council opens the market every Monday.",
     "The council does not open the market every Monday."),
    ("Kowal has published the results.", "Kowal has not published the results."),
    ("The bridge was built by the Romans.", "The bridge was not built by the Romans."),
    ("The bridge is old and narrow.", "The bridge is not old and narrow."),
    ("She never moved to Paris in 1998.", "She moved to Paris in 1998."),
    ("He didn't move to Oslo.", "He did move to Oslo."),
    ("She can't swim in the lake.", "She can swim in the lake."),
])
def test_negation_added_or_removed(nlp, sentence, negated):
    assert P.negated(nlp(sentence)) == negated


def test_negation_with_never_and_refusals(nlp):
    assert P.negated(nlp("She moved to Paris in 1998."), "never") == "She never moved to Paris in 1998."
    assert P.negated(nlp("Kowal has published the results."), "never") == \
        "Kowal has never published the results."
    assert P.negated(nlp("The council may close the market.")) is None  # weak modal
    assert P.negated(nlp("Did she move to Paris?")) is None
    assert P.negated(nlp("Nobody moved to Paris in 1998.")) is None


def test_negate_transform_prefers_claims_without_new_words(nlp):
    win = window(nlp, "Kowal moved to Brenfield in 1998.", "The town is small and quiet.")
    claims = {T.negate(win, random.Random(s)) for s in range(8)}
    assert claims <= {"The town is not small and quiet.", "The town is never small and quiet."}


# -- swap_entity (0) ----------------------------------------------------------------------

def test_swapped_date_comes_from_the_same_passage(nlp):
    win = window(nlp, "Kowal moved to Brenfield in 1998.", "She opened a chemistry school in 2003.")
    for seed in range(6):
        claim = T.swap_entity(win, random.Random(seed))
        assert claim in {"Kowal moved to Brenfield in 2003.",
                         "She opened a chemistry school in 1998."}


def test_number_perturbed_only_to_a_value_absent_from_the_window(nlp):
    doc = nlp("The club owns 3 boats on the lake.")
    for seed in range(10):
        claim = P.swap_entity(doc, [{}], doc.text, random.Random(seed))
        n = int(re.search(r"\d+", claim).group())
        assert n != 3 and 1 <= n <= 12 and claim == f"The club owns {n} boats on the lake."
    crowded = doc.text + " " + " ".join(str(k) for k in range(1, 13))
    assert P.swap_entity(doc, [{}], crowded, random.Random(0)) is None
    rng = random.Random(0)
    years = {int(P.new_number("1998", rng)) for _ in range(30)}
    assert 1998 not in years and all(1989 <= y <= 2007 for y in years)
    assert P.new_number("12,000", random.Random(1)).count(",") == 1


def test_entity_never_replaced_by_its_own_substring(nlp):
    win = window(nlp, "Marta Kowal founded a school in Brenfield.", "Kowal retired in 2015.")
    for seed in range(6):
        claim = T.swap_entity(win, random.Random(seed))
        assert claim is None or "Marta Kowal retired" not in claim


# -- swap_roles (0) -----------------------------------------------------------------------

def test_roles_swapped_between_two_named_parties(nlp):
    doc = nlp("The Brenfield Council defeated the Harbor Party in the 2004 election.")
    assert P.swap_roles(doc, random.Random(0)) == \
        "The Harbor Party defeated the Brenfield Council in the 2004 election."
    doc = nlp("The Corvel Company sold the railway to the Halsey Trust in 1962.")
    assert P.swap_roles(doc, random.Random(0)) == \
        "The Halsey Trust sold the railway to the Corvel Company in 1962."


def test_roles_not_swapped_for_symmetric_verbs_or_common_nouns(nlp):
    assert P.swap_roles(nlp("Tomas Brandt married Elena Marsh in 1990."), random.Random(0)) is None
    assert P.swap_roles(nlp("The farmer sold the horse in 1990."), random.Random(0)) is None


# -- drop_modifiers / reorder / merge / copy (2) -------------------------------------------

def test_drop_modifiers_keeps_the_core_and_meaningful_modifiers(nlp):
    doc = nlp("Kowal, a chemist from Lodz, founded a small school in Brenfield in 1998.")
    words = set(doc.text.replace(",", " ").replace(".", " ").split())
    claims = {R.dropped_modifiers(doc, random.Random(s)) for s in range(10)}
    assert "Kowal founded a school in Brenfield in 1998." in claims  # apposition, adjective
    for c in claims:
        assert c.startswith("Kowal") and "founded" in c
        assert set(c[:-1].replace(",", " ").split()) <= words
    for s in range(10):
        assert "former" in R.dropped_modifiers(
            nlp("The former mayor opened the new library in 2004."), random.Random(s))
        got = R.dropped_modifiers(nlp("If it rains, the old market closes early."),
                                  random.Random(s))
        assert got is None or got.startswith("If it rains")


def test_articles_follow_the_dropped_adjective(nlp):
    doc = nlp("The Haves is an American crime drama.")
    assert R.dropped_modifiers(doc, random.Random(0)) == "The Haves is a crime drama."


def test_reorder(nlp):
    assert R.fronted_to_end(nlp("In 1998, Kowal moved to Brenfield.")) == \
        "Kowal moved to Brenfield in 1998."
    assert R.fronted_to_end(nlp("Because the river flooded, the old mill closed.")) == \
        "The old mill closed because the river flooded."
    assert R.fronted_to_end(nlp("Originally built in 1890, the mill closed in 1962.")) is None
    assert R.swapped_clauses(nlp("Kowal taught chemistry, and Brandt taught sailing.")) == \
        "Brandt taught sailing, and Kowal taught chemistry."
    assert R.swapped_clauses(nlp("The council won the vote, and the mayor resigned two weeks "
                                 "later.")) is None  # ordered in time


def test_merge_and_copy(nlp):
    win = window(nlp, "Kowal moved to Brenfield in 1998.", "She founded a school there.")
    assert T.merge(win, random.Random(0)) in {
        "Kowal moved to Brenfield in 1998, and she founded a school there.",
        "Kowal moved to Brenfield in 1998; she founded a school there."}
    assert T.copy(win, random.Random(0)) in win.texts
    assert T.check("copy", win.texts[0], win) is None
    assert T.check("merge", win.texts[0].lower(), win) == "same as a window sentence"
    assert T.check("merge", "She founded it.", win) == "too short"


# -- pronoun (2) --------------------------------------------------------------------------

def test_name_becomes_a_pronoun_only_when_mentioned_earlier(nlp):
    docs = list(nlp.pipe(["Elena Marsh studied physics in Gravenholm.",
                          "Marsh published her results in 2007."]))
    assert R.name_to_pronoun(docs, 1) == "She published her results in 2007."
    assert R.name_to_pronoun(docs, 0) is None
    docs = list(nlp.pipe(["The institute hired a new director.",
                          "Marsh published her results in 2007."]))
    assert R.name_to_pronoun(docs, 1) is None  # not mentioned before
    docs = list(nlp.pipe(["Elena Marsh studied physics with his brother.",
                          "Marsh published her results in 2007."]))
    assert R.name_to_pronoun(docs, 1) is None  # he and she: gender unknown


def test_pronoun_becomes_the_only_name_of_the_sentence_before(nlp):
    docs = list(nlp.pipe(["Elena Marsh studied physics in Gravenholm.",
                          "She published her results in 2007."]))
    assert R.pronoun_to_name(docs, 1) == "Elena Marsh published her results in 2007."
    docs = list(nlp.pipe(["Elena Marsh met Tomas Brandt in Gravenholm.",
                          "She published her results in 2007."]))
    assert R.pronoun_to_name(docs, 1) is None  # two people: ambiguous
    docs = list(nlp.pipe(["Elena Marsh studied physics in Gravenholm.",
                          "When Tomas Brandt arrived, she published her results."]))
    assert R.pronoun_to_name(docs, 1) is None  # "she" after another person


# -- other passages: other_passage, unrelated (0), add_fact (1) ----------------------------

def pool():
    return SentencePool([
        ["Kowal moved to Brenfield in 1998.", "She founded a chemistry school there."],
        ["The Brenfield chemistry school closed in 2019 after a fire.", "Kowal moved to Brenfield."],
        ["Snow covers the peak of Mount Ferro for seven months a year."],
    ], ["a", "b", "c"])


def test_other_passage_is_the_most_related_sentence_the_window_lacks(nlp):
    win = window(nlp, "Kowal moved to Brenfield in 1998.", "She founded a chemistry school there.",
                 others=pool())
    # "Kowal moved to Brenfield." shares more words but has recall 1: skipped
    assert T.other_passage(win, random.Random(0)) == \
        "The Brenfield chemistry school closed in 2019 after a fire."
    assert T.recall("Kowal moved to Brenfield.", {"kowal", "move", "brenfield"}) == 1.0
    other = window(nlp, "Kowal moved to Brenfield in 1998.", others=pool())
    got = T.unrelated(other, random.Random(3))
    assert got in {"The Brenfield chemistry school closed in 2019 after a fire.",
                   "Snow covers the peak of Mount Ferro for seven months a year."}


def test_add_fact_joins_a_window_sentence_with_a_missing_fact(nlp):
    win = window(nlp, "Kowal moved to Brenfield in 1998.", others=pool())
    claim = T.add_fact(win, random.Random(0))
    assert claim.startswith("Kowal moved to Brenfield in 1998")
    assert "closed in 2019" in claim or "Mount Ferro" in claim


def test_alter_one_merges_one_kept_and_one_altered_sentence(nlp):
    win = window(nlp, "Kowal moved to Brenfield in 1998.", "She opened a chemistry school in 2003.")
    for seed in range(6):
        claim = T.alter_one(win, random.Random(seed))
        a, b = "Kowal moved to Brenfield in 1998", "she opened a chemistry school in 2003"
        assert (a in claim) != (b in claim), claim  # exactly one part kept as it was
        assert T.check("alter_one", claim, win) is None


def test_apply_reports_why_a_candidate_is_refused(nlp):
    win = window(nlp, "Kowal moved to Brenfield in 1998.")
    assert T.apply("pronoun", win, random.Random(0)) == (None, "does not apply")
    assert T.apply("other_passage", win, random.Random(0)) == (None, "no other passages")
    claim, why = T.apply("negate", win, random.Random(0))
    assert why is None and claim == "Kowal did not move to Brenfield in 1998."
    assert T.apply("copy", T.Window(win.docs, min_words=7), random.Random(0)) == \
        (None, "does not apply")  # 6 words
