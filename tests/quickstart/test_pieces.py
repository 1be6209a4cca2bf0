"""The quickstart's parts with hand-computed values: pair choice, pairs from a build, the trivial
baseline, the report table and picture."""
import json

import pytest

from citetrain.records import Doc, Record
from citetrain.text.marks import strip_marks
from citetrain.builders.refiner_pairs import record_pairs
from citetrain.refine.pairs import choose_ids, pair_refine

REC = Record(id="r1", question="q", docs=[Doc(title="A", text="Ostra was founded in 1843."),
                                         Doc(title="B", text="Ostra has 5,000 people."),
                                         Doc(title="C", text="Belm makes hats.")],
             output="Ostra was founded in 1843 [3]. It has 5,000 people [1][2], they say.")


def test_choose_ids_threshold_order_and_cap():
    probs = {1: 0.9, 2: 0.5, 3: 0.49, 4: 0.95}
    assert choose_ids(probs, 0.5, None) == [1, 2, 4]
    assert choose_ids(probs, 0.5, 2) == [1, 4]          # the two most probable, in id order
    assert choose_ids(probs, 0.96, 3) == []


def test_pair_refine_cites_supported_passages_and_keeps_text():
    pairs = record_pairs(REC)
    assert [(k, i) for k, i, _ in pairs] == [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]
    assert pairs[0][2] == ("Title: A\nOstra was founded in 1843.", "Ostra was founded in 1843.")
    assert pairs[3][2][1] == "It has 5,000 people, they say."

    def support(batch):  # statement 0 <- doc 1; statement 1 <- doc 2 (and doc 3 just below 0.5)
        table = {(0, 1): 0.8, (1, 2): 0.7, (1, 3): 0.499}
        return [table.get((k, i), 0.1) for k, i, _ in pairs][:len(batch)]

    refined, counts = pair_refine([REC], support)
    assert refined[0].output == "Ostra was founded in 1843 [1]. It has 5,000 people, they say [2]."
    assert strip_marks(refined[0].output) == strip_marks(REC.output)
    assert counts["statements"] == 2 and counts["ids"] == 2
    with pytest.raises(ValueError):
        pair_refine([REC], support, threshold=1.5)


def test_refiner_pairs_source_labels_by_gold(tmp_path):
    from citetrain.builders.refiner_pairs import read_refiner_pairs

    (tmp_path / "records.jsonl").write_text(json.dumps(REC.to_dict()) + "\n")
    rows = [{"id": "r1", "statement": 0, "gold": [1]}, {"id": "r1", "statement": 1, "gold": [2, 3]}]
    (tmp_path / "statements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = read_refiner_pairs(tmp_path / "statements.jsonl")
    assert [(p.group, p.id.split("#")[1], p.label) for p in got] == [
        ("r1:0", "1", 2), ("r1:0", "2", 0), ("r1:0", "3", 0),
        ("r1:1", "1", 0), ("r1:1", "2", 2), ("r1:1", "3", 2)]
    rows[1]["statement"] = 5  # statements no longer line up with the record: left out, counted
    (tmp_path / "statements.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = read_refiner_pairs(tmp_path / "statements.jsonl")
    assert len(got) == 0 and len(got.skipped) == 1


def test_trivial_baseline_cites_every_passage_sharing_a_word():
    from citetrain.quickstart.baseline import shared_word_baseline, shared_word_ids

    assert shared_word_ids("Ostra was founded in 1843.", ["Ostra has hats", "Belm 1843", "was in"]) == [1, 2]
    out = shared_word_baseline([REC])[0].output
    assert out == "Ostra was founded in 1843 [1][2]. It has 5,000 people, they say [2]."


def test_report_table_and_picture(tmp_path):
    from citetrain.quickstart.report import table, write_png

    f1 = {"alce": {"unrefined": 50.0, "trivial": 40.0, "refined": 75.5},
          "lenient": {"unrefined": 52.0, "trivial": 41.0, "refined": 80.0}}
    text = table(f1)
    assert text.splitlines()[1].split()[-4:] == ["50.00", "40.00", "75.50", "+25.50"]
    report = {"f1": f1, "plan": {"test_records": 3},
              "training": {"losses": [{"step": 10, "loss": 0.6}, {"step": 20, "loss": 0.2}],
                           "inloop": [{"step": 0, "citation_f1": 50.0}, {"step": 20, "citation_f1": 70.0}]}}
    write_png(report, tmp_path / "report.png")
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
