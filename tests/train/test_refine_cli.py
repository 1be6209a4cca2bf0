"""`citetrain refine` with an adapter trained by the tiny recipe: text kept, scores printed,
output in the input's format, a killed run resumed."""
import json

import pytest

from citetrain.cli.main import main
from citetrain.io.readers import read_records
from citetrain.text.marks import strip_marks
from citetrain.train.recipe import load_recipe
from citetrain.runner import run_recipe as train

from .conftest import REPO, tiny_overrides


@pytest.fixture(scope="module")
def adapter(tiny_data, tmp_path_factory) -> str:
    sets = tiny_overrides(tiny_data, tmp_path_factory.mktemp("refiner") / "run", **{
        "train.max_steps": 2, "train.save_steps": 2, "eval.enabled": "false",
        "eval.best_metric": "null"})
    return train(load_recipe(REPO / "recipes" / "tiny-cpu.yaml", sets))["final"]


def test_refine_cli_with_tiny_adapter(adapter, tiny_data, tmp_path, capsys):
    src = tiny_data.parent / "records.jsonl"
    lines = src.read_text().splitlines()[:5]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "refined.jsonl"
    assert main(["refine", str(tmp_path / "in.jsonl"), "--refiner", adapter, "--out", str(out),
                 "--score", "--max-new-tokens", "6", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "refined 5 records" in text and "citation_f1" in text and "change" in text
    before = read_records(tmp_path / "in.jsonl", "alce").records
    after = read_records(out, "alce").records
    assert [strip_marks(a.output) for a in after] == [strip_marks(b.output) for b in before]
    assert json.loads(out.read_text().splitlines()[0])["id"] == before[0].id
    assert not (tmp_path / "refined.jsonl.partial.jsonl").exists()


def test_refine_resumes_from_a_partial_file(adapter, tiny_data, tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join((tiny_data.parent / "records.jsonl").read_text().splitlines()[:6]) + "\n")
    args = ["refine", str(src), "--refiner", adapter, "--max-new-tokens", "6", "--chunk", "2",
            "--no-progress"]
    whole = tmp_path / "whole.jsonl"
    assert main(args + ["--out", str(whole)]) == 0
    # a run killed after its first chunk: header + 2 records + a line cut in the middle
    from citetrain.refine.partial import PartialRefine

    cut = tmp_path / "cut.jsonl"
    header = PartialRefine(str(cut) + ".partial.jsonl", str(src), adapter).header
    done = [json.loads(x) for x in whole.read_text().splitlines()[:2]]
    (tmp_path / "cut.jsonl.partial.jsonl").write_text(
        json.dumps(header) + "\n" + "".join(json.dumps({"id": d["id"], "output": d["output"]}) + "\n"
                                            for d in done) + '{"id": "x", "outp')
    capsys.readouterr()
    assert main(args + ["--out", str(cut)]) == 0
    assert "(2 resumed from a partial run)" in capsys.readouterr().out
    assert cut.read_text() == whole.read_text()


@pytest.mark.slow
def test_refine_expertqa_with_tiny_adapter_keeps_text_and_format(adapter, shared_data, tmp_path, capsys):
    """Every ExpertQA answer of rand_val: the text outside the marks is unchanged, the output
    is ExpertQA again, and the scores before and after are printed."""
    src = shared_data / "expertqa" / "annotated_splits" / "rand_val.jsonl"
    out = tmp_path / "refined.jsonl"
    assert main(["refine", str(src), "--refiner", adapter, "--out", str(out), "--score",
                 "--max-new-tokens", "6", "--max-length", "384", "--batch-size", "16",
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "(expertqa)" in text and "citation_f1" in text
    before = read_records(src, "expertqa").records
    after = read_records(out, "expertqa").records
    assert len(after) == len(before) > 200
    assert [strip_marks(a.output) for a in after] == [strip_marks(b.output) for b in before]
