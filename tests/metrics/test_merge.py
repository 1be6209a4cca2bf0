"""A streamed evaluation's sums: every metric scored chunk by chunk and merged
(citetrain.metrics.merge) gives the scores and the info of the metric on all records at once."""
from __future__ import annotations

from pathlib import Path

import pytest

from citetrain.io.readers import read_records
from citetrain.metrics.merge import add_sums, merge_info, partial_sums, scores_from_sums
from citetrain.metrics.registry import METRICS, get_metric
from citetrain.nli.registry import make_engine
from citetrain.synth.records import synth_records
from tests.approx import same

REPO = Path(__file__).resolve().parents[2]


def records():
    """Our examples, synthetic records (gold citations, answers) and one with an empty output."""
    recs = read_records(REPO / "examples" / "predictions.jsonl").records + synth_records(9, seed=4)
    return recs + [recs[0].model_copy(update={"id": "empty", "output": ""})]


CASES = [(name, {}) for name in METRICS] + [("aliice", {"semantics": "paper"}),
                                             ("citeeval", {"scenario": "full"})]




@pytest.mark.parametrize("name, options", CASES, ids=[f"{n}{'-' + str(o) if o else ''}" for n, o in CASES])
def test_chunks_merged_equal_the_whole(name, options):
    recs = records()
    metric = get_metric(name)
    whole = metric(recs, make_engine("lexical", cache=False, progress=False), **options)
    total, info = None, None
    for i in range(0, len(recs), 3):
        part = metric(recs[i:i + 3], make_engine("lexical", cache=False, progress=False), **options)
        total = add_sums(total, partial_sums(name, part))
        info = part.info if info is None else merge_info(info, part.info)
    assert same(scores_from_sums(total), whole.scores), (scores_from_sums(total), whole.scores)
    assert same(info, whole.info)


def test_sums_by_hand():
    total = add_sums({"spec": {"r": ["mean", "r"], "q": ["ratio", "a", "b"], "f": ["f1", "r", "q"]},
                      "sums": {"n:r": 2, "s:r": 1.5, "i:a": 1, "i:b": 4}},
                     {"spec": {"r": ["mean", "r"], "q": ["ratio", "a", "b"], "f": ["f1", "r", "q"]},
                      "sums": {"n:r": 1, "s:r": 0.0, "i:a": 2, "i:b": 2}})
    got = scores_from_sums(total)
    assert got["r"] == pytest.approx(50.0) and got["q"] == pytest.approx(50.0)  # 1.5/3, 3/6
    assert got["f"] == pytest.approx(50.0)
    assert merge_info({"records": 2, "nli": "x", "at_most_citations": 3, "ids": ["a"], "c": {"k": 1}},
                      {"records": 5, "nli": "x", "at_most_citations": 3, "ids": ["b"], "c": {"k": 2, "j": 1}}) == {
        "records": 7, "nli": "x", "at_most_citations": 3, "ids": ["a", "b"], "c": {"k": 3, "j": 1}}
