"""Batched greedy generation with left padding and a cap on new tokens (training-loop scoring
and ``citetrain refine`` share it)."""
from __future__ import annotations

from typing import Any, Sequence

from tqdm.auto import tqdm


def generate_texts(model: Any, tokenizer: Any, prompts: Sequence[str], *, max_new_tokens: int = 32,
                   batch_size: int = 8, max_length: int | None = None, synced_gpus: bool = False,
                   n_batches: int | None = None, progress: bool = False,
                   temperature: float | None = None) -> list[str]:
    """Greedy continuations of ``prompts`` (special tokens removed), in order; sampled at
    ``temperature`` when one is given (seed torch first for repeatable samples).

    Prompts are cut from the left to ``max_length - max_new_tokens`` tokens. ``n_batches`` pads
    the work with repeats of the last batch so that every process runs as many forward passes
    (needed under DeepSpeed ZeRO-3, where generation is collective); padded outputs are dropped.
    """
    import torch

    side, trunc = tokenizer.padding_side, tokenizer.truncation_side
    tokenizer.padding_side, tokenizer.truncation_side = "left", "left"
    limit = None if max_length is None else max(8, max_length - max_new_tokens)
    batches = [list(prompts[i:i + batch_size]) for i in range(0, len(prompts), batch_size)]
    real = len(batches)
    while n_batches is not None and len(batches) < n_batches:
        batches.append(batches[-1] if batches else [tokenizer.eos_token or ""])
    was_training = model.training
    model.eval()
    out: list[str] = []
    try:
        for k, batch in enumerate(tqdm(batches, desc="generate", unit="batch", disable=not progress)):
            enc = tokenizer(batch, return_tensors="pt", padding=True, truncation=limit is not None,
                            max_length=limit, add_special_tokens=True)
            enc = {key: v.to(model.device) for key, v in enc.items() if key != "token_type_ids"}
            with torch.no_grad():
                sampling = ({"do_sample": True, "temperature": temperature, "top_k": 0}
                            if temperature else {"do_sample": False})
                ids = model.generate(**enc, max_new_tokens=max_new_tokens, **sampling,
                                     pad_token_id=tokenizer.pad_token_id,
                                     eos_token_id=tokenizer.eos_token_id, synced_gpus=synced_gpus)
            if k < real:
                new = ids[:, enc["input_ids"].shape[1]:]
                out.extend(tokenizer.batch_decode(new, skip_special_tokens=True))
    finally:
        tokenizer.padding_side, tokenizer.truncation_side = side, trunc
        if was_training:
            model.train()
    return out
