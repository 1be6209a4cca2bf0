"""``longbench_cite`` against hand-computed values (LongBench-Cite's recall, precision, F1).

RuleNLI: the premise fully supports the hypothesis when it contains it (case-folded), partially
when they share a word, else not at all; its decision (label) is full support.
"""
from __future__ import annotations

import json
import re

import pytest

from citetrain.config import ConfigError
from citetrain.errors import CitetrainError
from citetrain.io.formats import convert_longcite
from citetrain.metrics.base import MetricResult
from citetrain.metrics.longbench_cite import dataset_rows, longbench_cite, plain_response
from citetrain.metrics.longbench_judges import load_templates, support_level, verdict_score
from citetrain.metrics.merge import add_sums, partial_sums, scores_from_sums
from citetrain.metrics.options import check_metric_options
from citetrain.metrics.report import Report
from citetrain.nli.base import NLIResult
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record


class RuleNLI:
    model_id, revision, batch_size, is_baseline = "rule", "", 64, False

    def cost(self, pair):
        return 1

    def predict(self, pairs):
        out = []
        for p, h in pairs:
            p, h = p.lower(), h.lower()
            shared = set(re.findall(r"\w+", h)) & set(re.findall(r"\w+", p))
            sup = (1.0, 0.0, 0.0) if h and h in p else (0.0, 1.0, 0.0) if shared else (0.0, 0.0, 1.0)
            out.append(NLIResult(sup[0], sup[0] == 1.0, sup))
        return out


def engine() -> NLIEngine:
    return NLIEngine(RuleNLI(), progress=False)


def st(text, *cites):
    return {"statement": text, "citation": [{"cite": c} for c in cites]}


def rec(idx, dataset, query, *statements):
    item = {"idx": idx, "dataset": dataset, "query": query, "prediction": "",
            "statements": list(statements)}
    return convert_longcite(item, str(idx))[0]


def records():
    return [
        rec("A", "hotpotqa", "Tell me.",
            st("alpha beta", "alpha beta gamma"),        # full: 1; relevant
            st(" epsilon"),                              # uncited, new: need 1 -> 0
            st(" alpha beta"),                           # uncited, said before: need 0 -> 1
            st(" zeta eta", "", " "),                    # empty snippets: 0 unasked; 0, 0
            st(" alpha omega", "alpha x", "omega y")),   # partial 0.5; relevant, relevant
        rec("B", "multifieldqa_zh", "Q?", st("kappa", "kappa")),
        rec("C", "multifieldqa_en", "Q?", st("mu", "nu")),
        rec("D", "hotpotqa", "What is rho?", st("rho")),  # in the question: recall 1, precision 0
        rec("E", "narrativeqa", "Q?", st("pi", "pi")),   # outside the seven datasets
        rec("F", "longbench-chat", "Q?"),                # no statements: 0, 0, 0
    ]


def test_per_record_recall_precision_f1():
    res = longbench_cite(records(), engine())
    got = {e["id"]: (e["citation_recall"], e["citation_precision"], e["citation_f1"])
           for e in res.per_record}
    assert got["A"] == pytest.approx((2.5 / 5, 3 / 5, 2 * 0.5 * 0.6 / 1.1))
    assert got["B"] == (1.0, 1.0, 1.0)
    assert got["C"] == (0.0, 0.0, 0.0)
    assert got["D"] == (1.0, 0.0, 0.0)
    assert got["E"] == (1.0, 1.0, 1.0)
    assert got["F"] == (0.0, 0.0, 0.0)
    rows = [r for r in res.per_statement if r["id"] == "A"]
    assert [(r["support"], r["need_citation"], r["relevance"]) for r in rows] == [
        (1.0, None, [1.0]), (None, 1.0, []), (None, 0.0, []), (0.0, None, [0.0, 0.0]),
        (0.5, None, [1.0, 1.0])]
    # support A0, A4, B, C, E (A3's empty snippets unasked); need A1, A2, D; relevance 8
    assert res.info["judgements"] == 5 + 3 + 8


def test_dataset_rows_substring_grouping_and_average():
    res = longbench_cite(records(), engine())
    rows = dataset_rows(res.info["dataset_sums"])
    f1_a = 2 * 0.5 * 0.6 / 1.1
    assert rows["hotpotqa"]["records"] == 2
    assert [rows["hotpotqa"][k] for k in ("recall", "precision", "f1")] == pytest.approx(
        [100 * (0.5 + 1) / 2, 100 * 0.6 / 2, 100 * f1_a / 2])  # F1 per record, then the mean
    assert rows["multifieldqa"]["records"] == 2  # multifieldqa_en and multifieldqa_zh
    assert [rows["multifieldqa"][k] for k in ("recall", "precision", "f1")] == [50.0] * 3
    assert rows["multifieldqa_zh"]["recall"] == 100.0 and rows["multifieldqa_en"]["recall"] == 0.0
    assert rows["dureader"] == {"records": 0, "recall": None, "precision": None, "f1": None}
    # average: longbench-chat, multifieldqa, hotpotqa (not _en/_zh, not the empty rows)
    assert res.scores["longbench_cite_rec"] == pytest.approx((0 + 50 + 75) / 3)
    assert res.scores["longbench_cite_prec"] == pytest.approx((0 + 50 + 30) / 3)
    assert res.scores["longbench_cite_f1"] == pytest.approx((0 + 50 + 100 * f1_a / 2) / 3)


def test_no_dataset_averages_over_records():
    plain = [Record(id="x", question="Q?", docs=[Doc(text="It says alpha beta.")],
                    output="alpha beta [1]."),
             Record(id="y", question="Q?", docs=[Doc(text="nu")], output="mu [1].")]
    res = longbench_cite(plain, engine())
    assert [e["citation_recall"] for e in res.per_record] == [1.0, 0.0]
    assert res.scores == {"longbench_cite_rec": 50.0, "longbench_cite_prec": 50.0,
                          "longbench_cite_f1": 50.0}


def test_more_than_40_statements_are_cut():
    sts = [st(" known fact") for _ in range(40)] + [st(f" new claim {k}") for k in range(5)]
    r = rec("G", "gov_report", "known fact", *sts)
    cut = longbench_cite([r], engine()).per_record[0]
    assert (cut["citation_recall"], cut["n_statements"], cut["n_statements_total"]) == (1.0, 40, 45)
    full = longbench_cite([r], engine(), max_statements=None).per_record[0]
    assert full["citation_recall"] == pytest.approx(40 / 45)


def test_need_citation_rules():
    r = rec("H", "hotpotqa", "Q?", st("brand new words"), st("kappa", "kappa"))
    always = longbench_cite([r], engine(), need_citation="always").per_record[0]
    never = longbench_cite([r], engine(), need_citation="never").per_record[0]
    assert (always["citation_recall"], never["citation_recall"]) == (0.5, 1.0)


def test_two_way_support_levels():
    assert support_level(NLIResult(0.9, True), 0.5) == 1.0
    assert support_level(NLIResult(0.6, False), 0.5) == 0.5
    assert support_level(NLIResult(0.6, False), 0.7) == 0.0
    assert support_level(NLIResult(0.2, False, (0.2, 0.5, 0.3)), 0.5) == 0.5


@pytest.mark.parametrize("kind, answer, score", [
    ("support", "Rating: [[Fully supported]] Analysis", 1.0),
    ("support", "[[partially supported]]", 0.5),
    ("support", "[[No support]]", 0.0),
    ("support", "[[5 stars]] then [[Fully]]", 1.0),  # digits are not a verdict: the next one is
    ("support", "Fully supported", None),
    ("relevance", "[[Unrelevant]]", 0.0),
    ("relevance", "[[Relevant]]", 1.0),
    ("need_citation", "Need Citation: [[Yes/No]]", 1.0),
    ("need_citation", "[[No]]", 0.0),
])
def test_verdict_parsing(kind, answer, score):
    assert verdict_score(kind, answer) == score


def test_plain_response_drops_cites_and_statement_tags():
    assert plain_response("<statement>A.<cite>[1-2]\n[3-3]</cite></statement> B.") == "A. B."


def test_llm_judge_gives_up_after_five_tries(server):
    srv = server(answer=lambda prompt: "I am not sure.")
    with pytest.raises(CitetrainError, match=r"record A, statement 0: no \[\[\.\.\.\]\] verdict"):
        longbench_cite([rec("A", "hotpotqa", "Q?", st("alpha", "alpha"))], None,
                       judge="llm:m", base_url=srv.url, strict=True)
    support = [b for b in srv.bodies if "[[Fully supported]]" in b["messages"][0]["content"]]
    assert [b["temperature"] for b in support] == [0.0, 1.0, 1.0, 1.0, 1.0]


def test_prompt_templates(tmp_path, server):
    (tmp_path / "need_citation.txt").write_text("NEED [[Yes]] or [[No]]\n{}", encoding="utf-8")
    templates = load_templates(str(tmp_path))
    assert templates["need_citation"].startswith("NEED") and "{}" in templates["support"]
    srv = server(answer=lambda prompt: "[[No]]")
    res = longbench_cite([rec("A", "hotpotqa", "Q?", st("alpha"))], None, judge="llm:m",
                         base_url=srv.url, prompts=str(tmp_path))
    assert srv.prompts[0].startswith("NEED [[Yes]] or [[No]]\n<question>\nQ?\n</question>")
    assert res.per_record[0]["citation_recall"] == 1.0
    bad = tmp_path / "bad.txt"
    bad.write_text("no slot", encoding="utf-8")
    with pytest.raises(CitetrainError, match="bad.txt: no {} where the inputs go"):
        load_templates([str(bad)] * 3)


def test_options_are_checked():
    with pytest.raises(ConfigError, match="longbench_cite.judge: must be 'nli' or 'llm:MODEL'"):
        check_metric_options({"longbench_cite": {"judge": "gpt"}}, "t")
    with pytest.raises(ConfigError, match="max_statements"):
        check_metric_options({"longbench_cite": {"max_statements": 0}}, "t")


def test_chunks_add_up_and_the_table_shows_the_rows():
    recs = records()
    whole = longbench_cite(recs, engine())
    halves = [longbench_cite(recs[:3], engine()), longbench_cite(recs[3:], engine())]
    sums = add_sums(partial_sums("longbench_cite", halves[0]),
                    partial_sums("longbench_cite", halves[1]))
    assert scores_from_sums(sums) == pytest.approx(whole.scores, abs=1e-12)
    table = Report({"longbench_cite": whole}, {"nli": "rule"}).table()
    assert re.search(r"multifieldqa\s+2\s+50\.00\s+50\.00\s+50\.00", table)
    assert re.search(r"dureader\s+0\s+n/a", table)
    assert isinstance(json.loads(json.dumps(whole.info)), dict) and isinstance(whole, MetricResult)


def test_a_replaced_output_is_scored_from_its_marks_not_the_read_statements():
    """Record C cites "nu" for "mu" (recall 0); refined to cite its doc 1 again and with a new
    statement citing nothing, it is scored from the new output: "mu" against "nu" 0, the
    uncited "kappa" new (need 1 -> 0); the untouched record keeps LongCite's statements."""
    read = records()[2]
    refined = read.model_copy(update={"output": "mu [1]. kappa."})
    res = longbench_cite([read, refined.model_copy(update={"id": "C2"})], engine())
    got = {e["id"]: (e["citation_recall"], e["citation_precision"]) for e in res.per_record}
    assert got == {"C": (0.0, 0.0), "C2": (0.0, 0.0)}
    rows = [r for r in res.per_statement if r["id"] == "C2"]
    assert [(r["text"], r["citations"]) for r in rows] == [("mu.", 1), ("kappa.", 0)]
