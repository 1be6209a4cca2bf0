"""The training run on CPU: tiny LoRA refiner, in-loop citation scores, save, reload, merge,
resume to the same weights, refusals to resume."""
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from transformers import TrainerCallback

from citetrain.errors import CitetrainError
from citetrain.train.recipe import load_recipe
from citetrain.runner import run_recipe as train
from citetrain.train.sft import check_completion_mask

from .conftest import REPO, tiny_overrides

TINY = REPO / "recipes" / "tiny-cpu.yaml"


def test_tiny_recipe_trains_scores_saves_reloads_and_merges(tiny_data, tmp_path):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from citetrain.train.merge import merge_adapter

    out = tmp_path / "run"
    summary = train(load_recipe(TINY, tiny_overrides(tiny_data, out, **{"train.max_steps": 12})))
    assert summary["steps"] == 12
    losses = summary["losses"]
    assert losses[-1] < losses[0]  # the loss falls
    steps = [h["step"] for h in summary["in_loop"]]
    assert steps == [3, 6, 9, 12] and all("citation_f1" in h and "ids_f1" in h for h in summary["in_loop"])
    assert (out / "eval_generations" / "step-12.jsonl").is_file()
    final = Path(summary["final"])
    assert summary["adapter_tensors"] > 0 and summary["adapter_bytes"] > 0
    card = (final / "README.md").read_text()
    assert "name: tiny-cpu" in card and '"kind": "refiner"' in card
    base = AutoModelForCausalLM.from_pretrained(str(out / "base"))
    model = PeftModel.from_pretrained(base, str(final))
    assert any("lora_A" in n for n, _ in model.named_parameters())
    got = merge_adapter(final, tmp_path / "merged")
    assert got["max_logit_diff"] < 1e-3 and (tmp_path / "merged" / "config.json").is_file()


class StopAt(TrainerCallback):
    def __init__(self, step):
        self.step = step

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step >= self.step:
            control.should_training_stop = True


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_stop_after_step_2_and_resume_to_step_4_matches_an_uninterrupted_run(tiny_data, tmp_path):
    sets = {"train.max_steps": 4, "train.save_steps": 2, "eval.enabled": False,
            "eval.best_metric": "null"}
    whole = train(load_recipe(TINY, tiny_overrides(tiny_data, tmp_path / "a", **sets)))
    recipe = load_recipe(TINY, tiny_overrides(tiny_data, tmp_path / "b", **sets))
    first = train(recipe, extra_callbacks=(StopAt(2),))
    assert first["steps"] == 2 and (tmp_path / "b" / "checkpoint-2").is_dir()
    second = train(recipe)
    assert second["resumed_from"].endswith("checkpoint-2") and second["steps"] == 4
    a = load_file(str(Path(whole["final"]) / "adapter_model.safetensors"))
    b = load_file(str(Path(second["final"]) / "adapter_model.safetensors"))
    assert a.keys() == b.keys()
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=1e-4, atol=1e-5)


def test_resume_is_refused_for_another_world_size_or_recipe(tiny_data, tmp_path):
    sets = {"train.max_steps": 2, "train.save_steps": 2, "eval.enabled": False,
            "eval.best_metric": "null"}
    out = tmp_path / "r"
    train(load_recipe(TINY, tiny_overrides(tiny_data, out, **sets)))
    ident = json.loads((out / "citetrain_run.json").read_text())
    (out / "citetrain_run.json").write_text(json.dumps({**ident, "world_size": 2}))
    with pytest.raises(CitetrainError, match="written by 2 processes, this run has 1"):
        train(load_recipe(TINY, tiny_overrides(tiny_data, out, **sets)))
    (out / "citetrain_run.json").write_text(json.dumps(ident))
    with pytest.raises(CitetrainError, match=r"another recipe \(lora changed\)"):
        train(load_recipe(TINY, tiny_overrides(tiny_data, out, **sets, **{"lora.r": 4})))


def test_completion_mask_checks():
    eos = 2
    check_completion_mask([{"labels": [-100, -100, 5, 2]}], eos)
    with pytest.raises(CitetrainError, match="completion mask is empty"):
        check_completion_mask([{"labels": [-100, -100]}], eos)
    with pytest.raises(CitetrainError, match="end-of-sequence token is not inside"):
        check_completion_mask([{"labels": [-100, 5, 6]}], eos)


def test_module_entry_points_have_help(capsys):
    from citetrain.build import run as build_main
    from citetrain.cli.recipe_run import main

    for entry in (main, build_main):
        with pytest.raises(SystemExit) as e:
            entry(["--help"])
        assert e.value.code == 0
    assert "recipe" in capsys.readouterr().out


def test_bad_recipe_is_one_line_and_exit_2(tmp_path, capsys):
    from citetrain.cli.recipe_run import main

    bad = tmp_path / "r.yaml"
    bad.write_text("name: t\nkind: refiner\nmodel: {tiny: {}}\ndata: {dataset: d}\ntrian: {}\n")
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'train'" in err and "Traceback" not in err


def test_in_loop_scoring_through_a_judge(tiny_data, tmp_path):
    """eval.nli takes any NLI name, a judge included (judge:NAME, classifier:PATH)."""
    out = tmp_path / "run"
    summary = train(load_recipe(TINY, tiny_overrides(tiny_data, out, **{
        "train.max_steps": 3, "eval.nli": "judge:nli:lexical", "eval.metrics": "[alce]"})))
    assert [h["step"] for h in summary["in_loop"]] == [3]
    assert 0 <= summary["in_loop"][0]["citation_f1"] <= 100
