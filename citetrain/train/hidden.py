"""Layer-by-layer distillation: a student judge's layers learn to give its teacher's hidden states.

A student cut from its teacher (``model.layers`` / ``model.num_layers``, ``model.intermediate_size``)
learns the teacher's probabilities from ``data.teacher``; with ``data.teacher_model`` it also
learns, at every layer, what the teacher's corresponding layer gives (the hidden-state loss of
TinyBERT, Jiao et al. 2020, *TinyBERT: Distilling BERT for natural language understanding*, and of
Sun et al. 2019, *Patient knowledge distillation for BERT model compression*):

    L_hidden = (1/|M|) Σ_{(i, j) ∈ M} mean over unpadded tokens and units of (h_i − h'_j)²

``h_i`` the student's output of layer i, ``h'_j`` the teacher's of layer j, both read on the same
batch, the teacher frozen. The map ``M`` (:func:`layer_map`): when the teacher has as many layers
as the model the student was cut from (a student of its own teacher), each student layer is matched
to the teacher layer it was taken from; otherwise uniformly, layer i of S to layer ⌈(i+1)·T/S⌉
of T (TinyBERT's uniform strategy). The training loss is ``L + data.hidden_weight · L_hidden``.
Student and teacher must share a tokenizer and the hidden size (no projection is learnt).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError

TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "tokenizer_config.json")  # a saved tokenizer


def layer_map(kept: list[int], base_layers: int, teacher_layers: int) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of hidden-state indices (0 the embeddings, k the output of layer k) the
    student's layers are matched on: ``kept[i]`` is the base layer the student's layer i was taken
    from; see the module docstring for the rule."""
    if teacher_layers == base_layers:
        return [(i + 1, src + 1) for i, src in enumerate(kept)]
    s = len(kept)
    return [(i + 1, math.ceil((i + 1) * teacher_layers / s)) for i in range(s)]


def hidden_loss(student: tuple[Any, ...], teacher: tuple[Any, ...], mask: Any,
                pairs: list[tuple[int, int]]) -> Any:
    """``L_hidden`` (module docstring) of the hidden states ``student`` and ``teacher`` (each a
    tuple of (batch, tokens, hidden) tensors, embeddings first) over the tokens of ``mask``."""
    m = mask.unsqueeze(-1).float()
    count = m.sum() * student[0].shape[-1]
    total = sum(((student[i].float() - teacher[j].float()) ** 2 * m).sum() / count
                for i, j in pairs)
    return total / len(pairs)


class HiddenTeacher:
    """The frozen teacher of ``data.teacher_model`` and the layer map; :meth:`loss` reads a batch."""

    def __init__(self, model: Any, pairs: list[tuple[int, int]], weight: float) -> None:
        self.model, self.pairs, self.weight = model.eval().requires_grad_(False), pairs, weight

    def loss(self, student_hidden: tuple[Any, ...], inputs: dict[str, Any]) -> Any:
        """``data.hidden_weight · L_hidden`` of the student's hidden states on ``inputs``."""
        import torch

        device = student_hidden[0].device
        if next(self.model.parameters()).device != device:
            self.model.to(device)
        with torch.no_grad():
            teacher = self.model(**inputs, output_hidden_states=True).hidden_states
        return self.weight * hidden_loss(student_hidden, teacher, inputs["attention_mask"],
                                         self.pairs)


def load_hidden_teacher(path: str, student: Any, kept: list[int], base_layers: int,
                        weight: float, tokenizer: Any = None) -> HiddenTeacher:
    """The judge at ``path`` as the hidden-state teacher of ``student``, whose layers are the
    ``kept`` layers of a base of ``base_layers`` (:func:`citetrain.train.students.source_layers`);
    a different hidden size, vocabulary size or (given the student's ``tokenizer``, and a
    tokenizer saved with the teacher) token ids is a clear error: the teacher reads the student's
    batches as they are."""
    from transformers import AutoModelForSequenceClassification

    teacher = AutoModelForSequenceClassification.from_pretrained(path)
    have, want = teacher.config, student.config
    for field in ("hidden_size", "vocab_size"):
        if getattr(have, field, None) != getattr(want, field, None):
            raise CitetrainError(f"data.teacher_model: {path} has {field} {getattr(have, field, None)}"
                                 f", the student {getattr(want, field, None)}: layer-by-layer "
                                 "distillation needs the same")
    if tokenizer is not None and any((Path(path) / f).is_file() for f in TOKENIZER_FILES):
        from transformers import AutoTokenizer

        ours, theirs = tokenizer.get_vocab(), AutoTokenizer.from_pretrained(path).get_vocab()
        differ = sum(theirs.get(tok) != i for tok, i in ours.items())
        if differ or len(ours) != len(theirs):
            raise CitetrainError(f"data.teacher_model: {path}'s tokenizer gives {differ} of the "
                                 f"student's {len(ours)} tokens another id (it has {len(theirs)}):"
                                 " layer-by-layer distillation needs the same tokenizer")
    pairs = layer_map(kept, base_layers, have.num_hidden_layers)
    print(f"[citetrain] data.teacher_model: student layers matched to {path}'s "
          + ", ".join(f"{i}->{j}" for i, j in pairs) + f", weight {weight:g}", flush=True)
    return HiddenTeacher(teacher, pairs, weight)
