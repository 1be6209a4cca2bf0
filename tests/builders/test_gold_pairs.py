"""Pair-refiner training pairs from human-cited records (``wice_evidence:PATH``, ``gold:PATH``):
every gold passage is supported; the hard negatives are the other passages sharing the most
content words; the random ones are drawn by seed; the split follows the claim's text."""
import json

import pytest

from citetrain.builders.refiner_pairs import (HARD_NEGATIVES, RANDOM_NEGATIVES, read_gold_pairs)
from citetrain.errors import CitetrainError
from citetrain.io.labelled import split_key
from citetrain.records import Doc, format_doc
from citetrain.judge_training.pairs import read_source

CLAIM = "The mill at Stonebridge ground wheat for the village until 1921."
# 30 sentences: 3 and 7 are the annotated support; 10..19 share "wheat" (one content word) and
# 20 shares "wheat", "ground" and "village" (three): the hardest negative; the rest share nothing
# ("mill" is one of scikit-learn's English stop words, which the lexical NLI drops)
EVIDENCE = [f"Filler sentence number {i} about the weather." for i in range(30)]
EVIDENCE[2] = "Stonebridge had a water mill."
EVIDENCE[6] = "It ground wheat for the village until 1921."
for i in range(9, 19):
    EVIDENCE[i] = f"Wheat grew in field {i}."
EVIDENCE[19] = "Wheat was ground for the village shop."
LINE = {"label": "supported", "claim": CLAIM, "evidence": EVIDENCE,
        "supporting_sentences": [[2, 6]], "meta": {"id": "c1"}}


@pytest.fixture
def wice_file(tmp_path):
    path = tmp_path / "wice.jsonl"
    nope = dict(LINE, label="not_supported", meta={"id": "c2"}, supporting_sentences=[])
    path.write_text(json.dumps(LINE) + "\n" + json.dumps(nope) + "\n")
    return path


def test_labels_hard_and_random_negatives(wice_file):
    pairs = read_gold_pairs(wice_file, "wice_evidence")
    by_id = {int(p.id.rsplit("#", 1)[1]): p for p in pairs}
    assert {i for i, p in by_id.items() if p.label == 2} == {3, 7}
    negatives = {i for i, p in by_id.items() if p.label == 0}
    hard = [20] + list(range(10, 17))  # 3 shared words first, then 1 (ties: the lower id)
    assert len(hard) == HARD_NEGATIVES and set(hard) <= negatives
    assert len(negatives) == HARD_NEGATIVES + RANDOM_NEGATIVES
    p = by_id[3]
    assert p.premise == format_doc(Doc(text=EVIDENCE[2])) and p.hypothesis == CLAIM
    assert {q.group for q in pairs} == {"wice_evidence:c1:0"}  # the not_supported claim: none
    assert {split_key(q) for q in pairs} == {" ".join(CLAIM.lower().split())}


def test_random_negatives_depend_on_the_seed_only(wice_file):
    ids = lambda seed: sorted(p.id for p in read_gold_pairs(wice_file, "wice_evidence", seed))
    assert ids(0) == ids(0) and ids(0) != ids(1)


def test_read_as_a_labelled_source(wice_file):
    assert len(read_source(str(wice_file), "wice_evidence")) == 2 + 16


def test_records_without_gold_are_refused(tmp_path):
    path = tmp_path / "recs.jsonl"
    path.write_text(json.dumps({"id": "r", "question": "q", "output": "A claim.",
                                "docs": [{"title": "", "text": "A claim."}]}) + "\n")
    with pytest.raises(CitetrainError, match="record r has no field 'gold'"):
        read_gold_pairs(path, "gold")


def test_refiner_build_rows_that_do_not_parse_name_their_line(tmp_path):
    from citetrain.builders.refiner_pairs import read_refiner_pairs

    statements = tmp_path / "statements.jsonl"
    with pytest.raises(CitetrainError, match="statements.jsonl: not found"):
        read_refiner_pairs(statements)
    statements.write_text('{"id": "a", "statement": 0, "gold": [1]}\n\n{"id": "a", "gold": [2]}\n')
    with pytest.raises(CitetrainError, match=r"statements.jsonl:3: not a refiner statement row "
                                             r"\(needs id, statement, gold\) \('statement'\)"):
        read_refiner_pairs(statements)
    statements.write_text('{"id": "a", "statement": 0, "gold": [1]}\n')
    (tmp_path / "records.jsonl").write_text("[1, 2]\n")
    with pytest.raises(CitetrainError, match=r"records.jsonl:1: not a JSON object"):
        read_refiner_pairs(statements)
