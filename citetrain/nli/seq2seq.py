"""Seq2seq NLI in the TRUE style (Honovich et al. 2022; DESIGN §3), as ALCE uses it.

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

from typing import Any, Sequence

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIResult, Pair
from citetrain.nli.hf import (
    choose_device, choose_dtype, hub_commit, load_pretrained, resolve_source, revision_tag,
)

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


class Seq2SeqNLI:
    """TRUE-style seq2seq NLI backend (e.g. ``google/t5_xxl_true_nli_mixture`` or a local T5).

    Parameters
    ----------
    model : a local model directory or a hub id.
    revision : hub revision (branch, tag or commit); ignored for local directories.
    device : ``"auto"`` (CUDA when available), ``"cpu"``, ``"cuda:1"`` ...
    dtype : ``"auto"`` (bf16 on CUDA with bf16, else fp32), ``"fp32"``, ``"bf16"``, ``"fp16"``.
    batch_size : pairs per forward pass.
    max_length : input tokens at most (the premise is truncated).
    threshold : decide by ``prob >= threshold`` instead of the arg-max token.
    trust_remote_code : passed to ``from_pretrained``; off unless asked for.
    """

    is_baseline = False

    def __init__(
        self,
        model: str,
        *,
        revision: str | None = None,
        device: str | None = "auto",
        dtype: Any = "auto",
        batch_size: int = 16,
        max_length: int = DEFAULT_MAX_LENGTH,
        threshold: float | None = None,
        trust_remote_code: bool = False,
        **unused: Any,
    ) -> None:
        from transformers import AutoModelForSeq2SeqLM

        _reject_unknown("seq2seq", unused)
        if max_length < 8:
            raise CitetrainError(f"seq2seq NLI: max_length must be at least 8, got {max_length}")
        source = resolve_source(model, revision)
        self.device = choose_device(device)
        self.dtype = choose_dtype(dtype, self.device)
        self.model, self.tokenizer = load_pretrained(
            AutoModelForSeq2SeqLM, source, device=self.device, dtype=self.dtype,
            trust_remote_code=trust_remote_code,
        )
        if not getattr(self.tokenizer, "is_fast", False):
            raise CitetrainError(f"{model}: seq2seq NLI needs a fast tokenizer (tokenizer.json)")
        self.one_id = self._one_token()
        start = self.model.config.decoder_start_token_id
        if start is None:
            start = self.model.config.pad_token_id
        if start is None:
            raise CitetrainError(f"{model}: config has no decoder_start_token_id")
        self.decoder_start = int(start)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        self.model_id = source.model_id
        base = source.revision if source.local else (hub_commit(self.model) or source.revision)
        self.revision = revision_tag(base, max_length=max_length,
                                     default_max_length=DEFAULT_MAX_LENGTH, threshold=threshold)
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self.threshold = threshold

    def _one_token(self) -> int:
        """The id of the single token that encodes ``"1"``."""
        ids = self.tokenizer("1", add_special_tokens=False)["input_ids"]
        if len(ids) != 1 or ids[0] == self.tokenizer.unk_token_id:
            raise CitetrainError(f"{self.tokenizer.name_or_path}: '1' is not a single vocabulary "
                                 f"token ({ids}); not a TRUE-style model")
        return int(ids[0])

    def __repr__(self) -> str:
        return f"Seq2SeqNLI({self.model_id!r}, revision={self.revision!r}, device={self.device!r})"

    def cost(self, pair: Pair) -> int:
        """Approximate token count (characters / 4, at most ``max_length``)."""
        return min(self.max_length, (len(pair[0]) + len(pair[1]) + 22) // 4)

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

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        """One encoder pass and one decoder step for the whole batch."""
        import torch

        if not pairs:
            return []
        rows = self.encode(pairs)
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
            probs = torch.softmax(logits, dim=-1)[:, self.one_id].cpu().tolist()
            top = logits.argmax(dim=-1).cpu().tolist()
        return [
            NLIResult(float(p), bool(p >= self.threshold) if self.threshold is not None
                      else t == self.one_id)
            for p, t in zip(probs, top)
        ]


def _reject_unknown(kind: str, unused: dict[str, Any]) -> None:
    """Options meant for another backend are an error, not silently ignored."""
    if unused:
        raise CitetrainError(f"{kind} NLI: unknown option(s) {', '.join(sorted(unused))}")
