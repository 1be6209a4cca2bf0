"""Supervised fine-tuning (trl's ``SFTTrainer``, loss on the completion only)."""
from __future__ import annotations

from typing import Any

from citetrain.errors import CitetrainError
from citetrain.train import components as S
from citetrain.train.recipe_schema import Recipe


def check_completion_mask(dataset: Any, eos_id: int, n: int = 32) -> None:
    """Every checked example trains on some tokens, and its last trained token is EOS."""
    for i in range(min(n, len(dataset))):
        labels = [t for t in dataset[i]["labels"] if t != -100]
        if not labels:
            raise CitetrainError(f"training example {i}: the completion mask is empty (the "
                                 "prompt fills data.max_length?)")
        if labels[-1] != eos_id:
            raise CitetrainError(f"training example {i}: the end-of-sequence token is not inside "
                                 "the completion mask (completion cut by data.max_length?)")


def train_sft(recipe: Recipe, extra_callbacks: tuple[Any, ...] = ()) -> dict[str, Any]:
    """Supervised fine-tuning (trl's ``SFTTrainer``, loss on the completion only)."""
    from trl import SFTTrainer

    from citetrain.train.session import prepare, train_and_save

    s = prepare(recipe, extra_callbacks)
    args = S.sft_config(recipe, s.eval_small is not None)
    trainer = SFTTrainer(model=s.model, args=args, train_dataset=s.train_set,
                         eval_dataset=s.eval_small, processing_class=s.tokenizer,
                         peft_config=S.peft_config(recipe), callbacks=s.callbacks)
    check_completion_mask(trainer.train_dataset, s.tokenizer.eos_token_id)
    return train_and_save(s, trainer)
