"""``build(spec)``: the whole data build, in the stages of :mod:`citetrain.builders.stages`."""
from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any, Callable

from citetrain import __version__
from citetrain.analysis.support import is_empty_statement
from citetrain.builders.stages import (
    Ranks,
    analyse_shard,
    check_work,
    collect_rows,
    out_dir,
    pruning_check,
    run_shards,
    save_dataset,
)
from citetrain.builders.sets import BUILDERS, split_of
from citetrain.builders.sources import read_sources
from citetrain.builders.spec import BuildSpec
from citetrain.builders.summary import statement_counts, summary_table
from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_write_text, write_records
from citetrain.nli.engine import NLIEngine

__all__ = ["build", "make_build_engine", "analyse_shard"]


def make_build_engine(spec: BuildSpec, out: Path, ranks: Ranks, progress: bool) -> NLIEngine:
    """The spec's NLI engine with its cache (``work/nli.sqlite`` unless the spec names one; the
    lexical backend is cached too, so a resumed build never asks a pair twice). Each process of
    a multi-GPU build loads its model on its own GPU."""
    from citetrain.nli.registry import make_engine

    options = dict(spec.nli_options)
    if ranks.world > 1 and not spec.nli.startswith(("lexical", "llm")) and "device" not in options:
        import torch

        if torch.cuda.is_available():
            options["device"] = f"cuda:{ranks.rank % torch.cuda.device_count()}"
    cache: bool | str = spec.cache
    if cache is True:
        cache = str(out / "work" / "nli.sqlite")
    return make_engine(spec.nli, cache=cache, progress=progress, **options)


def _teacher(spec: BuildSpec, out: Path, prompts: list[tuple[str, int]],
             progress: bool) -> Callable[[str], str | None]:
    """Ask the teacher every prompt (cached, resumable) and return a lookup of parsable outputs."""
    from citetrain.builders.itercoe_targets import teacher_outputs

    got = teacher_outputs(spec.judge.teacher, prompts, out / "work" / "teacher.sqlite",  # type: ignore[union-attr]
                          progress)
    return lambda prompt: got.get(prompt)


def build(spec: BuildSpec, *, engine: NLIEngine | None = None, ranks: Ranks | None = None,
          progress: bool = True, fresh: bool = False, log: Callable[[str], None] = print
          ) -> dict[str, Any] | None:
    """Build the spec's training set; returns the manifest (on the main process; ``None`` on
    the others)."""
    if spec.kind == "pairs":  # no NLI model: pairs labelled by how their claims are made
        from citetrain.builders.pairs_build import build_pairs

        if ranks is not None and ranks.world > 1:
            raise CitetrainError("a pairs build runs as one process: use pairs.processes")
        return build_pairs(spec, progress=progress, fresh=fresh, log=log)
    ranks = ranks or Ranks()
    out = out_dir(spec)
    work = out / "work"
    if fresh and ranks.main:
        shutil.rmtree(work, ignore_errors=True)
    ranks.barrier()
    work.mkdir(parents=True, exist_ok=True)
    sources = read_sources(spec.sources, spec.first_line_only)
    # one bar over the records (run_shards), not one per NLI round per shard
    engine = engine or make_build_engine(spec, out, ranks, progress=False)
    check_work(work, spec, sources, engine)
    n_shards = run_shards(sources, spec, engine, work, ranks, progress)
    ranks.barrier()
    if not ranks.main:
        return None
    rows = collect_rows(work, n_shards)
    dropped: Counter[str] = sources.dropped()
    kwargs: dict[str, Any] = {"max_words": spec.max_doc_words}
    sub = getattr(spec, spec.kind)
    if spec.kind == "refiner":
        kwargs.update(unit=sub.unit, perturb_p=sub.perturb, seed=spec.seed)
    if spec.kind == "judge" and sub.teacher is not None:
        from citetrain.builders.sets import judge_prompt

        prompts = []
        for it in sources.items:
            mine = [r for r in rows.get(it.record.id, [])
                    if not is_empty_statement(r["text"]) and r["context"] == "retrieval"]
            if mine:
                prompts.append((judge_prompt(it.record, mine), len(mine)))
        kwargs["teacher"] = _teacher(spec, out, prompts, progress)
    examples: dict[str, list[dict[str, Any]]] = {"train": [], "validation": []}
    for it in sources.items:
        mine = rows.get(it.record.id, [])
        if not mine:
            dropped["empty output"] += 1
            continue
        exs, why = BUILDERS[spec.kind](it.record, mine, **kwargs)
        dropped.update(why)
        for ex in exs:
            examples[split_of(it.record.question, spec.split.validation, spec.split.seed)].append(ex)
    all_rows = [r for it in sources.items for r in rows.get(it.record.id, [])]
    counts = statement_counts(all_rows, {it.record.id: len(it.record.docs) for it in sources.items},
                              spec.max_subset)
    check = pruning_check(sources, rows, spec, engine) if spec.check_sample else None
    n_examples = {k: len(v) for k, v in examples.items()}
    table = summary_table(counts, n_examples, {k: v for k, v in dropped.items() if v})
    manifest = {
        "citetrain": __version__, "name": spec.name, "kind": spec.kind,
        "sources": sources.files,
        "nli": {"name": spec.nli, "model_id": engine.backend.model_id,
                "revision": engine.backend.revision, "engine": engine.name},
        "settings": spec.settings(),
        "records": {"read": sum(f["used"] + f["skipped"] for f in sources.files),
                    "kept": len(sources.items), "warnings": dict(sources.warnings())},
        "dropped": {k: v for k, v in sorted(dropped.items()) if v},
        "statements": counts, "examples": n_examples, "pruning_check": check,
        "processes": ranks.world,
    }
    save_dataset(examples, out / "dataset")
    write_records([it.record for it in sources.items], out / "records.jsonl")
    atomic_write_text(out / "statements.jsonl", "".join(
        json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in all_rows))
    atomic_write_text(out / "problems.jsonl", "".join(
        json.dumps(p, ensure_ascii=False) + "\n" for p in sources.problems))
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    atomic_write_text(out / "summary.txt", table + "\n")
    for p in sources.problems[:5]:
        log(f"{p['path']}:{p['line']}: {p['field']}: {p['reason']} ({p['detail']}; {p['action']})")
    if len(sources.problems) > 5:
        log(f"... {len(sources.problems) - 5} more problems in {out / 'problems.jsonl'}")
    log(table)
    if check:
        log(f"pruning check: {check['disagreements']} of {check['statements']} sampled statements "
            "differ from an exhaustive search")
    log(f"\nwrote {out / 'dataset'} ({n_examples['train']} train, {n_examples['validation']} "
        f"validation), {out / 'manifest.json'}")
    return manifest
