"""The NLI judge is the citeeval metric with its engine; the improvement loop executes edits."""
import pytest

from citetrain.judges.improve import apply_judgement, execute_edits, improve
from citetrain.judges.nli import NLIJudge
from citetrain.metrics.citeeval import citeeval
from citetrain.nli.engine import NLIEngine
from citetrain.text.marks import strip_marks
from tests.builders.hand import EXPECTED, record, table_nli


def _judge():
    return NLIJudge(NLIEngine(table_nli(), progress=False))


def test_nli_judge_equals_the_citeeval_metric_and_its_hand_edits():
    rec = record()
    got = _judge().score([rec], progress=False)
    want = citeeval([rec], NLIEngine(table_nli(), progress=False))
    assert got.result.scores == want.scores
    assert [[list(e) for e in r["edits"]] for r in got.result.per_statement] == [e[3] for e in EXPECTED]
    assert [r["context"] for r in got.result.per_statement] == [e[2] for e in EXPECTED]
    assert got.statements == 4 and got.summary()["statements_per_second"] > 0


def test_execute_edits_by_hand():
    assert execute_edits([1, 1, 9], [("delete-misleading", 1), ("add-evidence", 3),
                                     ("add-evidence", 3), ("add-credibility", 7)], 4) == [3]
    assert execute_edits([2, 3], [("delete-redundant", 4)], 4) == [2, 3]


def test_improvement_executes_the_judges_edits_until_none_remain():
    rec = record()
    once, n = apply_judgement([rec], _judge().score([rec], progress=False).result.per_statement)
    # statement 1: -1 +2 +3; statement 2: -2 -3 +1; statement 3 (model) untouched; 4: -2
    assert once[0].output == ("Pair only is true [2][3]. Two separately is true [1]. "
                              "Nothing is true [4]. Redundant is true [1].")
    assert n == 7 and strip_marks(once[0].output) == strip_marks(rec.output)
    imp = improve(_judge(), [rec], 5, progress=False)
    # step 2: statement 2 now cites [1] alone; doc 4 also supports it -> add-credibility 4
    assert [h["iteration"] for h in imp.history] == [0, 1, 2]  # then nothing is left to edit
    assert [h["edits_executed"] for h in imp.history[:2]] == [7, 1]
    assert "edits_executed" not in imp.history[2] or imp.history[2]["edits_executed"] == 0
    assert imp.history[0]["citeeval_full"] < imp.history[1]["citeeval_full"] < 100.0
    assert imp.history[2]["citeeval_full"] == pytest.approx(100.0)
    assert imp.records[0].output == once[0].output.replace("separately is true [1]",
                                                           "separately is true [1][4]")


def test_improve_rejects_negative_iterations():
    with pytest.raises(ValueError):
        improve(_judge(), [record()], -1)


def test_improve_takes_a_given_first_judgement_instead_of_scoring_again():
    rec = record()
    judge = _judge()
    first = judge.score([rec], progress=False)
    scored = []
    real = judge.score
    judge.score = lambda records, progress=True: scored.append(records) or real(records, progress=progress)
    imp = improve(judge, [rec], 1, progress=False, first=first)
    assert len(scored) == 1 and scored[0][0].output != rec.output  # only iteration 1 was scored
    fresh = improve(_judge(), [rec], 1, progress=False)
    assert imp.history == fresh.history and imp.records == fresh.records
