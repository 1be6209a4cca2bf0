"""``bench/judge_throughput.py``'s ``pair_kinds``: each premise the judge reads, sorted by the round
that asks it."""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import judge_throughput as jt  # noqa: E402

from citetrain.analysis.support import analyses_of  # noqa: E402
from citetrain.records import Doc, Record, join_docs  # noqa: E402


def test_pair_kinds_by_premise() -> None:
    docs = [Doc(title=f"T{i}", text=f"Passage number {i} says something.") for i in range(1, 7)]
    rec = Record(id="r", question="What do the passages say?", docs=docs,
                 output="They say one thing [1]. They say another [2].")
    earlier = str(analyses_of(rec)[1].earlier)
    assert earlier  # the second statement is read against the first
    s = "They say another."
    pairs = [(join_docs(docs, (1,)), s), (join_docs(docs, (4,)), s),     # one passage, twice
             (join_docs(docs, (1, 2, 3, 4, 5, 6)), s),                    # all passages
             (join_docs(docs, (1, 2, 3, 4, 6)), s),                       # all but one
             (join_docs(docs, (2, 5)), s),                                # 2 passages
             (join_docs(docs, (1, 2, 4)), s), (join_docs(docs, (3, 5, 6)), s),  # 3 passages
             (join_docs(docs, (1, 2, 3, 4)), s),                          # more passages
             (rec.question, s), (earlier, s)]
    assert jt.pair_kinds([rec], pairs) == {
        "one passage": 2, "3 passages": 2, "all passages": 1, "all but one": 1, "2 passages": 1,
        "more passages": 1, "question": 1, "earlier statements": 1}


def test_pair_kinds_of_two_passages_reads_their_union_as_all() -> None:
    docs = [Doc(title="A", text="Alpha is first."), Doc(title="B", text="Beta is second.")]
    rec = Record(id="r", question="Q?", docs=docs, output="Alpha is first [1].")
    pairs = [(join_docs(docs, (1, 2)), "Alpha is first."), (join_docs(docs, (2,)), "Alpha is first.")]
    assert jt.pair_kinds([rec], pairs) == {"all passages": 1, "one passage": 1}
