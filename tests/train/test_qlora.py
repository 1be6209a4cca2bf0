"""QLoRA on CPU: 4-bit base (bitsandbytes), LoRA trains, the adapter merges into the
dequantised base."""
import importlib.util

import pytest

from citetrain.train.recipe import load_recipe
from citetrain.runner import run_recipe as train

from .conftest import REPO, tiny_overrides


@pytest.mark.skipif(importlib.util.find_spec("bitsandbytes") is None,
                    reason="bitsandbytes not installed (pip install -e '.[qlora]')")
def test_qlora_trains_and_merges(tiny_data, tmp_path):
    from citetrain.train.merge import merge_adapter

    out = tmp_path / "q"
    sets = tiny_overrides(tiny_data, out, **{
        "method": "qlora", "quantization.load_in_4bit": "true", "quantization.compute_dtype": "fp32",
        "train.max_steps": 4, "train.save_steps": 2, "eval.steps": 2})
    summary = train(load_recipe(REPO / "recipes" / "tiny-cpu.yaml", sets))
    assert summary["steps"] == 4 and summary["adapter_tensors"] > 0
    got = merge_adapter(summary["final"], tmp_path / "merged")
    assert got["max_logit_diff"] < 1e-3
