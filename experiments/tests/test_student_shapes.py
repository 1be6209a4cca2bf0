"""experiments/student_shapes.py: students cut from a judge by shape, and int8 matrix products that
read them as fp32 does within quantizing error."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))

import student_shapes as shapes  # noqa: E402


def _bert(layers: int = 3):
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    return BertForSequenceClassification(BertConfig(
        vocab_size=200, hidden_size=32, num_hidden_layers=layers, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=64, num_labels=3)).eval()


def test_a_cut_keeps_the_chosen_layers_and_units_and_leaves_the_judge():
    judge = _bert()
    small = shapes.cut(judge, [0, 2], 16)
    assert len(small.bert.encoder.layer) == 2 and small.config.num_hidden_layers == 2
    assert all(l.intermediate.dense.weight.shape == (16, 32) and l.output.dense.weight.shape
               == (32, 16) for l in small.bert.encoder.layer)
    assert len(judge.bert.encoder.layer) == 3
    assert judge.bert.encoder.layer[0].intermediate.dense.weight.shape == (64, 32)
    import torch

    assert torch.equal(small.bert.encoder.layer[1].output.dense.weight,
                       judge.bert.encoder.layer[2].output.dense.weight[:, :16])


def test_int8_products_read_as_fp32_does_within_quantizing_error():
    import torch

    judge = _bert()
    ids = torch.randint(5, 200, (4, 24), generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        ref = judge(input_ids=ids).logits.softmax(-1)
        quant = shapes.int8(shapes.cut(judge, None, None))
        got = quant(input_ids=ids).logits.softmax(-1)
    linears = [m for m in quant.modules() if isinstance(m, shapes.Int8Linear)]
    assert len(linears) == 3 * 6  # q, k, v, attention output, intermediate, output per layer
    assert float((got - ref).abs().max()) < 0.02
    assert shapes.rate(quant, ids, 1) > 0


def test_openvino_rates_time_the_shape_converted_and_quantized():
    import pytest
    import torch

    pytest.importorskip("openvino")
    pytest.importorskip("nncf")
    ids = torch.randint(5, 200, (32, 16), generator=torch.Generator().manual_seed(2))
    bf16, int8 = shapes.openvino_rates(_bert(2), ids, passes=1, threads=1)
    assert bf16 > 0 and int8 > 0
