"""``citetrain export``: the ONNX judge agrees with the PyTorch one through citetrain's reader
(probabilities, ROC-AUC on labelled validation pairs, CiteEval ratings), its card states the
preprocessing, and the preprocessing saved with the model is applied to the exported one."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime", reason="pip install -e '.[onnx]'")
pytest.importorskip("onnxscript", reason="pip install -e '.[onnx]'")

from citetrain.errors import CitetrainError  # noqa: E402
from citetrain.judges.export import export_judge  # noqa: E402
from citetrain.judges.registry import make_judge  # noqa: E402
from citetrain.metrics.meta import meta_evaluate  # noqa: E402
from citetrain.nli.classifier import ClassifierNLI  # noqa: E402
from citetrain.judge_training.card import auc  # noqa: E402
from tests.judges.export_fixtures import build_export_judge, validation_pairs  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def judge(tmp_path_factory) -> Path:
    """A tiny three-way classifier with citetrain's preprocessing keys saved."""
    return build_export_judge(tmp_path_factory.mktemp("judge"))


@pytest.fixture(scope="module")
def exported(judge, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("onnx") / "judge-onnx"
    return out, export_judge(judge, out)


def test_the_exported_judge_agrees_with_pytorch(judge, exported):
    out, card = exported
    assert (out / "model.onnx").is_file() and not (out / "model.safetensors").exists()
    torch_nli, onnx_nli = ClassifierNLI(str(judge), device="cpu"), ClassifierNLI(str(out), device="cpu")
    assert type(onnx_nli.model).__name__ == "OnnxClassifier"
    pairs, labels, groups = validation_pairs()
    a, b = torch_nli.predict(pairs), onnx_nli.predict(pairs)
    diff = max(abs(x - y) for r, s in zip(a, b) for x, y in zip(r.support, s.support))
    assert diff < 1e-4, diff
    assert card["max_abs_diff_prob"] < 1e-4
    auc_torch = auc(meta_evaluate([r.expected for r in a], labels, groups))
    auc_onnx = auc(meta_evaluate([r.expected for r in b], labels, groups))
    assert abs(auc_torch - auc_onnx) <= 0.005, (auc_torch, auc_onnx)


def test_the_saved_preprocessing_is_applied_and_stated_in_the_card(judge, exported):
    out, card = exported
    onnx_nli = ClassifierNLI(str(out), device="cpu")
    assert (onnx_nli.premise, onnx_nli.hint) == ("select", "uncovered")
    text = (out / "README.md").read_text()
    for needed in ("premise: `select`", "hint: `uncovered`", "max length: 128 tokens",
                   "crossencoder:THIS_FOLDER"):
        assert needed in text, needed
    assert json.loads((out / "citetrain_export.json").read_text())["premise"] == "select"


def test_the_exported_judge_rates_records_as_the_pytorch_one(judge, exported):
    from citetrain.io.readers import read_records

    records = read_records(REPO / "examples" / "predictions.jsonl").records
    rows = [make_judge(f"crossencoder:{p}", progress=False, cache=False).score(records).result.per_statement
            for p in (judge, exported[0])]
    assert [(r["context"], r["edits"], r["support"]) for r in rows[0]] == [
        (r["context"], r["edits"], r["support"]) for r in rows[1]]
    assert max(abs((x["rating"] or 0) - (y["rating"] or 0)) for x, y in zip(*rows)) < 1e-4


@pytest.mark.slow
def test_int8_export_and_its_errors(judge, tmp_path):
    out = tmp_path / "int8"
    done = subprocess.run([sys.executable, "-m", "citetrain.cli.main", "export", str(judge), "--out",
                           str(out), "--int8"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "model.onnx (int8)" in done.stdout and "max |Δ| probability" in done.stdout
    assert not list(out.glob("model.fp32*")) and "int8 dynamic quantization" in (out / "README.md").read_text()
    assert json.loads((out / "citetrain_export.json").read_text())["max_abs_diff_prob"] < 0.05
    with pytest.raises(CitetrainError, match="is an exported model: export it with --int8"):
        ClassifierNLI(str(out), device="cpu", dtype="int8")
    with pytest.raises(CitetrainError, match="not a model folder"):
        export_judge(tmp_path / "nowhere", tmp_path / "x")
