"""The option values of ``citetrain eval`` that its code reads (its parser is
:mod:`citetrain.cli.eval_args`)."""
from __future__ import annotations

MODEL_KINDS = ("auto", "generator", "refiner", "judge")
SCORE_CHUNK = 1000  # records scored per saved chunk (citetrain.evaluation.stream)


MODEL_OPTIONS = {"model_kind": "kind", "max_new_tokens": "max_new_tokens",
                 "batch_size": "batch_size", "max_length": "max_length",
                 "max_doc_words": "max_doc_words", "chunk": "chunk", "backend": "backend"}
