"""Prompt / completion pairs of the three training sets."""
from collections import Counter

from citetrain.analysis.support import analyse, analyses_of, analysis_row
from citetrain.builders.sets import (
    generator_examples, judge_examples, likert, perturb, refiner_examples, split_of,
    unit_rng,
)
from citetrain.analysis.editdist import Action
from citetrain.metrics.itercoe import parse_itercoe
from citetrain.nli.engine import NLIEngine
from citetrain.text import prompts as P
from citetrain.text.marks import attach_marks

from .hand import EXPECTED, record, table_nli


def rows_of(rec):
    stmts = analyses_of(rec)
    analyse(stmts, NLIEngine(table_nli(), progress=False))
    return [analysis_row(s) for s in stmts]


def test_refiner_per_statement_keeps_original_citations_and_targets_gold():
    rec = record()
    exs, dropped = refiner_examples(rec, rows_of(rec))
    assert not +dropped
    assert [e["completion"] for e in exs] == [" [2][3]", " [1][4]", " []", " [1][2][3]"]
    assert "Statement: Pair only is true [1].\nCitations:" in exs[0]["prompt"]
    assert "Document [3](Title: c): Gamma fact." in exs[0]["prompt"]
    assert P.parse_ids(exs[0]["completion"]) == [2, 3] and P.parse_ids("[]") == []


def test_refiner_per_response():
    rec = record()
    (ex,), _ = refiner_examples(rec, rows_of(rec), unit="response")
    assert ex["completion"] == "\n1: [2][3]\n2: [1][4]\n3: []\n4: [1][2][3]"
    assert "4. Redundant is true [1][2]." in ex["prompt"]
    assert P.parse_response_ids(ex["completion"], 4) == [[2, 3], [1, 4], [], [1, 2, 3]]


def test_perturbation_is_seeded_and_changes_one_id():
    rec = record()
    rows = rows_of(rec)
    a, _ = refiner_examples(rec, rows, perturb_p=1.0, seed=3)
    b, _ = refiner_examples(rec, rows, perturb_p=1.0, seed=3)
    assert a == b and all(e["perturbed"] for e in a)
    # completions are the gold ids whatever the input says
    assert [e["completion"] for e in a] == [" [2][3]", " [1][4]", " []", " [1][2][3]"]
    for _ in range(50):
        rng = unit_rng(0, "x", _)
        got = perturb([1, 2], 4, rng)
        assert len(set(got) ^ {1, 2}) == 1  # exactly one id dropped or added


def test_generator_answer_has_gold_marks_at_sentence_end():
    rec = record()
    (ex,), _ = generator_examples(rec, rows_of(rec))
    assert ex["completion"] == (" Pair only is true [2][3]. Two separately is true [1][4]. "
                                "Nothing is true. Redundant is true [1][2][3].")
    assert ex["prompt"].endswith("Answer:") and "Question: Which facts hold?" in ex["prompt"]
    assert attach_marks("No dot", [1]) == "No dot [1]"


def test_judge_silver_completion_parses_back():
    rec = record()
    (ex,), dropped = judge_examples(rec, rows_of(rec))
    # the model-context statement is left out of the prompt: 3 retrieval statements
    assert '<sentence sentence_id="3"> Redundant is true. </sentence>' in ex["prompt"]
    got = parse_itercoe(ex["completion"], 3)
    assert all(j.status == "ok" for j in got)
    want = [e for *_, ctx, e in [(g, s, c, e) for g, s, c, e in EXPECTED] if ctx == "retrieval"]
    assert [[[a.value, c] for a, c in j.edits] for j in got] == want
    assert got[2].edits == ((Action.DELETE_REDUNDANT, 2),)
    assert likert(1.0) == 5 and likert(0.0) == 1 and likert(0.5) == 3


def test_judge_teacher_outputs_and_unparsable_drop():
    rec = record()
    rows = rows_of(rec)
    exs, dropped = judge_examples(rec, rows, teacher=lambda p: "TEACHER")
    assert exs[0]["completion"] == "\nTEACHER"
    exs, dropped = judge_examples(rec, rows, teacher=lambda p: None)
    assert exs == [] and dropped == Counter({"teacher output unparsable": 1})


def test_split_by_question_is_stable():
    qs = [f"question {i}" for i in range(2000)]
    sides = [split_of(q, 0.1) for q in qs]
    assert sides == [split_of(q, 0.1) for q in qs]
    assert 150 < sides.count("validation") < 250
    assert split_of("q", 0.0) == "train"
