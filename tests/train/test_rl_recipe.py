"""``kind: grpo`` / ``kind: dpo`` recipes and ``model.adapter``: every rule reports its message,
all at once, before anything is loaded."""
import pytest

from citetrain.config import ConfigError
from citetrain.train.recipe import validate_recipe
from citetrain.train.recipe_rules import task_of

RL = {"name": "t", "kind": "grpo", "model": {"name_or_path": "m", "adapter": "a"},
      "data": {"dataset": "d"}, "train": {"output_dir": "o", "batch_size": 8}}


def errors(data) -> list[str]:
    with pytest.raises(ConfigError) as e:
        validate_recipe(data, "r.yaml")
    return e.value.errors


def test_a_grpo_recipe_is_valid_with_the_default_rewards():
    r = validate_recipe(RL)
    assert task_of(r) == "refiner" and r.rl is None
    r = validate_recipe({**RL, "kind": "dpo", "rl": {"task": "generator"}})
    assert task_of(r) == "generator"


def test_every_rl_error_at_once_with_did_you_mean():
    errs = errors({**RL, "train": {"output_dir": "o", "batch_size": 6},
                   "data": {"dataset": "d", "packing": True},
                   "rl": {"rewards": {"recal": 1.0}, "num_generations": 4}})
    assert any("unknown reward 'recal'; did you mean 'recall'?" in e for e in errs)
    assert any("rl.num_generations (4) must divide" in e and "= 6" in e for e in errs)
    assert any("data.packing is for supervised kinds" in e for e in errs)
    assert len(errs) == 3


def test_rl_section_and_adapter_rules():
    sft = {**RL, "kind": "refiner", "rl": {"task": "refiner"}}
    assert errors(sft) == ["rl is for kind grpo or dpo (kind is refiner)"]
    full = {**RL, "method": "full", "lora": {"enabled": False}}
    assert any("model.adapter goes on training a LoRA adapter" in e for e in errors(full))
    tiny = {**RL, "model": {"tiny": {}}}
    assert any("starts from a trained model" in e for e in errors(tiny))
    gen = {**RL, "rl": {"task": "generator", "rewards": {"preservation": 1.0}}}
    assert any("preservation compares a refiner's rewrite" in e for e in errors(gen))
    assert any("give at least one reward" in e for e in errors({**RL, "rl": {"rewards": {}}}))


def test_unknown_rl_key_is_named():
    errs = errors({**RL, "rl": {"num_generation": 4}})
    assert errs == ["rl.num_generation: unknown key; did you mean 'num_generations'?"]


def test_sft_weight_is_dpo_plus_the_chosen_nll():
    """``rl.sft_weight``: trl's DPO config combines the sigmoid loss with the chosen completion's
    NLL at that weight (RPO); 0 leaves DPO alone; any other kind is told it is for dpo."""
    from citetrain.train.dpo import dpo_config

    dpo = {**RL, "kind": "dpo", "train": {"output_dir": "o", "batch_size": 8, "use_cpu": True},
           "eval": {"enabled": False}}
    cfg = dpo_config(validate_recipe({**dpo, "rl": {"sft_weight": 0.5}}), has_eval=False)
    assert list(cfg.loss_type) == ["sigmoid", "sft"] and list(cfg.loss_weights) == [1.0, 0.5]
    plain = dpo_config(validate_recipe(dpo), has_eval=False)
    assert list(plain.loss_type) == ["sigmoid"] and plain.loss_weights is None
    assert errors({**RL, "rl": {"sft_weight": 1.0}}) == [
        "rl.sft_weight adds a loss to DPO's; kind is grpo"]
