"""citetrain.train.components: the dtype the weights are loaded in, and the splits read."""
import pytest
import torch

from citetrain.train import components as S
from citetrain.train.recipe import validate_recipe

BASE = {"name": "t", "kind": "refiner", "model": {"tiny": {}}, "data": {"dataset": "d"},
        "train": {"output_dir": "o", "use_cpu": False}}


def recipe(method: str, **model):
    data = {**BASE, "method": method, "model": {**BASE["model"], **model}}
    if method == "full":
        data["lora"] = {"enabled": False}
    if method == "qlora":
        data["quantization"] = {"load_in_4bit": True}
    return validate_recipe(data)


@pytest.fixture
def bf16_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)


@pytest.mark.parametrize("method, want", [
    ("full", torch.float32),  # trained weights: AdamW's small steps would round away in bf16
    ("lora", torch.bfloat16),  # a frozen base; peft keeps the adapters in fp32
    ("qlora", torch.bfloat16),
])
def test_auto_dtype_on_a_bf16_gpu_keeps_fully_trained_weights_fp32(bf16_gpu, method, want):
    assert S.torch_dtype(recipe(method)) == want


def test_an_explicit_dtype_is_kept_and_cpu_is_fp32(bf16_gpu):
    assert S.torch_dtype(recipe("full", dtype="bf16")) == torch.bfloat16
    assert S.torch_dtype(recipe("lora", dtype="fp32")) == torch.float32
    cpu = recipe("lora")
    cpu.train.use_cpu = True
    assert S.torch_dtype(cpu) == torch.float32


def test_training_arguments_take_the_checkpointing_flag_without_a_deprecation_warning(recwarn):
    from transformers import TrainingArguments

    r = recipe("lora", gradient_checkpointing=True)
    r.train.use_cpu = True
    args = TrainingArguments(**S.trainer_kwargs(r, False, eval_batch_size=4))
    assert args.gradient_checkpointing is True
    assert not [w for w in recwarn if "gradient_checkpointing" in str(w.message)]


def test_max_train_and_eval_examples_cut_the_splits_eval_by_whole_records(tmp_path):
    import datasets

    ids = ["a", "a", "a", "b", "b", "c", "c", "c"]
    split = datasets.Dataset.from_dict({"id": ids, "prompt": [str(i) for i in range(len(ids))]})
    datasets.DatasetDict({"train": split, "validation": split}).save_to_disk(str(tmp_path / "d"))
    data = {**BASE, "method": "lora", "data": {"dataset": str(tmp_path / "d"),
                                               "max_train_examples": 2, "max_eval_examples": 6}}
    train, evals = S.load_splits(validate_recipe(data), tmp_path / "d")
    assert train["prompt"] == ["0", "1"]
    assert evals["id"] == ["a", "a", "a", "b", "b"]  # c would cut a record at 6: whole records only
    data["data"] = {"dataset": str(tmp_path / "d")}
    assert len(S.load_splits(validate_recipe(data), tmp_path / "d")[1]) == 8
