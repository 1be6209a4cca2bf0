"""A judge checkpoint scored outside training: its agreement with the human support labels of
the suite's labelled data (as ``citetrain meta-eval`` measures an NLI engine), written to
``meta_eval.json`` and ``table.txt``."""
from __future__ import annotations

import json

from citetrain.errors import CitetrainError
from citetrain.evaluation.inputs import RunOptions, out_dir
from citetrain.evaluation.meta import agreement, agreement_table, cut_notice
from citetrain.io.labelled import LabelledPair
from citetrain.io.writers import atomic_write_text
from citetrain.metrics.suites import Suite, SuiteModel


def judge_name(spec: SuiteModel) -> str:
    """The judge the spec names (:mod:`citetrain.judges.registry`): ``judge`` in full
    (``crossencoder:PATH``), ``judge`` as a kind with ``path``, or read from the checkpoint (a
    support classifier is a cross-encoder judge, a causal LM a generative one)."""
    from citetrain.judges.registry import KINDS

    if spec.judge and ":" in spec.judge:
        return spec.judge
    if spec.judge:
        if spec.judge not in KINDS:
            raise CitetrainError(f"model.judge: unknown judge kind '{spec.judge}'; use one of "
                                 f"{', '.join(KINDS)} (with model.path) or a full judge name")
        return f"{spec.judge}:{spec.path}"
    from citetrain.evaluation.kinds import checkpoint_kind

    kind = checkpoint_kind(spec.path)
    return f"{'crossencoder' if kind == 'pair' else 'generative'}:{spec.path}"


def engine_name(judge: str) -> str:
    """The NLI engine a judge is scored through: a cross-encoder is its classifier, an NLI judge
    its engine, any other judge the ``judge:`` NLI kind (its rating of the pair)."""
    kind, _, arg = judge.partition(":")
    if kind == "crossencoder":
        return f"classifier:{arg}"
    if kind == "nli":
        return arg
    return f"judge:{judge}"


def read_pairs(suite: Suite, opts: RunOptions) -> list[LabelledPair]:
    """The labelled pairs of every data file (each cut to its limit)."""
    from citetrain.io.labelled import read_labelled

    pairs: list[LabelledPair] = []
    for d in suite.data:
        got = read_labelled(d.path, d.format if opts.format is None else opts.format,
                            skip_invalid=d.skip_invalid if opts.skip_invalid is None else True)
        limit = opts.limit or d.limit
        pairs.extend(got[:limit] if limit else got)
    if not pairs:
        raise CitetrainError("a judge is scored on labelled pairs (WiCE, AttributionBench or "
                             "ExpertQA format); the suite's data holds none")
    return pairs


def run_judge(suite: Suite, opts: RunOptions) -> int:
    """Meta-evaluate the suite's judge on its labelled data; print and write the table."""
    from citetrain.nli.registry import make_engine

    judge = judge_name(suite.model)
    pairs = read_pairs(suite, opts)
    cache = suite.cache if opts.cache is None else opts.cache
    engine = make_engine(engine_name(judge), cache=cache, progress=opts.progress)
    table = {judge: agreement(engine, pairs)}
    if notice := cut_notice(engine):
        print(notice)
    labels = [p.label for p in pairs]
    head = (f"{len(pairs)} labelled pairs from {', '.join(d.path for d in suite.data)}  (full "
            f"{labels.count(2)}, partial {labels.count(1)}, no {labels.count(0)}); score: expected")
    text = head + "\n" + agreement_table(table)
    out = out_dir(suite, opts)
    report = {"suite": suite.name, "input": [d.path for d in suite.data], "judge": judge,
              "nli": engine.name, "score": "expected", "n": len(pairs), "results": table}
    atomic_write_text(out / "table.txt", text + "\n")
    atomic_write_text(out / "meta_eval.json", json.dumps(report, indent=2, default=str) + "\n")
    print(text)
    print(f"\nwrote {out / 'meta_eval.json'}, {out / 'table.txt'}")
    return 0
