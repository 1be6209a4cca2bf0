"""`citetrain meta-eval` on WiCE dev with the lexical NLI prints the agreement table."""
from citetrain.cli.main import main


def test_meta_eval_wice_lexical(shared_data, tmp_path, capsys):
    path = shared_data / "wice" / "entailment_retrieval_claim" / "dev.jsonl"
    assert main(["meta-eval", str(path), "--nli", "lexical", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "349 labelled pairs" in out and "pearson" in out and "roc_auc_mean" in out
    assert (tmp_path / "meta_eval.json").is_file()
