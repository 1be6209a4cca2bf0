"""`citetrain build` on real ExpertQA answers with the lexical NLI (skips without ../shared/data)."""
import json

import datasets
import pytest

from citetrain.cli.main import main


@pytest.mark.parametrize("kind", ["refiner", "generator", "judge"])
def test_build_on_expertqa(shared_data, tmp_path, kind, capsys):
    path = shared_data / "expertqa" / "annotated_splits" / "rand_val.jsonl"
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"name: eq\nkind: {kind}\nsources:\n  - path: {path}\n    format: expertqa\n"
                    "    limit: 30\nnli: lexical\ncheck_sample: 20\n")
    assert main(["build", str(spec), "--out", str(tmp_path / "o"), "--no-progress"]) == 0
    m = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert m["records"]["kept"] == 30 and m["sources"][0]["format"] == "expertqa"
    assert m["pruning_check"] == {"statements": 20, "disagreements": 0}  # lexical is monotone
    st = m["statements"]
    assert st["statements"] == (st["supported_by_single_doc"] + st["supported_by_set_only"]
                                + st["supported_by_none"]) > 0
    assert st["nli_calls"] < st["nli_calls_exhaustive"]
    dd = datasets.load_from_disk(str(tmp_path / "o" / "dataset"))
    assert sum(m["examples"].values()) == len(dd["train"]) + len(dd["validation"]) > 0
    assert "supported by a single doc" in capsys.readouterr().out
