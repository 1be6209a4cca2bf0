"""``citetrain prune`` (:mod:`citetrain.judges.narrow`): the pruned judge is a standard model folder
read as the judge is (its preprocessing keys kept), with a card naming what was kept and on what;
its reading stays closer to the judge's than the plain cut of the most used units; bad input is a
one-line error."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from citetrain.errors import CitetrainError
from citetrain.judges.narrow import draw_pairs, prune_judge
from citetrain.nli.classifier import ClassifierNLI
from tests.judges.export_fixtures import build_export_judge, validation_pairs

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def judge(tmp_path_factory) -> Path:
    return build_export_judge(tmp_path_factory.mktemp("judge"))


def _dataset(root: Path, name: str, times: int) -> Path:
    pairs, labels, _ = validation_pairs()
    rows = {"premise": [f"{name} {k} {p}" for k in range(times) for p, _ in pairs],  # each once
            "hypothesis": [h for _, h in pairs] * times, "label": labels * times}
    path = root / name
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(rows)}).save_to_disk(str(path))
    return path


@pytest.fixture(scope="module")
def calibration(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("calib")
    return [_dataset(root, "human", 4), _dataset(root, "built", 2)]


def test_draws_an_equal_share_of_each_dataset(calibration):
    """7 pairs of two datasets: 4 of the first (72 rows) and 3 of the second (36 rows)."""
    first = draw_pairs(calibration[:1], 4, 0)
    second = draw_pairs(calibration[1:], 3, 0)
    assert draw_pairs(calibration, 7, 0) == first + second
    assert len(first) == 4 and len(second) == 3


def test_the_pruned_judge_is_a_standard_folder_that_reads_as_the_judge(judge, calibration, tmp_path):
    """Tiny judge of 64 units a layer pruned to 40 (datasets of 72 and 36 distinct pairs): the
    folder loads with classifier:, keeps the judge's premise and hint, states the fit per layer,
    and its probabilities on the labelled pairs are closer to the judge's than those of the plain
    cut (prune_ffn) at the same width."""
    import torch
    from transformers import AutoModelForSequenceClassification

    from citetrain.models.prune import prune_ffn

    out = tmp_path / "narrow"
    card = prune_judge(judge, out, 40, calibration, token_pairs=48, head_pairs=96, seed=0)
    assert card["had"] == 64 and card["intermediate_size"] == 40
    assert card["token_pairs"] == 48  # 24 of each
    assert card["head_pairs"] == 48 + 36  # 48 asked of each; the second holds 36
    assert [f["layer"] for f in card["layers"]] == [0, 1]
    assert card["layers"][1]["rows"] == 84  # the last layer reads first tokens
    config = json.loads((out / "config.json").read_text())
    assert config["intermediate_size"] == 40
    assert config["citetrain_premise"] == "select" and config["citetrain_hint"] == "uncovered"
    text = (out / "README.md").read_text()
    assert "kept 40 of the 64 feed-forward units" in text and str(calibration[0]) in text
    assert json.loads((out / "citetrain_prune.json").read_text())["seed"] == 0

    pairs = validation_pairs()[0]
    full = ClassifierNLI(str(judge), device="cpu", dtype="fp32")
    narrow = ClassifierNLI(str(out), device="cpu", dtype="fp32")
    plain_dir = tmp_path / "plain"
    net = AutoModelForSequenceClassification.from_pretrained(str(judge), dtype=torch.float32)
    prune_ffn(net, 40, full.model_inputs(draw_pairs(calibration, 48, 0)))
    net.save_pretrained(str(plain_dir))
    full.tokenizer.save_pretrained(str(plain_dir))
    plain = ClassifierNLI(str(plain_dir), device="cpu", dtype="fp32")

    def gap(other: ClassifierNLI) -> float:
        return sum(abs(a - b) for r, s in zip(full.predict(pairs), other.predict(pairs))
                   for a, b in zip(r.support, s.support))

    assert gap(narrow) < gap(plain)


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_a_width_per_layer_reads_and_exports_at_its_widths(judge, calibration, tmp_path):
    """Widths 24 and 64 (the tiny judge's last layer whole): the folder is saved at 64 units a
    layer, layer 0 padded with units zero in and out; the card names both widths; classifier:
    reads layer 0 with its 24 units; the OpenVINO export traces those widths and states them, and
    reads the pairs as the PyTorch model does."""
    pytest.importorskip("openvino", reason="pip install -e '.[openvino]'")
    from citetrain.judges.export import export_judge
    from citetrain.nli.ffn_units import bert_ffn_layers

    out = tmp_path / "narrow"
    card = prune_judge(judge, out, [24, 64], calibration, token_pairs=48, head_pairs=96, seed=0)
    assert card["widths"] == [24, 64] and card["intermediate_size"] == 64
    assert [f["width"] for f in card["layers"]] == [24, 64]
    assert json.loads((out / "config.json").read_text())["intermediate_size"] == 64
    text = (out / "README.md").read_text()
    assert "kept 24 / 64 of the 64 feed-forward units" in text and "padded to 64 units" in text
    narrow = ClassifierNLI(str(out), device="cpu", dtype="fp32")
    layers = bert_ffn_layers(getattr(narrow.model, "net", narrow.model))  # first-token wrapper
    assert [l.output.dense.in_features for l in layers] == [24, 64]
    exported = export_judge(out, tmp_path / "ov", runtime="openvino")
    assert exported["ffn_widths"] == [24, 64]
    assert exported["max_abs_diff_prob"] < 1e-4
    assert "Feed-forward units per layer: 24 / 64" in (tmp_path / "ov" / "README.md").read_text()
    run = subprocess.run([sys.executable, "-m", "citetrain", "prune", str(judge), "--out",
                          str(tmp_path / "o"), "--intermediate-size", "24,x", "--calibration",
                          str(calibration[0])], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "PATH": ""})
    assert run.returncode == 2 and "'24,x' is not N or N,N,..." in run.stderr


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_bad_input_is_one_line(judge, calibration, tmp_path):
    with pytest.raises(CitetrainError, match="between 1 and the 64 units"):
        prune_judge(judge, tmp_path / "o", 64, calibration)
    with pytest.raises(CitetrainError, match="not a datasets folder"):
        prune_judge(judge, tmp_path / "o", 8, [tmp_path / "nope"])
    with pytest.raises(CitetrainError, match="at least 1"):
        prune_judge(judge, tmp_path / "o", 8, calibration, head_pairs=0)
    assert not (tmp_path / "o").exists()
    run = subprocess.run([sys.executable, "-m", "citetrain", "prune", str(judge), "--out",
                          str(tmp_path / "o"), "--intermediate-size", "64", "--calibration",
                          str(calibration[0])], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "PATH": ""})
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0 and "between 1 and the 64 units" in run.stderr
