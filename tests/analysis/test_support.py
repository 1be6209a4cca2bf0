"""Gold targets, contexts and silver edit labels of hand-built statements under a scripted NLI."""
import pytest

from citetrain.analysis.support import analyse, analyses_of, analysis_row, is_empty_statement
from citetrain.analysis.editdist import PUBLISHED_WEIGHTS, editdist_score
from citetrain.nli.engine import NLIEngine

from tests.builders.hand import EXPECTED, record, table_nli


@pytest.mark.parametrize("exhaustive", [False, True])
def test_gold_subsets_contexts_and_edits(exhaustive):
    stmts = analyses_of(record())
    analyse(stmts, NLIEngine(table_nli(), progress=False), max_size=3, exhaustive=exhaustive)
    rows = [analysis_row(s) for s in stmts]
    for row, (gold, support, context, edits) in zip(rows, EXPECTED):
        assert row["gold"] == gold, row["text"]
        assert row["support"] == support, row["text"]
        assert row["context"] == context, row["text"]
        assert row["edits"] == edits, row["text"]
    # the redundant statement: C = {1, 2} entails, and so does {1} without 2
    assert rows[3]["joint"] is True and rows[3]["loo"] == {"1": False, "2": True}
    # EDITDIST follows from the edits; the model-context statement is not rated
    assert rows[0]["rating"] == pytest.approx(editdist_score(
        [1], [(a, c) for a, c in stmts[0].edits], PUBLISHED_WEIGHTS))
    assert rows[2]["rating"] is None


def test_pruned_spends_fewer_calls():
    calls = {}
    for exhaustive in (False, True):
        stmts = analyses_of(record())
        analyse(stmts, NLIEngine(table_nli(), progress=False), exhaustive=exhaustive)
        calls[exhaustive] = [s.search.calls for s in stmts]
    # 4 docs, k = 3: exhaustive asks 4 + 6 + 4 = 14 subsets and the union of all 4 docs
    assert calls[True] == [15] * 4
    # pair only: 4 singles, union, 4 leave-one-out, then the pairs inside no failing set
    assert calls[False][2] == 5  # nothing: 4 singles + the union of the 4 (fails) -> stop
    assert calls[False][1] == 5  # docs 1 and 4 alone: the union of {2, 3} fails -> stop
    assert all(p < e for p, e in zip(calls[False], calls[True]))


def test_empty_statement():
    assert is_empty_statement(".") and is_empty_statement("") and not is_empty_statement("A.")
