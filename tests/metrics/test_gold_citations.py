"""gold_citations: the cited ids of each statement against its reference ids, scored by hand."""
import pytest

from citetrain.errors import CitetrainError
from citetrain.metrics.gold_citations import gold_citations
from citetrain.metrics.registry import get_metric
from citetrain.records import Doc, Record


def rec(rid, output, gold, n_docs=3):
    extra = {} if gold is None else {"gold": gold}
    return Record(id=rid, question="q", docs=[Doc(text=f"passage {i}") for i in range(n_docs)],
                  output=output, **extra)


RECORDS = [
    # statement 0 cites {1, 2}, reference {1}: 1 right of 2 cited, 1 of 1 found, not exact
    # statement 1 cites {3}, reference {2, 3}: 1 right of 1 cited, 1 of 2 found, not exact
    # statement 2 cites {1}, reference {}: left out of every score, counted as empty gold
    rec("a", "Alpha grows wheat [1][2]. Beta sells bread [3]. Gamma bakes cakes [1].",
        [[1], [2, 3], []]),
    # cites {2} twice, reference {2}: 1 right of 1 cited, 1 of 1 found, exact
    rec("b", "Delta makes flour [2][2].", [[2]]),
    # cites nothing, reference {1}: 0 cited, 0 of 1 found, not exact
    rec("c", "Epsilon grinds corn.", [[1]]),
]


def test_hand_computed_scores():
    res = gold_citations(RECORDS)
    # tp = 1 + 1 + 1 + 0 = 3; cited = 2 + 1 + 1 + 0 = 4; reference = 1 + 2 + 1 + 1 = 5
    # P = 3/4 = 75.0; R = 3/5 = 60.0; F1 = 2 * 75 * 60 / 135 = 66.67
    # exact: statements with a reference are a0, a1, b0, c0; only b0 is exact: 1/4 = 25.0
    assert res.scores["gold_prec"] == pytest.approx(75.0)
    assert res.scores["gold_rec"] == pytest.approx(60.0)
    assert res.scores["gold_f1"] == pytest.approx(200 / 3)
    assert res.scores["gold_exact"] == pytest.approx(25.0)
    assert res.info["statements"] == 4 and res.info["records"] == 3
    assert res.info["empty_gold_statements"] == 1 and res.info["empty_gold_cited"] == 1
    rows = {(r["id"], r["statement"]): r for r in res.per_statement}
    assert rows["a", 2]["exact"] is None and rows["b", 0]["exact"] is True
    assert rows["a", 1] == {"id": "a", "statement": 1, "cited": [3], "gold": [2, 3], "tp": 1,
                            "exact": False}


def test_registered_and_takes_an_unused_engine():
    assert get_metric("gold_citations") is gold_citations
    assert gold_citations(RECORDS, None).scores == gold_citations(RECORDS).scores


def test_records_that_cannot_be_scored_are_left_out_and_counted():
    res = gold_citations([
        rec("nogold", "Alpha grows wheat [1].", None),
        rec("short", "Alpha grows wheat [1]. Beta sells bread [2].", [[1]]),
        rec("empty", "", []),
        rec("ok", "Alpha grows wheat [1].", [[1]]),
    ])
    assert res.scores == {"gold_prec": 100.0, "gold_rec": 100.0, "gold_f1": 100.0,
                          "gold_exact": 100.0}
    assert res.info["skipped_no_gold_ids"] == ["nogold"]
    assert res.info["skipped_misaligned_ids"] == ["short"]
    assert res.info["skipped_empty_output_ids"] == ["empty"]


def test_nothing_cited_scores_zero_not_an_error():
    res = gold_citations([rec("x", "Alpha grows wheat.", [[1]])])
    assert res.scores == {"gold_prec": 0.0, "gold_rec": 0.0, "gold_f1": 0.0, "gold_exact": 0.0}


@pytest.mark.parametrize("gold", [[1, 2], "1", [["1"]], [[True]]])
def test_a_gold_that_is_not_id_lists_is_one_line(gold):
    with pytest.raises(CitetrainError, match="record x: field 'gold' must be a list of 1-based id"):
        gold_citations([rec("x", "Alpha grows wheat [1].", gold)])
