"""`citetrain meta-eval` on WiCE dev with the lexical NLI prints the agreement table."""
from citetrain.cli.main import main


def test_meta_eval_wice_lexical(shared_data, tmp_path, capsys):
    path = shared_data / "wice" / "entailment_retrieval_claim" / "dev.jsonl"
    assert main(["meta-eval", str(path), "--nli", "lexical", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "349 labelled pairs" in out and "pearson" in out and "roc_auc_mean" in out
    assert (tmp_path / "meta_eval.json").is_file()


def test_meta_eval_split_keeps_one_side_of_the_recipe_split(tmp_path, capsys):
    """``--split`` keeps the pairs a crossencoder recipe's split puts on that side; the two
    sides partition the file and a claim repeated under another id stays on one side."""
    import json

    from citetrain.io.labelled import read_labelled
    from citetrain.train.pairs import split_key

    rows = [{"id": f"r{i}", "claim": f"claim {i % 30}", "references": [f"ref {i}"],
             "attribution_label": "attributable" if i % 2 else "not attributable"}
            for i in range(60)]
    path = tmp_path / "ab.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    counts = {}
    for side in ("train", "validation"):
        assert main(["meta-eval", str(path), "--split", side, "--split-fraction", "0.4",
                     "--split-seed", "2", "--nli", "lexical", "--no-progress",
                     "--out", str(tmp_path / side)]) == 0
        out = capsys.readouterr().out
        counts[side] = int(out.split(" labelled pairs")[0])
        assert f"[{side} split, fraction 0.4, seed 2]" in out
        assert json.loads((tmp_path / side / "meta_eval.json").read_text())["split"] == side
    assert counts["train"] + counts["validation"] == 60 and min(counts.values()) > 0
    from citetrain.builders.sets import split_of

    sides = {}
    for p in read_labelled(path):
        sides.setdefault(split_key(p), set()).add(split_of(split_key(p), 0.4, 2))
    assert all(len(s) == 1 for s in sides.values())


def test_meta_eval_reads_several_files_as_one_set(shared_data, capsys):
    folder = shared_data / "expertqa" / "annotated_splits"
    files = [str(folder / f"{n}.jsonl") for n in ("rand_val", "rand_test", "domain_val", "domain_test")]
    assert main(["meta-eval", *files, "--format", "expertqa", "--nli", "lexical", "--limit", "50",
                 "--no-progress"]) == 0
    assert "50 labelled pairs" in capsys.readouterr().out
