"""``data.packing``: kept on every attention implementation, because trl packs padding-free
(one row, ``position_ids`` restarting per example, no attention mask) and transformers then
masks each example off from the others, on eager and sdpa as well as on flash attention."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from citetrain.train.recipe import validate_recipe  # noqa: E402
from citetrain.train.components import sft_config  # noqa: E402


def recipe(tmp_path=None, packing=True, **model):
    data = {"name": "t", "kind": "refiner", "model": {"tiny": {}, **model},
            "data": {"dataset": "d", "packing": packing},
            "train": {"output_dir": str(tmp_path / "o") if tmp_path else "o", "use_cpu": True}}
    return validate_recipe(data)


@pytest.mark.parametrize("impl", [None, "eager", "sdpa", "flash_attention_2"])
def test_packing_kept_with_every_attention(impl, capsys):
    args = sft_config(recipe(attn_implementation=impl), has_eval=False)
    assert args.packing is True
    assert args.packing_strategy == "bfd"  # bfd => padding-free with position_ids in trl
    assert args.completion_only_loss is True
    assert "warning" not in capsys.readouterr().out


def test_packing_off_stays_off():
    args = sft_config(recipe(packing=False), has_eval=False)
    assert args.packing is False


def test_remote_code_warns_but_packs(capsys):
    args = sft_config(recipe(trust_remote_code=True, attn_implementation="sdpa"), False)
    assert args.packing is True
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "warning: data.packing with trust_remote_code" in out
    sft_config(recipe(trust_remote_code=True, attn_implementation="flash_attention_2"), False)
    assert capsys.readouterr().out == ""


def tiny_model(family, impl):
    from transformers import AutoModelForCausalLM, LlamaConfig, Qwen2Config

    cls = {"llama": LlamaConfig, "qwen2": Qwen2Config}[family]
    torch.manual_seed(0)
    cfg = cls(vocab_size=400, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
              pad_token_id=3, bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
    return AutoModelForCausalLM.from_config(cfg, attn_implementation=impl).eval()


@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("impl", ["eager", "sdpa"])
def test_packed_examples_do_not_see_each_other(family, impl):
    """trl's padding-free batch gives every example the logits it has alone; the same row
    without position_ids (plain causal attention over the row) does not."""
    from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

    model = tiny_model(family, impl)
    g = torch.Generator().manual_seed(1)
    parts = [torch.randint(4, 400, (n,), generator=g) for n in (9, 5, 12)]
    collator = DataCollatorForLanguageModeling(pad_token_id=3, padding_free=True)
    batch = collator([{"input_ids": torch.cat(parts[:2]).tolist(), "seq_lengths": [9, 5]},
                      {"input_ids": parts[2].tolist(), "seq_lengths": [12]}])
    assert "attention_mask" not in batch and batch["input_ids"].shape == (1, 26)
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    with torch.no_grad():
        alone = torch.cat([model(input_ids=p[None], use_cache=False).logits[0] for p in parts])
        packed = model(**inputs, use_cache=False).logits[0]
        plain = model(input_ids=batch["input_ids"], use_cache=False).logits[0]
    torch.testing.assert_close(packed, alone, atol=1e-5, rtol=1e-4)
    assert (plain[9:] - alone[9:]).abs().max() > 1e-3  # the check can see contamination
    labels = batch["labels"][0]
    assert labels[0] == labels[9] == labels[14] == -100  # no target across a boundary


def test_trainer_from_sft_config_packs_padding_free(tmp_path):
    """The real path: ``sft_config`` -> ``SFTTrainer`` on a prompt/completion set -> packed rows
    whose logits match the examples run one at a time, labels on the completions only."""
    import datasets
    from trl import SFTTrainer

    from citetrain.models.tiny import train_tokenizer

    texts = [(f"question {i} about item {i * 7} ?", f" answer {i % 5} [{1 + i % 3}]")
             for i in range(12)]
    tok = train_tokenizer([p + c for p, c in texts] * 3, 300)
    model = tiny_model("llama", "sdpa")
    model.resize_token_embeddings(len(tok))
    model.config.pad_token_id = tok.pad_token_id
    r = recipe(tmp_path, attn_implementation="sdpa")
    r.train.batch_size, r.data.max_length = 2, 64
    ds = datasets.Dataset.from_dict({"prompt": [p for p, _ in texts],
                                     "completion": [c for _, c in texts]})
    trainer = SFTTrainer(model=model, args=sft_config(r, False), train_dataset=ds,
                         processing_class=tok)
    assert trainer.data_collator.padding_free
    assert len(trainer.train_dataset) < len(ds)  # several examples per row
    batch = next(iter(trainer.get_train_dataloader()))
    assert "attention_mask" not in batch
    ids, pos, labels = batch["input_ids"][0], batch["position_ids"][0], batch["labels"][0]
    starts = (pos == 0).nonzero().flatten().tolist() + [len(ids)]
    assert len(starts) > 2
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    model.eval()
    with torch.no_grad():
        packed = model(**inputs, use_cache=False).logits[0]
        alone = torch.cat([model(input_ids=ids[a:b][None], use_cache=False).logits[0]
                           for a, b in zip(starts, starts[1:])])
    torch.testing.assert_close(packed, alone, atol=1e-5, rtol=1e-4)
    eos = tok.eos_token_id
    for a, b in zip(starts, starts[1:]):
        trained = labels[a:b][labels[a:b] != -100].tolist()
        assert trained and trained[-1] == eos and labels[a] == -100


def test_packing_attends_per_example_by_default(tmp_path):
    """With data.packing and no attention named, the model loads with ``sdpa_varlen``; a named
    one, unpacked runs and remote modeling code keep theirs."""
    from citetrain.models.attention import NAME
    from citetrain.train.components import attention_implementation, load_model

    assert attention_implementation(recipe()) == NAME
    assert attention_implementation(recipe(attn_implementation="eager")) == "eager"
    assert attention_implementation(recipe(packing=False)) is None
    assert attention_implementation(recipe(trust_remote_code=True)) is None
    tiny_model("llama", "sdpa").save_pretrained(tmp_path / "m")
    model = load_model(recipe(tmp_path), str(tmp_path / "m"), 0)
    assert model.config._attn_implementation == NAME
