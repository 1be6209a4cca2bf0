"""``citetrain eval`` of predictions, streamed: records read, scored and written a chunk at a time.

The suite's records are read one at a time (:func:`~citetrain.io.readers.iter_records`) and scored
in chunks of ``score_chunk`` records. A finished chunk leaves, in ``.OUT.work/`` beside the output
folder, its statements
per metric (``chunk-NNNNNN.METRIC.jsonl``, the rows of ``statements.jsonl``), its per-record rows
and, written last, ``chunk-NNNNNN.json``: each metric's sums (:mod:`citetrain.metrics.merge`) and
``info``. When every chunk is finished the report is put together from those files, a metric and
a chunk at a time: the scores from the summed sums, ``statements.jsonl`` in the same order as an
unstreamed run (metric by metric, records in input order) and ``report.json`` with its
``per_record`` rows written as a stream. Memory stays flat in the number of records: one chunk's
records and results at a time, and the running sums.

A killed run started again with the same inputs, metrics, options and NLI scores only the chunks
that have no ``chunk-NNNNNN.json`` (``settings.json`` is checked first: a partial run with other
settings is refused with one line; a folder without a finished chunk is simply started over). Under ``accelerate launch -m citetrain.evaluation`` chunk ``k`` is scored
by process ``k mod N`` and the main process puts the report together, the same report as one
process gives. The work folder is removed once the report is written.
"""
from __future__ import annotations

import json
import shutil
import sys
from itertools import islice
from pathlib import Path
from typing import Any, Iterator

from citetrain.errors import CitetrainError
from citetrain.evaluation.options import SCORE_CHUNK
from citetrain.evaluation.inputs import RunOptions, input_hashes, out_dir
from citetrain.io.readers import Problems, iter_records, require_file, summarize_skips
from citetrain.io.writers import atomic_write_text, atomic_writer
from citetrain.metrics.suites import Suite
from citetrain.records import Record


def suite_records(suite: Suite, opts: RunOptions, notes: list[str]) -> Iterator[Record]:
    """Every data file's records in suite order, each file cut to its limit; a file's skipped
    records are added to ``notes`` once it is read."""
    for d in suite.data:
        skip = d.skip_invalid if opts.skip_invalid is None else True
        problems = Problems(str(d.path), skip)
        limit = opts.limit or d.limit
        n = 0
        for rec in iter_records(d.path, d.format if opts.format is None else opts.format,
                                skip_invalid=skip, problems=problems):
            if limit and n >= limit:
                break
            n += 1
            yield rec
        if problems.skipped:
            notes.append(summarize_skips(problems.skipped, n + len(problems.skipped)))


def chunks(records: Iterator[Record], size: int) -> Iterator[list[Record]]:
    while True:
        part = list(islice(records, size))
        if not part:
            return
        yield part


def settings(suite: Suite, opts: RunOptions, nli: str, size: int) -> dict[str, Any]:
    """What a partial run must match to be resumed."""
    return {"inputs": input_hashes(suite), "metrics": list(suite.metrics), "options": suite.options,
            "nli": nli, "limit": opts.limit, "format": opts.format, "skip_invalid": opts.skip_invalid,
            "score_chunk": size}


def _check_settings(work: Path, wanted: dict[str, Any], main: bool) -> None:
    path = work / "settings.json"
    wanted = json.loads(json.dumps(wanted, default=str))
    found = json.loads(path.read_text()) if path.is_file() else None
    if found is not None and found != wanted and any(work.glob("chunk-*.json")):
        changed = sorted(k for k in set(found) | set(wanted) if found.get(k) != wanted.get(k))
        raise CitetrainError(f"{work}: a partial run with other {', '.join(changed)} is there; "
                             "remove that folder to start again, or use another --out")
    if found != wanted and main:  # new, or a run that finished no chunk (e.g. stopped by bad input)
        atomic_write_text(path, json.dumps(wanted, indent=2) + "\n")  # makes the folder


def score_chunk(records: list[Record], suite: Suite, engine: Any) -> dict[str, Any]:
    """One chunk's report, as the files of a finished chunk hold it."""
    from citetrain.metrics.evaluate import evaluate
    from citetrain.metrics.merge import partial_sums

    report = evaluate(records, suite.metrics, engine, options=suite.options, progress=False)
    return {"report": report,
            "sums": {name: partial_sums(name, r) for name, r in report.results.items()}}


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in rows)


def save_chunk(work: Path, k: int, done: dict[str, Any]) -> None:
    """The chunk's statement and record rows, then (last) its summary: a kill before the summary
    leaves the chunk to be scored again."""
    report = done["report"]
    for name, result in report.results.items():
        atomic_write_text(work / f"chunk-{k:06d}.{name}.jsonl",
                          _jsonl([{"metric": name, **row} for row in result.per_statement]))
        atomic_write_text(work / f"chunk-{k:06d}.{name}.records.jsonl", _jsonl(result.per_record))
    summary = {"chunk": k, "records": report.info["n_records"], "sums": done["sums"],
               "metric_info": {n: r.info for n, r in report.results.items()},
               "info": {key: report.info[key] for key in ("nli_baseline", "seconds", "engine")}}
    atomic_write_text(work / f"chunk-{k:06d}.json", json.dumps(summary, default=str) + "\n")


def run_streamed(suite: Suite, opts: RunOptions, out: Path, size: int = SCORE_CHUNK) -> dict[str, Any]:
    """Score the suite's predictions in chunks (this process's share), then, on the main
    process, write the report; returns ``{"scored": [...], "resumed": [...]}`` chunk numbers."""
    from citetrain.builders.stages import launcher_ranks
    from citetrain.evaluation.report import suite_engine

    if size < 1:
        raise CitetrainError(f"--score-chunk must be at least 1, got {size}")
    for d in suite.data:
        require_file(d.path)
    ranks = launcher_ranks()
    engine = suite_engine(suite, opts)
    work = work_dir(out)
    made = [p for p in (work.parent, work) if not p.exists()]  # folders this run creates
    _check_settings(work, settings(suite, opts, engine.name, size), ranks.main)
    ranks.barrier()
    notes: list[str] = []
    scored, resumed, total = [], [], 0
    progress = _bar(opts.progress and ranks.main)
    try:
        for k, part in enumerate(chunks(suite_records(suite, opts, notes), size)):
            total = k + 1
            if k % ranks.world != ranks.rank:
                continue
            if (work / f"chunk-{k:06d}.json").is_file():
                resumed.append(k)
            else:
                save_chunk(work, k, score_chunk(part, suite, engine))
                engine.forget()  # the chunk's answers: memory flat (the cache keeps them)
                scored.append(k)
            progress.update(len(part) * ranks.world)
        if total == 0:
            raise CitetrainError(f"{', '.join(d.path for d in suite.data)}: no records to score")
    except BaseException:
        if ranks.main and not any(work.glob("chunk-*.json")):
            _remove_unused(made)  # nothing finished: leave no folder behind
        raise
    finally:
        progress.close()
    ranks.barrier()
    if ranks.main:
        for note in notes:
            print(f"citetrain eval: {note}", file=sys.stderr)
        assemble(work, out, total, suite, notes)
        shutil.rmtree(work, ignore_errors=True)
    ranks.barrier()
    return {"scored": scored, "resumed": resumed, "chunks": total}


def _remove_unused(made: list[Path]) -> None:
    """Remove the folders a run created (deepest first) when nothing it finished is in them."""
    for folder in reversed(made):
        if folder.name.endswith(".work"):
            shutil.rmtree(folder, ignore_errors=True)
        elif folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def work_dir(out: Path) -> Path:
    """Where the finished chunks wait: ``.OUT.work`` beside the output folder (so the output
    folder only ever holds the report's files)."""
    return out.with_name(f".{out.name}.work")


def _bar(show: bool):
    from tqdm import tqdm

    return tqdm(desc="score", unit="record", disable=not show)


def assemble(work: Path, out: Path, n_chunks: int, suite: Suite, notes: list[str]) -> None:
    """The report from the finished chunks (see the module docstring)."""
    from citetrain.metrics.base import MetricResult
    from citetrain.metrics.merge import add_sums, merge_info, scores_from_sums
    from citetrain.metrics.report import Report
    from citetrain.text.splitter import splitter_name

    missing = [k for k in range(n_chunks) if not (work / f"chunk-{k:06d}.json").is_file()]
    if missing:
        raise CitetrainError(f"{work}: chunks {missing[:5]} are not scored (a process failed?)")
    sums: dict[str, Any] = {}
    infos: dict[str, Any] = {}
    run: dict[str, Any] = {}
    n_records = 0
    for k in range(n_chunks):
        summary = json.loads((work / f"chunk-{k:06d}.json").read_text())
        n_records += summary["records"]
        for name in suite.metrics:
            sums[name] = add_sums(sums.get(name), summary["sums"][name])
            info = summary["metric_info"][name]
            infos[name] = info if name not in infos else merge_info(infos[name], info)
        run = summary["info"] if not run else merge_info(run, summary["info"])
    results = {name: MetricResult(name, scores_from_sums(sums[name]), info=infos[name])
               for name in suite.metrics}
    nli = json.loads((work / "settings.json").read_text())["nli"]
    report = Report(results=results, info={
        "nli": nli, "nli_baseline": run.pop("nli_baseline"), "splitter": splitter_name(),
        "n_records": n_records, **run,
        "suite": suite.name, "inputs": [d.path for d in suite.data], "input_notes": notes,
        "score_chunks": n_chunks})
    out.mkdir(parents=True, exist_ok=True)

    def rows(kind: str, name: str) -> Iterator[str]:
        for k in range(n_chunks):
            with open(work / f"chunk-{k:06d}.{name}{kind}.jsonl", encoding="utf-8") as fh:
                yield from fh

    with atomic_writer(out / "statements.jsonl") as fh:
        for name in suite.metrics:
            for line in rows("", name):
                fh.write(line)
    atomic_write_text(out / "table.txt", report.table() + "\n")
    head = report.to_dict()
    head.pop("per_record")
    with atomic_writer(out / "report.json") as fh:  # last: a newer report.json marks a finished write
        text = json.dumps(head, indent=2, default=str)
        fh.write(text[:-2] + ',\n  "per_record": {')
        for i, name in enumerate(suite.metrics):
            fh.write(("," if i else "") + f"\n    {json.dumps(name)}: [")
            first = True
            for line in rows(".records", name):
                fh.write(("" if first else ",") + "\n      " + line.rstrip("\n"))
                first = False
            fh.write("\n    ]" if not first else "]")
        fh.write("\n  }\n}\n")
    print(report.table())
    print(f"\nwrote {out / 'report.json'}, {out / 'statements.jsonl'}, {out / 'table.txt'}")


def score_predictions(suite: Any, opts: Any) -> int:
    """Score the suite's predictions files, streamed in chunks (resumable, data-parallel under
    ``accelerate launch``), and write the report (:mod:`citetrain.evaluation.stream`)."""
    run_streamed(suite, opts, out_dir(suite, opts), opts.score_chunk)
    return 0
