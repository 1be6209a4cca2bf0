"""Human-labelled files -> a (premise, hypothesis, label) ``DatasetDict`` for a cross-encoder.

Rows come from :func:`citetrain.io.labelled.read_labelled` (labels 2 full / 1 partial / 0 no
support); the train / validation split hashes :func:`split_key` with
:func:`citetrain.builders.sets.split_of`, so no claim lands on both sides. The key is the claim
(the statement, case and spaces normalised) rather than the bare ``group`` id: the pairs of one
group share their statement, so a group stays whole (WiCE's oracle chunks of one claim), and so
does a claim that recurs under other ids — AttributionBench repeats claims with other references
and takes some from ExpertQA; split by id, about a third of its validation claims were also
training claims. A pair read from several files (ExpertQA's ``rand_*`` and ``domain_*``
splits share one pool) is kept once, from the first file. ``wice_tokens:PATH`` reads WiCE's
``non_supported_tokens`` rows as three pairs each (:mod:`citetrain.judge_training.pairs_wice`),
``synth:PATH`` ``citetrain synth`` records as pairs of known support
(:mod:`citetrain.judge_training.pairs_synth`), ``wice_evidence:PATH`` and ``gold:PATH`` records with
reference citations as (passage, statement) pairs labelled by them
(:func:`citetrain.builders.refiner_pairs.read_gold_pairs`).

Columns: ``premise``, ``hypothesis``, ``label`` (int), ``group``,
``source`` (``"FORMAT:PATH"``). Saved atomically beside ``manifest.json`` (sources with their
sha256, counts per split and label, seed, fraction).
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from citetrain.errors import CitetrainError
from citetrain.io.labelled import source_formats
from citetrain.io.labelled import split_key as split_key  # moved to io: builders use it too
from citetrain.io.readers import sha256_file

COLUMNS = ("premise", "hypothesis", "label", "group", "source")
LABEL_NAMES = {0: "not_supported", 1: "partially_supported", 2: "supported"}
MANIFEST = "manifest.json"


def _derived_readers() -> dict[str, Any]:
    """Readers of the sources that derive training pairs (not human-labelled files)."""
    from citetrain.builders import refiner_pairs as refiner
    from citetrain.judge_training import pairs_synth as synth
    from citetrain.judge_training import pairs_wice as wice

    gold = {name: (lambda path, name=name: refiner.read_gold_pairs(path, name))
            for name in refiner.GOLD_FORMATS}
    return {wice.FORMAT: wice.read_wice_tokens, synth.FORMAT: synth.read_synth,
            refiner.FORMAT: refiner.read_refiner_pairs, **gold}


def read_source(path: str, fmt: str) -> Any:
    """The labelled pairs of one ``crossencoder.labelled`` entry."""
    from citetrain.io.labelled import read_labelled

    derived = _derived_readers()
    return derived[fmt](path) if fmt in derived else read_labelled(path, fmt)


def parse_source(entry: str) -> tuple[str, str]:
    """``"FORMAT:PATH"`` or ``"PATH"`` (format ``auto``) -> ``(format, path)``."""
    fmt, sep, path = entry.partition(":")
    if sep and fmt in source_formats():
        return fmt, path
    return "auto", entry


def split_pairs(pairs: Any, fraction: float, seed: int, split: str) -> list[Any]:
    """The labelled pairs that fall in ``split`` (``"train"`` / ``"validation"``)."""
    from citetrain.builders.sets import split_of

    return [p for p in pairs if split_of(split_key(p), fraction, seed) == split]


def labelled_rows(sources: list[str], fraction: float, seed: int
                  ) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """Rows per split and a description of each source (format, pairs, skipped, sha256)."""
    from citetrain.builders.sets import split_of

    splits: dict[str, list[dict[str, Any]]] = {"train": [], "validation": []}
    described = []
    seen: set[tuple[str, str]] = set()  # (format, pair id): a pair read twice is kept once
    for entry in sources:
        fmt, path = parse_source(entry)
        if not Path(path).is_file():
            raise CitetrainError(f"crossencoder.labelled: {path} not found")
        pairs = read_source(path, fmt)
        name = f"{pairs.format}:{path}"
        kept = 0
        for p in pairs:
            if (pairs.format, p.id) in seen:
                continue
            seen.add((pairs.format, p.id))
            kept += 1
            splits[split_of(split_key(p), fraction, seed)].append(
                {"premise": p.premise, "hypothesis": p.hypothesis, "label": int(p.label),
                 "group": p.group, "source": name})
        described.append({"path": str(path), "format": pairs.format, "pairs": kept,
                          "skipped": len(pairs.skipped),
                          "duplicates": pairs.duplicates + len(pairs) - kept,
                          "sha256": sha256_file(path)})
    return splits, described


def counts(splits: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, int]]:
    """``{split: {label name: n}}``."""
    return {name: {LABEL_NAMES[k]: v for k, v in sorted(Counter(r["label"] for r in rows).items())}
            for name, rows in splits.items()}


def to_dataset_dict(splits: dict[str, list[dict[str, Any]]]):
    """A ``datasets.DatasetDict`` with the :data:`COLUMNS` (empty splits left out)."""
    import datasets

    feats = datasets.Features({c: datasets.Value("int64" if c == "label" else "string")
                               for c in COLUMNS})
    return datasets.DatasetDict({
        name: datasets.Dataset.from_dict({c: [r[c] for r in rows] for c in COLUMNS},
                                         features=feats)
        for name, rows in splits.items() if rows})


def build_pairs(sources: list[str], target: str | Path, fraction: float = 0.3,
                seed: int = 0) -> dict[str, Any]:
    """Read ``sources``, split by group, save the DatasetDict to ``target`` and the manifest
    beside it (``target/../manifest.json``); returns the manifest."""
    from citetrain.io.writers import save_atomically
    from citetrain.io.writers import atomic_write_text

    if not sources:
        raise CitetrainError("crossencoder.labelled: no labelled files given")
    splits, described = labelled_rows(sources, fraction, seed)
    if not splits["train"]:
        raise CitetrainError(f"crossencoder.labelled: no training pairs (validation_fraction "
                             f"{fraction})")
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    save_atomically(to_dataset_dict(splits), target)
    manifest = {"sources": described, "validation_fraction": fraction, "split_seed": seed,
                "split_by": "statement", "counts": counts(splits),
                "labels": {str(k): v for k, v in LABEL_NAMES.items()}}
    atomic_write_text(target.parent / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return manifest


def built_dataset_path(folder: str | Path) -> Path | None:
    """The ``DatasetDict`` folder of a ``citetrain build`` output (``FOLDER/dataset``) or the
    folder itself when it is one; ``None`` when neither holds a ``dataset_dict.json``."""
    for path in (Path(folder) / "dataset", Path(folder)):
        if (path / "dataset_dict.json").is_file():
            return path
    return None


def built_manifests(folders: list[str]) -> list[dict[str, Any]]:
    """The manifests of built pair sets (``manifest.json`` beside their dataset), for cards."""
    out = []
    for folder in folders:
        path = built_dataset_path(folder)
        man = path.parent / MANIFEST if path is not None else None
        out.append({"path": str(folder), **({"manifest": json.loads(man.read_text())}
                                            if man is not None and man.is_file() else {})})
    return out


def hold_out(train: Any, held: list[bool], setting: str, held_name: str) -> tuple[Any, Any]:
    """``(kept, held)``: the pairs of ``train`` whose ``held`` flag is false, and those whose flag
    is true; a side left empty is a one-line error naming the recipe ``setting`` that emptied it."""
    keep = [i for i, h in enumerate(held) if not h]
    out = [i for i, h in enumerate(held) if h]
    if not keep or not out:
        raise CitetrainError(f"{setting} leaves {'no training' if not keep else 'no ' + held_name} "
                             "pair")
    return train.select(keep), train.select(out)


def training_pairs(human: Any, built: list[str] | None, built_max: int | None,
                   human_train: bool, seed: int, exclude: Sequence[str] = ()) -> Any:
    """The training split of a cross-encoder run: the human pairs (unless ``human_train`` is
    false) and the train split of every built set without the pairs of the ``exclude``
    transformations (an ablation), a seeded sample of ``built_max`` of them when given, in the
    :data:`COLUMNS` layout."""
    import datasets

    parts = [human.select_columns(list(COLUMNS))] if human_train else []
    extra = []
    for folder in built or []:
        path = built_dataset_path(folder)
        if path is None:
            raise CitetrainError(f"crossencoder.built: {folder} holds no pairs dataset")
        dd = datasets.load_from_disk(str(path))
        if "train" not in dd:
            raise CitetrainError(f"crossencoder.built: {path} has no train split (has {', '.join(dd)})")
        lacking = [c for c in COLUMNS if c not in dd["train"].column_names]
        if lacking:
            raise CitetrainError(f"crossencoder.built: {path} lacks the column(s) {', '.join(lacking)}")
        rows = dd["train"]
        if exclude and "transform" in rows.column_names:
            drop = set(exclude)
            rows = rows.filter(lambda t: t not in drop, input_columns="transform")
        extra.append(rows.select_columns(list(COLUMNS)).cast(human.features)
                     if human is not None else rows.select_columns(list(COLUMNS)))
    if extra:
        built_set = datasets.concatenate_datasets(extra)
        if built_max is not None and len(built_set) > built_max:
            built_set = built_set.shuffle(seed=seed).select(range(built_max))
        parts.append(built_set)
    return datasets.concatenate_datasets(parts)


def pairs_input_errors(recipe: Any) -> list[str]:
    """The missing inputs a ``kind: crossencoder`` run would stop on, found before anything is
    launched: built pairs datasets, or the labelled files its pairs are made from."""
    c = recipe.crossencoder
    missing = [f"crossencoder.built: {b} holds no pairs dataset (build it with `citetrain "
               "build SPEC`, kind pairs)" for b in c.built if built_dataset_path(b) is None]
    if missing:
        return missing
    if (Path(recipe.data.dataset) / "dataset_dict.json").is_file():
        return []
    return [f"crossencoder.labelled: {path} not found" for path in
            (parse_source(e)[1] for e in c.labelled or []) if not Path(path).exists()]


def pairs_path(recipe: Any) -> Path:
    """``data.dataset`` as a pairs dataset, which :func:`ensure_pairs` made before the run."""
    path = Path(recipe.data.dataset)
    if not (path / "dataset_dict.json").is_file():
        raise CitetrainError(f"data.dataset: {path} is not a pairs dataset; give "
                             "crossencoder.labelled")
    return path


def _manifest_matches(recipe: Any, path: Path) -> bool:
    """The saved pairs came from the same files (by sha256), fraction and seed."""
    from citetrain.io.readers import sha256_file

    man = path.parent / MANIFEST
    if not (path / "dataset_dict.json").is_file() or not man.is_file():
        return False
    old = json.loads(man.read_text())
    d = recipe.crossencoder
    if (old.get("validation_fraction"), old.get("split_seed"), old.get("split_by")) != (
            d.validation_fraction, d.split_seed, "statement"):
        return False
    want = [parse_source(e)[1] for e in d.labelled or []]
    have = old.get("sources", [])
    return (len(want) == len(have) and all(
        h["path"] == w and Path(w).is_file() and h["sha256"] == sha256_file(w)
        for w, h in zip(want, have)))


def ensure_pairs(recipe: Any, main: bool) -> Path:
    """``data.dataset``, (re)built from ``crossencoder.labelled`` by the main process when it is
    absent or was built from other files or split settings."""
    path = Path(recipe.data.dataset)
    d = recipe.crossencoder
    if d.labelled and main and not _manifest_matches(recipe, path):
        man = build_pairs(d.labelled, path, d.validation_fraction, d.split_seed)
        print(f"[citetrain] pairs: {json.dumps(man['counts'])} -> {path}", flush=True)
    elif not (path / "dataset_dict.json").is_file() and not d.labelled:
        raise CitetrainError(f"data.dataset: {path} is not a pairs dataset; give "
                             "crossencoder.labelled")
    return path
