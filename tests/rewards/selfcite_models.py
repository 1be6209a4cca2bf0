"""Tiny scoring models for the SelfCite tests, built offline: a random tiny Llama (exact values)
and a copy LM whose next-token logits count how often each token already appeared in the
sequence, so a statement is likelier when the passages holding its words are in the prompt."""
from __future__ import annotations

from types import SimpleNamespace

from citetrain.records import Doc

# passage 2 holds the statement's words ("Corin", "violet"); 1 and 3 are distractors
DOCS = [Doc(title="A", text="The harbour of Arlo is grey."),
        Doc(title="B", text="The castle of Corin is violet."),
        Doc(title="C", text="The market of Bexa is amber.")]
QUESTION = "What colour is the castle?"
STATEMENT = "The castle of Corin is violet."


def tokenizer(extra: tuple[str, ...] = ()):
    """A byte-level BPE tokenizer trained on the test's own text."""
    from citetrain.text.prompts import GENERATOR_INSTRUCTION
    from citetrain.models.tiny import train_tokenizer

    texts = [GENERATOR_INSTRUCTION, QUESTION, STATEMENT, *(d.text for d in DOCS), *extra]
    return train_tokenizer(texts * 3, 300)


def tiny_llama(tok, seed: int = 0):
    """A random one-layer Llama over ``tok``'s vocabulary, in eval mode."""
    import torch
    from transformers import AutoModelForCausalLM

    from citetrain.models.tiny import TinySpec, tiny_config

    torch.manual_seed(seed)
    spec = TinySpec(family="llama", hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                    num_attention_heads=4, num_key_value_heads=2, vocab_size=300)
    config = tiny_config(spec, tok)
    config.initializer_range = 0.5  # sharp enough that contexts change the log-probs visibly
    return AutoModelForCausalLM.from_config(config).eval()


def copy_lm(vocab_size: int, strength: float = 1.0):
    """A causal LM with no learned weights: p(x_{t+1} = v) ∝ (1 + #{s <= t: x_s = v})^strength,
    a smoothed unigram model of the sequence so far."""
    import torch

    class CopyLM(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.anchor = torch.nn.Parameter(torch.zeros(1))  # gives the module a device

        def forward(self, input_ids, attention_mask=None, **_):
            hot = torch.nn.functional.one_hot(input_ids, vocab_size).float()
            if attention_mask is not None:
                hot = hot * attention_mask[..., None]
            return SimpleNamespace(logits=strength * hot.cumsum(dim=1).log1p() + self.anchor)

    return CopyLM().eval()
