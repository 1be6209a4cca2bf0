"""``citetrain eval ... --dry-run``: what the run's LLM judges would send, counted before anything
is sent, and nothing sent.

* ``longbench_cite`` with ``judge: llm:MODEL``: one request per distinct judgement whose answer
  is not in the judge's answer cache (:meth:`~citetrain.metrics.longbench_judges.LLMJudge.plan`);
  retries of unreadable verdicts (up to 5 a judgement) can add more.
* the ``llm:`` NLI backend: the pairs the metrics ask depend on the answers (ALCE asks about
  single citations only when the whole set entails), so the metrics are run twice on a recording
  judge, once answering every pair "attributable" and once "not"; the pairs found in neither the
  NLI cache nor the answer cache are the requests (:meth:`~citetrain.nli.llm.LLMNLI.plan`).

Prompt tokens are estimated as characters / 4 (:mod:`citetrain.llm.estimate`), no tokenizer.
"""
from __future__ import annotations

from typing import Any, Sequence

from citetrain.evaluation.inputs import RunOptions, read_inputs
from citetrain.llm.estimate import TOKEN_RULE, RequestPlan
from citetrain.metrics.suites import Suite
from citetrain.nli.base import NLIResult, Pair
from citetrain.records import Record


class _Recorder:
    """An NLI backend that answers every pair ``label`` and keeps the pairs asked."""

    is_baseline = False

    def __init__(self, backend: Any, label: bool) -> None:
        self.model_id, self.revision = backend.model_id, backend.revision
        self.batch_size, self.label = backend.batch_size, label
        self.pairs: dict[Pair, None] = {}

    def cost(self, pair: Pair) -> int:
        return 1

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        self.pairs.update(dict.fromkeys(pairs))
        sup = (1.0, 0.0, 0.0) if self.label else (0.0, 0.0, 1.0)
        return [NLIResult(float(self.label), self.label, sup) for _ in pairs]


def _nli_metrics(suite: Suite) -> list[str]:
    """The suite's metrics that ask the NLI engine (not ``longbench_cite`` with an LLM judge)."""
    lbc = str(suite.options.get("longbench_cite", {}).get("judge", "nli"))
    return [m for m in suite.metrics if not (m == "longbench_cite" and lbc.startswith("llm:"))]


def nli_plans(records: list[Record], suite: Suite, opts: RunOptions) -> list[tuple[str, RequestPlan]]:
    """The ``llm:`` NLI backend's requests, if every answer were yes and if every one were no."""
    from citetrain.metrics.evaluate import evaluate
    from citetrain.nli.cache import cache_key
    from citetrain.nli.engine import NLIEngine
    from citetrain.evaluation.report import suite_engine

    engine = suite_engine(suite, opts)
    backend, metrics = engine.backend, _nli_metrics(suite)
    out = []
    for label, when in ((True, "every answer attributable"), (False, "no answer attributable")):
        recorder = _Recorder(backend, label)
        if metrics:
            evaluate(records, metrics, NLIEngine(recorder, progress=False),
                     options=suite.options, progress=False)
        pairs = list(recorder.pairs)
        keys = [cache_key(backend.model_id, backend.revision, p) for p in pairs]
        known = engine.cache.get_many(keys) if engine.cache is not None and keys else {}
        plan = backend.plan([p for p, k in zip(pairs, keys) if k not in known])
        plan.cached += len(known)
        out.append((f"NLI {suite.nli} (if {when})", plan))
    return out


def plans(records: list[Record], suite: Suite, opts: RunOptions) -> list[tuple[str, RequestPlan]]:
    """Every LLM judge's plan in this run, named."""
    from citetrain.nli.registry import ALIASES

    out = []
    if "longbench_cite" in suite.metrics:
        from citetrain.metrics.longbench_cite import judge_plan

        options = dict(suite.options.get("longbench_cite", {}))
        plan = judge_plan(records, options)
        if plan is not None:
            out.append((f"longbench_cite judge {options['judge']}", plan))
    if ALIASES.get(suite.nli, suite.nli).partition(":")[0] == "llm":
        out.extend(nli_plans(records, suite, opts))
    return out


def dry_run(suite: Suite, opts: RunOptions) -> int:
    """Print the run's judge requests and estimated prompt tokens; send nothing."""
    if suite.model is not None:
        print(f"citetrain eval --dry-run: {suite.model.path} makes the predictions first; their "
              "judge requests can be counted once they are there (dry-run the predictions "
              "file). Nothing was sent.")
        return 0
    records, _ = read_inputs(suite, opts)
    found = plans(records, suite, opts)
    print(f"dry run of {len(records)} records: nothing is sent ({TOKEN_RULE})")
    if not found:
        print(f"no LLM judge in this run (NLI {suite.nli}; metrics {', '.join(suite.metrics)}): "
              "it would send no request")
        return 0
    for who, plan in found:
        print(plan.line(who))
    if any(who.startswith("longbench_cite") for who, _ in found):
        print("longbench_cite: a verdict unreadable at first is asked again (up to 5 tries), "
              "which adds requests")
    return 0
