"""Citation rewards (citetrain/rewards/citation.py) by hand on records written for the test, the
same numbers as the alce metric for the same completion, malformed completions included."""
from __future__ import annotations

import pytest

from citetrain.metrics.alce import alce
from citetrain.nli.registry import make_engine
from citetrain.rewards import CitationRewards

DOCS = ["Paris is the capital of France.", "The Eiffel Tower is 330 metres tall.",
        {"title": "Fruit", "text": "Bananas are yellow."}]
GOOD = "Paris is the capital of France [1]. The Eiffel Tower is 330 metres tall [2]."
OVER = "Paris is the capital of France [1][3]. The Eiffel Tower is 330 metres tall [3]."
OUT_OF_RANGE = "Paris is the capital of France [7]."
COMPLETIONS = [GOOD, OVER, OUT_OF_RANGE, ""]


def rewards() -> CitationRewards:
    return CitationRewards(make_engine("lexical", cache=False, progress=False))


def test_recall_and_precision_by_hand():
    r = rewards()
    docs = [DOCS] * 4
    # GOOD: each sentence entailed by its one citation: recall 1, precision 2/2.
    # OVER: sentence 1 cites [1][3]: the pair entails, [1] alone does, [3] alone does not and the
    # rest ([1]) entails without it -> [3] irrelevant; sentence 2 cites [3] alone, which does not
    # entail -> recall 0 and its citation 0. Recall (1 + 0) / 2, precision 1 / 3.
    # OUT_OF_RANGE: id 7 of 3 passages -> recall 0, no citation counted -> precision 0.
    # "": no sentence -> 0 and 0.
    assert r.recall([""] * 4, COMPLETIONS, docs=docs) == pytest.approx([1.0, 0.5, 0.0, 0.0])
    assert r.precision([""] * 4, COMPLETIONS, docs=docs) == pytest.approx([1.0, 1 / 3, 0.0, 0.0])
    assert r.wellformed([""] * 4, COMPLETIONS, docs=docs) == [1.0, 1.0, 0.0, 0.0]


def test_the_same_numbers_as_the_alce_metric():
    r = rewards()
    recs = r.records(COMPLETIONS, [DOCS] * 4)
    rows = {row["id"]: row for row in alce(recs, make_engine("lexical", cache=False, progress=False)).per_record}
    want_rec = [rows[str(i)]["citation_rec"] if str(i) in rows else 0.0 for i in range(4)]
    want_prec = [rows[str(i)]["citation_prec"] if str(i) in rows else 0.0 for i in range(4)]
    assert r.recall([], COMPLETIONS, docs=[DOCS] * 4) == want_rec
    assert r.precision([], COMPLETIONS, docs=[DOCS] * 4) == want_prec


def test_one_alce_call_per_batch_shared_by_recall_and_precision():
    r = rewards()
    r.recall([], COMPLETIONS, docs=[DOCS] * 4)
    asked = r.engine.stats.requested
    r.precision([], COMPLETIONS, docs=[DOCS] * 4)
    assert r.engine.stats.requested == asked
    r.recall([], COMPLETIONS[:2], docs=[DOCS] * 2)  # another batch: asked again
    assert r.engine.stats.requested > asked


def test_refiner_completions_are_marks_for_the_statement():
    r = rewards()
    statement = ["Paris is the capital of France.", "The Eiffel Tower is 330 metres tall."] * 2
    completions = [" [1]", " [3]", "It is [1]", [{"role": "assistant", "content": "[2]"}]]
    assert r.records(completions, [DOCS] * 4, statement)[0].output == "Paris is the capital of France [1]."
    assert r.recall([], completions, docs=[DOCS] * 4, statement=statement) == [1.0, 0.0, 1.0, 1.0]
    # marks only, in range; "It is [1]" is text, not marks
    assert r.wellformed([], completions, docs=[DOCS] * 4, statement=statement) == [1.0, 1.0, 0.0, 1.0]


def test_preservation_by_hand():
    r = rewards()
    got = r.preservation([], ["Paris is big [2].", "Paris is small [1].", ""],
                         original=["Paris is big [1].", "Paris is big [1].", "Paris is big."])
    # words without marks: identical -> 1; 2 of 3 words shared -> 2 * 2 / 6; nothing -> 0
    assert got == pytest.approx([1.0, 2 / 3, 0.0])


def test_mix_gives_functions_and_weights_for_trl():
    funcs, weights = rewards().mix(recall=1.0, precision=0.5, wellformed=0.25)
    assert [f.__name__ for f in funcs] == ["recall", "precision", "wellformed"]
    assert weights == [1.0, 0.5, 0.25]
    with pytest.raises(ValueError, match="unknown or no reward"):
        rewards().mix(recal=1.0)


def test_an_empty_id_list_is_a_wellformed_refiner_answer():
    r = rewards()
    statement = ["Bananas are blue."] * 3
    got = r.wellformed([], [" []", "[] [2]", "[x]"], docs=[DOCS] * 3, statement=statement)
    assert got == [1.0, 1.0, 0.0]  # "[]" means "no document"; "[x]" is not marks


def test_gold_reward_is_the_f1_of_ids_by_hand():
    r = rewards()
    got = r.gold([], [" [1][3]", " [2]", " []", " []", " [1]", "no marks", "see [1]"],
                 gold=[[1, 2], [2], [], [3], [], [], [1]])
    # [1][3] vs {1,2}: 1 shared -> 2*1/(2+2) = 0.5; exact -> 1; both empty -> 1;
    # nothing predicted for {3} -> 0; [1] where none is right -> 0; text is not marks -> 0,
    # even where its ids would match
    assert got == pytest.approx([0.5, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
