"""``sdpa_varlen``: attention that computes each packed example on its own.

trl's padding-free packing hands the model one row holding several examples, with
``position_ids`` restarting per example and their boundaries as ``cu_seq_lens_q`` /
``cu_seq_lens_k`` (cumulative lengths). Under plain ``sdpa`` transformers turns the row into a
block-diagonal mask over the whole row: correct, but the attention kernel then computes every
pair of the row's tokens (a row of 16k tokens costs 16k² scores, of which the examples need a
fraction) and a masked call cannot use the flash kernel. Here a packed row goes through PyTorch's
variable-length flash attention (``torch.nn.attention.varlen.varlen_attn``: causal attention
per segment, no mask) on CUDA, and through one causal ``scaled_dot_product_attention`` per
example elsewhere (CPU), which is the same computation. Anything else (padded batches, decoding
with a cache, dropout) is plain ``sdpa``. Measured on an H200 by ``bench/gpu_train.py``.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any

NAME = "sdpa_varlen"


@functools.lru_cache(maxsize=None)
def _varlen_kernel() -> tuple[Any, dict[str, Any], bool] | None:
    """``varlen_attn``, its causal-masking arguments and whether it takes ``enable_gqa`` (its
    signature moved between torch releases); ``None`` before torch 2.10. Looked up once, not on
    every layer's call."""
    try:
        from torch.nn.attention.varlen import varlen_attn
    except ImportError:  # torch < 2.10
        return None
    params = inspect.signature(varlen_attn).parameters
    causal = {"window_size": (-1, 0)} if "window_size" in params else {"is_causal": True}
    return varlen_attn, causal, "enable_gqa" in params


def _per_segment(q, k, v, cu, scaling: float | None, groups: int):
    """Causal attention of each segment ``cu[i]:cu[i+1]`` alone; ``q``: (T, H, D)."""
    import torch
    import torch.nn.functional as F

    if groups > 1:
        k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
    bounds = cu.tolist()
    outs = [F.scaled_dot_product_attention(
        q[a:b].transpose(0, 1), k[a:b].transpose(0, 1), v[a:b].transpose(0, 1),
        is_causal=True, scale=scaling).transpose(0, 1) for a, b in zip(bounds, bounds[1:])]
    return torch.cat(outs, dim=0)


def varlen_attention_forward(module: Any, query, key, value, attention_mask, dropout: float = 0.0,
                             scaling: float | None = None, is_causal: bool | None = None,
                             **kwargs: Any):
    """transformers' attention-function contract: ``query`` (B, H, T, D), ``key`` / ``value``
    (B, H_kv, T, D); returns ((B, T, H, D), None)."""
    import torch
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    cu = kwargs.get("cu_seq_lens_q")
    packed = (cu is not None and query.shape[0] == 1 and query.shape[2] > 1
              and key.shape[2] == query.shape[2] and not (dropout and module.training)
              and is_causal is not False and getattr(module, "is_causal", True))
    if not packed:
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout,
                                      scaling=scaling, is_causal=is_causal, **kwargs)
    q, k, v = (t[0].transpose(0, 1) for t in (query, key, value))  # (T, H, D)
    groups = q.shape[1] // k.shape[1]
    found = _varlen_kernel() if q.is_cuda else None
    if found is None:
        out = _per_segment(q, k, v, cu.to(q.device), scaling, groups)
    else:
        kernel, causal, takes_gqa = found
        if groups > 1 and not takes_gqa:
            k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
        extra = {"enable_gqa": True} if groups > 1 and takes_gqa else {}
        cu = cu.to(device=q.device, dtype=torch.int32)
        width = int(kwargs.get("max_length_q") or int((cu[1:] - cu[:-1]).max()))
        # the flash kernel takes fp16 / bf16 only: fp32 activations (QLoRA upcasts the norms)
        # run in bf16 and come back in their own dtype
        dtype = q.dtype if q.dtype in (torch.float16, torch.bfloat16) else torch.bfloat16
        out = kernel(*(t.to(dtype).contiguous() for t in (q, k, v)), cu, cu, width, width,
                     scale=scaling, **causal, **extra).to(q.dtype)
    return out.unsqueeze(0), None


def register(name: str | None) -> None:
    """Make ``name`` usable as ``attn_implementation`` when it is this module's (idempotent);
    its masks are sdpa's (used only on the batches it hands to sdpa)."""
    if name != NAME:
        return
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(NAME, varlen_attention_forward)
    AttentionMaskInterface.register(NAME, sdpa_mask)
