"""One refiner interface: every refiner citetrain trains, chosen from the checkpoint's own config.

* a causal LM (a LoRA adapter folder, or a full / merged model whose ``config.json`` names a
  ``*ForCausalLM`` architecture): the Generate-then-Refine refiner of
  :mod:`citetrain.refine.generative`, one prompt per statement;
* a sequence classifier (``*ForSequenceClassification``) whose labels read as support
  (``supported`` / ``entailment``, e.g. the quickstart's refiner and ``kind: crossencoder``
  judges), or any ``classifier:PATH_OR_HUB_ID``: the pair refiner of :mod:`citetrain.refine.pairs`;
* with ``joint`` (:class:`~citetrain.refine.joint.JointOptions`), a pair refiner cites the set of
  passages that supports each statement together (:mod:`citetrain.refine.joint`), named
  ``NAME+joint``;
* no checkpoint, by name (:data:`NAMED`): ``baseline:trivial`` and ``baseline:cover``, the
  word-overlap refiners of :mod:`citetrain.refine.baselines`, ``baseline:spans``, the quote cover
  of :mod:`citetrain.refine.spans` (which keeps the given ids where they cover as well), and
  ``lexical``, the pair refiner over the lexical NLI's P (content-word recall);
* ``ranker:FILE``: the evidence ranker of :mod:`citetrain.refine.evidence` fitted by
  ``citetrain fit-ranker``.

Anything else is refused with one line (:class:`~citetrain.errors.CitetrainError`) before any
work is done.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

from citetrain.errors import CitetrainError
from citetrain.records import Record
from citetrain.refine.joint import JointOptions

Kind = Literal["generative", "pair"]
RefinerKind = Literal["generative", "pair", "baseline", "ranker"]
#: refiners named without a checkpoint: name -> kind
NAMED: dict[str, RefinerKind] = {"baseline:trivial": "baseline", "baseline:cover": "baseline",
                                 "baseline:spans": "baseline", "lexical": "pair"}
RANKER_PREFIX = "ranker:"
RefineFn = Callable[[Sequence[Record], dict[str, int]], tuple[list[Record], dict[str, int]]]


@dataclass
class Refiner:
    """A loaded refiner: ``refine(records, counts)`` returns refined copies and the counts of
    :func:`~citetrain.refine.generative.apply_refiner_outputs` (accumulated in ``counts``)."""

    kind: RefinerKind
    name: str
    refine: RefineFn


def _json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CitetrainError(f"--refiner: {path}: unreadable ({exc})") from None


def refiner_kind(path: str) -> Kind:
    """``generative`` or ``pair`` for a checkpoint, read from its config; a clear error
    otherwise."""
    if path.startswith("classifier:"):
        return "pair"
    from citetrain.io.writers import restore_old_dir

    folder = Path(path)
    restore_old_dir(folder.resolve())  # a save killed between its two renames
    if not folder.is_dir():
        raise CitetrainError(f"--refiner: {folder} is not a folder (a refiner checkpoint, or "
                             "classifier:HUB_ID)")
    if (folder / "adapter_config.json").is_file():
        task = _json(folder / "adapter_config.json").get("task_type") or "CAUSAL_LM"
        if task == "CAUSAL_LM":
            return "generative"
        raise CitetrainError(f"--refiner: {folder} is a {task} adapter; a refiner adapter is a "
                             "CAUSAL_LM one (a classifier is saved merged)")
    if not (folder / "config.json").is_file():
        raise CitetrainError(f"--refiner: {folder} holds no config.json or adapter_config.json: "
                             "not a model checkpoint")
    config = _json(folder / "config.json")
    arch = config.get("architectures") or []
    if any(a.endswith("ForCausalLM") for a in arch):
        return "generative"
    if any(a.endswith("ForSequenceClassification") for a in arch):
        from citetrain.nli.classifier import label_indices

        try:
            label_indices({int(k): v for k, v in (config.get("id2label") or {}).items()})
        except CitetrainError as exc:
            raise CitetrainError(f"--refiner: {folder}: a classifier whose labels do not read as "
                                 f"support: {exc}") from None
        return "pair"
    raise CitetrainError(f"--refiner: {folder} is neither a causal-LM refiner nor a (passage, "
                         f"statement) support classifier (architectures: {arch or 'none'})")


def kind_of(path: str) -> RefinerKind:
    """The kind of the refiner ``load_refiner(path)`` loads, without loading it (a checkpoint's
    config is read)."""
    return NAMED.get(path) or ("ranker" if path.startswith(RANKER_PREFIX) else refiner_kind(path))


def load_refiner(path: str, *, max_new_tokens: int = 24, batch_size: int = 8,
                 max_length: int | None = None, max_words: int | None = None,
                 threshold: float = 0.5, max_ids: int | None = 3,
                 progress: bool = False, joint: JointOptions | None = None) -> Refiner:
    """The refiner at ``path`` (see the module docstring). Generation options apply to causal
    refiners, ``threshold`` / ``max_ids`` / ``joint`` to pair refiners (``lexical`` included)."""
    kind = kind_of(path)
    if joint is not None and kind != "pair":
        raise CitetrainError(f"--joint: {path} is a {kind} refiner; joint support is asked of "
                             "pair refiners (lexical, or a support classifier checkpoint)")
    if path in NAMED:
        return _named_refiner(path, threshold=threshold, max_ids=max_ids, joint=joint)
    if kind == "ranker":
        from citetrain.refine.evidence import EvidenceRanker, evidence_refine

        ranker = EvidenceRanker.load(path.removeprefix(RANKER_PREFIX))
        return Refiner("ranker", path, lambda records, counts: evidence_refine(records, ranker,
                                                                               counts))
    if kind == "generative":
        from citetrain.models.loading import load_causal_lm
        from citetrain.refine.generative import refine_records

        model, tokenizer = load_causal_lm(path, role="--refiner")

        def generative(records: Sequence[Record], counts: dict[str, int]):
            return refine_records(records, model, tokenizer, max_new_tokens=max_new_tokens,
                                  batch_size=batch_size, max_length=max_length,
                                  max_words=max_words, progress=progress, counts=counts)

        return Refiner("generative", path, generative)
    from citetrain.refine.pairs import classifier_support

    support = classifier_support(path.removeprefix("classifier:"), batch_size=max(batch_size, 32),
                                 progress=progress)

    return _pair_refiner(path, support, threshold, max_ids, joint)


JOINT_SUFFIX = "+joint"


def load_refiner_row(name: str, joint: JointOptions | None = None, **options: Any) -> Refiner:
    """:func:`load_refiner` of a benchmark row's name: ``NAME+joint`` is pair refiner ``NAME``
    asked jointly with ``joint`` (default :class:`JointOptions`), any other name as it is."""
    if name.endswith(JOINT_SUFFIX):
        return load_refiner(name.removesuffix(JOINT_SUFFIX), joint=joint or JointOptions(),
                            **options)
    return load_refiner(name, **options)


def _pair_refiner(name: str, support: Any, threshold: float, max_ids: int | None,
                  joint: JointOptions | None) -> Refiner:
    """The pair refiner over ``support``: one passage at a time, or jointly."""
    from citetrain.refine.joint import joint_refine
    from citetrain.refine.pairs import pair_refine

    if joint is not None:
        return Refiner("pair", f"{name}{JOINT_SUFFIX}",
                       lambda records, counts: joint_refine(records, support, joint, counts))
    return Refiner("pair", name, lambda records, counts: pair_refine(
        records, support, threshold=threshold, max_ids=max_ids, counts=counts))


def _baseline_refiners() -> dict[str, RefineFn]:
    """The refine function of every no-model baseline of :data:`NAMED`, by name."""
    from citetrain.refine.baselines import BASELINES, ChooseFn, baseline_refine
    from citetrain.refine.spans import SpanOptions, spans_refine

    def over(choose: ChooseFn) -> RefineFn:
        return lambda records, counts: baseline_refine(records, choose, counts)

    table = {f"baseline:{key}": over(choose) for key, choose in BASELINES.items()}
    table["baseline:spans"] = lambda records, counts: spans_refine(records, SpanOptions(), counts)
    return table


def _named_refiner(name: str, *, threshold: float, max_ids: int | None,
                   joint: JointOptions | None) -> Refiner:
    """A refiner of :data:`NAMED`: nothing to load."""
    if NAMED[name] == "baseline":
        return Refiner("baseline", name, _baseline_refiners()[name])
    from citetrain.nli.registry import make_engine

    engine = make_engine("lexical", cache=False, progress=False)
    return _pair_refiner(name, engine.score, threshold, max_ids, joint)
