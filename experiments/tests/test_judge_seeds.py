"""experiments/judge_seeds.py (issue 14): other readings of trained judges from their saved per-pair
held-out scores — each run averaged with lexical recall, and the runs' ensemble — with ROC-AUCs
computed by hand."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "experiments"))

import judge_seeds as js  # noqa: E402

LEXICAL = [0.1, 0.8, 0.3, 0.6]
LABELS = [2, 2, 0, 0]  # two supported claims, two not


def run(tmp_path: Path, name: str, model: list[float], groups=("g1", "g2", "g3", "g4")) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    rows = [{"source": "ab", "group": g, "label": y, "model": m, "lexical": x}
            for g, y, m, x in zip(groups, LABELS, model, LEXICAL)]
    (folder / "heldout_scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_lexical_mean_and_ensemble_by_hand(tmp_path):
    a = run(tmp_path, "a", [0.9, 0.2, 0.4, 0.1])  # model alone: 3 of 4 pos/neg pairs ordered
    b = run(tmp_path, "b", [0.3, 0.7, 0.2, 0.4])  # 3 of 4 as well
    lex = js.combined([a, b], "lexmean")
    # a: (0.5, 0.5 | 0.35, 0.35) separates; b: (0.2, 0.75 | 0.25, 0.5): 0.2 < both negatives
    assert lex[str(a)]["ab"] == {"model": 1.0, "lexical": 0.5}
    assert lex[str(b)]["ab"]["model"] == 0.5
    (ens,) = js.combined([a, b], "ensemble").values()
    assert ens["ab"]["model"] == 1.0  # (0.6, 0.45 | 0.3, 0.25)
    (both,) = js.combined([a, b], "ensemble+lexmean").values()
    assert both["ab"]["model"] == 0.75  # (0.35, 0.625 | 0.3, 0.425)


def test_an_ensemble_of_runs_scored_on_other_pairs_is_refused(tmp_path):
    a = run(tmp_path, "a", [0.9, 0.2, 0.4, 0.1])
    b = run(tmp_path, "b", [0.3, 0.7, 0.2, 0.4], groups=("g1", "g2", "g3", "g9"))
    with pytest.raises(SystemExit, match="different held-out pairs"):
        js.combined([a, b], "ensemble")


def test_the_verdict_reads_the_named_row_in_the_mean_over_its_runs(capsys):
    figs = {"one": {"r1": {"wice": {"model": 0.9, "lexical": 0.79},
                           "attributionbench": {"model": 0.7, "lexical": 0.68},
                           "expertqa": {"model": 0.6, "lexical": 0.54}},
                    "r2": {"wice": {"model": 0.7, "lexical": 0.79},
                           "attributionbench": {"model": 0.7, "lexical": 0.68},
                           "expertqa": {"model": 0.6, "lexical": 0.54}}},
            "other": {"x": {"wice": {"model": 0.99, "lexical": 0.79},
                            "attributionbench": {"model": 0.99, "lexical": 0.68},
                            "expertqa": {"model": 0.99, "lexical": 0.54}}}}
    assert js.print_table(figs, 0.03, "one") is False  # WiCE mean 0.80: +0.01 only
    assert "one minus lexical: wice +0.010" in capsys.readouterr().out
    assert js.print_table(figs, 0.03) is True  # the last row


def test_ensembles_of_k_runs_are_disjoint_groups_in_order(tmp_path):
    a = run(tmp_path, "a", [0.9, 0.2, 0.4, 0.1])
    b = run(tmp_path, "b", [0.3, 0.7, 0.2, 0.4])
    c = run(tmp_path, "c", [0.1, 0.2, 0.3, 0.4])  # every negative above every positive: 0.0
    d = run(tmp_path, "d", [0.7, 0.1, 0.8, 0.2])  # 1 of 4 pos/neg pairs ordered: 0.25
    groups = js.combined([a, b, c, d], "ensemble", size=2)
    assert list(groups) == ["a+b", "c+d"]
    assert groups["a+b"]["ab"]["model"] == 1.0  # (0.6, 0.45 | 0.3, 0.25), as above
    # (0.4, 0.15 | 0.55, 0.3): 0.4 above 0.3 only
    assert groups["c+d"]["ab"]["model"] == 0.25
    with pytest.raises(SystemExit, match="do not split into groups of 3"):
        js.combined([a, b, c, d], "ensemble", size=3)


def test_one_vs_one_measures_by_hand_on_three_levels_only(tmp_path, capsys):
    """``--measure ps_vs_ns``: the ROC-AUC of partial against not supported claims, from the
    saved scores; a two-level source (``ab``) has no such measure and is left out."""
    folder = tmp_path / "r"
    folder.mkdir()
    rows = [  # wice: full 0.9 / 0.5, partial 0.6 / 0.2, none 0.3 / 0.1; lexical the other way round
        *[{"source": "wice", "group": f"w{i}", "label": y, "model": m, "lexical": x}
          for i, (y, m, x) in enumerate([(2, 0.9, 0.2), (2, 0.5, 0.9), (1, 0.6, 0.7), (1, 0.2, 0.8),
                                         (0, 0.3, 0.6), (0, 0.1, 0.1)])],
        {"source": "ab", "group": "a1", "label": 2, "model": 0.9, "lexical": 0.1},
        {"source": "ab", "group": "a2", "label": 0, "model": 0.1, "lexical": 0.9}]
    (folder / "heldout_scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (alone,) = js.combined([folder], "alone", measure="ps_vs_ns").values()
    # model: partial (0.6, 0.2) vs none (0.3, 0.1): 3 of 4 pairs ordered; lexical (0.7, 0.8) vs
    # (0.6, 0.1): 4 of 4
    assert alone == {"wice": {"model": 0.75, "lexical": 1.0}}
    (fs,) = js.combined([folder], "alone", measure="fs_vs_ps").values()
    assert fs["wice"] == {"model": 0.75, "lexical": 0.5}  # (0.9, 0.5) vs (0.6, 0.2); (0.2, 0.9) vs (0.7, 0.8)
    (mean,) = js.combined([folder], "lexmean", measure="ps_vs_ns").values()
    assert mean["wice"]["model"] == 1.0  # (0.65, 0.5) vs (0.45, 0.1)
    assert js.print_table({"alone": {str(folder): alone}}) is False
    assert "alone minus lexical: wice -0.250" in capsys.readouterr().out


def test_a_row_without_a_source_prints_a_dash_and_no_verdict_on_it(capsys):
    """A row trained without a source (e.g. crossencoder.labelled without wice_tokens) leaves its cell
    empty; the verdict needs all three main sets."""
    full = {"wice": {"model": 0.9, "lexical": 0.79}, "attributionbench": {"model": 0.7, "lexical": 0.68},
            "expertqa": {"model": 0.6, "lexical": 0.54}, "wice_tokens": {"model": 0.8, "lexical": 0.75}}
    less = {k: v for k, v in full.items() if k != "wice_tokens"}
    assert js.print_table({"all": {"a": full}, "less": {"b": less}}) is True
    said = capsys.readouterr().out
    assert said.splitlines()[4].split() == ["wice_tokens", "0.750", "0.800", "±", "0.000", "-"]
    assert js.print_table({"all": {"a": full}, "no-ab": {"b": {"wice": full["wice"]}}}) is False
    assert "no-ab minus lexical: wice +0.110\n" in capsys.readouterr().out


def test_clause_reading_scores_once_then_reads_the_saved_file(tmp_path, monkeypatch):
    """``--read clauses``: the run's model read as ``clauses:classifier:RUN/final`` on the
    validation split; its per-pair scores are saved, and a second call reads them, not the model."""
    import datasets

    from citetrain.nli.registry import make_engine
    from tests.nli.tiny_models import build_bert_classifier

    folder = tmp_path / "r"
    build_bert_classifier(folder / "final", ("not_supported", "partially_supported", "supported"),
                          seed=4)
    premise = "The bridge opened in 1932. It carries six lanes of traffic."
    hyps = ["The bridge opened in 1932, and it carries six lanes.", "The tower is red.",
            "The bridge opened in 1932, while the tower was painted red.", "The mill closed."]
    val = datasets.Dataset.from_dict({"premise": [premise] * 4, "hypothesis": hyps,
                                      "label": [2, 0, 2, 0], "group": ["a", "b", "c", "d"],
                                      "source": ["ab:x"] * 4})
    datasets.DatasetDict({"validation": val}).save_to_disk(str(tmp_path / "ds"))
    figs = js.clause_figures(folder, tmp_path / "ds")
    saved = [json.loads(x) for x in (folder / js.CLAUSE_SCORES).read_text().splitlines()]
    engine = make_engine(f"clauses:classifier:{folder / 'final'}", cache=False, progress=False,
                         device="cpu")
    expected = [r.expected for r in engine.results([(premise, h) for h in hyps])]
    assert [x["model"] for x in saved] == pytest.approx(expected, abs=1e-6)
    assert set(figs) == {"ab"}

    def no_model(*a, **k):
        raise AssertionError("the model was read again")

    monkeypatch.setattr("citetrain.nli.registry.make_engine", no_model)
    assert js.clause_figures(folder, tmp_path / "ds") == figs


def main_sources(tmp_path: Path, name: str, model, lexical, claims: int = 20) -> Path:
    """A run of ``claims`` claims per source of the verdict, half of them supported (2), half not."""
    folder = tmp_path / name
    folder.mkdir()
    rows = [{"source": src, "group": f"{src}{i}", "label": 2 if i % 2 else 0,
             "model": model(i), "lexical": lexical(i)} for src in js.MAIN for i in range(claims)]
    (folder / "heldout_scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_bootstrap_pairs_the_claims_of_the_runs_and_of_lexical_recall(tmp_path):
    # the model orders every drawn pair of claims right and lexical recall every one wrong: the
    # margin is 1 in every resample (both levels drawn), so no spread and the bar always cleared
    good = main_sources(tmp_path, "good", lambda i: i % 2 + i / 100, lambda i: 1 - i % 2)
    res = js.bootstrap_margins([good, good], resamples=200)
    for src in js.MAIN:
        assert res[src]["margin"] == 1.0 and res[src]["sd"] == pytest.approx(0, abs=1e-9)
        assert res[src]["p"] == 1.0
    assert res["bar"]["p"] == 1.0
    # a model equal to lexical recall: 0 in every resample, when the same claims are drawn for
    # both (paired); so never 0.03 on WiCE nor above 0 elsewhere
    same = main_sources(tmp_path, "same", lambda i: (i * 7 % 20) / 20, lambda i: (i * 7 % 20) / 20)
    res = js.bootstrap_margins([same], resamples=200)
    assert all(res[s]["margin"] == 0 and res[s]["sd"] == 0 and res[s]["p"] == 0 for s in js.MAIN)
    assert res["bar"]["p"] == 0
    # (e + r) / 2 of that model is lexical recall again
    assert js.bootstrap_margins([same], "lexmean", resamples=50)["wice"]["margin"] == 0


def test_bootstrap_draws_a_claim_with_all_its_pairs(tmp_path, monkeypatch):
    import numpy as np
    import scipy.stats

    run = main_sources(tmp_path, "r", lambda i: i % 2, lambda i: 0.5)
    rows = [json.loads(x) for x in (run / "heldout_scores.jsonl").read_text().splitlines()]
    rows += [dict(rows[1], label=0, model=0.0)]  # a second pair of claim wice1
    (run / "heldout_scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    drawn = []
    real = scipy.stats.bootstrap

    def spy(data, statistic, **kw):
        drawn.append(len(data[0]))
        return real(data, statistic, **kw)

    monkeypatch.setattr(scipy.stats, "bootstrap", spy)
    res = js.bootstrap_margins([run], resamples=20)
    assert drawn == [20, 20, 20]  # claims are drawn, not pairs (WiCE has 21 pairs)
    # all of wice1's pairs: 10 supported against 11 not, the extra one below every supported one
    assert res["wice"]["margin"] == pytest.approx(1.0 - 0.5) and np.isfinite(res["wice"]["sd"])


def test_bootstrap_refuses_runs_scored_on_other_pairs(tmp_path):
    a = main_sources(tmp_path, "a", lambda i: i % 2, lambda i: 0.5)
    b = main_sources(tmp_path, "b", lambda i: i % 2, lambda i: 0.5, claims=10)
    with pytest.raises(SystemExit, match="different held-out pairs"):
        js.bootstrap_margins([a, b])
