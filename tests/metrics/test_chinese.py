"""ALCE, lenient, ALiiCE and CiteEval on a Chinese record, scored by the lexical NLI.

Passages (premise = ``"Title: {title}\\n{text}"``) and their lexical tokens (CJK character
bigrams; ``Title`` is the word token ``titl``):

* [1] 北京 / 北京是中国的首都。 -> titl 北京 京是 是中 中国 国的 的首 首都
* [2] 上海 / 上海是中国最大的城市。 -> titl 上海 海是 是中 中国 国最 最大 大的 的城 城市
* [3] 长城 / 长城位于中国北方。 -> titl 长城 城位 位于 于中 中国 国北 北方

Output: ``北京是中国的首都[1]。上海是中国最大的城市。[2]长城位于中国北方[1][3]。``, three
sentences; the ``[2]`` written after ``。`` belongs to the second sentence.

Hypotheses (marks removed) and their tokens:

* S1 北京是中国的首都。 -> 北京 京是 是中 中国 国的 的首 首都 (7)
* S2 上海是中国最大的城市。 -> 上海 海是 是中 中国 国最 最大 大的 的城 城市 (9)
* S3 长城位于中国北方。 -> 长城 城位 位于 于中 中国 国北 北方 (7)

Lexical recall (threshold 0.7) of each hypothesis in each passage:

|    | [1]  | [2]  | [3]  | [1]+[3] |
|----|------|------|------|---------|
| S1 | 7/7  | 2/7  | 1/7  |         |
| S2 | 2/9  | 9/9  | 1/9  |         |
| S3 | 1/7  | 1/7  | 7/7  | 7/7     |

(S1 in [2]: 是中, 中国; S2 in [1]: 是中, 中国; every other cross pair shares only 中国.)
So φ(1, S1) = φ(2, S2) = φ(3, S3) = φ(1+3, S3) = 1 and every other single passage gives 0.
"""
from __future__ import annotations

import pytest

from citetrain.metrics.aliice import aliice
from citetrain.metrics.alce import alce
from citetrain.metrics.citeeval import citeeval
from citetrain.metrics.lenient import lenient
from citetrain.nli.engine import NLIEngine
from citetrain.nli.lexical import LexicalNLI
from citetrain.records import Doc, Record

OUTPUT = "北京是中国的首都[1]。上海是中国最大的城市。[2]长城位于中国北方[1][3]。"
RECORD = Record(
    id="zh1", question="中国有哪些城市？", output=OUTPUT,
    docs=[Doc(title="北京", text="北京是中国的首都。"),
          Doc(title="上海", text="上海是中国最大的城市。"),
          Doc(title="长城", text="长城位于中国北方。")],
)
HYPOTHESES = ["北京是中国的首都。", "上海是中国最大的城市。", "长城位于中国北方。"]


def engine() -> NLIEngine:
    return NLIEngine(LexicalNLI(), progress=False)


def test_alce_on_chinese():
    res = alce([RECORD], engine())
    assert [s["hypothesis"] for s in res.per_statement] == HYPOTHESES
    assert [s["citations"] for s in res.per_statement] == [[1], [2], [1, 3]]
    # recall: φ(1, S1) = φ(2, S2) = φ(1+3, S3) = 1 -> 3/3.
    # precision: S1 and S2 one correct citation each; S3: [1] alone 1/7 fails and [3] alone
    # (the premise without [1]) entails, so [1] is irrelevant; [3] alone entails: correct.
    # 3 correct of 4 -> 75; F1 = 2 * 75 * 100 / 175 = 85.714...
    assert [s["correct_citations"] for s in res.per_statement] == [1, 1, 1]
    assert res.scores["citation_rec"] == pytest.approx(100.0)
    assert res.scores["citation_prec"] == pytest.approx(75.0)
    assert res.scores["citation_f1"] == pytest.approx(600 / 7)
    assert res.info["language"] == "auto"


def test_lenient_on_chinese():
    res = lenient([RECORD], engine())
    # S3: φ(1) = 0, φ(3) = 1, φ(1,3) = 1: recall 1; [1] is relevant with no C' ⊆ {3}
    # (φ(∅) = 0 but φ({1}) = 0; φ({3}) = 1 already), [3] is relevant with C' = ∅. S1, S2: 1 of 1.
    # rec 3/3 = 100, prec 3/4 = 75, micro the same (one record).
    assert [s["relevant_citations"] for s in res.per_statement] == [1, 1, 1]
    assert res.scores["lenient_rec"] == pytest.approx(100.0)
    assert res.scores["lenient_prec"] == pytest.approx(75.0)
    assert res.scores["lenient_prec_micro"] == pytest.approx(75.0)


def test_aliice_on_chinese():
    res = aliice([RECORD], engine())  # authors' semantics: a single group per sentence is one claim
    claims = [c for s in res.per_statement for c in s["claims"]]
    # the released parser drops the sentence's final punctuation: the same tokens
    assert [c["claim"] for c in claims] == [h.rstrip("。") for h in HYPOTHESES]
    # recall 3/3, precision 3/4, as ALCE (each claim is its sentence)
    assert res.scores["aliice_rec"] == pytest.approx(100.0)
    assert res.scores["aliice_prec"] == pytest.approx(75.0)
    # CV of the marks' character positions start / len(sentence), pooled:
    # S1 北京是中国的首都[1]。 (12 chars): 8/12; S2 上海是中国最大的城市。[2] (14): 11/14;
    # S3 长城位于中国北方[1][3]。 (15): 8/15 and 11/15.
    # μ = (0.666667 + 0.785714 + 0.533333 + 0.733333) / 4 = 0.679762;
    # squared deviations 0.000171 + 0.011226 + 0.021441 + 0.002870 = 0.035709, / 4 = 0.008927,
    # population σ = 0.094484; CV = σ / μ = 0.138995
    assert res.scores["cvcp"] == pytest.approx(0.138995, abs=1e-6)


def test_citeeval_on_chinese():
    res = citeeval([RECORD], engine(), scenario="full")
    # contexts: the question 中国有哪些城市 holds 1 of each statement's tokens (中国), under the
    # 1.0 query recall; earlier statements hold at most 2/9, under 0.8: all retrieval.
    assert [r["context"] for r in res.per_statement] == ["retrieval"] * 3
    # minimal supporting subsets: S1 {1}, S2 {2}, S3 {3} (no pair of the others entails).
    # S1, S2: cited = supporting, no uncited doc entails alone -> no edit, rating 1.
    # S3 cites [1][3]: [1] is in no supporting subset -> delete-misleading; [3] kept:
    # (0.0694 + 1.0030) / 2 - 0.0109 = 0.5253.  Full = (1 + 1 + 0.5253) / 3 = 84.1767 %
    assert [r["support"] for r in res.per_statement] == [[[1]], [[2]], [[3]]]
    assert res.per_statement[2]["edits"] == [("delete-misleading", 1)]
    assert res.per_statement[2]["rating"] == pytest.approx(0.5253)
    assert res.scores["citeeval_full"] == pytest.approx(100 * 2.5253 / 3)


def test_mark_after_the_full_stop_counts_for_the_sentence_before():
    before = RECORD.model_copy(update={"output": "上海是中国最大的城市[2]。北京是中国的首都[1]。"})
    after = RECORD.model_copy(update={"output": "上海是中国最大的城市。[2]北京是中国的首都。[1]"})
    for rec in (before, after):
        res = alce([rec], engine())
        assert [s["citations"] for s in res.per_statement] == [[2], [1]]
        assert res.scores["citation_rec"] == pytest.approx(100.0)


def test_language_option_is_checked_and_forced():
    # English rules do not split at 。: one sentence, both marks, recall of S1+S2 in [1]+[2]
    # is 1 (every bigram is in one of the two), so 1 of 1 sentence
    res = alce([RECORD.model_copy(update={"output": "北京是中国的首都[1]。上海是中国最大的城市[2]。"})],
               engine(), language="en")
    assert len(res.per_statement) == 1 and res.per_statement[0]["citations"] == [1, 2]
    assert res.info["splitter"].startswith("punkt:english")
    with pytest.raises(ValueError, match="language"):
        alce([RECORD], engine(), language="klingon")


def test_language_reaches_metrics_as_an_option():
    from citetrain.metrics.options import option_errors

    checked, errors = option_errors({"alce": {"language": "zh"}, "citeeval": {"language": "de"},
                                     "lenient": {"language": "ja"}, "aliice": {"language": "auto"}})
    assert errors == [] and checked["alce"] == {"language": "zh"}
    _, errors = option_errors({"lenient": {"language": "klingon"}})
    assert len(errors) == 1 and errors[0].startswith("options.lenient.language: no sentence")
