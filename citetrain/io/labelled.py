"""Human-labelled (premise, hypothesis) pairs for meta-evaluating metrics and judges
(docs/concepts/records.md).

Labels are support levels: 2 full, 1 partial, 0 none. Sources:

- WiCE (Kamoi et al. 2023) ``entailment_retrieval_claim``: premise = the cited page's sentences
  joined by ``" "``; ``supported`` 2 / ``partially_supported`` 1 / ``not_supported`` 0;
  group = the claim id (``meta.id``).
- WiCE ``oracle_chunks_claim``: the same with the premise = one oracle chunk's sentences; about
  three rows (chunks) per claim, all in the claim's group (take the max over a group, as the
  WiCE authors do); id = ``"{claim id}#{line}"``.
- AttributionBench (Li et al. 2024): premise = ``references`` joined by ``"\\n"``, hypothesis =
  ``claim``; ``attributable`` 2 / ``not attributable`` 0; group = id; ``src_dataset`` and
  ``question`` in ``meta``.
- ExpertQA (Malaviya et al. 2024) claims: premise = the claim's unique evidence passages joined
  by ``"\\n"``, hypothesis = ``claim_string``; ``Complete`` 2 / ``Partial`` 1 / ``Incomplete`` and
  ``Missing`` 0; id = group = ``"{record id}:{sha1(claim)[:10]}"``, the answer's record id
  (:func:`~citetrain.io.formats.expertqa_id`) and system in ``meta``; deduplicated by
  (question, system, claim).
- LLM-AggreFact (Tang et al. 2024, ``lytang/LLM-AggreFact``): rows of ``dataset``, ``doc``
  (premise), ``claim`` (hypothesis) and ``label`` (1 supported -> 2, 0 -> 0), in JSONL, JSON, CSV
  or Parquet (:func:`read_aggrefact`, which keeps every row, as the benchmark counts them);
  ``dataset`` and ``split`` (when a row has one) in ``meta``.

Always left out and counted (never silently): ``N/A`` or absent support labels, and pairs whose
premise is empty (ExpertQA's ``Missing`` claims cite nothing, and some evidence entries carry
only a url: an NLI model cannot be judged on text it is not given). Malformed rows follow the
record readers' rules (:mod:`citetrain.io.readers`).
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from citetrain.io.formats import RecordError, expertqa_id
from citetrain.io.formats._common import check_type, optional, require
from citetrain.io.formats.expertqa import claim_passages
from citetrain.errors import CitetrainError
from citetrain.io.readers import (PathLike, Problems, Skip, check_object, load_items,
                                  require_file, resolve_format, summarize_skips)

FULL, PARTIAL, NONE = 2, 1, 0


@dataclass(frozen=True)
class LabelledPair:
    """A human-judged (premise, hypothesis) pair; ``label`` 2 full / 1 partial / 0 no support.

    ``group`` names the claim judged: pairs of one group are alternative premises for the same
    hypothesis and label (WiCE's oracle chunks), so a score per claim is the max over its group.
    """

    premise: str
    hypothesis: str
    label: int
    group: str
    id: str
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


class Omit(NamedTuple):
    """A candidate pair left out on purpose (not an input error); always counted."""

    field: str | None
    reason: str
    detail: str = ""
    id: str | None = None  # the pair it stands for, so that duplicates are not counted twice


Row = LabelledPair | Omit


def _label(value: Any, mapping: dict[str, int], field_name: str) -> int:
    if not isinstance(value, str) or value not in mapping:
        raise RecordError(field_name, f"unknown label in '{field_name}'",
                          f"unknown label {value!r}; expected one of {', '.join(mapping)}")
    return mapping[value]


def _pair(premise: str, hypothesis: str, label: int, group: str, pid: str,
          **meta: Any) -> Row:
    if not premise.strip():
        return Omit(None, "empty premise", f"pair {pid} has no evidence text", pid)
    return LabelledPair(premise, hypothesis, label, group, pid, meta)


_WICE = {"supported": FULL, "partially_supported": PARTIAL, "not_supported": NONE}


def _wice_common(item: dict[str, Any], line: int) -> tuple[str, str, int, str]:
    claim = require(item, "claim")
    label = _label(require(item, "label"), _WICE, "label")
    evidence = require(item, "evidence", list)
    sentences = [check_type(s, str, f"evidence[{i}]") for i, s in enumerate(evidence)]
    meta = optional(item, "meta", dict, {})
    group = str(meta.get("id", line))
    return " ".join(sentences), claim, label, group


def convert_wice(item: dict[str, Any], line: int) -> list[Row]:
    """WiCE claim-level entailment/retrieval row -> one pair (id = group = claim id)."""
    premise, claim, label, group = _wice_common(item, line)
    return [_pair(premise, claim, label, group, group)]


def convert_wice_oracle(item: dict[str, Any], line: int) -> list[Row]:
    """WiCE oracle-chunk row -> one pair (group = claim id, id = ``"{claim id}#{line}"``)."""
    premise, claim, label, group = _wice_common(item, line)
    return [_pair(premise, claim, label, group, f"{group}#{line}")]


_ATTRIBUTION = {"attributable": FULL, "not attributable": NONE}


def convert_attributionbench(item: dict[str, Any], line: int) -> list[Row]:
    """AttributionBench row -> one pair (group = id = the row's ``id``)."""
    claim = require(item, "claim")
    label = _label(require(item, "attribution_label"), _ATTRIBUTION, "attribution_label")
    refs = [check_type(r, str, f"references[{i}]")
            for i, r in enumerate(require(item, "references", list))]
    pid = str(item.get("id", line))
    return [_pair("\n".join(refs), claim, label, pid, pid,
                  src_dataset=item.get("src_dataset"), question=item.get("question"))]


_EXPERTQA = {"Complete": FULL, "Partial": PARTIAL, "Incomplete": NONE, "Missing": NONE}


def convert_expertqa_claims(item: dict[str, Any], line: int) -> list[Row]:
    """ExpertQA line -> one pair per claim of every system's answer (``N/A`` support omitted)."""
    question = require(item, "question")
    rows: list[Row] = []
    for system, ans in require(item, "answers", dict).items():
        where = f"answers.{system}"
        check_type(ans, dict, where)
        group = expertqa_id(question, system)
        for i, claim in enumerate(optional(ans, "claims", list, [], prefix=f"{where}.")):
            cf = f"{where}.claims[{i}]"
            check_type(claim, dict, cf)
            text = require(claim, "claim_string", prefix=f"{cf}.")
            pid = f"{group}:{hashlib.sha1(text.encode('utf-8')).hexdigest()[:10]}"
            support = claim.get("support")
            if support is None or support == "N/A":
                rows.append(Omit(f"{cf}.support", f"support {support or 'absent'}",
                                 f"claim {i} of {group} has support {support!r}", pid))
                continue
            label = _label(support, _EXPERTQA, f"{cf}.support")
            passages: list[str] = []
            for _, _, passage in claim_passages(claim, cf):
                if passage and passage not in passages:
                    passages.append(passage)
            rows.append(_pair("\n".join(passages), text, label, pid, pid, record=group,
                              system=system))
    return rows


AGGREFACT_COLUMNS = ("dataset", "doc", "claim", "label")


def _aggrefact_label(value: Any) -> int:
    """LLM-AggreFact's ``label``: 1 supported, 0 not (also ``"1"`` / ``"0"`` from a CSV, and
    1.0 / 0.0 or booleans from a data frame export)."""
    if isinstance(value, str):
        value = value.strip()
    if value in (1, "1", "1.0", True):
        return FULL
    if value in (0, "0", "0.0", False):
        return NONE
    raise RecordError("label", "unknown label in 'label'",
                      f"unknown label {value!r}; expected 1 (supported) or 0 (unsupported)")


def convert_aggrefact(item: dict[str, Any], line: int) -> list[Row]:
    """LLM-AggreFact row -> one pair (premise = ``doc``, hypothesis = ``claim``, label 1 -> 2,
    0 -> 0; id = group = a hash of dataset, doc and claim; ``dataset`` and ``split`` in meta)."""
    dataset = require(item, "dataset")
    if not dataset.strip():
        raise RecordError("dataset", "empty 'dataset'", "must name the row's dataset, got ''")
    doc = require(item, "doc")
    claim = require(item, "claim")
    if "label" not in item or item["label"] is None:
        raise RecordError("label", "missing field 'label'", "required field is missing")
    label = _aggrefact_label(item["label"])
    split = optional(item, "split", str, None)
    digest = hashlib.sha1("\0".join((dataset, doc, claim)).encode("utf-8")).hexdigest()
    pid = f"aggrefact:{digest[:12]}"
    meta = {"dataset": dataset, **({"split": split.strip().lower()} if split else {})}
    return [LabelledPair(doc, claim, label, pid, pid, meta)]


LABELLED_CONVERTERS: dict[str, Callable[[dict[str, Any], int], list[Row]]] = {
    "wice": convert_wice,
    "wice_oracle": convert_wice_oracle,
    "attributionbench": convert_attributionbench,
    "expertqa": convert_expertqa_claims,
    "aggrefact": convert_aggrefact,
}

# Sources that derive training pairs rather than carry human labels, by the name a
# ``crossencoder.labelled`` entry gives them (``FORMAT:PATH``); their readers live with the judge's
# training (``citetrain.judge_training.pairs``), which checks it reads exactly these.
DERIVED_FORMATS = ("wice_tokens", "synth", "refiner", "gold", "wice_evidence")

# The transformations a pairs build applies to a reference sentence, with the support level of
# the statement each one makes (citetrain.builders.transforms holds them; recipes name them in
# crossencoder.built_exclude).
TRANSFORM_LEVELS = {
    "copy": 2, "drop_modifiers": 2, "merge": 2, "reorder": 2, "pronoun": 2,
    "swap_entity": 0, "negate": 0, "swap_roles": 0, "other_passage": 0, "unrelated": 0,
    "add_fact": 1, "alter_one": 1,
}


def source_formats() -> set[str]:
    """The ``FORMAT`` names a ``crossencoder.labelled`` entry may start with."""
    return {*LABELLED_CONVERTERS, *DERIVED_FORMATS}


def detect_labelled_format(item: dict[str, Any]) -> str | None:
    """The labelled format an item's keys identify, or ``None``."""
    if "attribution_label" in item and "claim" in item:
        return "attributionbench"
    if "answers" in item and "question" in item:
        return "expertqa"
    if set(AGGREFACT_COLUMNS) <= item.keys():
        return "aggrefact"
    if {"claim", "label", "evidence"} <= item.keys():
        meta = item.get("meta")
        return "wice_oracle" if isinstance(meta, dict) and "chunk_idx" in meta else "wice"
    return None


def split_key(pair: Any) -> str:
    """What a train / validation split of labelled pairs hashes (with
    :func:`citetrain.builders.sets.split_of`): the pair's statement (or the claim it was derived
    from, a ``split_text`` in its meta), lower-cased, spaces collapsed."""
    return text_key((getattr(pair, "meta", None) or {}).get("split_text") or pair.hypothesis)


def text_key(text: str) -> str:
    """``text`` lower-cased with its spaces collapsed: the key :func:`split_key` hashes."""
    return " ".join(text.lower().split())


class LabelledSet(list[LabelledPair]):
    """The pairs read (a list), with what was left out: ``skipped``, ``duplicates``, ``format``."""

    def __init__(self, pairs: Iterable[LabelledPair] = (), skipped: list[Skip] | None = None,
                 format: str = "", duplicates: int = 0) -> None:
        super().__init__(pairs)
        self.skipped = skipped or []
        self.format = format
        self.duplicates = duplicates

    def summary(self) -> str:
        """E.g. ``"2000 labelled pairs (expertqa); skipped 700 of 2700 candidate pairs: ..."``."""
        total = len(self) + len(self.skipped)
        text = f"{len(self)} labelled pairs ({self.format}); "
        text += summarize_skips(self.skipped, total, "candidate pairs")
        if self.duplicates:
            text += f"; dropped {self.duplicates} duplicate pairs"
        return text


def read_labelled(path: PathLike | Iterable[PathLike], fmt: str = "auto", *,
                  skip_invalid: bool = False) -> LabelledSet:
    """Read human-labelled pairs from one file or several (deduplicated by pair id, first kept).

    ``fmt``: ``"auto"`` (from the first object's keys), ``"wice"``, ``"wice_oracle"``,
    ``"attributionbench"``, ``"expertqa"`` or ``"aggrefact"`` (JSON here, deduplicated like the
    rest; :func:`read_aggrefact` reads every row, and CSV and Parquet too). Bad rows raise
    :class:`InputError` (file, line, field) or, with ``skip_invalid``, are skipped and counted.
    """
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    seen: dict[str, LabelledPair] = {}
    omitted: set[str] = set()
    skipped: list[Skip] = []
    formats: list[str] = []
    duplicates = 0
    for p in paths:
        problems = Problems(str(p), skip_invalid)
        items = load_items(p, problems)
        name = resolve_format(fmt, items, problems, LABELLED_CONVERTERS, detect_labelled_format)
        if name not in formats:
            formats.append(name)
        for line, item in items:
            if not check_object(line, item, problems):
                continue
            try:
                rows = LABELLED_CONVERTERS[name](item, line)
            except RecordError as err:
                problems.record_error(line, err)
                continue
            for row in rows:
                if row.id is not None and (row.id in seen or row.id in omitted):
                    duplicates += 1
                elif isinstance(row, Omit):
                    problems.skipped.append(Skip(str(p), line, row.field, row.reason, row.detail))
                    if row.id is not None:
                        omitted.add(row.id)
                else:
                    seen[row.id] = row
        skipped += problems.skipped
    return LabelledSet(seen.values(), skipped, "+".join(formats), duplicates)


def _aggrefact_items(path: PathLike, problems: Problems) -> tuple[list[tuple[int, Any]], str]:
    """The rows of an LLM-AggreFact file as ``(line, object)`` and what ``line`` counts: the
    line a CSV row starts on, the 1-based row of a Parquet file, a JSONL line or JSON item."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in (".csv", ".tsv"):
        import csv

        p = require_file(p)
        # a grounding document may exceed the csv module's 128 KiB field limit
        limit = csv.field_size_limit(2**31 - 1)
        try:
            with p.open(encoding="utf-8-sig", newline="") as f:
                reader = csv.DictReader(f, delimiter="\t" if suffix == ".tsv" else ",")
                items: list[tuple[int, Any]] = []
                start = 2  # the header is line 1
                try:
                    for row in reader:
                        items.append((start, row))
                        start = reader.line_num + 1
                except (csv.Error, UnicodeDecodeError) as err:
                    problems.fail(start, None, f"unreadable CSV: {err}")
        finally:
            csv.field_size_limit(limit)
        missing = [c for c in AGGREFACT_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            problems.fail(1, missing[0], f"the header lacks LLM-AggreFact's column "
                          f"'{missing[0]}' (columns: {', '.join(AGGREFACT_COLUMNS)})")
        if not items:
            problems.fail(None, None, "empty file: no rows")
        return items, "line"
    if suffix == ".parquet":
        p = require_file(p)
        try:
            import pyarrow.parquet as pq

            rows = pq.read_table(p).to_pylist()
        except ImportError:
            raise CitetrainError("reading Parquet needs pyarrow: pip install pyarrow") from None
        except Exception as err:  # pyarrow's errors: not a Parquet file, truncated, ...
            problems.fail(None, None, f"unreadable Parquet file: {err}")
        if not rows:
            problems.fail(None, None, "empty file: no rows")
        return [(i + 1, row) for i, row in enumerate(rows)], "row"
    return load_items(path, problems), "line"


def aggrefact_columns(path: PathLike) -> bool:
    """Whether a file's columns (CSV header, Parquet schema, first JSON object) are
    LLM-AggreFact's ``dataset``, ``doc``, ``claim`` and ``label``."""
    p = require_file(path)
    suffix = p.suffix.lower()
    if suffix in (".csv", ".tsv"):
        import csv

        with p.open(encoding="utf-8-sig", newline="") as f:
            header = next(csv.reader(f, delimiter="\t" if suffix == ".tsv" else ","), [])
        return set(AGGREFACT_COLUMNS) <= set(header)
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            return set(AGGREFACT_COLUMNS) <= set(pq.read_schema(p).names)
        except Exception:
            return False
    if suffix in (".jsonl", ".ndjson"):  # the first object line is enough
        import json

        with p.open("rb") as f:
            for raw in f:
                if raw.strip():
                    try:
                        first = json.loads(raw.decode("utf-8-sig"))
                    except ValueError:
                        return False
                    return isinstance(first, dict) and detect_labelled_format(first) == "aggrefact"
        return False
    try:
        items = load_items(p, Problems(str(p), skip_invalid=True))
    except CitetrainError:
        return False
    first = next((it for _, it in items if isinstance(it, dict)), None)
    return first is not None and detect_labelled_format(first) == "aggrefact"


def read_aggrefact(path: PathLike | Iterable[PathLike], *,
                   skip_invalid: bool = False) -> LabelledSet:
    """Every row of LLM-AggreFact files (JSONL, JSON, CSV or Parquet; several are read one
    after another), as pairs of :func:`convert_aggrefact`, in file order and not deduplicated:
    the benchmark counts each row. A bad row raises :class:`InputError` naming the file, the
    line (a Parquet file: the row) and the field, or with ``skip_invalid`` is skipped and counted.
    """
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    pairs: list[LabelledPair] = []
    skipped: list[Skip] = []
    for p in paths:
        problems = Problems(str(p), skip_invalid)
        items, unit = _aggrefact_items(p, problems)
        for line, item in items:
            if not check_object(line, item, problems):
                continue
            try:
                pairs += convert_aggrefact(item, line)  # type: ignore[arg-type]
            except RecordError as err:
                message = err.message + (f" (row {line} of the Parquet file)"
                                         if unit == "row" else "")
                problems.report(line, err.field, err.reason, message)
        skipped += problems.skipped
    return LabelledSet(pairs, skipped, "aggrefact")
