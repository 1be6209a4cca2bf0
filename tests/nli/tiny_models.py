"""Tiny random-weight models for NLI tests, built offline (the tokenizer and T5 builders are
bench/_common.py's, which the benchmarks use too).

Tokenizers are trained locally with ``tokenizers`` on a small corpus; models are made from configs
and saved with ``save_pretrained`` so the backends load them exactly as they load real checkpoints.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from bench._common import CORPUS, build_t5, train_tokenizer  # noqa: F401  (the tests' models too)

NLI_LABELS = ("entailment", "neutral", "contradiction")


def build_bert_classifier(
    directory: str | Path,
    labels: Sequence[str] = NLI_LABELS,
    corpus: Sequence[str] = CORPUS,
    *,
    hidden: int = 32,
    num_layers: int = 2,
    num_heads: int = 4,
    seed: int = 0,
) -> Path:
    """Save a random BERT sequence classifier with ``id2label`` from ``labels`` to ``directory``."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    out = Path(directory)
    tokenizer = train_tokenizer(corpus, kind="wordlevel", style="bert")
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, num_hidden_layers=num_layers,
        num_attention_heads=num_heads, intermediate_size=2 * hidden, max_position_embeddings=128,
        pad_token_id=tokenizer.pad_token_id, num_labels=len(labels),
        id2label=dict(enumerate(labels)), label2id={lab: i for i, lab in enumerate(labels)},
    )
    torch.manual_seed(seed)
    model = BertForSequenceClassification(config)
    model.eval()
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    return out
