"""Refine citations with a (passage, statement) support classifier: the pair refiner.

A pair refiner asks, for every statement of a response and every passage of its record, the
probability that the passage supports the statement (``P(supported)`` of a classifier trained with
a ``kind: crossencoder`` recipe, e.g. ``recipes/quickstart.yaml``), and cites the passages with
``P >= threshold``, the most probable first, at most ``max_ids`` of them (ALCE reads 3). It is the
task of the Generate-then-Refine refiner (§4.1: the statement, its documents, the ids it should
cite) asked one passage at a time, which a small pretrained encoder learns in a minute on a CPU
where a causal LM built from a config does not (recipes/quickstart.yaml's header).

The text is handled as :mod:`citetrain.refine.generative` does: marks are replaced statement by statement
and the text outside the marks is byte-identical.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from citetrain.builders.refiner_pairs import record_pairs, statement_texts
from citetrain.nli.base import Pair
from citetrain.records import Record
from citetrain.refine.generative import apply_refiner_outputs
from citetrain.text.prompts import render_ids

SupportFn = Callable[[Sequence[Pair]], list[float]]


def choose_ids(probs: dict[int, float], threshold: float, max_ids: int | None) -> list[int]:
    """Passage ids with ``P >= threshold``, most probable first (ties: lower id), at most
    ``max_ids``; returned in increasing id order."""
    keep = sorted((i for i, p in probs.items() if p >= threshold), key=lambda i: (-probs[i], i))
    return sorted(keep[:max_ids] if max_ids is not None else keep)


def pair_refine(records: Sequence[Record], support: SupportFn, *, threshold: float = 0.5,
                max_ids: int | None = 3, counts: dict[str, int] | None = None
                ) -> tuple[list[Record], dict[str, int]]:
    """Refined copies of ``records`` and counts (those of
    :func:`citetrain.refine.generative.apply_refiner_outputs`); ``support`` maps pairs to P(supported)."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], not {threshold}")
    texts = [statement_texts(r) for r in records]  # each output split into statements once
    per_record = [record_pairs(r, t) for r, t in zip(records, texts)]
    flat = [pair for rows in per_record for _, _, pair in rows]
    probs = iter(support(flat)) if flat else iter(())
    outputs = []
    for rec_texts, rows in zip(texts, per_record):
        by_statement: list[dict[int, float]] = [{} for _ in rec_texts]
        for k, i, _ in rows:
            by_statement[k][i] = float(next(probs))
        outputs.append([render_ids(choose_ids(p, threshold, max_ids)) for p in by_statement])
    return apply_refiner_outputs(records, outputs, counts)


def model_support(model: Any, tokenizer: Any, *, max_length: int = 256, batch_size: int = 32
                  ) -> SupportFn:
    """P(supported) of an in-memory sequence classifier for pairs, read as the ``kind:
    crossencoder`` training and the ``classifier:`` backend read them
    (:func:`~citetrain.nli.premises.read_pairs`: hint and premise selection from the model's
    config, then ``(passage, statement)`` with the passage cut first; the supporting label found
    by name). Used in the training loop; a saved model is read through the ``classifier:`` NLI
    backend (:func:`classifier_support`)."""
    import torch

    from citetrain.nli.classifier import encode_pairs, label_indices
    from citetrain.nli.premises import read_pairs

    label = label_indices(model.config.id2label)["entailment"]
    premise = getattr(model.config, "citetrain_premise", None)
    hint = getattr(model.config, "citetrain_hint", None)

    def support(pairs: Sequence[Pair]) -> list[float]:
        was_training = model.training
        model.eval()
        device = next(model.parameters()).device
        out: list[float] = []
        with torch.inference_mode():
            for s in range(0, len(pairs), batch_size):
                premises, hyps = read_pairs(pairs[s:s + batch_size], tokenizer, max_length,
                                            premise, hint)
                rows, _ = encode_pairs(tokenizer, premises, hyps, max_length)
                enc = tokenizer.pad(rows, padding=True, return_tensors="pt").to(device)
                logits = model(**enc).logits.float()
                out += torch.softmax(logits, dim=-1)[:, label].tolist()
        if was_training:
            model.train()
        return out

    return support


def classifier_support(path: str, *, batch_size: int = 32, progress: bool = False) -> SupportFn:
    """P(supported) of a saved classifier through the ``classifier:`` NLI engine (batched,
    length-sorted; the same numbers ``--nli classifier:PATH`` gives the metrics)."""
    from citetrain.nli.registry import make_engine

    engine = make_engine(f"classifier:{path}", cache=False, batch_size=batch_size,
                         progress=progress)
    return lambda pairs: engine.score(list(pairs))
