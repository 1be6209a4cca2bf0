"""Shipped recipes, specs, suites and launch configs found by name (citetrain/io/assets.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from citetrain.cli.main import main
from citetrain.errors import CitetrainError
from citetrain.io import assets

REPO = Path(__file__).resolve().parents[2]


def test_in_a_clone_the_top_level_folders_are_the_shipped_ones():
    assert assets.asset_root() == REPO
    names = {kind: {p.stem for p in assets.shipped(kind)} for kind in assets.KINDS}
    assert {"refiner", "quickstart", "tiny-cpu"} <= names["recipe"]
    assert {"quickstart", "pairs"} <= names["spec"] and "example" in names["suite"]
    assert {"zero3", "ddp", "slurm"} <= names["launch"] and "predictions" in names["example"]


def test_a_path_wins_and_a_bare_name_is_the_shipped_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert assets.resolve("refiner", "recipe") == REPO / "recipes" / "refiner.yaml"
    assert assets.resolve("refiner.yaml", "spec") == REPO / "data_builders" / "refiner.yaml"
    assert assets.resolve("recipes/refiner.yaml", "recipe") == REPO / "recipes" / "refiner.yaml"
    assert assets.resolve("zero3", "launch") == REPO / "launch" / "zero3.yaml"
    (tmp_path / "refiner").write_text("mine")  # a file of that name here: the path wins
    assert assets.resolve("refiner", "recipe") == Path("refiner")
    assert assets.resolve("other/refiner.yaml", "recipe") == Path("other/refiner.yaml")
    assert assets.resolve("nothing", "suite") == Path("nothing")


def test_find_prefers_a_recipe_and_a_folder_picks_the_kind():
    assert assets.find("refiner") == REPO / "recipes" / "refiner.yaml"
    assert assets.find("data_builders/refiner") == REPO / "data_builders" / "refiner.yaml"
    assert assets.find("missing") is None


def test_loaders_take_bare_names(tmp_path, monkeypatch):
    from citetrain.builders.spec import load_spec
    from citetrain.metrics.suites import load_suite
    from citetrain.train.recipe import load_recipe

    monkeypatch.chdir(tmp_path)
    assert load_recipe("tiny-cpu").name == load_recipe(REPO / "recipes" / "tiny-cpu.yaml").name
    assert load_spec("quickstart").name == "quickstart"
    suite = load_suite("example")
    assert Path(suite.data[0].path) == (REPO / "examples" / "predictions.jsonl").resolve()
    recipe = load_recipe("tiny-cpu", ["launch.config_file=zero3"])
    assert Path(recipe.launch.config_file) == REPO / "launch" / "zero3.yaml"


def test_ls_and_cp(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["ls"]) == 0
    out = capsys.readouterr().out
    assert "recipe:" in out and "launch:" in out
    assert any(line.split()[:1] == ["zero3"] and "ZeRO-3" in line for line in out.splitlines())
    assert main(["cp", "refiner"]) == 0
    assert (tmp_path / "refiner.yaml").read_text() == (REPO / "recipes" / "refiner.yaml").read_text()
    assert main(["cp", "data_builders/refiner", "specs/"]) == 0
    assert (tmp_path / "specs" / "refiner.yaml").read_text() == (
        REPO / "data_builders" / "refiner.yaml").read_text()
    assert main(["cp", "refiner"]) == 2  # never overwrites
    assert "refiner.yaml exists" in capsys.readouterr().err
    with pytest.raises(CitetrainError, match="no shipped file called 'nope'"):
        assets.copy_out("nope")
    assert main(["ls", "bogus"]) == 2
