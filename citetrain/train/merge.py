"""Merge a LoRA adapter into its base model and check that the merge changed nothing.

The base is loaded in full precision, so a QLoRA adapter is merged into dequantised weights; the
merged model's logits must match the adapter-wrapped model's on sample text."""
from __future__ import annotations

import json
from pathlib import Path

from citetrain.errors import CitetrainError

SAMPLE = ["Question: Who founded the town?\nDocument [1](Title: A): The town was founded in 1820.",
          "Statement: The river is long [2].\nCitations:"]


def merge_adapter(adapter: str | Path, out: str | Path, base: str | None = None,
                  atol: float = 1e-3) -> dict[str, float | str]:
    """Merge ``adapter`` into ``base`` (default: the adapter's recorded base model), save to
    ``out`` with the tokenizer, and return the largest logit difference found."""
    adapter, out = Path(adapter), Path(out)
    cfg_path = adapter / "adapter_config.json"
    if not cfg_path.is_file():
        raise CitetrainError(f"{adapter}: not an adapter folder (no adapter_config.json)")
    if out.exists():
        raise CitetrainError(f"{out} exists: choose a new folder")
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from citetrain.io.writers import atomic_dir

    base = base or json.loads(cfg_path.read_text())["base_model_name_or_path"]
    tok_src = adapter if (adapter / "tokenizer_config.json").is_file() else base
    tokenizer = AutoTokenizer.from_pretrained(str(tok_src))
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
    model = PeftModel.from_pretrained(model, str(adapter)).eval()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    enc = tokenizer(SAMPLE, return_tensors="pt", padding=True)
    with torch.no_grad():
        before = model(**enc).logits
        merged = model.merge_and_unload()
        after = merged(**enc).logits
    diff = float((before - after).abs().max())
    if diff > atol:
        raise CitetrainError(f"merged logits differ from the adapter's by {diff:.2e} (> {atol})")
    with atomic_dir(out, replace=False) as tmp:
        merged.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
    return {"max_logit_diff": diff, "base": str(base), "out": str(out)}
