"""Score a checkpoint named in a suite's ``model:``, by its kind:

* generator: generate the predictions (:mod:`citetrain.evaluation.generate`), write
  ``OUT/predictions.jsonl`` and score them with the suite's metrics and NLI;
* refiner: refine the suite's answers (:func:`citetrain.refine.load.load_refiner`, resumable by
  chunk), write the refined ``OUT/predictions.jsonl``, score before (``OUT/before/``) and after;
* judge: meta-evaluate it on the suite's labelled data (:mod:`citetrain.evaluation.judge`).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from citetrain.builders.stages import Ranks
from citetrain.errors import CitetrainError
from citetrain.evaluation.inputs import RunOptions, input_hashes, out_dir, read_inputs
from citetrain.evaluation.kinds import checkpoint_identity, resolve_kind
from citetrain.evaluation.report import change_table, score, suite_engine, write_report
from citetrain.io.chunks import ids_sha256
from citetrain.io.writers import atomic_write_text, write_records
from citetrain.metrics.suites import Suite
from citetrain.records import Record


def run_checkpoint(suite: Suite, opts: RunOptions) -> int:
    """Dispatch by the checkpoint's kind; under ``accelerate launch`` every process generates
    its share, and only the main process refines, judges, scores and writes."""
    from citetrain.builders.stages import launcher_ranks

    kind = resolve_kind(suite.model)
    if kind == "generator":
        from citetrain.evaluation.generate import check_backend

        check_backend(suite.model)  # before any process starts
        return run_generator(suite, opts, launcher_ranks())
    ranks = launcher_ranks()
    if not ranks.main:
        return 0
    if kind == "refiner":
        return run_refiner(suite, opts)
    from citetrain.evaluation.judge import run_judge

    return run_judge(suite, opts)


def _header(suite: Suite, records: Sequence[Record], **extra: Any) -> dict[str, Any]:
    """What a partial run is checked against: the inputs, the records read from them, the
    checkpoint and the settings."""
    return {"inputs": input_hashes(suite), "records": len(records),
            "record_ids_sha256": ids_sha256([r.id for r in records]),
            "checkpoint": checkpoint_identity(suite.model.path), **extra}


def _model_info(suite: Suite, kind: str) -> dict[str, Any]:
    return {"path": suite.model.path, "kind": kind,
            **suite.model.model_dump(exclude={"path", "kind", "judge"})}


def run_generator(suite: Suite, opts: RunOptions, ranks: Ranks) -> int:
    """Generate (resumable, data-parallel), write the predictions, score them."""
    from citetrain.evaluation.generate import generate_predictions, settings

    records, notes = read_inputs(suite, opts, quiet=not ranks.main)
    if not records:
        raise CitetrainError("the suite's data holds no records to generate answers for")
    out = out_dir(suite, opts)
    target = out / "predictions.jsonl"
    header = _header(suite, records, settings=settings(suite.model))
    preds, store, resumed = generate_predictions(records, suite.model, target, header, ranks,
                                                 progress=opts.progress)
    if preds is None:
        return 0
    if resumed:
        print(f"resumed {resumed} finished chunk(s) of {suite.model.chunk} records from a "
              "partial run")
    write_records(preds, target)
    report = score(preds, suite, opts)
    write_report(report, out, suite, notes, model=_model_info(suite, "generator"),
                 predictions=str(target), processes=ranks.world)
    store.finish()
    return 0


def run_refiner(suite: Suite, opts: RunOptions) -> int:
    """Refine the suite's answers (resumable), write them, score before and after."""
    from citetrain.refine.load import load_refiner
    from citetrain.refine.partial import PartialRefine

    spec = suite.model
    records, notes = read_inputs(suite, opts)
    rid, n = Counter(r.id for r in records).most_common(1)[0] if records else ("", 0)
    if n > 1:
        raise CitetrainError(f"record id {rid!r} occurs {n} times in the suite's data: refining "
                             "needs unique ids")
    out = out_dir(suite, opts)
    target = out / "predictions.jsonl"
    refiner = load_refiner(spec.path, max_new_tokens=spec.max_new_tokens,
                           batch_size=spec.batch_size, max_length=spec.max_length,
                           max_words=spec.max_doc_words, progress=opts.progress)
    job = PartialRefine(Path(str(target) + ".partial.jsonl"), suite.data[0].path, spec.path)
    job.header = _header(suite, records, settings={
        k: getattr(spec, k) for k in ("max_new_tokens", "batch_size", "max_length",
                                      "max_doc_words", "chunk")})
    refined, counts = job.run(records, refiner.refine, chunk=spec.chunk, progress=opts.progress)
    write_records(refined, target)
    print(f"{refiner.kind} refiner {spec.path}: refined {len(refined)} records "
          f"({counts['resumed']} resumed from a partial run), {counts['statements']} statements: "
          f"{counts['ids']} ids kept, {counts['dropped_out_of_range']} out of range dropped, "
          f"{counts['not_ids']} outputs not ids; wrote {target}")
    engine = suite_engine(suite, opts)
    before = score(records, suite, opts, engine)
    after = score(refined, suite, opts, engine)
    info = {"model": {**_model_info(suite, "refiner"), "refiner": refiner.kind},
            "refine_counts": counts}
    write_report(before, out / "before", suite, notes, show=False, stage="before refining", **info)
    change = change_table(before, after)
    atomic_write_text(out / "change.txt", change + "\n")
    write_report(after, out, suite, notes, show=True, stage="after refining",
                 predictions=str(target), before=before.scores, **info)
    print(f"\n{change}\n\nwrote {out / 'before' / 'report.json'}, {out / 'change.txt'}")
    job.finish()
    return 0
