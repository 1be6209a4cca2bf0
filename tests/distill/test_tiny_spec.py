"""The shipped toy distillation (``distill/tiny.yaml``): it validates, needs no hub and no shared
data, and ``--dry-run`` names its steps. The full run is the README's CPU example (its test runs
the two commands)."""
from __future__ import annotations

import re
from pathlib import Path

from citetrain.builders.spec import load_spec as load_build_spec
from citetrain.cli.main import main
from citetrain.distill.spec import load_spec
from citetrain.train.recipe import load_recipe

ROOT = Path(__file__).resolve().parents[2]
STEPS = ["pairs", "human", "teacher-f0-s42", "teacher-f1-s42", "teacher-file", "student",
         "export"]


def test_the_tiny_spec_is_small_offline_and_exports_onnx():
    spec = load_spec("distill/tiny.yaml")
    assert spec.out == "runs/distill-tiny"
    assert spec.teacher.folds.folds == 2 and spec.teacher.folds.seeds == [42]
    assert spec.export.runtime == "onnx" and spec.prune is None and spec.teach_back is None
    assert "train.max_steps=3" in spec.set and "eval.enabled=false" in spec.set
    recipe = load_recipe(spec.recipe, list(spec.set))
    assert recipe.model.name_or_path.startswith("pkg:")  # shipped in a package: no hub
    assert recipe.train.max_steps == 3 and recipe.train.use_cpu and not recipe.eval.enabled
    (labelled,) = recipe.crossencoder.labelled
    assert labelled.startswith("synth:") and labelled.endswith("data/synth-tiny.jsonl")
    build = load_build_spec(spec.pairs.spec)
    assert build.kind == "pairs" and len(build.sources) == 1
    # the build reads the file the header's synth command writes, from the folder it runs in
    source = Path(build.sources[0].path)
    assert source == (ROOT / "data" / "synth-tiny.jsonl").resolve()
    header = (ROOT / "distill" / "tiny.yaml").read_text(encoding="utf-8")
    synth = re.search(r"citetrain synth (.*) --out (\S+)", header)
    assert synth and synth.group(2) == "data/synth-tiny.jsonl"
    assert "shared" not in header + (ROOT / "data_builders" / "tiny-pairs.yaml").read_text()


def test_the_tiny_dry_run_names_the_steps(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["distill", "tiny", "--dry-run"]) == 0
    out = capsys.readouterr().out
    named = re.findall(r"^\s*\d+\. (\S+) \[to run\]", out, re.M)
    assert named == STEPS
    assert str(tmp_path / "runs" / "distill-tiny" / "export") in out
    assert not (tmp_path / "runs").exists()  # a dry run writes nothing
