"""`citetrain refine` with an adapter trained by the tiny recipe: text kept, scores printed."""
import json

from citetrain.cli.main import main
from citetrain.io.readers import read_records
from citetrain.refine import strip_marks
from citetrain.train.recipe import load_recipe
from citetrain.train.run import train

from .conftest import REPO, tiny_overrides


def test_refine_cli_with_tiny_adapter(tiny_data, tmp_path, capsys):
    sets = tiny_overrides(tiny_data, tmp_path / "run", **{
        "train.max_steps": 2, "train.save_steps": 2, "eval.enabled": "false",
        "eval.best_metric": "null"})
    final = train(load_recipe(REPO / "recipes" / "tiny-cpu.yaml", sets))["final"]
    src = tiny_data.parent / "records.jsonl"
    lines = src.read_text().splitlines()[:5]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "refined.jsonl"
    assert main(["refine", str(tmp_path / "in.jsonl"), "--refiner", final, "--out", str(out),
                 "--score", "--max-new-tokens", "6", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "refined 5 records" in text and "citation_f1" in text and "change" in text
    before = read_records(tmp_path / "in.jsonl", "alce").records
    after = read_records(out, "alce").records
    assert [strip_marks(a.output) for a in after] == [strip_marks(b.output) for b in before]
    assert json.loads(out.read_text().splitlines()[0])["id"] == before[0].id
