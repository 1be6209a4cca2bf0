"""``kind: pairs``: (passage window, claim) pairs with three-way support labels from real text,
for a cross-encoder judge (:mod:`citetrain.builders.transforms` says how each claim is made and
why it has its label). No NLI model is used: a spec's ``nli`` settings do not apply here.

Layout of the output folder::

    dataset/        DatasetDict (train, validation; split by passage), columns premise,
                    hypothesis, label (int64: 0 not / 1 partially / 2 supported), group (the
                    passage id), source ("FORMAT:PATH"), transform
    manifest.json   sources (sha256, passages), settings, counts per split x transformation x
                    label, refused candidates per transformation and why
    passages.jsonl  per passage: id (= group), source, origin (file:line), record / claim
                    group, title, sentences
    problems.jsonl  input rows skipped (with skip_invalid), with file, line and field
    summary.txt     the counts table
    work/           settings.json, pairs-NNNNN.jsonl + skips-NNNNN.json per finished shard,
                    pool/ (the sentence pool's arrays, mapped by every process; reused on resume)

Passages are cut into shards of ``shard_size``; a finished shard is written atomically, a rerun
skips it (``--fresh`` starts over), and shards of other settings are refused. ``pairs.processes``
parses shards in a pool of spawned processes (each loads spaCy once and maps the one sentence pool
on disk); a passage's pairs depend on its own seeded generator only, so the output is the same for
any shard size or process count. Spawned processes import the calling script again: a script that
calls :func:`build_pairs` with ``processes`` > 1 must do so under ``if __name__ == "__main__":``
(``citetrain build`` does).
"""
from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

from tqdm.auto import tqdm

from citetrain import __version__
from citetrain.builders.pairs_gen import GenConfig, shard_pairs
from citetrain.builders.passages import PassageSet, read_passages
from citetrain.builders.pool import SentencePool
from citetrain.builders.stages import check_state, out_dir
from citetrain.io.writers import save_atomically
from citetrain.builders.spec import TRANSFORMS, BuildSpec
from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_write_text

COLUMNS = ("premise", "hypothesis", "label", "group", "source", "transform")
LABEL_NAMES = {0: "not_supported", 1: "partially_supported", 2: "supported"}
_STATE: dict[str, Any] = {}


def _config(spec: BuildSpec) -> GenConfig:
    p = spec.pairs
    assert p is not None
    return GenConfig(p.per_passage, p.window, dict(p.weights), p.min_words, spec.seed,
                     spec.split.validation, spec.split.seed)


def _spacy_name() -> str:
    from citetrain.text.spacy_model import load_spacy

    nlp = load_spacy(disable=())
    return f"{nlp.meta['lang']}_{nlp.meta['name']}=={nlp.meta['version']}"


def check_pairs_work(work: Path, spec: BuildSpec, found: PassageSet, spacy: str) -> None:
    """Refuse to resume from shards made with other settings, input or spaCy pipeline."""
    from citetrain.io.readers import sha256_file

    holdout = spec.pairs.holdout if spec.pairs else None
    extra = [sha256_file(e.split(":", 1)[-1]) for e in (holdout.labelled if holdout else [])]
    check_state(work, {"settings": spec.settings(), "passages": len(found.passages),
                       "spacy": spacy, "files": [f["sha256"] for f in found.files] + extra})


def _init(pool: SentencePool | str, cfg: GenConfig) -> None:
    """A worker's state: the sentence pool (or the folder to map it from) and the settings."""
    _STATE.update(pool=SentencePool.open(pool) if isinstance(pool, str) else pool, cfg=cfg)


def _work(job: tuple[int, list]) -> tuple[int, list[dict[str, Any]], Counter]:
    from citetrain.text.spacy_model import load_spacy

    i, items = job
    rows, skipped = shard_pairs(items, _STATE["cfg"], _STATE["pool"], load_spacy(disable=()))
    return i, rows, skipped


def _shard_path(work: Path, i: int) -> Path:
    return work / f"pairs-{i:05d}.jsonl"


def _write_shard(work: Path, i: int, rows: list[dict[str, Any]], skipped: Counter) -> None:
    """Refusals first, then the pairs (whose presence marks the shard finished)."""
    atomic_write_text(work / f"skips-{i:05d}.json", json.dumps(
        [[t, r, n] for (t, r), n in sorted(skipped.items())]) + "\n")
    atomic_write_text(_shard_path(work, i), "".join(
        json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows))


def _n_lines(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def run_pair_shards(found: PassageSet, pool: SentencePool, spec: BuildSpec, work: Path,
                    progress: bool) -> int:
    """Make the unfinished shards' pairs (in a process pool when ``processes`` > 1); with
    ``max_pairs``, stop once the shards in order hold enough. Returns the shards needed."""
    p, cfg, size = spec.pairs, _config(spec), spec.shard_size
    assert p is not None
    n = (len(found.passages) + size - 1) // size
    items = list(enumerate(found.passages))
    jobs = [(i, items[i * size:(i + 1) * size]) for i in range(n)]
    have: dict[int, int] = {i: _n_lines(_shard_path(work, i)) for i in range(n)
                            if _shard_path(work, i).is_file()}

    def enough(upto: int) -> bool:
        return p.max_pairs is not None and all(i in have for i in range(upto + 1)) and \
            sum(have[i] for i in range(upto + 1)) >= p.max_pairs

    needed = next((i + 1 for i in range(n) if enough(i)), n)
    todo = [j for j in jobs[:needed] if j[0] not in have]
    bar = tqdm(total=needed, initial=needed - len(todo), unit="shard", desc="pairs",
               disable=not progress)

    def results() -> Iterator[tuple[int, list[dict[str, Any]], Counter]]:
        if p.processes == 1 or len(todo) <= 1:
            _init(pool, cfg)
            yield from map(_work, todo)
            return
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        shared = str(pool.folder) if pool.folder else pool  # mapped, not copied, where saved
        with ctx.Pool(min(p.processes, len(todo)), initializer=_init,
                      initargs=(shared, cfg)) as mp:
            yield from mp.imap(_work, todo)

    for i, rows, skipped in results():
        _write_shard(work, i, rows, skipped)
        have[i] = len(rows)
        bar.update(1)
        if enough(i):
            needed = i + 1
            break
    bar.close()
    return needed


def _shard_lines(paths: list[str], limit: int | None) -> Iterator[dict[str, Any]]:
    """The rows of the shards in order, the first ``limit`` of them (all when ``None``)."""
    seen = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if limit is not None and seen >= limit:
                    return
                seen += 1
                yield json.loads(line)


def _rows(paths: list[str], split: str, limit: int | None, digest: str
          ) -> Iterator[dict[str, Any]]:
    """The shards' rows of one split, in order, among the first ``limit`` rows overall
    (``digest`` only names the content for the dataset's fingerprint)."""
    for row in _shard_lines(paths, limit):
        if row.pop("split") == split:
            yield {c: row[c] for c in COLUMNS}


def merge(work: Path, n_shards: int, limit: int | None
          ) -> tuple[dict[str, dict[str, dict[str, int]]], Counter, list[str], str]:
    """Counts ``{split: {transform: {label name: n}}}``, refusals, shard paths and a digest of
    their content."""
    by: dict[str, dict[str, Counter]] = {}
    skipped: Counter = Counter()
    h = hashlib.sha256()
    paths = []
    for i in range(n_shards):
        path = _shard_path(work, i)
        if not path.is_file():
            raise CitetrainError(f"{path}: missing shard (the build did not finish)")
        paths.append(str(path))
        h.update(path.read_bytes())
        for t, r, k in json.loads((work / f"skips-{i:05d}.json").read_text(encoding="utf-8")):
            skipped[(t, r)] += k
    for row in _shard_lines(paths, limit):
        by.setdefault(row["split"], {}).setdefault(row["transform"], Counter())[
            LABEL_NAMES[row["label"]]] += 1
    counts = {s: {t: dict(sorted(c.items())) for t, c in sorted(ts.items())}
              for s, ts in sorted(by.items())}
    return counts, skipped, paths, h.hexdigest()


def save_pairs_dataset(paths: list[str], splits: list[str], limit: int | None, digest: str,
                       target: Path, work: Path) -> None:
    """A DatasetDict streamed from the shards (never all rows in memory), saved atomically."""
    import datasets

    datasets.disable_progress_bars()
    feats = datasets.Features({c: datasets.Value("int64" if c == "label" else "string")
                               for c in COLUMNS})
    with tempfile.TemporaryDirectory(dir=work, prefix="hf-") as cache:
        dd = datasets.DatasetDict({
            s: datasets.Dataset.from_generator(
                _rows, features=feats, cache_dir=cache,
                gen_kwargs={"paths": paths, "split": s, "limit": limit, "digest": digest}
            ).select_columns(list(COLUMNS), new_fingerprint=f"{digest[:24]}-{s}")
            for s in splits})
        save_atomically(dd, target)


def summary(counts: dict[str, dict[str, dict[str, int]]], skipped: Counter) -> str:
    """The counts table: pairs per transformation, label and split; refusals by reason."""
    splits = sorted(counts)
    head = ["transform", "label", *splits, "total"]
    lines = []
    for t in TRANSFORMS:
        label = next((lb for s in splits for lb in counts[s].get(t, {})), None)
        if label is None:
            continue
        per = [sum(counts[s].get(t, {}).values()) for s in splits]
        lines.append([t, label, *map(str, per), str(sum(per))])
    for lb in LABEL_NAMES.values():
        per = [sum(c.get(lb, 0) for c in counts[s].values()) for s in splits]
        lines.append(["all", lb, *map(str, per), str(sum(per))])
    widths = [max(len(r[k]) for r in [head, *lines]) for k in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*head), *(fmt.format(*r) for r in lines), "", "refused candidates:"]
    out += [f"  {t}: {r}: {n}" for (t, r), n in sorted(skipped.items())]
    return "\n".join(out)


def sentence_pool(found: PassageSet, work: Path) -> SentencePool:
    """The passages' sentence pool, mapped from ``work/pool`` (built and saved there first,
    unless a finished one is there: the work folder's state is the same input's)."""
    folder = work / "pool"
    if not (folder / "pool.json").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        SentencePool([p.sentences for p in found.passages],
                     [p.group for p in found.passages]).save(folder)
    return SentencePool.open(folder)


def build_pairs(spec: BuildSpec, *, progress: bool = True, fresh: bool = False,
                log: Callable[[str], None] = print) -> dict[str, Any]:
    """Build the spec's pairs set; returns the manifest."""
    assert spec.pairs is not None
    out = out_dir(spec)
    work = out / "work"
    if fresh:
        shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    found = read_passages(spec.sources, spec.pairs.holdout, spec.pairs.processes, progress)
    if not found.passages:
        raise CitetrainError("no passages with sentences in the sources")
    spacy = _spacy_name()
    check_pairs_work(work, spec, found, spacy)
    pool = sentence_pool(found, work)
    n = run_pair_shards(found, pool, spec, work, progress)
    counts, skipped, paths, digest = merge(work, n, spec.pairs.max_pairs)
    save_pairs_dataset(paths, list(counts), spec.pairs.max_pairs, digest, out / "dataset", work)
    by_label = {s: dict(sorted(sum((Counter(c) for c in ts.values()), Counter()).items()))
                for s, ts in counts.items()}
    refused: dict[str, dict[str, int]] = {}
    for (t, r), k in sorted(skipped.items()):
        refused.setdefault(t, {})[r] = k
    manifest = {
        "citetrain": __version__, "name": spec.name, "kind": "pairs", "seed": spec.seed,
        "sources": found.files, "settings": spec.settings(), "spacy": spacy,
        "passages": {"kept": len(found.passages), "used": min(len(found.passages),
                                                               n * spec.shard_size),
                     "held_out_claims": found.held_out_claims,
                     "held_out": sum(f["held_out"] for f in found.files),
                     "duplicates": sum(f["duplicates"] for f in found.files),
                     "no_sentences": sum(f["no_sentences"] for f in found.files)},
        "sentence_pool": len(pool), "problems": len(found.problems),
        "labels": {str(k): v for k, v in LABEL_NAMES.items()},
        "columns": list(COLUMNS), "split_by": "passage",
        "counts": by_label, "pairs": {s: sum(c.values()) for s, c in by_label.items()},
        "by_transform": counts, "refused": refused,
        "processes": spec.pairs.processes,
    }
    table = summary(counts, skipped)
    atomic_write_text(out / "passages.jsonl", "".join(json.dumps(
        {"id": p.id, "source": p.source, "origin": p.origin, "record": p.group,
         "title": p.title, "sentences": len(p.sentences)}, ensure_ascii=False) + "\n"
        for p in found.passages))
    atomic_write_text(out / "problems.jsonl", "".join(
        json.dumps(p, ensure_ascii=False) + "\n" for p in found.problems))
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    atomic_write_text(out / "summary.txt", table + "\n")
    log(table)
    log(f"\nwrote {out / 'dataset'} ({', '.join(f'{k} {s}' for s, k in manifest['pairs'].items())}"
        f"), {out / 'manifest.json'}")
    return manifest
