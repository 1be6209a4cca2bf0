"""The contract every registered metric keeps (one parametrized test per clause, in the manner of
scikit-learn's ``test_common.py``). The metrics come from :data:`citetrain.metrics.registry.METRICS`,
so a newly registered metric is held to it at once:

* **direction**: every score it returns has a declared direction
  (:func:`~citetrain.metrics.registry.score_direction` is not ``None``), so a run keeps its best
  checkpoint the right way round;
* **empty input**: ``[]`` is not an error: no rows, no NLI call, and every score 0.0 (a score
  left out must be named, with its reason, in ``info["skipped"]``);
* **one record**: scored alone, it gives one row with its id and finite scores;
* **order**: shuffling the records changes neither the scores nor any record's row;
* **language**: a metric that splits sentences takes ``language`` (``"en"``, ``"zh"``, ``"auto"``)
  and gives finite numbers under each (``"auto"`` is the default), a name with no splitter being
  the one-line ``ValueError`` of every bad option; one that takes no ``language`` is listed in
  :data:`NO_LANGUAGE` with the reason;
* **no NaN**: no figure anywhere in the result (scores, rows, info) is NaN or infinite.

Every metric runs offline on the lexical NLI (the LLM judge of ``longbench_cite`` is an option,
not its default, and has its own fake-server tests in ``test_longbench_cite.py``).
"""
from __future__ import annotations

import math
import random
from functools import lru_cache
from typing import Any

import pytest

from citetrain.metrics.base import MetricResult
from citetrain.metrics.options import metric_options
from citetrain.metrics.registry import METRICS, get_metric, score_direction
from citetrain.nli.engine import NLIEngine
from citetrain.nli.lexical import LexicalNLI
from citetrain.records import Doc, Record

NAMES = sorted(METRICS)

# Metrics that take no ``language`` option, and why; a metric neither taking it nor listed here
# fails test_language, so each new metric makes the choice.
NO_LANGUAGE = {
    "correctness": "splits only for ROUGE-Lsum's sentence join, detecting the language itself",
    "gold_citations": "its statements must be cut as the tool that wrote `gold` cut them "
                      "(the default, auto-detected split)",
    "longbench_cite": "LongBench-Cite's statements come from the output's own marks and tags",
}

EN_DOCS = [Doc(title="Paris", text="Paris is the capital of France."),
           Doc(title="Rain", text="It rained on Monday in the old city."),
           Doc(title="Moon", text="The Moon orbits the Earth every month.")]
ZH_DOCS = [Doc(title="北京", text="北京是中国的首都。"), Doc(title="下雨", text="今天上海下了大雨。")]


def _record(rid: str, docs: list[Doc], output: str, gold: list[list[int]], **fields: Any) -> Record:
    return Record(id=rid, question=f"What is true ({rid})?", docs=docs, output=output, gold=gold,
                  **fields)


def records() -> list[Record]:
    """Varied records carrying every metric's fields: right, wrong, out-of-range and missing marks,
    an empty output (skipped), a record without gold fields, and a Chinese one."""
    return [
        _record("right", EN_DOCS, "Paris is the capital of France [1]. It rained on Monday [2][3]. "
                "The Moon orbits the Earth [3].", [[1], [2], [3]],
                answer="Paris is the capital of France. It rained on Monday.",
                qa_pairs=[{"short_answers": ["Paris"]}, {"short_answers": ["Monday"]}],
                claims=["Paris is the capital of France.", "The Moon orbits the Earth."]),
        _record("wrong", EN_DOCS, "Paris is the capital of France [3]. It rained all week [1][9]. "
                "The Moon is made of cheese.", [[1], [2], []],
                answer="The capital of France is Paris.", qa_pairs=[{"short_answers": ["Lyon"]}],
                claims=["It rained all week."]),
        _record("empty", EN_DOCS, "", [], answer="Nothing.", qa_pairs=[{"short_answers": ["x"]}],
                claims=["Paris is the capital of France."]),
        Record(id="plain", question="Where?", docs=EN_DOCS, output="The Moon orbits the Earth [3]."),
        _record("chinese", ZH_DOCS, "北京是中国的首都[1]。今天上海下了大雨[1][2]。", [[1], [2]],
                answer="北京是中国的首都。", qa_pairs=[{"short_answers": ["北京"]}],
                claims=["北京是中国的首都。"]),
    ]


def engine() -> NLIEngine:
    return NLIEngine(LexicalNLI(), progress=False)


def run(name: str, recs: list[Record], **options: Any) -> MetricResult:
    return get_metric(name)(recs, engine(), **options)


@lru_cache(maxsize=None)
def full(name: str) -> MetricResult:
    """The metric on :func:`records` in their written order (computed once per metric)."""
    return run(name, records())


def figures(value: Any, path: str = "result"):
    """Every float in a result, with where it is (``scores.citation_rec``, ``per_record[0].recall``)."""
    if isinstance(value, float):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from figures(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from figures(v, f"{path}[{i}]")


def assert_finite(res: MetricResult) -> None:
    bad = [(where, v) for part in ("scores", "per_record", "per_statement", "info")
           for where, v in figures(getattr(res, part), f"{res.name}.{part}") if not math.isfinite(v)]
    assert not bad, f"non-finite figures: {bad[:5]}"


def by_id(rows: list[dict]) -> dict[Any, list[dict]]:
    out: dict[Any, list[dict]] = {}
    for row in rows:
        out.setdefault(row["id"], []).append(row)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_score_has_a_declared_direction(name):
    res = full(name)
    assert res.scores, f"{name} returned no scores on records that carry every field"
    undeclared = [k for k in res.scores if score_direction(k) is None]
    assert not undeclared, f"{name}: add {undeclared} to SCORE_DIRECTIONS (metrics/registry.py)"


@pytest.mark.parametrize("name", NAMES)
def test_empty_input_scores_zero_without_asking_the_nli(name):
    eng = engine()
    res = get_metric(name)([], eng)
    assert isinstance(res, MetricResult) and res.per_record == [] and res.per_statement == []
    assert eng.stats.requested == 0
    assert set(res.scores) <= set(full(name).scores)
    assert all(v == 0.0 for v in res.scores.values()), res.scores
    if set(res.scores) != set(full(name).scores):  # a score left out says why
        skipped = res.info.get("skipped")
        assert skipped and all(isinstance(r, str) and r for r in skipped.values()), res.info
    assert_finite(res)


@pytest.mark.parametrize("name", NAMES)
def test_one_record(name):
    res = run(name, records()[:1])
    assert [row["id"] for row in res.per_record] == ["right"]
    assert set(res.scores) == set(full(name).scores)
    assert_finite(res)
    assert_finite(full(name))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("order", ["shuffled", "reversed"])
def test_record_order_changes_nothing(name, order):
    recs = records()
    if order == "reversed":
        recs.reverse()
    else:
        random.Random(0).shuffle(recs)
    assert [r.id for r in recs] != [r.id for r in records()]
    base, moved = full(name), run(name, recs)
    assert moved.scores == pytest.approx(base.scores, rel=1e-9, abs=1e-9)
    assert by_id(moved.per_record) == by_id(base.per_record)
    assert by_id(moved.per_statement) == by_id(base.per_statement)


@pytest.mark.parametrize("name", NAMES)
def test_language(name):
    takes = "language" in metric_options(get_metric(name))
    if name in NO_LANGUAGE:
        assert not takes, f"{name} takes `language` now: drop it from NO_LANGUAGE"
        pytest.skip(f"{name} takes no language option: {NO_LANGUAGE[name]}")
    assert takes, f"{name}: give it a `language` option, or list it in NO_LANGUAGE with the reason"
    for language in ("en", "zh", "auto"):
        res = run(name, records(), language=language)
        assert set(res.scores) == set(full(name).scores), language
        assert_finite(res)
    assert run(name, records(), language="auto").scores == full(name).scores
    with pytest.raises(ValueError, match="^language no sentence splitter"):  # rules.check_option
        run(name, records(), language="klingon")  # no splitter: one clear error
