"""``citetrain export --runtime openvino``: the OpenVINO judge agrees with the PyTorch one through
citetrain's reader (fp32 exactly, bf16 and NNCF int8 closely), its int8 is calibrated on pairs as
the judge reads them, and bad calibration input is refused with a one-line error."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("openvino", reason="pip install -e '.[openvino]'")
pytest.importorskip("nncf", reason="pip install -e '.[openvino]'")

import datasets  # noqa: E402

from citetrain.errors import CitetrainError  # noqa: E402
from citetrain.judges.export import export_judge  # noqa: E402
from citetrain.judges.openvino_ir import calibration_pairs  # noqa: E402
from citetrain.judges.registry import make_judge  # noqa: E402
from citetrain.metrics.meta import meta_evaluate  # noqa: E402
from citetrain.nli.classifier import ClassifierNLI  # noqa: E402
from citetrain.judge_training.card import auc  # noqa: E402
from tests.judges.export_fixtures import build_export_judge, validation_pairs  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def judge(tmp_path_factory) -> Path:
    return build_export_judge(tmp_path_factory.mktemp("judge"))


@pytest.fixture(scope="module")
def pairs_dataset(tmp_path_factory) -> Path:
    """A judge-style dataset (train and validation splits of premise/hypothesis/label)."""
    pairs, labels, _ = validation_pairs()
    rows = {"premise": [p for p, _ in pairs] * 4, "hypothesis": [h for _, h in pairs] * 4,
            "label": labels * 4}
    path = tmp_path_factory.mktemp("calib") / "dataset"
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(rows),
                          "validation": datasets.Dataset.from_dict(rows)}).save_to_disk(str(path))
    return path


@pytest.fixture(scope="module")
def exported(judge, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("ov") / "judge-openvino"
    return out, export_judge(judge, out, runtime="openvino")


def _max_diff(a, b) -> float:
    return max(abs(x - y) for r, s in zip(a, b) for x, y in zip(r.support, s.support))


def test_the_openvino_judge_agrees_with_pytorch(judge, exported):
    out, card = exported
    assert (out / "openvino_model.xml").is_file() and (out / "openvino_model.bin").is_file()
    assert not (out / "model.safetensors").exists() and not (out / "model.onnx").exists()
    torch_nli, ov_nli = ClassifierNLI(str(judge), device="cpu"), ClassifierNLI(str(out), device="cpu")
    assert type(ov_nli.model).__name__ == "OpenVinoClassifier"
    assert (ov_nli.premise, ov_nli.hint) == ("select", "uncovered")
    pairs, labels, groups = validation_pairs()
    a, b = torch_nli.predict(pairs), ov_nli.predict(pairs)
    assert _max_diff(a, b) < 1e-4
    assert card["runtime"] == "openvino" and card["opset"] is None and card["max_abs_diff_prob"] < 1e-4
    assert auc(meta_evaluate([r.expected for r in a], labels, groups)) == pytest.approx(
        auc(meta_evaluate([r.expected for r in b], labels, groups)), abs=0.005)
    text = (out / "README.md").read_text()
    assert "OpenVINO export" in text and "`openvino_model.xml` / `.bin`" in text and ", fp32)" in text


def test_bf16_reads_close_and_is_its_own_cache_revision(exported):
    out, _ = exported
    f32, bf16 = ClassifierNLI(str(out), device="cpu"), ClassifierNLI(str(out), device="cpu", dtype="bf16")
    assert bf16.model.dtype.__repr__() == "torch.bfloat16" and "+bf16" in bf16.revision
    assert "+bf16" not in f32.revision
    pairs, _, _ = validation_pairs()
    assert _max_diff(f32.predict(pairs), bf16.predict(pairs)) < 0.03


def test_the_openvino_judge_rates_records_as_the_pytorch_one(judge, exported):
    from citetrain.io.readers import read_records

    records = read_records(REPO / "examples" / "predictions.jsonl").records
    rows = [make_judge(f"crossencoder:{p}", progress=False, cache=False).score(records).result.per_statement
            for p in (judge, exported[0])]
    assert [(r["context"], r["edits"], r["support"]) for r in rows[0]] == [
        (r["context"], r["edits"], r["support"]) for r in rows[1]]


@pytest.mark.slow
def test_int8_is_calibrated_on_pairs_as_the_judge_reads_them(judge, pairs_dataset, tmp_path):
    out = tmp_path / "int8"
    done = subprocess.run([sys.executable, "-m", "citetrain.cli.main", "export", str(judge), "--out",
                           str(out), "--runtime", "openvino", "--int8", "--calibration",
                           str(pairs_dataset), "--calibration-pairs", "40", "--calibration-seed", "3"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "openvino_model.xml/.bin (int8)" in done.stdout
    card = json.loads((out / "citetrain_export.json").read_text())
    assert card["calibration"] == {"dataset": str(pairs_dataset), "pairs": 40, "seed": 3}
    assert "FakeQuantize" in (out / "openvino_model.xml").read_text()  # NNCF's int8 nodes
    assert "calibrated on 40 pairs" in (out / "README.md").read_text()
    pairs, _, _ = validation_pairs()
    torch_nli, ov_nli = ClassifierNLI(str(judge), device="cpu"), ClassifierNLI(str(out), device="cpu")
    assert _max_diff(torch_nli.predict(pairs), ov_nli.predict(pairs)) < 0.05


def test_calibration_pairs_and_model_inputs(judge, pairs_dataset):
    pairs = calibration_pairs(pairs_dataset, n=10)
    assert len(pairs) == 10 and pairs == calibration_pairs(pairs_dataset, n=10)  # seeded
    assert len(calibration_pairs(pairs_dataset, n=10_000)) == 72  # all there are
    nli = ClassifierNLI(str(judge), device="cpu", batch_size=4)
    batches = nli.model_inputs(pairs)
    distinct = len(set(pairs))  # a pair read as the same text as another shares its row
    assert sum(len(b["input_ids"]) for b in batches) == distinct and len(batches) == -(-distinct // 4)
    lengths = [int(b["attention_mask"].sum(1).max()) for b in batches]
    assert lengths == sorted(lengths, reverse=True)  # longest first, each cut to its own longest


def test_bad_export_options_and_calibration_sets_are_refused(judge, exported, pairs_dataset, tmp_path):
    with pytest.raises(CitetrainError, match="--int8 needs --calibration DATASET"):
        export_judge(judge, tmp_path / "a", runtime="openvino", int8=True)
    with pytest.raises(CitetrainError, match="only --int8 uses it"):
        export_judge(judge, tmp_path / "b", runtime="openvino", calibration=pairs_dataset)
    with pytest.raises(CitetrainError, match="export runtime must be one of onnx, openvino"):
        export_judge(judge, tmp_path / "c", runtime="tensorrt")
    bare = tmp_path / "bare"
    datasets.Dataset.from_dict({"premise": ["p"], "text": ["h"]}).save_to_disk(str(bare))
    with pytest.raises(CitetrainError, match=rf"{bare}: no column hypothesis \(columns: premise, text\)"):
        export_judge(judge, tmp_path / "d", runtime="openvino", int8=True, calibration=bare)
    with pytest.raises(CitetrainError, match="--calibration-pairs must be at least 1, not 0"):
        export_judge(judge, tmp_path / "e", runtime="openvino", int8=True, calibration=pairs_dataset,
                     calibration_size=0)
    with pytest.raises(CitetrainError, match="not a datasets folder"):
        calibration_pairs(tmp_path / "nowhere")
    with pytest.raises(CitetrainError, match="is an exported model: export it with --int8"):
        ClassifierNLI(str(exported[0]), device="cpu", dtype="int8")
    with pytest.raises(CitetrainError, match="not int8 or an exported model"):
        ClassifierNLI(str(exported[0]), device="cpu", compile=True)
    assert not (tmp_path / "a").exists() and not (tmp_path / "d").exists()


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_a_deberta_classifier_without_token_types_exports_too(tmp_path):
    """The MNLI family users start from (DeBERTa-v2, relative attention, no token_type_ids)."""
    import torch
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

    from tests.nli.tiny_models import CORPUS, train_tokenizer

    tokenizer = train_tokenizer(CORPUS, kind="wordlevel", style="bert")
    tokenizer.model_input_names = ["input_ids", "attention_mask"]
    labels = ["entailment", "neutral", "contradiction"]
    config = DebertaV2Config(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=128, type_vocab_size=0,
        relative_attention=True, pos_att_type=["p2c", "c2p"], position_biased_input=False,
        initializer_range=0.5,  # a default random model reads every pair near 1/3
        pad_token_id=tokenizer.pad_token_id, num_labels=3, id2label=dict(enumerate(labels)),
        label2id={lab: i for i, lab in enumerate(labels)})
    torch.manual_seed(0)
    model = DebertaV2ForSequenceClassification(config).eval()
    src = tmp_path / "deberta"
    tokenizer.save_pretrained(src)
    model.save_pretrained(src)
    card = export_judge(src, tmp_path / "deberta-ov", runtime="openvino")
    pairs, _, _ = validation_pairs()
    a = ClassifierNLI(str(src), device="cpu").predict(pairs)
    b = ClassifierNLI(str(tmp_path / "deberta-ov"), device="cpu").predict(pairs)
    assert max(r.prob for r in a) - min(r.prob for r in a) > 0.05  # the pairs are told apart
    assert _max_diff(a, b) < 1e-4 and card["max_abs_diff_prob"] < 1e-4


def _rows_of_feed_forward(folder: Path, intermediate: int) -> list[int]:
    """The most rows of each MatMul into the feed-forward size in the IR: -1 (any: every token)
    or 1 (the first token alone)."""
    import openvino as ov

    model = ov.Core().read_model(str(folder / "openvino_model.xml"))
    shapes = [op.get_output_partial_shape(0) for op in model.get_ordered_ops()
              if op.get_type_name() == "MatMul"]
    return [s[1].get_max_length() for s in shapes
            if s.rank.get_length() == 3 and str(s[2]) == str(intermediate)]


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_the_last_layer_is_exported_for_the_first_token_only(judge, exported, tmp_path, capsys):
    from citetrain.cli.main import main

    out, card = exported
    whole = tmp_path / "not-yet" / "whole"  # its parent is made too
    assert main(["export", str(judge), "--out", str(whole), "--runtime", "openvino",
                 "--whole-last-layer"]) == 0
    assert "last layer: every token" in capsys.readouterr().out
    card_whole = json.loads((whole / "citetrain_export.json").read_text())
    intermediate = json.loads((judge / "config.json").read_text())["intermediate_size"]
    assert _rows_of_feed_forward(out, intermediate) == [-1, 1]  # two layers, the last trimmed
    assert _rows_of_feed_forward(whole, intermediate) == [-1, -1]
    assert (card["last_layer"], card_whole["last_layer"]) == ("first token", "every token")
    assert "first token only" in (out / "README.md").read_text()
    assert "first token only" not in (whole / "README.md").read_text()
    pairs, _, _ = validation_pairs()
    a = ClassifierNLI(str(out), device="cpu").predict(pairs)
    b = ClassifierNLI(str(whole), device="cpu").predict(pairs)
    assert _max_diff(a, b) < 1e-5 and [r.label for r in a] == [r.label for r in b]
