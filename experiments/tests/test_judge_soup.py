"""experiments/judge_soup.py (issue 14): the uniform weight soup of judges fine-tuned from one model —
floating tensors averaged (by hand below), integer buffers taken from the first run, the first
run's config and tokenizer kept, mismatched runs refused."""
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "experiments"))

import judge_soup  # noqa: E402


def run(tmp_path: Path, name: str, weight: list[float], ids: list[int], config: str) -> Path:
    final = tmp_path / name / "final"
    final.mkdir(parents=True)
    save_file({"w": torch.tensor(weight, dtype=torch.float32),
               "position_ids": torch.tensor(ids, dtype=torch.int64)}, str(final / "model.safetensors"))
    (final / "config.json").write_text(config)
    (final / "tokenizer.json").write_text("{}")
    (final / "README.md").write_text("card of " + name)
    return tmp_path / name


def test_the_soup_averages_floats_keeps_the_first_runs_integers_and_files(tmp_path):
    a = run(tmp_path, "a", [1.0, 2.0], [0, 1], '{"from": "a"}')
    b = run(tmp_path, "b", [3.0, -2.0], [5, 6], '{"from": "b"}')
    c = run(tmp_path, "c", [2.0, 3.0], [7, 8], '{"from": "c"}')
    final = judge_soup.soup([a, b, c / "final"], tmp_path / "soup")  # a run or its final folder
    state = load_file(str(final / "model.safetensors"))
    assert state["w"].tolist() == [2.0, 1.0]  # (1 + 3 + 2) / 3, (2 - 2 + 3) / 3
    assert state["w"].dtype == torch.float32
    assert state["position_ids"].tolist() == [0, 1]
    assert (final / "config.json").read_text() == '{"from": "a"}'
    assert (final / "tokenizer.json").is_file()
    assert not (final / "README.md").exists()  # a card describes one trained run, not the soup
    assert [p.name for p in (tmp_path / "soup").iterdir()] == ["final"]  # no temporary left


def test_runs_with_other_shapes_are_refused(tmp_path):
    a = run(tmp_path, "a", [1.0, 2.0], [0, 1], "{}")
    b = run(tmp_path, "b", [1.0, 2.0, 3.0], [0, 1], "{}")
    with pytest.raises(SystemExit, match="differ in names or shapes"):
        judge_soup.soup([a, b], tmp_path / "soup")


def test_a_run_without_weights_is_named(tmp_path):
    a = run(tmp_path, "a", [1.0], [0], "{}")
    (tmp_path / "empty" / "final").mkdir(parents=True)
    with pytest.raises(SystemExit, match="empty/final: no model.safetensors"):
        judge_soup.soup([a, tmp_path / "empty"], tmp_path / "soup")
