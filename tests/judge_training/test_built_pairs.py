"""Cross-encoder training on built pairs (``crossencoder.built``): alone (the labelled pairs only
validate), or beside the human pairs; the recipe rules and a missing built set."""
from __future__ import annotations

from pathlib import Path

import pytest

from citetrain.config import ConfigError
from citetrain.train.recipe import validate_recipe
from tests.judge_training.test_trainer import recipe_data, toy_rows, write_jsonl


def write_built(folder: Path, n: int) -> Path:
    """A ``citetrain build`` (kind pairs) output: dataset/ with train / validation and an extra
    ``transform`` column, and a manifest beside it."""
    import datasets

    rows = {"premise": [], "hypothesis": [], "label": [], "group": [], "source": [], "transform": []}
    for i in range(n):
        word = f"w{i % 12}"
        label = (2, 1, 0)[i % 3]
        rows["premise"].append(f"w{(i + 1) % 12} {word} w{(i + 5) % 12}")
        rows["hypothesis"].append(f"it says {word}" if label == 2 else
                                  f"it says {word} and w{(i + 7) % 12}" if label == 1 else
                                  f"it says w{(i + 3) % 12}")
        rows["label"].append(label)
        rows["group"].append(f"p{i}")
        rows["source"].append("text:toy.txt")
        rows["transform"].append(("copy", "add_fact", "swap_entity")[i % 3])
    ds = datasets.Dataset.from_dict(rows)
    datasets.DatasetDict({"train": ds.select(range(n - 5)),
                          "validation": ds.select(range(n - 5, n))}).save_to_disk(
        str(folder / "dataset"))
    (folder / "manifest.json").write_text('{"kind": "pairs", "counts": {}}\n')
    return folder


def test_training_pairs_built_alone_beside_human_and_sampled(tmp_path):
    import datasets

    from citetrain.judge_training.pairs import COLUMNS, training_pairs

    built = write_built(tmp_path / "built", 45)
    human = datasets.Dataset.from_dict({"premise": ["a"] * 3, "hypothesis": ["b"] * 3,
                                        "label": [2, 0, 0], "group": ["g"] * 3,
                                        "source": ["ab:x"] * 3})
    both = training_pairs(human, [str(built)], None, True, seed=0)
    assert len(both) == 3 + 40 and both.column_names == list(COLUMNS)
    alone = training_pairs(human, [str(built)], None, False, seed=0)
    assert len(alone) == 40 and "ab:x" not in set(alone["source"])
    a = training_pairs(human, [str(built)], 10, False, seed=1)
    b = training_pairs(human, [str(built)], 10, False, seed=1)
    assert len(a) == 10 and a["hypothesis"] == b["hypothesis"]
    assert training_pairs(human, [str(built)], 10, False, seed=2)["hypothesis"] != a["hypothesis"]
    # an ablation: the 40 built train pairs cycle copy / add_fact / swap_entity (14, 13, 13)
    no_swap = training_pairs(human, [str(built)], None, False, seed=0, exclude=["swap_entity"])
    assert len(no_swap) == 27 and 0 not in set(no_swap["label"])


def test_built_exclude_names_known_transformations(tmp_path):
    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(10))
    data = recipe_data(tmp_path, [f"attributionbench:{ab}"], tmp_path)
    with pytest.raises(ConfigError, match="unknown transformation.*negat; choose from"):
        validate_recipe({**data, "crossencoder": {**data["crossencoder"], "built": ["b"],
                                                  "built_exclude": ["negat"]}})
    with pytest.raises(ConfigError, match="built_exclude filters crossencoder.built: give "
                                          "crossencoder.built"):
        validate_recipe({**data, "crossencoder": {**data["crossencoder"],
                                                  "built_exclude": ["negate"]}})


def test_recipe_rules_for_built_pairs(tmp_path):
    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(10))
    data = recipe_data(tmp_path, [f"attributionbench:{ab}"], tmp_path)
    with pytest.raises(ConfigError, match="human_train: false trains on crossencoder.built alone"):
        validate_recipe({**data, "crossencoder": {**data["crossencoder"], "human_train": False}})
    sft = {"name": "t", "kind": "refiner", "model": {"tiny": {}}, "data": {"dataset": "x"},
           "crossencoder": {"built": ["data/pairs"]}, "train": {"output_dir": "o"}}
    with pytest.raises(ConfigError, match="crossencoder.built: the crossencoder section is for "
                                          "kind crossencoder"):
        validate_recipe(sft)


def test_a_missing_built_set_is_found_before_launch(tmp_path):
    from citetrain.runner import input_errors

    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(10))
    data = recipe_data(tmp_path, [f"attributionbench:{ab}"], tmp_path)
    recipe = validate_recipe({**data, "crossencoder": {**data["crossencoder"],
                                                       "built": [str(tmp_path / "nope")]}})
    assert input_errors(recipe) == [f"crossencoder.built: {tmp_path / 'nope'} holds no pairs dataset "
                                    "(build it with `citetrain build SPEC`, kind pairs)"]


def test_stage_one_trains_on_built_pairs_and_validates_on_human_ones(tiny_bert, tmp_path):
    """Stage 1 (built pairs only, in-loop meta-evaluation on the human validation claims), then
    stage 2 from stage 1's model on the human pairs; the card names the built set."""
    from citetrain.runner import run_recipe as train

    built = write_built(tmp_path / "built", 45)
    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(40))
    data = recipe_data(tiny_bert, [f"attributionbench:{ab}"], tmp_path / "s1")
    data["crossencoder"].update(built=[str(built)], human_train=False)
    one = train(validate_recipe(data))
    assert one["train_pairs"] == 40 and one["validation_pairs"] > 0 and one["evals"]
    assert "three-way" in one["head"]  # built pairs carry partial labels
    card = (Path(one["final"]) / "README.md").read_text()
    assert str(built) in card and '"kind": "pairs"' in card
    # the held-out figures of the saved model beside lexical recall, and its throughput
    (ab_row,) = one["heldout"]["sources"]
    assert ab_row["source"] == "attributionbench" and ab_row["levels"] == [0, 2]
    assert 0.0 <= ab_row["model"] <= 1.0 and 0.0 <= ab_row["lexical"] <= 1.0
    assert f"| attributionbench | {ab_row['pairs']} | {ab_row['claims']} | {ab_row['model']:.3f} |" in card
    tp = one["heldout"]["throughput"]
    assert tp["pairs_per_s"] > 0 and tp["int8_pairs_per_s"] > 0 and "int8" in card
    assert "--runtime openvino --int8 --calibration DATASET" in card  # the faster CPU reading
    from citetrain.nli.hf import cpu_has_bf16

    if cpu_has_bf16():  # bf16 is timed where the CPU multiplies it natively
        assert tp["bf16_pairs_per_s"] > 0 and f"bf16 {tp['bf16_pairs_per_s']} pairs/s" in card
    else:
        assert "bf16_pairs_per_s" not in tp
    two = recipe_data(Path(one["final"]), [f"attributionbench:{ab}"], tmp_path / "s2")
    summary = train(validate_recipe(two))
    assert summary["base_model"] == one["final"] and summary["train_pairs"] < 40
