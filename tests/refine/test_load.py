"""One refiner interface: the refiner's kind is read from the checkpoint's own config, and a
checkpoint that is no refiner is refused with one line before any work."""
import json

import pytest

from citetrain.errors import CitetrainError
from citetrain.refine.load import load_refiner, refiner_kind


def checkpoint(folder, **config):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    return str(folder)


SUPPORT = {"0": "not_supported", "1": "supported"}


def test_kinds_come_from_the_config(tmp_path):
    assert refiner_kind(checkpoint(tmp_path / "lm", architectures=["LlamaForCausalLM"])) == "generative"
    assert refiner_kind(checkpoint(tmp_path / "pair", architectures=["BertForSequenceClassification"],
                                   id2label=SUPPORT)) == "pair"
    judge = {"0": "not_supported", "1": "partially_supported", "2": "supported"}
    assert refiner_kind(checkpoint(tmp_path / "judge", architectures=["BertForSequenceClassification"],
                                   id2label=judge)) == "pair"
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text(json.dumps({"task_type": "CAUSAL_LM"}))
    assert refiner_kind(str(adapter)) == "generative"
    assert refiner_kind("classifier:org/some-nli-model") == "pair"


@pytest.mark.parametrize("config, message", [
    ({"architectures": ["BertModel"]}, "neither a causal-LM refiner nor a .* support classifier"),
    ({"architectures": ["BertForSequenceClassification"], "id2label": {"0": "LABEL_0", "1": "LABEL_1"}},
     "labels do not read as support"),
    ({}, r"architectures: none"),
])
def test_a_checkpoint_that_is_no_refiner_is_refused(tmp_path, config, message):
    with pytest.raises(CitetrainError, match=message):
        refiner_kind(checkpoint(tmp_path / "m", **config))


def test_not_a_checkpoint(tmp_path):
    with pytest.raises(CitetrainError, match="is not a folder"):
        refiner_kind(str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(CitetrainError, match="holds no config.json or adapter_config.json"):
        refiner_kind(str(tmp_path / "empty"))
    seq = tmp_path / "seq-adapter"
    seq.mkdir()
    (seq / "adapter_config.json").write_text(json.dumps({"task_type": "SEQ_CLS"}))
    with pytest.raises(CitetrainError, match="SEQ_CLS adapter"):
        refiner_kind(str(seq))


def test_the_command_says_it_in_one_line_and_exits_non_zero(tmp_path, capsys):
    from citetrain.cli.main import main

    answers = tmp_path / "answers.jsonl"
    assert main(["synth", "--n", "2", "--seed", "3", "--out", str(answers)]) == 0
    capsys.readouterr()
    bad = checkpoint(tmp_path / "encoder", architectures=["BertModel"])
    assert main(["refine", str(answers), "--refiner", bad, "--out", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "neither a causal-LM refiner" in err
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "o.jsonl.partial.jsonl").exists()


def test_joint_is_asked_of_pair_refiners_only(capsys):
    from citetrain.refine.joint import JointOptions

    assert load_refiner("lexical", joint=JointOptions()).name == "lexical+joint"
    with pytest.raises(CitetrainError, match="--joint: baseline:cover is a baseline refiner"):
        load_refiner("baseline:cover", joint=JointOptions())
