"""SelfCite preference pairs (citetrain/rewards/selfcite_pairs.py): per statement the best and
the worst candidate citation set by the context-ablation reward, as DPO rows; on a scorer that
copies from its context the chosen set is the passage that holds the statement's words."""
from __future__ import annotations

import random

import pytest

from citetrain.rewards.selfcite_pairs import candidate_sets, selfcite_pairs
from citetrain.errors import CitetrainError
from citetrain.records import Record
from citetrain.rewards.selfcite import SelfCiteReward
from citetrain.text.prompts import refiner_prompt
from tests.rewards.selfcite_models import DOCS, QUESTION, STATEMENT, copy_lm, tokenizer


def example(rec: Record, unit: str = "statement 0") -> dict:
    return {"id": rec.id, "unit": unit, "prompt": refiner_prompt(rec.question, rec.docs, rec.output),
            "completion": " [2]"}


def test_candidate_sets_are_distinct_in_range_given_first():
    sets = candidate_sets((1,), [" [3][9]", "not ids", " [1]", " [2][3][1][4]"], 4, 6,
                          random.Random(0), max_ids=2)
    assert sets[:3] == [(1,), (3,), (2, 3)] and len(sets) == 6 and len(set(sets)) == 6
    assert all(1 <= k <= 4 and len(s) <= 2 for s in sets for k in s)
    assert candidate_sets((), [], 1, 8, random.Random(0)) == [(), (1,)]  # only 2 sets exist


def test_pairs_choose_the_supporting_passage_over_the_worst():
    tok = tokenizer()
    rec = Record(id="r1", question=QUESTION, docs=DOCS, output=f"{STATEMENT[:-1]} [1].")
    rows, skipped = selfcite_pairs([example(rec)], {rec.id: rec},
                                   SelfCiteReward(copy_lm(len(tok)), tok), n=4, seed=0,
                                   sampled=[[" [2]", " [3]"]], max_ids=1)
    assert skipped == 0 and len(rows) == 1
    row = rows[0]
    assert set(row) == {"id", "unit", "prompt", "chosen", "rejected"}
    assert row["chosen"] == " [2]" and "2" not in row["rejected"] and row["rejected"].startswith(" [")


def test_ties_and_bad_units():
    tok = tokenizer()
    rec = Record(id="r1", question=QUESTION, docs=DOCS, output=f"{STATEMENT[:-1]} [1].")

    class Flat(SelfCiteReward):
        def case_rewards(self, cases):
            return [0.0] * len(cases)

    rows, skipped = selfcite_pairs([example(rec)], {rec.id: rec}, Flat(None, tok))
    assert rows == [] and skipped == 1
    with pytest.raises(CitetrainError, match="unit 'response'"):
        selfcite_pairs([example(rec, "response")], {rec.id: rec}, Flat(None, tok))
    with pytest.raises(CitetrainError, match="no record with this id"):
        selfcite_pairs([example(rec)], {}, Flat(None, tok))
