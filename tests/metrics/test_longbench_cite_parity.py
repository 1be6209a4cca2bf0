"""Parity of ``longbench_cite`` with LongBench-Cite's own scorer, through an LLM judge.

The expected numbers were produced outside the project: THUDM/LongCite at commit
d7d772e39fb15357749f54a2fe1e2dce77df5255, ``LongBench-Cite/eval_cite.py`` (``get_citation_score``
with ``max_statement_num=40`` and its per-dataset aggregation, unchanged but for reading one
predictions file per run) with ``utils/llm_api.query_llm`` replaced by a shim that posts to
:class:`tests.fake_openai.ChatServer` answering with :class:`tests.metrics.longbench_fake.LongBenchFake`
(a fresh server per file), on ``data/longbench_cite_{en,zh}.json`` and their concatenation. Record
6 (dataset narrativeqa, outside eval_cite's list, which leaves it out) went through
``get_citation_score`` directly: its empty snippets make the authors' token-usage sum fail after
the scores are set, and those scores are the ones below. The judge prompts differ (the authors'
and the project's own) but list the same answer forms, from which the fake tells the question.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from citetrain.io.formats import convert_longcite
from citetrain.metrics.longbench_cite import dataset_rows, longbench_cite
from tests.metrics.longbench_fake import LongBenchFake

DATA = Path(__file__).parent / "data"

# per record: citation_recall, citation_precision, citation_f1 (the authors' per-record values)
EXPECTED = {
    "0": (0.625, 0.5, 0.5555555555555556),
    "1": (0.75, 0.6666666666666666, 0.7058823529411765),
    "2": (0.625, 1.0, 0.7692307692307693),
    "3": (0.0, 0.0, 0.0),
    "4": (0.25, 0.6666666666666666, 0.36363636363636365),
    "5": (0.5, 0.5, 0.5),
    "6": (0.25, 0.3333333333333333, 0.28571428571428575),
    "10": (0.5, 0.6666666666666666, 0.5714285714285715),
    "11": (0.6666666666666666, 0.5, 0.5714285714285715),
    "12": (1.0, 1.0, 1.0),
}
# the authors' dataset rows (recall, precision, F1; nan: no record) and average, per file
NAN = math.nan
ROWS = {
    "en": {"longbench-chat": (0.25, 0.25, 0.25),
           "multifieldqa_en": (0.625, 1.0, 0.7692307692307693),
           "multifieldqa_zh": (NAN, NAN, NAN),
           "multifieldqa": (0.625, 1.0, 0.7692307692307693),
           "hotpotqa": (0.6875, 0.5833333333333333, 0.630718954248366),
           "dureader": (NAN, NAN, NAN),
           "gov_report": (0.25, 0.6666666666666666, 0.36363636363636365)},
    "zh": {"longbench-chat": (NAN, NAN, NAN), "multifieldqa_en": (NAN, NAN, NAN),
           "multifieldqa_zh": (0.5, 0.6666666666666666, 0.5714285714285715),
           "multifieldqa": (0.5, 0.6666666666666666, 0.5714285714285715),
           "hotpotqa": (NAN, NAN, NAN),
           "dureader": (0.8333333333333333, 0.75, 0.7857142857142858),
           "gov_report": (NAN, NAN, NAN)},
    "all": {"longbench-chat": (0.25, 0.25, 0.25),
            "multifieldqa_en": (0.625, 1.0, 0.7692307692307693),
            "multifieldqa_zh": (0.5, 0.6666666666666666, 0.5714285714285715),
            "multifieldqa": (0.5625, 0.8333333333333333, 0.6703296703296704),
            "hotpotqa": (0.6875, 0.5833333333333333, 0.630718954248366),
            "dureader": (0.8333333333333333, 0.75, 0.7857142857142858),
            "gov_report": (0.25, 0.6666666666666666, 0.36363636363636365)},
}
AVERAGE_ALL = (0.5166666666666666, 0.6166666666666666, 0.5400798547857372)  # en and zh: nan


def _records(name: str):
    items = [x for f in (("en", "zh") if name == "all" else (name,))
             for x in json.loads((DATA / f"longbench_cite_{f}.json").read_text(encoding="utf-8"))]
    return [r for i, x in enumerate(items) for r in convert_longcite(x, str(i))]


def _run(server, name: str):
    srv = server(answer=LongBenchFake())
    return srv, longbench_cite(_records(name), None, judge="llm:gpt-4o-2024-05-13",
                               base_url=srv.url, concurrency=4)


@pytest.mark.parametrize("name", ["en", "zh", "all"])
def test_per_record_and_dataset_rows_match_the_authors_scorer(server, name):
    _, result = _run(server, name)
    for entry in result.per_record:
        want = EXPECTED[entry["id"]]
        got = (entry["citation_recall"], entry["citation_precision"], entry["citation_f1"])
        assert got == pytest.approx(want, abs=1e-12), entry["id"]
    rows = dataset_rows(result.info["dataset_sums"])
    for dataset, want in ROWS[name].items():
        got = tuple(rows[dataset][k] for k in ("recall", "precision", "f1"))
        if math.isnan(want[0]):  # no record: n/a here, numpy's nan there
            assert got == (None, None, None) and rows[dataset]["records"] == 0
        else:
            assert got == pytest.approx(tuple(100 * w for w in want), abs=1e-12), dataset


def test_average_matches_the_authors_scorer(server):
    srv, result = _run(server, "all")
    got = tuple(result.scores[f"longbench_cite_{k}"] for k in ("rec", "prec", "f1"))
    assert got == pytest.approx(tuple(100 * w for w in AVERAGE_ALL), abs=1e-12)
    # the record with more than 40 statements was cut to 40, as the authors' max_statement_num
    gov = next(e for e in result.per_record if e["id"] == "4")
    assert (gov["n_statements"], gov["n_statements_total"]) == (40, 45)
    # unreadable answers were asked again: temperature 0 first, then 1; 10 new tokens, "Analysis:"
    by_prompt: dict[str, list[float]] = {}
    for b in srv.bodies:
        if "<statement>\nretry retry The confluence" in b["messages"][0]["content"]:
            by_prompt.setdefault(b["messages"][0]["content"], []).append(b["temperature"])
    assert sorted(by_prompt.values()) == [[0.0, 1.0, 1.0]] * 2  # its support and relevance
    assert {(b["max_tokens"], b["stop"]) for b in srv.bodies} == {(10, "Analysis:")}


def test_average_without_some_datasets_leaves_them_out(server):
    """The authors' average is nan when a dataset has no record; here such rows are left out."""
    _, result = _run(server, "zh")
    rows = ROWS["zh"]
    want = [(rows["multifieldqa"][j] + rows["dureader"][j]) / 2 for j in range(3)]
    got = [result.scores[f"longbench_cite_{k}"] for k in ("rec", "prec", "f1")]
    assert got == pytest.approx([100 * w for w in want], abs=1e-12)
