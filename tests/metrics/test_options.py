"""Metric options are checked without records against the metric's own signature (read at run
time), annotated types and range rules: in a suite file (every problem at once, one line each,
naming the file and the key) and in ``citetrain.evaluate(options=...)``."""
from __future__ import annotations

import inspect
from typing import Literal

import pytest
import yaml

import citetrain
from citetrain.analysis.editdist import PUBLISHED_WEIGHTS, Weights
from citetrain.config import ConfigError
from citetrain.errors import CitetrainError
from citetrain.metrics import aliice as aliice_module
from citetrain.metrics.alce import alce
from citetrain.metrics.citeeval import citeeval
from citetrain.metrics.options import check_metric_options, metric_options, option_errors
from citetrain.metrics.registry import METRICS, get_metric
from citetrain.metrics.rules import at_least, checked, one_of, rules_of, subset_of
from citetrain.metrics.suites import load_suite
from citetrain.nli.engine import NLIEngine

RANGE = "options.alce.at_most_citations: must be >= 1 or null/None, got 0"
TYPO = "options.alce.at_most_citation: unknown option; did you mean 'at_most_citations'?"


def _suite(tmp_path, **extra) -> str:
    data = {"name": "s", "data": [{"path": "missing.jsonl"}], **extra}
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_range_and_typo_are_one_line_each_naming_the_key():
    assert option_errors({"alce": {"at_most_citations": 0}})[1] == [RANGE]
    assert option_errors({"alce": {"at_most_citation": 2}})[1] == [TYPO]


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_metric_accepts_its_own_defaults(name):
    fn = get_metric(name)
    defaults = {k: p.default for k, p in metric_options(fn).items()}
    assert option_errors({name: defaults})[1] == []


def test_options_are_the_keyword_only_parameters():
    assert list(metric_options(alce)) == ["at_most_citations", "language"]
    assert "scenario" in metric_options(citeeval)  # @checked keeps the signature
    assert set(rules_of(citeeval)) == {"at_most_citations", "scenario", "max_subset_size",
                                       "query_recall", "response_recall", "subsets", "language"}
    assert any("options.citeeval.subsets" in e
               for e in option_errors({"citeeval": {"subsets": "some"}})[1])


def test_every_problem_is_collected():
    _, errors = option_errors({
        "alce": {"at_most_citation": 2},
        "citeeval": {"scenario": "ful", "max_subset_size": 0, "weights": {"intercept": 1}},
        "correctness": {"which": ["str_em", "rouge"]},
        "aliice": {"max_words": "many"},
        "alcee": {},
        "lenient": 3,
    })
    assert errors == [
        TYPO,
        "options.citeeval.scenario: Input should be 'full', 'cited' or 'both', got 'ful'",
        "options.citeeval.max_subset_size: must be >= 1, got 0",
        "options.citeeval.weights: weights missing for: delete-misleading, delete-substandard, "
        "delete-redundant, add-evidence, add-refinement, add-credibility, keep, "
        "got {'intercept': 1}",
        "options.correctness.which: unknown 'rouge': choose from str_em, rouge_lsum, bleu4, claims",
        "options.aliice.max_words: Input should be a valid integer, unable to parse string as an "
        "integer, got 'many'",
        "options.alcee: unknown metric; did you mean 'alce'?",
        "options.lenient: expected a mapping of option: value, got int",
    ]


def test_values_come_back_as_the_metric_takes_them():
    weights = {"action": {a.value: w for a, w in PUBLISHED_WEIGHTS.action.items()}, "intercept": 0}
    checked_opts = check_metric_options(
        {"alce": {"at_most_citations": "2"}, "citeeval": {"weights": weights}}, "x")
    assert checked_opts["alce"] == {"at_most_citations": 2}
    assert isinstance(checked_opts["citeeval"]["weights"], Weights)


def test_a_new_keyword_is_read_from_the_signature_at_run_time(monkeypatch):
    real = aliice_module.aliice

    def aliice(records, engine: NLIEngine, *, at_most_citations: int | None = 3,
               semantics: Literal["authors", "paper"] = "authors"):
        return real(records, engine, at_most_citations=at_most_citations)

    monkeypatch.setattr(aliice_module, "aliice", aliice)
    assert option_errors({"aliice": {"semantics": "paper"}})[1] == []
    assert option_errors({"aliice": {"semantic": "paper"}})[1] == [
        "options.aliice.semantic: unknown option; did you mean 'semantics'?"]
    assert option_errors({"aliice": {"semantics": "paperr", "at_most_citations": 0}})[1] == [
        "options.aliice.semantics: Input should be 'authors' or 'paper', got 'paperr'",
        "options.aliice.at_most_citations: must be >= 1 or null/None, got 0"]  # shared rule


def test_suite_reports_schema_and_option_errors_together(tmp_path):
    path = _suite(tmp_path, nli_optons={}, options={"alce": {"at_most_citation": 2,
                                                              "at_most_citations": 0}})
    with pytest.raises(ConfigError) as e:
        load_suite(path)
    assert e.value.errors == ["nli_optons: unknown key; did you mean 'nli_options'?", TYPO, RANGE]
    assert str(e.value).startswith(f"{path}: 3 errors")


def test_suite_one_problem_is_one_line(tmp_path):
    path = _suite(tmp_path, options={"alce": {"at_most_citations": 0}})
    with pytest.raises(ConfigError) as e:
        load_suite(path)
    assert str(e.value) == f"{path}: {RANGE}"
    with pytest.raises(ConfigError, match="did you mean 'at_most_citations'"):
        load_suite(path, ["options.alce.at_most_citation=2"])


def test_suite_keeps_checked_options(tmp_path):
    suite = load_suite(_suite(tmp_path, options={"alce": {"at_most_citations": "5"}}))
    assert suite.options == {"alce": {"at_most_citations": 5}}


@pytest.mark.parametrize("options, message", [
    ({"alce": {"at_most_citations": 0}}, f"evaluate(): {RANGE}"),
    ({"alce": {"at_most_citation": 2}}, f"evaluate(): {TYPO}"),
])
def test_evaluate_raises_a_clear_error_before_reading_records(tmp_path, options, message):
    with pytest.raises(CitetrainError) as e:  # the missing file is never read
        citetrain.evaluate(tmp_path / "missing.jsonl", metrics=["alce"], options=options)
    assert str(e.value) == message


def test_metric_checks_its_own_rules_when_called():
    with pytest.raises(ValueError, match="max_subset_size must be >= 1, got 0"):
        citeeval([], None, max_subset_size=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scenario must be 'full', 'cited' or 'both', got 'x'"):
        citeeval([], None, scenario="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at_most_citations must be >= 1 or null/None, got 0"):
        alce([], None, at_most_citations=0)  # type: ignore[arg-type]


def test_rules():
    assert at_least(1)(0) == "must be >= 1, got 0" and at_least(1)(1) is None
    assert at_least(1, none_ok=True)(None) is None
    assert one_of("a")("b") == "must be 'a', got 'b'"
    assert subset_of(["a", "b"])(["a"]) is None

    with pytest.raises(TypeError, match="has no parameter"):
        checked(nope=at_least(1))(lambda x: x)

    @checked(k=at_least(2))
    def f(records, *, k: int = 2) -> int:
        return k

    assert f([], k=3) == 3 and list(inspect.signature(f).parameters) == ["records", "k"]
    with pytest.raises(ValueError, match="k must be >= 2, got 1"):
        f([], k=1)
