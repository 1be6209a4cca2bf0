"""``sdpa_varlen``: a packed row's examples attend only to themselves (the same logits and
gradients as run alone), and every other batch is plain sdpa."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from citetrain.models.attention import NAME, register  # noqa: E402


def tiny(family: str, impl: str, seed: int = 0):
    from transformers import AutoModelForCausalLM, LlamaConfig, Qwen2Config

    register(impl)
    cls = {"llama": LlamaConfig, "qwen2": Qwen2Config}[family]
    torch.manual_seed(seed)
    cfg = cls(vocab_size=400, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
              pad_token_id=3, bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
    return AutoModelForCausalLM.from_config(cfg, attn_implementation=impl).eval()


def packed_batch(lengths=((9, 5), (12,))):
    from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

    g = torch.Generator().manual_seed(1)
    rows = [[torch.randint(4, 400, (n,), generator=g) for n in row] for row in lengths]
    collator = DataCollatorForLanguageModeling(pad_token_id=3, padding_free=True)
    batch = collator([{"input_ids": torch.cat(r).tolist(), "seq_lengths": [len(p) for p in r]}
                      for r in rows])
    return batch, [p for r in rows for p in r]


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_packed_row_matches_examples_alone(family, monkeypatch):
    import citetrain.models.attention as A

    calls = []
    per_segment = A._per_segment
    monkeypatch.setattr(A, "_per_segment", lambda *a: calls.append(a[3].tolist()) or per_segment(*a))
    model = tiny(family, NAME)
    batch, parts = packed_batch()
    assert "cu_seq_lens_q" in batch and batch["cu_seq_lens_q"].tolist() == [0, 9, 14, 26]
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    with torch.no_grad():
        alone = torch.cat([model(input_ids=p[None], use_cache=False).logits[0] for p in parts])
        packed = model(**inputs, use_cache=False).logits[0]
    assert calls == [[0, 9, 14, 26]] * 2  # each layer ran the examples apart, no mask
    torch.testing.assert_close(packed, alone, atol=1e-5, rtol=1e-4)
    # and the same as sdpa's block-diagonal mask gives
    ref = tiny(family, "sdpa")
    with torch.no_grad():
        torch.testing.assert_close(ref(**inputs, use_cache=False).logits[0], packed,
                                   atol=1e-5, rtol=1e-4)


def test_gradients_match_sdpa():
    batch, _ = packed_batch()
    grads = {}
    for impl in ("sdpa", NAME):
        model = tiny("llama", impl).train()
        model(**batch, use_cache=False).loss.backward()
        grads[impl] = torch.cat([p.grad.flatten() for p in model.parameters()])
    torch.testing.assert_close(grads[NAME], grads["sdpa"], atol=1e-5, rtol=1e-4)


def test_padded_batches_and_generation_are_sdpa():
    model, ref = tiny("llama", NAME), tiny("llama", "sdpa")
    ids = torch.randint(4, 400, (2, 7), generator=torch.Generator().manual_seed(2))
    mask = torch.ones_like(ids)
    mask[1, :3] = 0  # left padding
    with torch.no_grad():
        torch.testing.assert_close(model(input_ids=ids, attention_mask=mask).logits,
                                   ref(input_ids=ids, attention_mask=mask).logits)
        a = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=4, do_sample=False,
                           pad_token_id=3)
        b = ref.generate(input_ids=ids, attention_mask=mask, max_new_tokens=4, do_sample=False,
                         pad_token_id=3)
    assert torch.equal(a, b)


def test_register_ignores_other_names():
    from transformers import AttentionInterface

    before = set(AttentionInterface._global_mapping)
    register("sdpa")
    register(None)
    assert set(AttentionInterface._global_mapping) == before
