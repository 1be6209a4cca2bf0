"""LLM-AggreFact's protocol in ``citetrain meta-eval``: balanced accuracy per dataset with the
threshold tuned on the dev split, and the unweighted average, checked against hand arithmetic.

The fixture (``data/aggrefact``, written for these tests in the benchmark's columns ``dataset``,
``doc``, ``claim``, ``label``) holds two datasets of 8 dev and 8 test rows. Each claim is four
content words of which k occur in its document, so the lexical NLI (content-word recall) scores it
exactly k/4. The (score, label) rows, in the files' order within each dataset:

    AggreFact-CNN dev:  (1, 1) (.75, 1) (.75, 1) (.5, 1) (.5, 0) (.25, 0) (.25, 0) (0, 0)
    AggreFact-CNN test: (1, 1) (.75, 1) (.5, 1) (.25, 1) (.5, 0) (.25, 0) (0, 0) (0, 0)
    Wice dev:           (1, 1) (1, 1) (.75, 1) (.75, 1) (.75, 0) (.5, 0) (.25, 1) (0, 0)
    Wice test:          (1, 1) (.75, 1) (.75, 0) (.5, 1) (.5, 0) (.25, 0) (0, 0) (1, 0)

A claim is predicted supported when its score is above the threshold (strictly), BAcc = (TPR +
TNR) / 2, and the threshold is the smallest of 0.01 ... 0.99 with the highest dev BAcc.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from citetrain.cli.main import main
from citetrain.errors import InputError
from citetrain.io.labelled import aggrefact_columns, read_aggrefact
from citetrain.metrics.aggrefact import aggrefact_protocol, balanced_accuracy, tune_threshold

DATA = Path(__file__).parent / "data" / "aggrefact"
DEV, TEST = DATA / "dev.jsonl", DATA / "test.jsonl"

# AggreFact-CNN dev, 4 positives {1, .75, .75, .5} and 4 negatives {.5, .25, .25, 0}:
#   t in .01-.24 (supported: score >= .25): TPR 4/4, TNR 1/4 (only 0)  -> (1 + .25) / 2 = .625
#   t in .25-.49 (score >= .5):            TPR 4/4, TNR 3/4            -> .875
#   t in .50-.74 (score >= .75):           TPR 3/4, TNR 4/4            -> .875 (a tie: not taken)
#   t in .75-.99 (score 1):                TPR 1/4, TNR 4/4            -> .625
# -> threshold .25 (the first of the best), dev BAcc .875.
# Test at .25 (score >= .5 supported): positives {1, .75, .5, .25}: 3/4; negatives {.5, .25, 0, 0}:
#   .5 wrong, 3/4 right -> (.75 + .75) / 2 = .75
CNN = {"threshold": 0.25, "dev_bacc": 0.875, "test_bacc": 0.75}
# Wice dev, 5 positives {1, 1, .75, .75, .25} and 3 negatives {.75, .5, 0}:
#   t in .01-.24: TPR 5/5, TNR 1/3 -> 2/3;   t in .25-.49: TPR 4/5, TNR 1/3 -> 17/30
#   t in .50-.74: TPR 4/5, TNR 2/3 -> 11/15 (.733, the best); t in .75-.99: TPR 2/5, TNR 3/3 -> .7
# -> threshold .50 (a score of exactly .5 is not above it), dev BAcc 11/15.
# Test at .5 (score >= .75 supported): positives {1, .75, .5}: 2/3; negatives {.75, .5, .25, 0, 1}:
#   .5, .25, 0 right, 3/5 -> (2/3 + 3/5) / 2 = 19/30
WICE = {"threshold": 0.5, "dev_bacc": 11 / 15, "test_bacc": 19 / 30}
# The benchmark's figure: the unweighted mean over the datasets, (.75 + 19/30) / 2 = 83/120;
# the dev mean (.875 + 11/15) / 2 = 193/240.
AVERAGE, AVERAGE_DEV = 83 / 120, 193 / 240


def run(tmp_path: Path, *argv: str) -> tuple[dict, str]:
    out = tmp_path / "out"
    assert main(["meta-eval", *argv, "--nli", "lexical", "--no-cache", "--no-progress",
                 "--out", str(out)]) == 0
    report = json.loads((out / "meta_eval.json").read_text())
    (result,) = report["results"].values()
    return result, str(out)


def by_name(result: dict) -> dict[str, dict]:
    return {d["dataset"]: d for d in result["datasets"]}


def check_tuned(result: dict) -> None:
    got = by_name(result)
    assert list(got) == ["AggreFact-CNN", "Wice"]  # in order of first appearance
    for name, want in (("AggreFact-CNN", CNN), ("Wice", WICE)):
        assert got[name]["tuned"] and got[name]["n"] == got[name]["dev_n"] == 8
        assert {k: got[name][k] for k in want} == pytest.approx(want)
    assert result["average"] == pytest.approx(AVERAGE)
    assert result["average_dev"] == pytest.approx(AVERAGE_DEV)
    assert result["notes"] == []


def test_fixture_scores_are_k_quarters():
    """The premise of the arithmetic above: the lexical NLI scores the fixture's claims k/4."""
    from citetrain.nli.registry import make_engine

    engine = make_engine("lexical", cache=False, progress=False)
    pairs = read_aggrefact(TEST)
    scores = [r.prob for r in engine.results([(p.premise, p.hypothesis) for p in pairs])]
    cnn = [s for p, s in zip(pairs, scores) if p.meta["dataset"] == "AggreFact-CNN"]
    assert cnn == [1, 0.75, 0.5, 0.25, 0.5, 0.25, 0, 0]
    assert [p.label for p in pairs][:2] == [2, 2]  # label 1 is full support


def test_meta_eval_reports_the_protocol_by_hand(tmp_path, capsys):
    result, _ = run(tmp_path, str(TEST), "--dev", str(DEV))
    check_tuned(result)
    out = capsys.readouterr().out
    assert "LLM-AggreFact: 16 test claims in 2 datasets" in out
    assert "thresholds tuned on 16 dev claims" in out
    lines = out.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith("dataset"))) + 1:][:3] == [
        "AggreFact-CNN       0.25      87.5       75.0   8",
        "Wice                0.50      73.3       63.3   8",
        "Average                       80.4       69.2  16"]


def test_split_column_instead_of_dev(tmp_path):
    """One file of both splits, told apart by a ``split`` column: the same result."""
    both = tmp_path / "all.jsonl"
    rows = [{**json.loads(line), "split": split}
            for split, path in (("test", TEST), ("dev", DEV))
            for line in path.read_text().splitlines()]
    both.write_text("".join(json.dumps(r) + "\n" for r in rows))
    check_tuned(run(tmp_path, str(both))[0])


def test_no_dev_split_takes_one_half_and_says_so(tmp_path, capsys):
    # AggreFact-CNN test at .5 (score >= .75 supported): positives {1, .75, .5, .25}: 2/4;
    #   negatives {.5, .25, 0, 0}: 4/4 -> .75.  Wice at .5 is the tuned threshold: 19/30.
    result, _ = run(tmp_path, str(TEST))
    got = by_name(result)
    assert all(not d["tuned"] and d["threshold"] == 0.5 and d["dev_bacc"] is None
               for d in got.values())
    assert got["AggreFact-CNN"]["test_bacc"] == pytest.approx(0.75)
    assert got["Wice"]["test_bacc"] == pytest.approx(19 / 30)
    assert result["average"] == pytest.approx((0.75 + 19 / 30) / 2)
    assert "no dev split, threshold 0.5: AggreFact-CNN, Wice" in result["notes"]
    out = capsys.readouterr().out
    assert "0.50*" in out and "* no dev split: threshold 0.5" in out


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_csv_and_parquet_exports_give_the_same_result(tmp_path):
    """The datasets library's other exports (``to_csv``, ``to_parquet``), detected by columns."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    for name in ("dev", "test"):
        rows = _rows(DATA / f"{name}.jsonl")
        _write_csv(tmp_path / f"{name}.csv", rows)
        pq.write_table(pa.Table.from_pylist(rows), tmp_path / f"{name}.parquet")
    for suffix in ("csv", "parquet"):
        assert aggrefact_columns(tmp_path / f"test.{suffix}")
        check_tuned(run(tmp_path, str(tmp_path / f"test.{suffix}"),
                        "--dev", str(tmp_path / f"dev.{suffix}"))[0])
    assert not aggrefact_columns(Path(__file__).parents[2] / "examples" / "predictions.jsonl")


def test_pure_protocol_tie_and_strictness():
    # all thresholds tie at BAcc 1 between .01 and .49: the smallest is taken
    assert tune_threshold([0.5, 0.0], [1, 0]) == (0.01, 1.0)
    # a score equal to the threshold is not supported: [.5 > .5] = 0 -> TPR 0, TNR 1 -> .5
    assert balanced_accuracy([0.5, 0.0], [1, 0], 0.5) == 0.5
    res = aggrefact_protocol([("A", 0.9, 1), ("A", 0.1, 0)], [("B", 0.9, 1)])
    assert res["datasets"][0]["tuned"] is False
    assert res["notes"] == ["no dev split, threshold 0.5: A",
                            "dev datasets without test rows, left out: B"]


@pytest.mark.parametrize("suffix", ["jsonl", "csv", "parquet"])
def test_a_bad_row_names_file_line_and_field(tmp_path, capsys, suffix):
    rows = _rows(TEST)
    rows[2]["label"] = "maybe"
    path = tmp_path / f"bad.{suffix}"
    if suffix == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        where = f"{path}:3: field 'label'"
    elif suffix == "csv":
        _write_csv(path, rows)
        where = f"{path}:4: field 'label'"  # the header is line 1
    else:
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        for r in rows:
            r["label"] = str(r["label"])
        pq.write_table(pa.Table.from_pylist(rows), path)
        where = f"{path}:3: field 'label'"
    with pytest.raises(InputError) as err:
        read_aggrefact(path)
    assert str(err.value).startswith(where) and "'maybe'" in str(err.value)
    assert main(["meta-eval", str(path), "--format", "aggrefact", "--no-progress"]) == 2
    err_lines = capsys.readouterr().err.strip().splitlines()
    assert len(err_lines) == 1 and where in err_lines[0]
    skipped = read_aggrefact(path, skip_invalid=True)
    assert len(skipped) == 15 and len(skipped.skipped) == 1


def test_missing_column_and_misplaced_dev(tmp_path, capsys):
    rows = [{k: v for k, v in r.items() if k != "doc"} for r in _rows(TEST)]
    path = tmp_path / "nodoc.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError, match=r"nodoc.jsonl:1: field 'doc'"):
        read_aggrefact(path)
    _write_csv(tmp_path / "nodoc.csv", rows)
    with pytest.raises(InputError, match=r"nodoc.csv:1: field 'doc'"):
        read_aggrefact(tmp_path / "nodoc.csv")
    wice = tmp_path / "wice.jsonl"
    wice.write_text(json.dumps({"label": "supported", "claim": "c", "evidence": ["e"],
                                "meta": {"id": "w"}}) + "\n")
    assert main(["meta-eval", str(wice), "--dev", str(DEV), "--no-progress"]) == 2
    assert "--dev" in capsys.readouterr().err
