"""Recipes: every shipped one validates; every rule has a test of its message."""
from pathlib import Path

import pytest

from citetrain.config import ConfigError
from citetrain.train.recipe import load_recipe, validate_recipe

REPO = Path(__file__).resolve().parents[2]
RECIPES = sorted((REPO / "recipes").glob("*.yaml"))

BASE = {"name": "t", "kind": "refiner", "model": {"tiny": {}}, "data": {"dataset": "d"},
        "train": {"output_dir": "o"}}


def errors(**changes) -> list[str]:
    data = {k: (dict(v) if isinstance(v, dict) else v) for k, v in BASE.items()}
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            data.setdefault(section, {})[field] = value
        else:
            data[section] = value
    with pytest.raises(ConfigError) as e:
        validate_recipe(data, "r.yaml")
    return e.value.errors


def test_the_shipped_recipes_are_there():
    assert {p.name for p in RECIPES} >= {"refiner.yaml", "generator.yaml", "judge.yaml",
                                          "refiner-qlora.yaml", "refiner-full.yaml", "tiny-cpu.yaml",
                                          "judge-crossencoder.yaml", "quickstart.yaml"}


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.name)
def test_shipped_recipe_validates(path):
    recipe = load_recipe(path)
    sections = recipe.crossencoder is not None, recipe.distill is not None
    assert sections == ((True, True) if recipe.kind == "crossencoder" else (False, False))


def _one_error(data: dict) -> str:
    with pytest.raises(ConfigError) as e:
        validate_recipe(data, "r.yaml")
    assert len(e.value.errors) == 1 and "\n" not in str(e.value), str(e.value)
    return str(e.value)


@pytest.mark.parametrize("section, key, value", [
    ("crossencoder", "built", ["data/pairs"]), ("crossencoder", "num_layers", 2),
    ("distill", "teacher_weight", 0.5)])
def test_a_crossencoder_key_in_a_refiner_recipe_is_one_line_naming_it(section, key, value):
    assert _one_error({**BASE, section: {key: value}}) == (
        f"r.yaml: {section}.{key}: the {section} section is for kind crossencoder (kind is refiner)")


@pytest.mark.parametrize("key, value", [
    ("data.teacher_model", "runs/j/final"), ("data.hidden_weight", 2.0),
    ("data.calibration_fraction", 0.15), ("eval.stack", "lexical"), ("model.head", "ordinal")])
def test_removed_keys_are_rejected(key, value):
    section, _, field = key.partition(".")
    for kind in ("refiner", "crossencoder"):
        data = {**BASE, "kind": kind, "model": {"name_or_path": "m"},
                section: {**BASE.get(section, {}), field: value}}
        assert f"r.yaml: {key}: unknown key" in _one_error(data)


@pytest.mark.parametrize("key, moved", [
    ("data.labelled", "crossencoder.labelled"), ("data.teacher", "distill.teacher"),
    ("model.num_layers", "crossencoder.num_layers"), ("eval.card", "crossencoder.card")])
def test_a_key_given_where_it_was_once_read_names_its_section(key, moved):
    section, _, field = key.partition(".")
    data = {**BASE, "kind": "crossencoder", section: {**BASE.get(section, {}), field: "x"}}
    assert _one_error(data) == f"r.yaml: {key}: moved to {moved}"


def test_minimal_recipe_is_valid():
    validate_recipe(BASE)


def test_unknown_key_gets_a_suggestion_and_all_errors_are_reported():
    got = errors(trian={"output_dir": "o"}, train__learning_rat=0.1, lora__r=0)
    text = "\n".join(got)
    assert "did you mean 'train'" in text and "did you mean 'learning_rate'" in text
    assert "lora.r" in text and len(got) >= 3


@pytest.mark.parametrize("changes, message", [
    ({"model": {"name_or_path": "x", "tiny": {}}}, "give exactly one of name_or_path or tiny"),
    ({"model": {}}, "give exactly one of name_or_path or tiny"),
    ({"method": "qlora"}, "method qlora needs quantization.load_in_4bit: true"),
    ({"quantization": {"load_in_4bit": True}}, "quantization.load_in_4bit is for method qlora"),
    ({"lora": {"enabled": False}}, "method lora needs lora.enabled: true"),
    ({"method": "full"}, "method full trains every weight: set lora.enabled: false"),
    ({"train__warmup_steps": 5, "train__warmup_ratio": 0.1}, "give warmup_steps or warmup_ratio, not both"),
    ({"train__max_steps": 0}, "train.max_steps must be positive"),
    ({"eval__metrics": ["alce", "bleu"]}, "eval.metrics: unknown bleu"),
    ({"eval__best_metric": "citation_f1", "eval__enabled": False}, "eval.best_metric needs eval.enabled"),
    ({"hub__push": True}, "hub.push needs hub.repo_id"),
    ({"eval__best_metric": "citation_f1", "eval__steps": 40, "train__save_steps": 60},
     "must be a multiple of eval.steps (40)"),
    ({"logging__report_to": ["none", "wandb"]}, "'none' cannot be combined"),
    ({"lora__target_modules": ["q_proj", "lm_head"]}, "trl refuses LoRA on lm_head"),
    ({"eval__best_metric": "citation_f1", "eval__greater_is_better": False},
     "eval.greater_is_better: false, but citation_f1 is higher-is-better"),
    ({"eval__best_metric": "loss", "eval__greater_is_better": True},
     "eval.greater_is_better: true, but loss is lower-is-better"),
    ({"eval__best_metric": "judge_rating_mae", "eval__greater_is_better": True},
     "judge_rating_mae is lower-is-better"),
])
def test_cross_field_rules(changes, message):
    assert any(message in e for e in errors(**changes)), errors(**changes)


def test_overrides_apply_before_validation(tmp_path):
    path = REPO / "recipes" / "tiny-cpu.yaml"
    r = load_recipe(path, ["train.max_steps=3", "lora.r=4"])
    assert r.train.max_steps == 3 and r.lora.r == 4
    with pytest.raises(ConfigError, match="did you mean 'max_steps'"):
        load_recipe(path, ["train.max_step=3"])


@pytest.mark.parametrize("best, given, want", [
    ("citation_f1", None, True), ("loss", None, False), ("ids_out_of_range", None, False),
    ("judge_rating_mae", None, False), ("cvcp", None, True), ("my_score", None, True),
    ("my_score", False, False), ("citation_f1", True, True),
])
def test_the_best_checkpoint_direction_follows_the_metric(best, given, want):
    from citetrain.train.recipe_rules import best_direction

    ev = {"best_metric": best, **({} if given is None else {"greater_is_better": given})}
    assert best_direction(validate_recipe({**BASE, "eval": ev})) is want


def test_every_score_a_metric_returns_has_a_direction():
    import citetrain
    from citetrain.metrics.registry import METRICS, score_direction

    report = citetrain.evaluate(str(REPO / "examples" / "predictions.jsonl"),
                                metrics=[m for m in METRICS if m != "gold_citations"],
                                nli="lexical", progress=False)
    names = {k for group in report.scores.values() for k in group}
    assert names and all(score_direction(k) is True for k in names), names
