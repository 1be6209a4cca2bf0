"""Run a build spec: read sources, analyse statements in shards (resumable, data-parallel),
merge in order, write the training set with ``datasets`` and a manifest.

Layout of the output folder::

    dataset/        DatasetDict (train, validation) saved with save_to_disk
    manifest.json   sources and hashes, NLI model and revision, settings, counts and drops
    records.jsonl   the kept input records, canonical form (the in-loop scorer reads them)
    statements.jsonl  per statement: minimal subsets, gold ids, context, edits, calls, truncation
    problems.jsonl  every input problem with file, line and field
    summary.txt     the summary table
    work/           settings.json, shard-NNNNN.jsonl (finished shards), nli.sqlite (NLI cache)

A killed build started again with the same spec skips finished shards and answers the rest from
the NLI cache, so no pair goes to the model twice and the output is byte-identical.
"""
from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tqdm.auto import tqdm

from citetrain.analysis.support import (
    analyse,
    analyses_of,
    analysis_row,
    is_empty_statement,
)
from citetrain.builders.sources import Sources
from citetrain.builders.spec import BuildSpec
from citetrain.analysis.subsets import SubsetSearch, run_searches
from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_write_text, save_atomically
from citetrain.nli.engine import NLIEngine
from citetrain.records import join_docs


@dataclass
class Ranks:
    """This process's place among the processes of a data-parallel build."""

    rank: int = 0
    world: int = 1
    barrier: Callable[[], None] = field(default=lambda: None)

    @property
    def main(self) -> bool:
        return self.rank == 0


def launcher_ranks() -> Ranks:
    """This process's rank under ``accelerate launch`` / torchrun (one process otherwise; gloo
    across processes on a CPU). Builds and checkpoint scoring share it."""
    import os

    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return Ranks()
    import torch
    from accelerate import PartialState

    state = PartialState(cpu=not torch.cuda.is_available())
    return Ranks(state.process_index, state.num_processes, state.wait_for_everyone)


def out_dir(spec: BuildSpec) -> Path:
    return Path(spec.out or Path("data") / spec.name)


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def check_work(work: Path, spec: BuildSpec, sources: Sources, engine: NLIEngine) -> None:
    """Refuse to resume from shards made by another spec, input or NLI model."""
    check_state(work, {"settings": spec.settings(), "files": [f["sha256"] for f in sources.files],
                       "items": len(sources.items), "nli": engine.name})


def check_state(work: Path, state: dict[str, Any]) -> None:
    """``work/settings.json`` holds ``state`` (written when absent); a folder made under another
    state is refused, naming the keys that differ."""
    path = work / "settings.json"
    if path.is_file():
        old = json.loads(path.read_text(encoding="utf-8"))
        if old != state:
            diff = sorted(k for k in state if old.get(k) != state[k])
            raise CitetrainError(f"{work}: made by a build with other {', '.join(diff)}; "
                                 "remove the folder or build with --fresh")
        return
    atomic_write_text(path, json.dumps(state, indent=1, sort_keys=True) + "\n")


def analyse_shard(items: list, spec: BuildSpec, engine: NLIEngine) -> list[dict[str, Any]]:
    """Statement analyses of one shard of records (every round batched across the shard)."""
    per = [analyses_of(it.record, spec.at_most_citations, spec.first_line_only) for it in items]
    flat = [s for sts in per for s in sts]
    analyse(flat, engine, max_size=spec.max_subset, exhaustive=spec.exhaustive, search_all=True,
            query_recall=spec.query_recall, response_recall=spec.response_recall)
    rows = [analysis_row(s) for s in flat]
    if spec.kind == "generator" and spec.generator and spec.generator.marks == "positional":
        from citetrain.builders.positional import add_claim_targets

        add_claim_targets(items, rows, spec, engine)
    return rows


def run_shards(sources: Sources, spec: BuildSpec, engine: NLIEngine, work: Path, ranks: Ranks,
               progress: bool = True) -> int:
    """Analyse this process's unfinished shards (shard i belongs to rank i mod world)."""
    size = spec.shard_size
    n = (len(sources.items) + size - 1) // size
    mine = [i for i in range(n) if i % ranks.world == ranks.rank]
    todo = [i for i in mine if not (work / f"shard-{i:05d}.jsonl").is_file()]
    def records(i: int) -> int:
        return len(sources.items[i * size:(i + 1) * size])

    bar = tqdm(total=sum(map(records, mine)), initial=sum(records(i) for i in mine if i not in todo),
               unit="record", desc=f"analyse (rank {ranks.rank})" if ranks.world > 1 else "analyse",
               disable=not progress)
    for i in todo:
        rows = analyse_shard(sources.items[i * size:(i + 1) * size], spec, engine)
        atomic_write_text(work / f"shard-{i:05d}.jsonl", _jsonl(rows))
        bar.update(records(i))
    bar.close()
    return n


def pruning_check(sources: Sources, rows: dict[str, list[dict[str, Any]]], spec: BuildSpec,
                  engine: NLIEngine) -> dict[str, Any]:
    """Re-search a seeded sample of statements exhaustively; count gold disagreements."""
    pool = [(it.record, r) for it in sources.items for r in rows.get(it.record.id, [])
            if not is_empty_statement(r["text"])]
    sample = random.Random(spec.seed).sample(pool, min(spec.check_sample, len(pool)))
    searches = [SubsetSearch(len(rec.docs), spec.max_subset, exhaustive=True) for rec, _ in sample]

    def ask(jobs):
        return engine.results([(join_docs(sample[i][0].docs, q), sample[i][1]["text"])
                               for i, q in jobs])

    run_searches(searches, ask)
    differ = sum(s.gold != r["gold"] for s, (_, r) in zip(searches, sample))
    return {"statements": len(sample), "disagreements": differ}


def collect_rows(work: Path, n_shards: int) -> dict[str, list[dict[str, Any]]]:
    """Every shard's rows, grouped by record id in input order."""
    by_id: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for i in range(n_shards):
        path = work / f"shard-{i:05d}.jsonl"
        if not path.is_file():
            raise CitetrainError(f"{path}: missing shard (a process of the build did not finish)")
        for row in _read_jsonl(path):
            by_id[row["id"]].append(row)
    return by_id


def save_dataset(examples: dict[str, list[dict[str, Any]]], target: Path) -> None:
    """Save a DatasetDict to ``target`` through a temporary folder and a rename."""
    import datasets

    cols = sorted({k for split in examples.values() for ex in split for k in ex}
                  | {"prompt", "completion", "id", "question", "unit"})
    feats = datasets.Features({c: datasets.Value("bool" if c == "perturbed" else "string")
                               for c in cols})
    dd = datasets.DatasetDict({
        name: datasets.Dataset.from_dict({c: [ex.get(c) for ex in exs] for c in cols},
                                         features=feats)
        for name, exs in examples.items() if exs})  # an empty split is left out
    save_atomically(dd, target)
