"""The evidence ranker: its features by hand, its cut, fitting, the saved file and the commands."""
import json
import math

import pytest
from rank_bm25 import BM25Okapi

from citetrain.cli.main import main
from citetrain.errors import CitetrainError
from citetrain.refine.evidence import (FEATURES, EvidenceRanker, cross_validate, features,
                                       fit_ranker, terms)
from citetrain.refine.joint import JointOptions
from citetrain.refine.load import load_refiner

STATEMENT = "The bridge opened in 1932"
PASSAGES = ["The bridge opened in 1932.", "It carries trains.", "Bridge construction began in 1930."]


def test_features_by_hand():
    assert terms(STATEMENT) == ["bridg", "open", "1932"]
    rows = features(STATEMENT, PASSAGES)
    col = {name: [r[k] for r in rows] for k, name in enumerate(FEATURES)}
    raw = BM25Okapi([terms(p) for p in PASSAGES]).get_scores(terms(STATEMENT))
    assert col["bm25"] == pytest.approx([1.0, 0.0, raw[2] / raw[0]]) and 0 < col["bm25"][2] < 1
    assert col["inv_rank"] == pytest.approx([1.0, 1 / 3, 1 / 2])
    assert col["recall"] == pytest.approx([1.0, 0.0, 1 / 3])        # passage 3 shares "bridg"
    assert col["quoted"] == pytest.approx([1.0, 0.0, 0.0])          # no two-word run in 3
    assert col["neighbour_bm25"] == pytest.approx([0.0, 1.0, 0.0])  # 2 sits beside 1
    assert col["position"] == pytest.approx([0.0, 1 / 3, 2 / 3])
    assert col["log_length"] == pytest.approx([math.log1p(5), math.log1p(3), math.log1p(5)])
    assert col["numbers"] == [1.0, 0.0, 0.0]                        # 1932, not 1930
    num = FEATURES.index("numbers")
    assert [r[num] for r in features("In 1932 and 1930 it opened", PASSAGES)] == [0.5, 0.0, 0.5]
    assert [r[num] for r in features("It opened", PASSAGES)] == [0.0, 0.0, 0.0]
    assert col["given"] == [0.0, 0.0, 0.0]
    given = FEATURES.index("given")
    assert [r[given] for r in features(STATEMENT, PASSAGES, given=[3, 7])] == [0.0, 0.0, 1.0]
    assert features(STATEMENT, []) == []


def ranker(**kw):
    # P = sigmoid(10 * bm25 - 5): passage 1 0.993, passage 2 0.007, passage 3 in between
    return EvidenceRanker([10.0] + [0.0] * (len(FEATURES) - 1), -5.0, **kw)


def test_choose_cuts_by_threshold_within_min_and_max():
    probs = ranker().probabilities(STATEMENT, PASSAGES)
    assert probs[0] > probs[2] > probs[1]
    assert ranker(threshold=0.99).choose(STATEMENT, PASSAGES) == [1]
    assert ranker(threshold=0.999).choose(STATEMENT, PASSAGES) == [1]            # min_ids 1
    assert ranker(threshold=0.999, min_ids=2).choose(STATEMENT, PASSAGES) == [1, 3]
    assert ranker(threshold=0.0, max_ids=2).choose(STATEMENT, PASSAGES) == [1, 3]


def test_fit_ranks_the_evidence_first():
    from citetrain.metrics.gold_citations import gold_citations
    from citetrain.refine.baselines import baseline_refine, trivial_ids
    from citetrain.refine.evidence import evidence_refine
    from citetrain.synth.records import synth_records

    records = synth_records(60, seed=0)
    fitted = fit_ranker(records)
    assert fitted.weights[FEATURES.index("bm25")] > 0
    assert fitted.fitted_on["statements"] > 100 and 0.05 <= fitted.threshold <= 0.8
    ours = gold_citations(evidence_refine(records, fitted)[0]).scores["gold_f1"]
    trivial = gold_citations(baseline_refine(records, trivial_ids)[0]).scores["gold_f1"]
    assert ours == pytest.approx(fitted.fitted_on["train_f1"], abs=0.01) and ours > trivial + 10
    with pytest.raises(CitetrainError, match="no statement with reference"):
        fit_ranker([r.model_copy(update={"gold": None}) for r in records[:3]])


def test_given_marks_are_a_fitted_prior():
    from citetrain.metrics.gold_citations import gold_citations
    from citetrain.refine.evidence import evidence_refine
    from citetrain.refine.inputs import make_inputs
    from citetrain.synth.records import synth_records

    records = synth_records(60, seed=0)
    removed, half = make_inputs(records, "removed", 0), make_inputs(records, "half", 0)
    given = FEATURES.index("given")
    assert fit_ranker(removed).weights[given] == 0.0        # never seen: the marks are ignored
    trusting = fit_ranker(half)
    assert trusting.weights[given] > 0
    f1 = {name: gold_citations(evidence_refine(inputs, trusting)[0]).scores["gold_f1"]
          for name, inputs in (("removed", removed), ("half", half))}
    assert f1["half"] > f1["removed"]
    # a ranker that reads only the marks cites them, statement by statement
    only = EvidenceRanker([0.0] * given + [10.0], -5.0, threshold=0.5, min_ids=0)
    refined = evidence_refine(half, only)[0]
    from citetrain.metrics.gold_citations import cited_ids
    assert [cited_ids(r) for r in refined] == [cited_ids(r) for r in half]


def test_cross_validation_fits_on_other_records_only(monkeypatch):
    from citetrain.refine import evidence
    from citetrain.synth.records import synth_records

    records = synth_records(30, seed=0)
    fitted_on, scored = [], []
    real_fit, real_probs = evidence._fit_rows, EvidenceRanker.probabilities_of

    def spy_fit(feats, *a):
        fitted_on.append({id(f) for f in feats})
        return real_fit(feats, *a)

    def spy_probs(self, rows):
        scored.append((len(fitted_on) - 1, id(rows)))
        return real_probs(self, rows)

    monkeypatch.setattr(evidence, "_fit_rows", spy_fit)
    monkeypatch.setattr(EvidenceRanker, "probabilities_of", spy_probs)
    cv = cross_validate(records, folds=3, seeds=(0, 1))
    assert len(fitted_on) == 6 and cv["folds"] == 3 and cv["records"] == 30
    # every statement is scored once per seed, by a ranker that never saw it
    assert len(scored) == 2 * cv["statements"]
    assert all(rows not in fitted_on[k] for k, rows in scored)
    f1s = [s["f1"] for s in cv["per_seed"]]
    assert [s["seed"] for s in cv["per_seed"]] == [0, 1] and all(0 < f <= 100 for f in f1s)
    assert cv["f1_mean"] == pytest.approx(sum(f1s) / 2, abs=0.01)
    assert cv["f1_sd"] == pytest.approx(abs(f1s[0] - f1s[1]) / math.sqrt(2), abs=0.01)
    monkeypatch.undo()
    assert cross_validate(records, folds=3, seeds=(0, 1)) == cv          # deterministic by seed
    # fitted on other records, it does worse than on its own: labels drawn at random
    import random
    rng = random.Random(0)
    noisy = [r.model_copy(update={"gold": [[rng.randint(1, len(r.docs))] for _ in g]})
             for r in records for g in [r.model_extra["gold"]]]
    cv_noisy = cross_validate(noisy, folds=3, seeds=(0,))["f1_mean"]
    assert cv_noisy < fit_ranker(noisy).fitted_on["train_f1"]
    for folds in (1, 31):
        with pytest.raises(CitetrainError, match=f"2 <= folds <= 30 records with .*, got {folds}"):
            cross_validate(records, folds=folds)


def test_saved_file_round_trip_and_one_line_errors(tmp_path):
    path = tmp_path / "r.json"
    ranker(threshold=0.4).save(path)
    back = EvidenceRanker.load(path)
    assert back == ranker(threshold=0.4)
    raw = json.loads(path.read_text())
    for change, field in (({"kind": "model"}, "'kind'"), ({"weights": [1.0]}, "'weights'"),
                          ({"features": ["bm25"]}, "'features'")):
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({**raw, **change}))
        with pytest.raises(CitetrainError, match=f"{bad}: field {field}"):
            EvidenceRanker.load(bad)
    with pytest.raises(CitetrainError, match="not a readable evidence ranker"):
        EvidenceRanker.load(tmp_path / "missing.json")
    with pytest.raises(CitetrainError, match="--joint: ranker:.* is a ranker refiner"):
        load_refiner(f"ranker:{path}", joint=JointOptions())


def test_fit_ranker_and_refine_eval_commands(tmp_path, capsys):
    from tests.refine.test_benchmark import LINES

    data = tmp_path / "qs.jsonl"
    data.write_text("".join(json.dumps(x) + "\n" for x in LINES * 3))
    out = tmp_path / "ranker.json"
    assert main(["fit-ranker", str(data), "--format", "quotesum", "--split", "all",
                 "--out", str(out)]) == 0
    assert f"wrote {out}: fitted on 9 statements" in capsys.readouterr().out
    assert json.loads(out.read_text())["fitted_on"]["format"] == "quotesum"
    assert main(["fit-ranker", str(data), "--format", "quotesum", "--split", "all", "--cv", "3",
                 "--cv-seeds", "4,5", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "cv seed 4: P " in printed and "cv seed 5: P " in printed
    cv = json.loads(out.read_text())["fitted_on"]["cv"]
    assert f"cv 3 folds over 6 records: F1 {cv['f1_mean']} +- {cv['f1_sd']}" in printed
    with pytest.raises(SystemExit) as exc:
        main(["fit-ranker", str(data), "--cv", "3", "--cv-seeds", "a,b", "--out", str(out)])
    assert exc.value.code == 2
    assert "not a comma-separated list of integers: 'a,b'" in capsys.readouterr().err
    assert main(["refine-eval", str(data), "--format", "quotesum", "--inputs", "removed",
                 "--refiner", f"ranker:{out}", "--joint"]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ranker:")]
    assert len(rows) == 1 and rows[0].startswith(f"| ranker:{out} | removed |")
