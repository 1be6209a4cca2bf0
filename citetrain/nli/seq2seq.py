"""Seq2seq NLI in the TRUE style (Honovich et al. 2022; docs/concepts/nli.md), as ALCE uses it.

Input ``"premise: {p} hypothesis: {h}"``; the model answers ``"1"`` (entailed) or ``"0"``.
ALCE's ``_run_nli_autoais`` generates greedily and checks ``output == "1"``; with greedy decoding
the first token decides, so one encoder pass and one decoder step from the decoder start token
give the same decision without ``generate()``:

* ``prob``  = softmax probability of the ``"1"`` token at decoder step one;
* ``label`` = the arg-max token at step one is ``"1"`` (or ``prob >= threshold`` if one is given).

Inputs longer than ``max_length`` tokens lose the end of the premise; the hypothesis is kept whole
(unless it alone is too long). Batches are right-padded with an attention mask, so a batch gives
the same numbers as one pair at a time.
"""
from __future__ import annotations

from typing import Sequence

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIResult, Pair
from citetrain.nli.hf import HFBackend

DEFAULT_MAX_LENGTH = 512
PREMISE = "premise: "
HYPOTHESIS = " hypothesis: "


def true_input(premise: str, hypothesis: str) -> str:
    """The TRUE model's input text (ALCE's ``"premise: {} hypothesis: {}"``)."""
    return f"{PREMISE}{premise}{HYPOTHESIS}{hypothesis}"


def truncate_premise(
    ids: list[int], offsets: list[tuple[int, int]], special: list[int], boundary: int, max_length: int
) -> list[int]:
    """Token ids cut to ``max_length`` by dropping premise tokens from the end of the premise.

    ``boundary`` is the character offset where the hypothesis part starts; special tokens (EOS)
    keep their places. If even the hypothesis part does not fit, it is cut from its end.
    """
    if len(ids) <= max_length:
        return ids
    lead, prem, hyp, tail = [], [], [], []
    seen_text = False
    for tid, (start, _end), sp in zip(ids, offsets, special):
        if sp:
            (tail if seen_text else lead).append(tid)
        else:
            seen_text = True
            (prem if start < boundary else hyp).append(tid)
    room = max_length - len(lead) - len(tail)
    keep_hyp = hyp[: max(room, 0)]
    keep_prem = prem[: max(room - len(keep_hyp), 0)]
    return lead + keep_prem + keep_hyp + tail


class Seq2SeqNLI(HFBackend):
    """TRUE-style seq2seq NLI backend (e.g. ``google/t5_xxl_true_nli_mixture`` or a local T5).

    ``Seq2SeqNLI(model, revision=None, device="auto", dtype="auto", batch_size=16,
    max_length=512, threshold=None, trust_remote_code=False)``: ``model`` is a local directory or
    a hub id; the options are :class:`~citetrain.nli.hf.HFBackend`'s. ``max_length`` truncates the
    premise; ``threshold`` decides by ``prob >= threshold`` instead of the arg-max token.
    """

    kind = "seq2seq"
    auto_class = "AutoModelForSeq2SeqLM"
    default_max_length = DEFAULT_MAX_LENGTH

    def _setup(self, model: str) -> None:
        if not getattr(self.tokenizer, "is_fast", False):
            raise CitetrainError(f"{model}: seq2seq NLI needs a fast tokenizer (tokenizer.json)")
        ids = self.tokenizer("1", add_special_tokens=False)["input_ids"]
        if len(ids) != 1 or ids[0] == self.tokenizer.unk_token_id:
            raise CitetrainError(f"{model}: '1' is not a single vocabulary token ({ids}); "
                                 "not a TRUE-style model")
        self.one_id = int(ids[0])
        start = self.model.config.decoder_start_token_id
        if start is None:
            start = self.model.config.pad_token_id
        if start is None:
            raise CitetrainError(f"{model}: config has no decoder_start_token_id")
        self.decoder_start = int(start)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0

    def encode(self, pairs: Sequence[Pair]) -> list[list[int]]:
        """Token ids per pair, premise-truncated to ``max_length``."""
        texts = [true_input(p, h) for p, h in pairs]
        enc = self.tokenizer(texts, add_special_tokens=True, return_offsets_mapping=True,
                             return_special_tokens_mask=True)
        return [
            truncate_premise(ids, offs, sp, len(PREMISE) + len(p), self.max_length)
            for ids, offs, sp, (p, _) in zip(enc["input_ids"], enc["offset_mapping"],
                                              enc["special_tokens_mask"], pairs)
        ]

    def input_lengths(self, pairs: Sequence[Pair]) -> list[int]:
        """Untruncated length in tokens of each pair's TRUE input text."""
        enc = self.tokenizer([true_input(p, h) for p, h in pairs], add_special_tokens=True,
                             verbose=False)  # measured, not run: no over-length warning
        return [len(ids) for ids in enc["input_ids"]]

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        """One encoder pass and one decoder step for the whole batch."""
        import torch

        if not pairs:
            return []
        encoded = self.encode(pairs)
        # int8 weights: each pair alone, unpadded (hf.quantize_int8); else the batch at once
        groups = [[r] for r in encoded] if self.rows_alone else [encoded]
        probs: list[float] = []
        top: list[int] = []
        for rows in groups:
            width = max(len(r) for r in rows)
            ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for i, r in enumerate(rows):
                ids[i, : len(r)] = torch.tensor(r, dtype=torch.long)
                mask[i, : len(r)] = 1
            start = torch.full((len(rows), 1), self.decoder_start, dtype=torch.long)
            with torch.inference_mode():
                out = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                 decoder_input_ids=start.to(self.device), use_cache=False)
                logits = out.logits[:, 0, :].float()
                probs += torch.softmax(logits, dim=-1)[:, self.one_id].cpu().tolist()
                top += logits.argmax(dim=-1).cpu().tolist()
        return [
            NLIResult(float(p), bool(p >= self.threshold) if self.threshold is not None
                      else t == self.one_id)
            for p, t in zip(probs, top)
        ]

