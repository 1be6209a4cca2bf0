"""A BERT-style sequence classifier whose last layer computes the first token only.

A BERT classifier reads its label off the last layer's first token ([CLS]: pooler, then the
linear head; RoBERTa and XLM-RoBERTa: their head on the first token, ``<s>``). Every other row
of that layer is computed and thrown away. :func:`first_token` wraps such a model so that the
layers before the last run as usual and the last one runs for the first token alone: its keys
and values from every token, its query, attention output and feed-forward block for the first
row only. The logits are the model's own, up to float rounding (the tests compare them on padded
batches).

For a layer of hidden size ``h`` and feed-forward size ``4h`` a token costs ``12h²``
multiply-adds in the linear layers; the trimmed last layer costs ``2h²`` per token (keys and
values), so an ``L``-layer encoder does ``10/(12L)`` less work per pair: 14 % for the six layers
of all-MiniLM-L6-v2, whose OpenVINO int8 forward passes ran 16-21 % faster this way on 2 CPU
cores (experiments/studies/first-token.md); a 24-layer RoBERTa-large MNLI model saves
3.5 %. Other architectures (DeBERTa's relative attention, BART's end-of-sequence head) are
returned unchanged.
"""
from __future__ import annotations

from typing import Any

import torch


def _pooled_head(net: Any, first: Any) -> Any:
    """BERT's head: the pooler (dense + tanh on the first row), dropout, the linear classifier."""
    return net.classifier(net.dropout(net.bert.pooler(first)))


def _features_head(net: Any, first: Any) -> Any:
    """RoBERTa's head: it reads the first row of the features itself."""
    return net.classifier(first)


# class -> (attribute of the encoder, head on the last layer's first row)
HEADS = {"BertForSequenceClassification": ("bert", _pooled_head),
         "RobertaForSequenceClassification": ("roberta", _features_head),
         "XLMRobertaForSequenceClassification": ("roberta", _features_head)}


def supports_first_token(net: Any) -> bool:
    """Whether :func:`first_token` can trim ``net``: a BERT (with its pooler), RoBERTa or
    XLM-RoBERTa sequence classifier, encoder only (no cross-attention), as transformers builds
    it."""
    config = getattr(net, "config", None)
    attr, head = HEADS.get(type(net).__name__, (None, None))
    encoder = getattr(net, attr, None) if attr else None
    return (encoder is not None and config is not None
            and (head is not _pooled_head or getattr(encoder, "pooler", None) is not None)
            and not getattr(config, "is_decoder", False)
            and not getattr(config, "add_cross_attention", False)
            and len(getattr(encoder.encoder, "layer", ())) >= 1)


def first_token(net: Any) -> Any:
    """``net`` wrapped so that its last layer computes the first token only
    (:class:`FirstTokenClassifier`) where :func:`supports_first_token`; else ``net`` itself."""
    return FirstTokenClassifier(net) if supports_first_token(net) else net


class FirstTokenClassifier(torch.nn.Module):
    """``FirstTokenClassifier(net)``: ``net``'s logits from ``(input_ids, attention_mask,
    token_type_ids)``, its last layer computed for the first token only. Shows ``config``,
    ``dtype`` and ``device`` as ``net`` does; called as ``net`` is, it returns an output with
    ``.logits``."""

    def __init__(self, net: Any) -> None:
        if not supports_first_token(net):
            raise ValueError(f"{type(net).__name__} is not a BERT, RoBERTa or XLM-RoBERTa "
                             "sequence classifier")
        super().__init__()
        self.net = net
        attr, self._head = HEADS[type(net).__name__]
        self._encoder = getattr(net, attr)

    @property
    def config(self) -> Any:
        return self.net.config

    @property
    def dtype(self) -> Any:
        return self.net.dtype

    @property
    def device(self) -> Any:
        return self.net.device

    def forward(self, input_ids: Any, attention_mask: Any = None, token_type_ids: Any = None,
                **_: Any) -> Any:
        from transformers.masking_utils import create_bidirectional_mask
        from transformers.modeling_outputs import SequenceClassifierOutput

        hidden = self._encoder.embeddings(input_ids=input_ids, token_type_ids=token_type_ids)
        mask = create_bidirectional_mask(config=self.config, inputs_embeds=hidden,
                                         attention_mask=attention_mask)
        layers = self._encoder.encoder.layer
        for layer in layers[:-1]:
            hidden = layer(hidden, mask)
        first = _first_row_layer(layers[-1], hidden, None if mask is None else mask[:, :, :1, :])
        return SequenceClassifierOutput(logits=self._head(self.net, first))


def _first_row_layer(layer: Any, hidden: Any, mask: Any) -> Any:
    """A BERT layer's output for the first row of ``hidden`` alone (shape ``(batch, 1, h)``):
    the first row's query against every row's keys and values (``mask``: the model's attention
    mask for that one query row), then the attention output and feed-forward block for it."""
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    from transformers.models.bert.modeling_bert import eager_attention_forward

    attn = layer.attention.self
    batch, length = hidden.shape[:2]
    heads, size = attn.num_attention_heads, attn.attention_head_size
    head = hidden[:, :1]
    query = attn.query(head).view(batch, 1, heads, size).transpose(1, 2)
    key = attn.key(hidden).view(batch, length, heads, size).transpose(1, 2)
    value = attn.value(hidden).view(batch, length, heads, size).transpose(1, 2)
    interface = ALL_ATTENTION_FUNCTIONS.get_interface(attn.config._attn_implementation,
                                                      eager_attention_forward)
    out, _ = interface(attn, query, key, value, mask, dropout=0.0, scaling=attn.scaling)
    out = layer.attention.output(out.reshape(batch, 1, heads * size), head)
    return layer.output(layer.intermediate(out), out)
