"""The last layer computed for the first token only: the model's own logits, the work saved
counted by hand, other architectures untouched, and the classifier backend reading through it."""
from __future__ import annotations

import pytest
import torch
from transformers import BertConfig, BertForSequenceClassification, DistilBertConfig, \
    DistilBertForSequenceClassification, RobertaConfig, RobertaForSequenceClassification, \
    XLMRobertaConfig, XLMRobertaForSequenceClassification
from torch.utils.flop_counter import FlopCounterMode

from citetrain.nli.classifier import ClassifierNLI
from citetrain.nli.first_token import FirstTokenClassifier, first_token, supports_first_token
from tests.nli.tiny_models import build_bert_classifier

H, I, LAYERS = 32, 80, 3


FAMILIES = {"bert": (BertConfig, BertForSequenceClassification),
            "roberta": (RobertaConfig, RobertaForSequenceClassification),
            "xlm-roberta": (XLMRobertaConfig, XLMRobertaForSequenceClassification)}


def _bert(attn: str = "eager", seed: int = 0, family: str = "bert"):
    torch.manual_seed(seed)
    config_class, model_class = FAMILIES[family]
    config = config_class(vocab_size=90, hidden_size=H, num_hidden_layers=LAYERS, num_attention_heads=4,
                          intermediate_size=I, max_position_embeddings=64, num_labels=3,
                          attn_implementation=attn, pad_token_id=1)
    return model_class(config).eval()


def _batch() -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(1, 90, (4, 11), generator=g)
    mask = torch.ones_like(ids)
    mask[1, 6:] = 0
    mask[3, 2:] = 0
    types = torch.zeros_like(ids)
    types[:, 5:] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


@pytest.mark.parametrize("attn,family", [("eager", "bert"), ("sdpa", "bert"), ("sdpa", "roberta"),
                                         ("eager", "xlm-roberta")])
def test_the_logits_are_the_models_own_on_padded_batches(attn, family):
    net = _bert(attn, family=family)
    trimmed = first_token(net)
    assert isinstance(trimmed, FirstTokenClassifier) and trimmed.config is net.config
    x = _batch()
    if family != "bert":  # RoBERTa numbers positions after its pad id and has one token type
        x["input_ids"] = torch.where(x["attention_mask"].bool(), x["input_ids"].clamp(min=2), 1)
        x["token_type_ids"] = torch.zeros_like(x["input_ids"])
    with torch.no_grad():
        assert torch.allclose(trimmed(**x).logits, net(**x).logits, atol=1e-6)
        one = {"input_ids": x["input_ids"][:1, :4]}  # no mask, no token types: all attended
        assert torch.allclose(trimmed(**one).logits, net(**one).logits, atol=1e-6)
        # a padded row reads as the same row alone: padding is masked in the trimmed layer too
        alone = {k: v[1:2, :6] for k, v in x.items()}
        assert torch.allclose(trimmed(**x).logits[1], trimmed(**alone).logits[0], atol=1e-5)


def test_the_work_saved_is_the_last_layers_other_rows():
    """Multiply-adds of the full and trimmed forward (eager attention), counted by torch's flop
    counter: the trimmed one skips, for the n - 1 rows after the first, the last layer's query and
    output projections (2·h² each), its feed-forward (2·h·i) and their attention scores and
    weighted sums (2·n·h each): 2 FLOPs a multiply-add."""
    net = _bert("eager")
    trimmed = first_token(net)
    n = 11
    x = {"input_ids": torch.randint(1, 90, (1, n))}

    def flops(model) -> int:
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            model(**x)
        return counter.get_total_flops()

    saved = 2 * (n - 1) * (2 * H * H + 2 * H * I + 2 * n * H)
    assert flops(net) - flops(trimmed) == saved


def test_other_architectures_are_left_as_they_are():
    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=90, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                              max_position_embeddings=64, num_labels=3)
    other = DistilBertForSequenceClassification(config).eval()
    assert not supports_first_token(other) and first_token(other) is other
    with pytest.raises(ValueError, match="not a BERT, RoBERTa or XLM-RoBERTa"):
        FirstTokenClassifier(other)


def test_the_classifier_backend_reads_through_it_with_the_same_answers(tmp_path):
    path = build_bert_classifier(tmp_path / "m", num_layers=2)
    pairs = [("the cat sat on the mat .", "the cat sat ."), ("the dog ran .", "the cat sat on the mat ."),
             ("water boils at 100 degrees .", "water boils .")]
    trimmed = ClassifierNLI(str(path), device="cpu", dtype="fp32")
    whole = ClassifierNLI(str(path), device="cpu", dtype="fp32", first_token=False)
    assert isinstance(trimmed.model, FirstTokenClassifier)
    assert not isinstance(whole.model, FirstTokenClassifier)
    assert trimmed.revision == whole.revision  # the same answers share the cache
    for a, b in zip(trimmed.predict(pairs), whole.predict(pairs)):
        assert a.label == b.label and max(abs(x - y) for x, y in zip(a.support, b.support)) < 1e-6
    # int8 (dynamic quantization): the last layer's scales come from one row, so close, keyed apart
    q_trim = ClassifierNLI(str(path), device="cpu", dtype="int8")
    q_whole = ClassifierNLI(str(path), device="cpu", dtype="int8", first_token=False)
    assert "+first" in q_trim.revision and "+first" not in q_whole.revision
    for a, b in zip(q_trim.predict(pairs), q_whole.predict(pairs)):
        assert max(abs(x - y) for x, y in zip(a.support, b.support)) < 0.02
