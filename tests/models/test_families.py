"""The causal-LM families ``model.tiny`` builds (docs/guides/models.md): each, from a tiny random
config, gets its LoRA targets resolved from ``all-linear``, one SFT step with in-loop scoring,
greedy generation from the saved adapter, and a merge that keeps its logits; an unknown family is a
one-line error naming it and the supported ones."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from citetrain.config import ConfigError
from citetrain.errors import CitetrainError
from citetrain.models.tiny import FAMILIES, TinySpec
from citetrain.train.recipe import load_recipe
from tests.train.conftest import REPO, tiny_data, tiny_overrides  # noqa: F401  (the fixture)

TINY = REPO / "recipes" / "tiny-cpu.yaml"
SEPARATE = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}
TARGETS = {family: SEPARATE for family in FAMILIES} | {
    "phi3": {"qkv_proj", "o_proj", "gate_up_proj", "down_proj"}}  # fused projections
"""The linear layers ``all-linear`` must resolve to in each family (lm_head never: it is trained
whole through ``modules_to_save``)."""


def test_every_family_has_its_expected_targets():
    from citetrain.models.tiny import CONFIGS

    assert set(TARGETS) == set(FAMILIES) == set(CONFIGS)
    assert {"llama", "mistral", "qwen2", "gemma", "phi3"} <= set(FAMILIES)


@pytest.mark.slow  # 5 to 60 s per family on 2 shared CPU cores, 1.5 to 3 min in all
@pytest.mark.parametrize("family", FAMILIES)
def test_family_resolves_targets_trains_scores_generates_and_merges(family, tiny_data, tmp_path):
    from peft import get_peft_model
    from transformers import AutoModelForCausalLM

    from citetrain.models.generate import generate_texts
    from citetrain.models.loading import load_causal_lm
    from citetrain.runner import run_recipe
    from citetrain.train.components import peft_config
    from citetrain.train.merge import merge_adapter

    out = tmp_path / "run"
    sets = {"model.tiny.family": family, "train.max_steps": 1, "train.save_steps": 1,
            "eval.steps": 1, "eval.subset": 4, "eval.max_new_tokens": 4, "data.max_eval_examples": 8}
    recipe = load_recipe(TINY, tiny_overrides(tiny_data, out, **sets))
    summary = run_recipe(recipe)

    config = json.loads((out / "base" / "config.json").read_text())
    assert config["model_type"] == family
    # LoRA target resolution: all-linear becomes the family's projections, in every layer
    base = AutoModelForCausalLM.from_pretrained(str(out / "base"))
    wrapped = get_peft_model(base, peft_config(recipe))
    lora = [n for n, m in wrapped.named_modules() if hasattr(m, "lora_A")]
    assert {n.rsplit(".", 1)[-1] for n in lora} == TARGETS[family], (family, lora)
    assert len(lora) == config["num_hidden_layers"] * len(TARGETS[family])
    saved = json.loads((Path(summary["final"]) / "adapter_config.json").read_text())
    assert {n.rsplit(".", 1)[-1] for n in saved["target_modules"]} == TARGETS[family]
    assert set(saved["modules_to_save"]) == {"embed_tokens", "lm_head"}
    # one SFT step, scored in the loop
    assert summary["steps"] == 1 and summary["adapter_tensors"] > 0
    assert [h["step"] for h in summary["in_loop"]] == [1]
    assert "citation_f1" in summary["in_loop"][0] and "ids_f1" in summary["in_loop"][0]
    # generation from the saved adapter
    model, tokenizer = load_causal_lm(summary["final"])
    texts = generate_texts(model, tokenizer, ["Question: who? Statement: it [1].", "x"],
                           max_new_tokens=3)
    assert len(texts) == 2 and all(isinstance(t, str) for t in texts)
    # merge, its logits the adapter's
    merged = merge_adapter(summary["final"], tmp_path / "merged")
    assert merged["max_logit_diff"] < 1e-3
    assert json.loads((tmp_path / "merged" / "config.json").read_text())["model_type"] == family


def test_an_unknown_family_is_one_line_naming_it_and_the_supported_ones(tmp_path):
    with pytest.raises(ConfigError) as err:
        load_recipe(TINY, ["model.tiny.family=gpt2", f"train.output_dir={tmp_path}"])
    message = str(err.value)
    assert "\n" not in message and "model.tiny.family: unsupported family 'gpt2'" in message
    assert "supported: " + ", ".join(FAMILIES) in message


def test_heads_that_do_not_divide_are_refused():
    with pytest.raises(ValueError, match="hidden_size 66 is not a multiple of num_attention_heads 4"):
        TinySpec(hidden_size=66)
    with pytest.raises(ValueError, match="num_attention_heads 4 is not a multiple of num_key_value_heads 3"):
        TinySpec(num_key_value_heads=3)


def test_a_family_transformers_cannot_build_names_the_family(tmp_path, monkeypatch):
    from citetrain.models import tiny

    monkeypatch.setitem(tiny.CONFIGS, "phi3", "NoSuchConfig")  # as an older transformers
    with pytest.raises(CitetrainError, match="family 'phi3' needs transformers' NoSuchConfig"):
        tiny.make_tiny_base(TinySpec(family="phi3", vocab_size=300), ["some text"] * 4, tmp_path / "b")
