"""Tiny models built from a config, with a byte-level BPE tokenizer trained on the training text.

Nothing is downloaded: the model and tokenizer are saved to ``<output_dir>/base`` once (made by
the main process, seeded, so every process and every resumed run loads the same weights), and
from then on everything (training, reloading, merging) uses that folder like any other model path.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from citetrain.errors import CitetrainError
from citetrain.io.writers import atomic_dir

SPECIALS = ["<unk>", "<s>", "</s>", "<pad>"]

Family = Literal["llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "phi3"]
FAMILIES: tuple[str, ...] = Family.__args__
"""The decoder families ``model.tiny`` builds (each tested: tests/models/test_families.py)."""
CONFIGS = {"llama": "LlamaConfig", "mistral": "MistralConfig", "qwen2": "Qwen2Config",
           "qwen3": "Qwen3Config", "gemma": "GemmaConfig", "gemma2": "Gemma2Config",
           "phi3": "Phi3Config"}
"""The ``transformers`` config class of each family."""


class TinySpec(BaseModel):
    """A model built from a config (no download): ``family`` and sizes; its byte-level BPE
    tokenizer is trained on the training set's text (a recipe's ``model.tiny``)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    family: Family = "llama"
    """The architecture: a llama, mistral, qwen2, qwen3, gemma, gemma2 or phi3 decoder."""
    hidden_size: int = Field(default=64, ge=8)
    """Width of the hidden states."""
    intermediate_size: int = Field(default=128, ge=8)
    """Width of each feed-forward block."""
    num_hidden_layers: int = Field(default=2, ge=1)
    """Decoder layers."""
    num_attention_heads: int = Field(default=4, ge=1)
    """Attention heads per layer."""
    num_key_value_heads: int = Field(default=2, ge=1)
    """Key / value heads per layer (grouped-query attention)."""
    vocab_size: int = Field(default=2000, ge=300)
    """Size of the BPE vocabulary trained on the training set's text."""
    max_position_embeddings: int = Field(default=4096, ge=64)
    """Longest sequence the model takes."""
    seed: int = 0
    """Seed of the initial weights."""

    @field_validator("family", mode="before")
    @classmethod
    def _known_family(cls, value):
        if value not in FAMILIES:
            raise PydanticCustomError(
                "tiny_family", "unsupported family '{family}'; supported: {known}",
                {"family": value, "known": ", ".join(FAMILIES)})
        return value

    @model_validator(mode="after")
    def _heads_divide(self):
        for big, small in (("hidden_size", "num_attention_heads"),
                           ("num_attention_heads", "num_key_value_heads")):
            if getattr(self, big) % getattr(self, small):
                raise PydanticCustomError(
                    "tiny_heads", "{big} {a} is not a multiple of {small} {b}",
                    {"big": big, "a": getattr(self, big), "small": small,
                     "b": getattr(self, small)})
        return self


def train_tokenizer(texts: Iterable[str], vocab_size: int):
    """A byte-level BPE ``PreTrainedTokenizerFast`` trained on ``texts`` (bos <s>, eos </s>,
    pad <pad>)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>", unk_token="<unk>")


def _family_keys(spec: TinySpec) -> dict:
    """Config keys a family needs beyond the shared ones: the head width where its default is a
    full-size model's (128 or 256) rather than ``hidden_size / num_attention_heads``, Gemma 2's
    attention scale, and no sliding window (the tiny models are short)."""
    head = spec.hidden_size // spec.num_attention_heads
    return {"llama": {},
            "mistral": {"sliding_window": None},
            "qwen2": {},
            "qwen3": {"head_dim": head},
            "gemma": {"head_dim": head},
            "gemma2": {"head_dim": head, "query_pre_attn_scalar": head},
            "phi3": {}}[spec.family]


def tiny_config(spec: TinySpec, tokenizer):
    """A config of the spec's family and sizes for ``tokenizer``'s vocabulary (untied
    embeddings, so ``lm_head`` can be trained on its own)."""
    import transformers

    cls = getattr(transformers, CONFIGS[spec.family], None)
    if cls is None:
        raise CitetrainError(f"model.tiny: family {spec.family!r} needs transformers' "
                             f"{CONFIGS[spec.family]}, which transformers "
                             f"{transformers.__version__} lacks")
    return cls(vocab_size=len(tokenizer), hidden_size=spec.hidden_size,
               intermediate_size=spec.intermediate_size, num_hidden_layers=spec.num_hidden_layers,
               num_attention_heads=spec.num_attention_heads,
               num_key_value_heads=spec.num_key_value_heads,
               max_position_embeddings=spec.max_position_embeddings,
               bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
               pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=False,
               **_family_keys(spec))


def make_tiny_base(spec: TinySpec, texts: Iterable[str], target: str | Path) -> Path:
    """Build, seed and save a tiny model and its tokenizer to ``target`` (kept if present)."""
    import torch
    from transformers import AutoModelForCausalLM

    target = Path(target)
    if (target / "config.json").is_file():
        return target
    tokenizer = train_tokenizer(texts, spec.vocab_size)
    config = tiny_config(spec, tokenizer)
    torch.manual_seed(spec.seed)
    try:
        model = AutoModelForCausalLM.from_config(config)
    except (ValueError, TypeError, RuntimeError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CitetrainError(f"model.tiny: cannot build a tiny {spec.family} model: {why}") from None
    with atomic_dir(target) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
    return target
