"""The GRPO / DPO sets made from built refiner and generator examples
(citetrain/rewards/preference.py), on records written for the test."""
from __future__ import annotations

import pytest

from citetrain.rewards.preference import preference_pairs, ranked_pair, reward_columns
from citetrain.errors import CitetrainError
from citetrain.records import Doc, Record

REC = Record(id="r1", question="Where is Paris?",
             docs=[Doc(title="A", text="Paris is in France."), Doc(title="B", text="It is big."),
                   Doc(title="C", text="Bananas are yellow.")],
             output="Paris is in France [2]. Bananas are yellow [3].")
RECORDS = {"r1": REC}
REFINER = [{"id": "r1", "unit": "statement 0", "prompt": "P0", "completion": " [1]"},
           {"id": "r1", "unit": "statement 1", "prompt": "P1", "completion": " [3]"}]


def test_reward_columns_carry_docs_statement_and_gold():
    rows = reward_columns(REFINER, RECORDS, "refiner")
    assert rows[0]["docs"] == [{"title": "A", "text": "Paris is in France."},
                               {"title": "B", "text": "It is big."},
                               {"title": "C", "text": "Bananas are yellow."}]
    assert [r["statement"] for r in rows] == ["Paris is in France.", "Bananas are yellow."]
    assert [r["gold"] for r in rows] == [[1], [3]]
    kept = reward_columns([{**REFINER[0], "original": "Paris is in France [2]."}], RECORDS, "refiner")
    assert kept[0]["original"] == "Paris is in France [2]."  # for the preservation reward
    gen = reward_columns([{"id": "r1", "unit": "response", "prompt": "P", "completion": " x"}],
                         RECORDS, "generator")
    assert set(gen[0]) == {"id", "unit", "prompt", "docs"}


def test_reward_columns_refuse_unknown_ids_and_whole_response_units():
    with pytest.raises(CitetrainError, match="no record with this id"):
        reward_columns([{**REFINER[0], "id": "zz"}], RECORDS, "refiner")
    with pytest.raises(CitetrainError, match="per-statement examples"):
        reward_columns([{**REFINER[0], "unit": "response"}], RECORDS, "refiner")
    with pytest.raises(CitetrainError, match="has 2 statements"):
        reward_columns([{**REFINER[0], "unit": "statement 5"}], RECORDS, "refiner")


def test_perturbed_rejections_differ_from_gold_and_repeat_by_seed():
    rows, skipped = preference_pairs(REFINER, RECORDS, "refiner", "perturbed", seed=0)
    assert skipped == 0 and [r["chosen"] for r in rows] == [" [1]", " [3]"]
    for r in rows:  # one id dropped ("[]") or one uncited id added
        gold = {int(r["chosen"].strip()[1:-1])}
        ids = {int(k) for k in r["rejected"].replace("[", " ").replace("]", " ").split()}
        assert ids != gold and (not ids or ids > gold and len(ids) == 2)
    assert preference_pairs(REFINER, RECORDS, "refiner", "perturbed", seed=0)[0] == rows
    seeds = {tuple(r["rejected"] for r in preference_pairs(REFINER, RECORDS, "refiner",
                                                           "perturbed", seed=s)[0])
             for s in range(8)}
    assert len(seeds) > 1  # the seed changes them


def test_original_rejections_are_the_records_citations():
    rows, _ = preference_pairs(REFINER, RECORDS, "refiner", "original", seed=0)
    # statement 0 was cited [2] (gold [1]): rejected is the original; statement 1 was cited [3],
    # the same as its gold: perturbed instead
    assert rows[0]["rejected"] == " [2]"
    assert rows[1]["rejected"] != " [3]"
    with pytest.raises(CitetrainError, match="generator set has none"):
        preference_pairs(REFINER, RECORDS, "generator", "original")


def test_generator_rejections_perturb_each_sentence():
    ex = [{"id": "r1", "unit": "response", "prompt": "P",
           "completion": " Paris is in France [1]. Bananas are yellow [3]."}]
    rows, _ = preference_pairs(ex, RECORDS, "generator", "perturbed", seed=3)
    rejected = rows[0]["rejected"]
    assert rejected.startswith(" Paris is in France") and "Bananas are yellow" in rejected
    assert rejected != ex[0]["completion"]


def test_a_single_passage_is_rejected_as_no_citation_and_no_passage_is_left_out():
    one = Record(id="o", question="q", docs=[Doc(text="Paris is in France.")],
                 output="Paris is in France [1].")
    ex = {"id": "o", "unit": "statement 0", "prompt": "P", "completion": " [1]"}
    rows, skipped = preference_pairs([ex], {"o": one}, "refiner", "perturbed", seed=0)
    assert rows[0]["rejected"] == " []" and skipped == 0  # the only move: drop [1]
    none = one.model_copy(update={"docs": []})
    rows, skipped = preference_pairs([{**ex, "completion": " []"}], {"o": none}, "refiner")
    assert rows == [] and skipped == 1  # no passage to add, nothing to drop


def test_ranked_pair_takes_the_best_and_the_worst():
    assert ranked_pair("P", ["a", "b", "c"], [0.2, 0.9, 0.1]) == {
        "prompt": "P", "chosen": "b", "rejected": "c"}
    assert ranked_pair("P", ["a", "b"], [0.5, 0.5]) is None
