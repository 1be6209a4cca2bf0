"""experiments/judge_oof.py (issue 14): a merged teacher file's out-of-fold reading of the training
claims, per source, against lexical recall and (e + r) / 2, with ROC-AUCs by hand."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "experiments"))

import judge_oof as jo  # noqa: E402
from citetrain.judge_training.teacher_scores import pair_key  # noqa: E402

PREMISE = "The cat sat on the mat near the door."
# (hypothesis, label): lexical recall 1, 1, 0.5, 0 (content words found in the premise)
TRAIN = [("The cat sat.", 2), ("A cat on the mat.", 0), ("The cat barked.", 2), ("Dogs bark.", 0)]


def setup(tmp_path: Path, probs: list[list[float]]) -> tuple[Path, Path]:
    import datasets

    rows = {"premise": [PREMISE] * 4, "hypothesis": [h for h, _ in TRAIN],
            "label": [y for _, y in TRAIN], "group": [f"g{i}" for i in range(4)],
            "source": ["wice:../x.jsonl"] * 4}
    val = {k: v[:2] for k, v in rows.items()}
    folder = tmp_path / "dataset"
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(rows),
                          "validation": datasets.Dataset.from_dict(val)}).save_to_disk(str(folder))
    lines = [{"key": pair_key(PREMISE, h), "probs": p, "teachers": 2} for (h, _), p in zip(TRAIN, probs)]
    lines.append({"key": pair_key(PREMISE, "built"), "probs": [1, 0, 0], "teachers": 2, "weight": 1.0})
    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return teacher, folder


def test_out_of_fold_rows_and_readings_by_hand(tmp_path, capsys, monkeypatch):
    # expected levels (no, partial, full): 0.9, 0.3, 0.2, 0.1 -> supported 0.9, 0.2 against
    # not supported 0.3, 0.1: 3 of 4 pairs ordered, 0.75
    teacher, folder = setup(tmp_path, [[0.1, 0, 0.9], [0.5, 0.4, 0.1], [0.8, 0, 0.2], [0.9, 0, 0.1]])
    rows = jo.oof_rows(teacher, folder)
    assert list(rows) == ["wice"] and len(rows["wice"]) == 4  # the transfer row is left out
    assert [r["expected"] for r in rows["wice"]] == pytest.approx([0.9, 0.3, 0.2, 0.1])
    lexical = [r["lexical"] for r in rows["wice"]]
    assert lexical[0] == 1.0 and lexical[3] == 0.0
    monkeypatch.setattr(sys, "argv", ["judge_oof.py", str(teacher), "--dataset", str(folder)])
    jo.main()
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("wice"))
    assert line.split()[1:4] == ["4", "4", "0.750"]


def test_a_teacher_file_of_other_pairs_is_refused(tmp_path):
    teacher, folder = setup(tmp_path, [[0, 0, 1]] * 4)
    teacher.write_text(json.dumps({"key": pair_key("x", "y"), "probs": [0, 0, 1], "teachers": 1}) + "\n")
    with pytest.raises(SystemExit, match="none of its rows is a train pair"):
        jo.oof_rows(teacher, folder)
