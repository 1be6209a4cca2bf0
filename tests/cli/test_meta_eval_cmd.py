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
    from citetrain.judge_training.pairs import split_key

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


def test_meta_eval_ranks_expected_support_of_a_three_way_model(tmp_path, capsys, monkeypatch):
    """Default ``--score expected``: P(full) + P(partial)/2; ``--score entail``: P(full).
    By hand: full (.5, .1) -> .55, partial (.1, .8) -> .50, no (.3, .0) -> .30 rank all three
    pairs of classes right (mean 1.0); P(full) .5 / .1 / .3 puts partial under no (mean 2/3)."""
    import json

    import citetrain.nli.registry as registry
    from citetrain.nli.base import NLIResult

    support = {"f": (0.5, 0.1, 0.4), "p": (0.1, 0.8, 0.1), "n": (0.3, 0.0, 0.7)}

    class Fake:
        name = "fake"

        def results(self, pairs):
            return [NLIResult(support[h][0], False, support[h]) for _, h in pairs]

    monkeypatch.setattr(registry, "make_engine", lambda *a, **k: Fake())
    rows = [{"label": label, "supporting_sentences": [], "claim": claim, "evidence": ["e"],
             "meta": {"id": claim}} for claim, label in
            (("f", "supported"), ("p", "partially_supported"), ("n", "not_supported"))]
    path = tmp_path / "wice.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    means = {}
    for score in ("expected", "entail"):
        out = tmp_path / score
        assert main(["meta-eval", str(path), "--nli", "fake", "--score", score, "--out", str(out),
                     "--no-progress"]) == 0
        assert f"score: {score}" in capsys.readouterr().out
        report = json.loads((out / "meta_eval.json").read_text())
        assert report["score"] == score
        means[score] = report["results"]["fake"]["roc_auc_mean"]
    assert means["expected"] == 1.0 and abs(means["entail"] - 2 / 3) < 1e-12


def test_meta_eval_reads_a_judge_clause_by_clause(tmp_path, capsys):
    """``--nli clauses:lexical``: the whole claim and its clause segments averaged, reported as
    its own row ``clauses(...)`` beside the backend read whole; it ranks the three levels right."""
    import json

    evidence = ["The bridge opened in 1932.", "It carries six lanes of traffic."]
    claims = (("The bridge opened in 1932, and it carries six lanes of traffic.", "supported"),
              ("The bridge opened in 1932, while the tower was painted red by workers.",
               "partially_supported"),
              ("The tower was painted red, and the mayor demolished the old mill.", "not_supported"))
    rows = [{"label": label, "supporting_sentences": [], "claim": claim, "evidence": evidence,
             "meta": {"id": f"c{i}"}} for i, (claim, label) in enumerate(claims)]
    path = tmp_path / "wice.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["meta-eval", str(path), "--nli", "lexical,clauses:lexical", "--out",
                 str(tmp_path / "o"), "--no-progress", "--no-cache"]) == 0
    assert "clauses(" in capsys.readouterr().out
    results = json.loads((tmp_path / "o" / "meta_eval.json").read_text())["results"]
    clauses = next(v for k, v in results.items() if k.startswith("clauses("))
    assert clauses["roc_auc_mean"] == 1.0


def test_meta_eval_bootstrap_of_each_scorer_against_the_first(tmp_path, capsys, monkeypatch):
    """``--bootstrap N``: the later scorers' ROC-AUC minus the first one's, resampled by claim
    with the same draw for both. A scorer that orders every pair right against one that orders
    every pair wrong: 1 - 0 in every resample, so no spread; the first scorer gets no such row."""
    import json

    import pytest

    import citetrain.nli.registry as registry
    from citetrain.nli.base import NLIResult

    rows = [{"id": f"r{i}", "claim": f"claim {i}", "references": [f"ref {i}"],
             "attribution_label": "attributable" if i % 2 else "not attributable"}
            for i in range(20)]
    path = tmp_path / "ab.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    class Fake:
        def __init__(self, name):
            self.name = name

        def results(self, pairs):
            out = []
            for _, claim in pairs:
                i = int(claim.split()[1])
                right = (i % 2) + i / 100  # attributable above every other claim
                out.append(NLIResult(right if self.name == "good" else 1 - right, False))
            return out

    monkeypatch.setattr(registry, "make_engine", lambda name, **k: Fake(name))
    assert main(["meta-eval", str(path), "--nli", "bad,good", "--bootstrap", "200", "--out",
                 str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "roc_auc_diff: ROC-AUC minus bad's" in out and "200 resamples" in out
    results = json.loads((tmp_path / "meta_eval.json").read_text())["results"]
    assert "roc_auc_diff" not in results["bad"]
    good = results["good"]
    assert (good["roc_auc_mean"], results["bad"]["roc_auc_mean"]) == (1.0, 0.0)  # levels 2 / 0
    assert good["roc_auc_diff"] == 1.0 and good["roc_auc_diff_low"] == good["roc_auc_diff_high"] == 1.0
    assert good["roc_auc_diff_sd"] == pytest.approx(0, abs=1e-12)
    assert main(["meta-eval", str(path), "--nli", "bad,good", "--bootstrap", "0",
                 "--no-progress"]) != 0
    assert "--bootstrap must be a positive number of resamples, not 0" in capsys.readouterr().err
