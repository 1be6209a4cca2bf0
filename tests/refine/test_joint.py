"""The joint refiner on hand-written passages, with a support scorer whose values are computed by
hand: f(premise, statement) = the share of the statement's words found in the premise."""
import pytest

from citetrain.records import Doc, Record, format_doc
from citetrain.refine.joint import JointOptions, candidate_ids, joint_refine
from citetrain.refine.pairs import pair_refine
from citetrain.text.marks import strip_marks
from citetrain.text.statements import statements


class Share:
    """f = |words(statement) ∩ words(premise)| / |words(statement)|, recording every pair asked."""

    def __init__(self):
        self.asked = []

    def __call__(self, pairs):
        self.asked += pairs
        out = []
        for premise, hyp in pairs:
            h = set(hyp.lower().strip(".").split())
            p = set(premise.lower().replace(".", " ").split())
            out.append(len(h & p) / len(h))
        return out


def record(output, texts):
    return Record(id="r", question="q", docs=[Doc(text=t) for t in texts], output=output)


def cited(rec):
    return [list(st.citations) for st in statements(rec.output, first_line_only=False)]


def test_a_statement_no_single_passage_supports_gets_the_set():
    # alone each passage scores 1/3 < 0.5; round 1: ties at 1/3 -> id 1; round 2: {1,2} and {1,3}
    # at 2/3 -> id 2; round 3: {1,2,3} at 1 >= stop
    rec = record("alpha bravo charlie.", ["alpha", "bravo", "charlie", "delta"])
    refined, counts = joint_refine([rec], Share())
    assert cited(refined[0]) == [[1, 2, 3]]
    single, _ = pair_refine([rec], Share(), threshold=0.5)
    assert cited(single[0]) == [[]]
    assert counts["statements"] == 1 and counts["ids"] == 3


def test_asks_only_the_candidates_whatever_the_number_of_passages():
    texts = ["alpha bravo", "charlie"] + [f"filler{i}" for i in range(118)]
    rec = record("alpha bravo charlie.", texts)
    share = Share()
    refined, _ = joint_refine([rec], share)
    assert cited(refined[0]) == [[1, 2]]
    # candidates: 1 (2 words shared) and 2 (1 word); round 1 asks {1} and {2}; round 2 asks {1,2}
    d1, d2 = (format_doc(d) for d in rec.docs[:2])
    assert sorted(p for p, _ in share.asked) == sorted([d1, d2, f"{d1}\n{d2}"])


def test_candidate_ids_rank_by_shared_words_then_id():
    s = {"alpha", "bravo", "charlie"}
    assert candidate_ids(s, [{"alpha"}, {"zulu"}, {"alpha", "bravo"}, {"charlie"}], 2) == [3, 1]


def test_given_citations_are_kept_when_they_support_as_well():
    # the search finds {1} (score 1.0); the given {2,3} also scores 1.0 >= 1.0 - 0.05: kept
    rec = record("alpha bravo [2][3].", ["alpha bravo", "alpha", "bravo"])
    refined, _ = joint_refine([rec], Share())
    assert cited(refined[0]) == [[2, 3]]
    refined, _ = joint_refine([rec], Share(), JointOptions(use_given=False))
    assert cited(refined[0]) == [[1]]


def test_wrong_given_citations_are_replaced():
    rec = record("alpha bravo [2].", ["alpha bravo", "delta", "echo"])
    refined, _ = joint_refine([rec], Share())
    assert cited(refined[0]) == [[1]]


def test_below_threshold_cites_nothing_and_text_is_kept():
    out = "alpha bravo charlie delta [1]. Echo foxtrot [9]."
    rec = record(out, ["alpha", "echo foxtrot"])
    refined, counts = joint_refine([rec], Share())
    # statement 1: best set {1} scores 1/4 < 0.5; statement 2: {2} scores 1.0 (the given [9] is
    # out of range and ignored)
    assert cited(refined[0]) == [[], [2]]
    assert strip_marks(refined[0].output) == strip_marks(out)


def test_max_ids_and_min_gain_stop_the_search():
    rec = record("alpha bravo charlie delta.", ["alpha", "bravo", "charlie", "delta"])
    refined, _ = joint_refine([rec], Share(), JointOptions(max_ids=2, threshold=0.5))
    assert cited(refined[0]) == [[1, 2]]
    # each passage adds 0.25 < min_gain 0.3: the search stops at {1}, below the threshold
    refined, _ = joint_refine([rec], Share(), JointOptions(min_gain=0.3))
    assert cited(refined[0]) == [[]]


@pytest.mark.parametrize("bad", [dict(candidates=0), dict(min_gain=1.5), dict(threshold=-0.1)])
def test_bad_options_are_refused(bad):
    with pytest.raises(ValueError):
        JointOptions(**bad)
