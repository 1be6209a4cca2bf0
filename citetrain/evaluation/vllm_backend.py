"""Greedy generation with vLLM (``model.backend: vllm``), used only when it is installed.

A merged / full model folder is loaded as it is; a LoRA adapter is served over its base model
(``enable_lora``), except one that also trains whole modules (``modules_to_save``, e.g. the tiny
recipes' embeddings), which vLLM cannot load: merge it first with ``citetrain merge``. Prompts
are tokenized with the checkpoint's tokenizer and cut from the left to ``max_length -
max_new_tokens`` tokens, as :func:`citetrain.models.generate.generate_texts` does.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Sequence

from citetrain.errors import CitetrainError
from citetrain.metrics.suites import SuiteModel

LORA_RANKS = (8, 16, 32, 64, 128, 256, 320, 512)  # the ranks vLLM's max_lora_rank accepts
DTYPES = {"auto": "auto", "fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


def require_vllm() -> None:
    """One line when vLLM is asked for and not installed."""
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        raise CitetrainError("model.backend: vllm is not installed (pip install vllm), or use "
                             "backend: transformers")


def vllm_generator(spec: SuiteModel, progress: bool = False) -> Callable[[Sequence[str]], list[str]]:
    """A function from prompts to greedy continuations (special tokens removed), in order."""
    require_vllm()
    from transformers import AutoTokenizer
    from vllm import LLM, SamplingParams

    folder = Path(spec.path)
    if not folder.is_dir():
        raise CitetrainError(f"model.path: {folder} is not a folder")
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    common = {"tokenizer": str(folder), "dtype": DTYPES[spec.dtype], "max_model_len": spec.max_length}
    lora = None
    if (folder / "adapter_config.json").is_file():
        from vllm.lora.request import LoRARequest

        config = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
        if config.get("modules_to_save"):
            raise CitetrainError(
                f"model.path: {folder} is an adapter that also trains "
                f"{', '.join(config['modules_to_save'])}, which vLLM cannot load; merge it "
                f"first (citetrain merge {folder} --out MERGED) and name the merged folder")
        rank = next((r for r in LORA_RANKS if r >= int(config.get("r", 8))), LORA_RANKS[-1])
        llm = LLM(model=config["base_model_name_or_path"], enable_lora=True, max_lora_rank=rank,
                  **common)
        lora = LoRARequest("checkpoint", 1, str(folder))
    else:
        llm = LLM(model=str(folder), **common)
    params = SamplingParams(temperature=0.0, max_tokens=spec.max_new_tokens,
                            skip_special_tokens=True)
    limit = None if spec.max_length is None else max(8, spec.max_length - spec.max_new_tokens)

    def generate(prompts: Sequence[str]) -> list[str]:
        ids = tokenizer(list(prompts), add_special_tokens=True)["input_ids"]
        if limit is not None:
            ids = [x[-limit:] for x in ids]
        outs = llm.generate([{"prompt_token_ids": x} for x in ids], params, use_tqdm=progress,
                            lora_request=lora)
        return [o.outputs[0].text for o in outs]

    return generate
