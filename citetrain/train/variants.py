"""Variants of labelled (premise, claim) pairs: more inputs near the training ones, for a student
to learn its judge's reading on.

A student distilled from a judge on the judge's own training pairs fits it there and follows it
less on new claims; TinyBERT's remedy (Jiao et al. 2020, "TinyBERT: Distilling BERT for Natural
Language Understanding", data augmentation) is more inputs near the training ones, labelled by
the teacher alone. Each pair of a dataset's split gives up to ``per_pair`` variants, each by a
different edit, chosen and applied with a generator seeded by ``seed`` and the pair's text (so a
pair's variants do not depend on the rest of the file, and more ``per_pair`` only adds to them):

- ``drop_span``: 1-3 consecutive claim words deleted (claims of 6 words or more);
- ``premise_word``: 1-2 claim words replaced by words of the premise;
- ``swap_words``: two adjacent claim words swapped (claims of 4 words or more);
- ``drop_sentence``: one premise sentence deleted (a premise read by sentence selection then
  shows another window);
- ``other_premise``: the claim with the premise of another pair of the same source format.

A variant keeps the pair's label and source and takes its group with ``#variant``: the label is
not a claim about the variant (a dropped span may have carried the fact) and a student reads
these rows at teacher weight 1 (``citetrain teacher --transfer``), where the label is never read.
"""
from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError
from citetrain.train.pairs import COLUMNS, built_dataset_path

EDITS = ("drop_span", "premise_word", "swap_words", "drop_sentence", "other_premise")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def variant(edit: str, premise: str, claim: str, rng: random.Random,
            others: Sequence[str] = ()) -> tuple[str, str] | None:
    """``(premise, claim)`` after ``edit`` (module docstring), or ``None`` where it does not
    apply; ``others``: the premises ``other_premise`` draws from."""
    words = claim.split()
    if edit == "drop_span":
        if len(words) < 6:
            return None
        n = rng.randint(1, 3)
        i = rng.randrange(0, len(words) - n)
        return premise, " ".join(words[:i] + words[i + n:])
    if edit == "premise_word":
        pool = WORD.findall(premise)
        slots = [i for i, w in enumerate(words) if WORD.fullmatch(w)]
        if not pool or not slots:
            return None
        for i in rng.sample(slots, min(len(slots), rng.randint(1, 2))):
            words[i] = rng.choice(pool)
        return premise, " ".join(words)
    if edit == "swap_words":
        if len(words) < 4:
            return None
        i = rng.randrange(0, len(words) - 1)
        words[i], words[i + 1] = words[i + 1], words[i]
        return premise, " ".join(words)
    if edit == "drop_sentence":
        sentences = SENTENCE_END.split(premise)
        if len(sentences) < 2:
            return None
        del sentences[rng.randrange(len(sentences))]
        return " ".join(sentences), claim
    if edit == "other_premise":
        choices = [p for p in others if p != premise]
        return (rng.choice(choices), claim) if choices else None
    raise CitetrainError(f"unknown edit {edit!r} (one of {', '.join(EDITS)})")


def pair_variants(rows: Mapping[str, Sequence[Any]], per_pair: int, seed: int = 0,
                  edits: Sequence[str] = EDITS) -> tuple[list[dict[str, Any]], Counter]:
    """Up to ``per_pair`` variants of each row of ``rows`` (columns :data:`COLUMNS`), each by a
    different edit, none equal to an input pair or an earlier variant; returns (variant rows with
    a ``transform`` column naming the edit, counts per edit)."""
    if per_pair < 1:
        raise CitetrainError(f"per_pair must be at least 1 (got {per_pair})")
    unknown = [e for e in edits if e not in EDITS]
    if unknown:
        raise CitetrainError(f"unknown edit(s) {', '.join(unknown)} (one of {', '.join(EDITS)})")
    by_format: dict[str, list[str]] = {}
    for p, s in zip(rows["premise"], rows["source"]):
        pool = by_format.setdefault(s.split(":")[0], [])
        if not pool or pool[-1] != p:
            pool.append(p)
    seen = set(zip(rows["premise"], rows["hypothesis"]))
    out: list[dict[str, Any]] = []
    made: Counter = Counter()
    for p, h, label, group, source in zip(*(rows[c] for c in COLUMNS)):
        rng = random.Random(f"{seed}\0{p}\0{h}")
        order = list(edits)
        rng.shuffle(order)
        got = 0
        for edit in order:
            if got == per_pair:
                break
            pair = variant(edit, p, h, rng, by_format[source.split(":")[0]])
            if pair is None or pair in seen:
                continue
            seen.add(pair)
            out.append({"premise": pair[0], "hypothesis": pair[1], "label": label,
                        "group": f"{group}#variant", "source": source, "transform": edit})
            made[edit] += 1
            got += 1
    return out, made


def write_variants(dataset: str | Path, out: str | Path, per_pair: int = 2, seed: int = 0,
                   split: str = "train", edits: Sequence[str] = EDITS) -> dict[str, Any]:
    """The variants of ``dataset``'s ``split`` (a pairs ``DatasetDict`` folder, or a build folder
    holding one in ``dataset/``) saved as a ``data.built`` set: ``OUT/dataset`` (its train split)
    and ``OUT/manifest.json`` (input, settings, counts per edit), both written atomically;
    returns the manifest."""
    import datasets

    from citetrain.io.writers import atomic_write_text, save_atomically

    path = built_dataset_path(dataset)
    if path is None:
        raise CitetrainError(f"{dataset}: no pairs dataset (dataset_dict.json) there or in "
                             f"{Path(dataset) / 'dataset'}")
    dd = datasets.load_from_disk(str(path))
    if split not in dd:
        raise CitetrainError(f"{path}: no {split!r} split (has {', '.join(dd)})")
    lacking = [c for c in COLUMNS if c not in dd[split].column_names]
    if lacking:
        raise CitetrainError(f"{path}: split {split} lacks the column(s) {', '.join(lacking)}")
    rows, made = pair_variants(dd[split].select_columns(list(COLUMNS)).to_dict(), per_pair, seed,
                               edits)
    if not rows:
        raise CitetrainError(f"{path}: no edit applies to any pair of split {split}")
    out = Path(out)
    save_atomically(datasets.DatasetDict({"train": datasets.Dataset.from_list(rows)}),
                    out / "dataset")
    manifest = {"kind": "variants", "input": str(dataset), "split": split, "per_pair": per_pair,
                "seed": seed, "edits": list(edits), "pairs": {"input": len(dd[split]),
                                                              "train": len(rows)},
                "by_transform": {"train": dict(sorted(made.items()))}}
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    return manifest
