"""Load a trained causal LM for inference: a LoRA adapter folder (its base loaded first) or a
full / merged model folder. ``citetrain refine`` and the generative judge share it."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citetrain.errors import CitetrainError


def _base_of(folder: Path) -> str:
    try:
        cfg = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
        return str(cfg["base_model_name_or_path"])
    except (OSError, ValueError, KeyError) as exc:
        raise CitetrainError(f"{folder}/adapter_config.json: unreadable base_model_name_or_path "
                             f"({exc})") from None


def load_causal_lm(path: str | Path, role: str = "checkpoint") -> tuple[Any, Any]:
    """``(model, tokenizer)`` in eval mode; the tokenizer gets a pad token if it has none.

    Raises :class:`CitetrainError` (one line) when the folder is missing, or when an adapter's
    base model is neither a local folder nor loadable (e.g. offline and not in the hub cache).
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from citetrain.io.writers import restore_old_dir

    folder = Path(path)
    restore_old_dir(folder)  # a save killed between its two renames
    if not folder.is_dir():
        raise CitetrainError(f"{role}: {folder} is not a folder")
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
    except (OSError, ValueError) as exc:
        raise CitetrainError(f"{role}: {folder} has no readable tokenizer ({str(exc).splitlines()[0]})") from None
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if (folder / "adapter_config.json").is_file():
        from peft import PeftModel

        base = _base_of(folder)
        try:
            model = AutoModelForCausalLM.from_pretrained(base)
        except (OSError, ValueError) as exc:
            raise CitetrainError(
                f"{role}: {folder} is an adapter whose base model {base!r} cannot be loaded "
                f"(absent, or offline and not cached): {str(exc).splitlines()[0]}") from None
        model = PeftModel.from_pretrained(model, str(folder))
    else:
        try:
            model = AutoModelForCausalLM.from_pretrained(str(folder))
        except (OSError, ValueError) as exc:
            raise CitetrainError(f"{role}: {folder} holds no loadable model "
                                 f"({str(exc).splitlines()[0]})") from None
    return model.eval(), tokenizer
