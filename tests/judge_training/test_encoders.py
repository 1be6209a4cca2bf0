"""The encoder families a cross-encoder judge is trained from (docs/guides/models.md): BERT (and
MiniLM, a BERT), RoBERTa, DeBERTa-v2 (DeBERTa-v3 is the same class) and ModernBERT. Each, from a
tiny random config and a tokenizer trained here, gets one step of a ``kind: crossencoder`` recipe
and an ONNX export whose probabilities match PyTorch's."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from citetrain.train.recipe import validate_recipe
from tests.judge_training.test_trainer import recipe_data, toy_rows, write_jsonl

FAMILIES = ("bert", "roberta", "deberta-v2", "modernbert")
INIT = 0.2
"""The spread of the initial weights: wide enough that the random judges' probabilities differ from
pair to pair, so that agreeing with PyTorch means something."""


def _corpus() -> list[str]:
    rows = toy_rows(40)
    corpus = [" ".join(r["references"]) + " " + r["claim"] for r in rows]
    from citetrain.judges.export import CHECK_PAIRS

    return corpus + [p + " " + h for p, h in CHECK_PAIRS] + ["claim chunk of says it"] * 3


def _tokenizer(family: str, corpus: list[str]):
    """A fast tokenizer trained on ``corpus`` in the family's style: WordPiece with [CLS] / [SEP]
    and token types (BERT, DeBERTa-v2), byte-level BPE with <s> / </s> (RoBERTa), byte-level BPE
    with [CLS] / [SEP] and no token types (ModernBERT)."""
    from tokenizers import (Tokenizer, decoders, models, normalizers, pre_tokenizers, processors,
                            trainers)
    from transformers import PreTrainedTokenizerFast

    if family == "roberta":
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        tok = Tokenizer(models.BPE(unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
        tok.decoder = decoders.ByteLevel()
        tok.train_from_iterator(corpus, trainers.BpeTrainer(
            vocab_size=400, special_tokens=specials, show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
            special_tokens=[("<s>", bos), ("</s>", eos)])
        return PreTrainedTokenizerFast(
            tokenizer_object=tok, bos_token="<s>", eos_token="</s>", cls_token="<s>",
            sep_token="</s>", pad_token="<pad>", unk_token="<unk>", mask_token="<mask>",
            model_max_length=128, model_input_names=["input_ids", "attention_mask"])
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    if family == "modernbert":
        tok = Tokenizer(models.BPE(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=specials, show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        names = ["input_ids", "attention_mask"]
    else:
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=400, special_tokens=specials)
        names = ["input_ids", "token_type_ids", "attention_mask"]
    tok.train_from_iterator(corpus, trainer)
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                   cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]",
                                   model_max_length=128, model_input_names=names)


def _config(family: str, tokenizer):
    """A two-layer config of hidden width 32 for ``tokenizer``'s vocabulary."""
    import transformers as t

    sizes = dict(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2,
                 num_attention_heads=4, intermediate_size=64, pad_token_id=tokenizer.pad_token_id,
                 initializer_range=INIT)
    if family == "bert":
        return t.BertConfig(max_position_embeddings=128, **sizes)
    if family == "roberta":  # positions start after the padding index
        return t.RobertaConfig(max_position_embeddings=130, type_vocab_size=1,
                               bos_token_id=tokenizer.bos_token_id,
                               eos_token_id=tokenizer.eos_token_id, **sizes)
    if family == "deberta-v2":  # as DeBERTa-v3: relative positions, no absolute ones
        return t.DebertaV2Config(max_position_embeddings=128, relative_attention=True,
                                 position_buckets=32, max_relative_positions=-1,
                                 pos_att_type=["p2c", "c2p"], norm_rel_ebd="layer_norm",
                                 position_biased_input=False, type_vocab_size=0, **sizes)
    return t.ModernBertConfig(max_position_embeddings=128, global_attn_every_n_layers=2,
                              local_attention=16, cls_token_id=tokenizer.cls_token_id,
                              sep_token_id=tokenizer.sep_token_id,
                              bos_token_id=tokenizer.cls_token_id,
                              eos_token_id=tokenizer.sep_token_id, **sizes)


def build_tiny_encoder(family: str, directory: Path) -> Path:
    """A random two-layer sequence classifier of ``family`` and its tokenizer, saved."""
    import torch
    from transformers import AutoModelForSequenceClassification

    tokenizer = _tokenizer(family, _corpus())
    torch.manual_seed(0)
    AutoModelForSequenceClassification.from_config(_config(family, tokenizer)).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


MODEL_TYPES = {"bert": "bert", "roberta": "roberta", "deberta-v2": "deberta-v2",
               "modernbert": "modernbert"}


@pytest.mark.slow  # ten seconds or more per family on 2 CPU cores (the ONNX export)
@pytest.mark.parametrize("family", FAMILIES)
def test_encoder_trains_one_step_and_exports_onnx_matching_pytorch(family, tmp_path):
    pytest.importorskip("onnxruntime", reason="pip install -e '.[onnx]'")
    pytest.importorskip("onnxscript", reason="pip install -e '.[onnx]'")
    from citetrain.judges.export import CHECK_PAIRS, export_judge
    from citetrain.nli.classifier import ClassifierNLI
    from citetrain.runner import run_recipe

    base = build_tiny_encoder(family, tmp_path / "base")
    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(24))
    summary = run_recipe(validate_recipe(recipe_data(base, [f"attributionbench:{ab}"], tmp_path,
                                                     max_steps=1)))
    assert summary["steps"] == 1
    final = Path(summary["final"])
    assert json.loads((final / "config.json").read_text())["model_type"] == MODEL_TYPES[family]
    card = export_judge(final, tmp_path / "onnx", runtime="onnx")
    assert (tmp_path / "onnx" / "model.onnx").is_file()
    assert type(ClassifierNLI(str(tmp_path / "onnx"), device="cpu").model).__name__ == "OnnxClassifier"
    expected = [r.expected for r in ClassifierNLI(str(final), device="cpu").predict(CHECK_PAIRS)]
    assert max(expected) - min(expected) > 0.01, (family, expected)  # the agreement is not trivial
    assert card["max_abs_diff_prob"] < 1e-4, (family, card["max_abs_diff_prob"])
    assert card["max_abs_diff_expected"] < 1e-4
