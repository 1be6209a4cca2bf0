"""MNLI-style classifier NLI (DeBERTa / RoBERTa / BART-MNLI; docs/concepts/nli.md).

The model reads ``(premise, hypothesis)`` as a sentence pair. Probabilities are the softmax over
the model's own labels (``config.id2label``), found by name, case-insensitively:

* ``prob``    = P(entailment);
* ``label``   = the arg-max label is entailment (or ``prob >= threshold`` if one is given);
* ``support`` = (P(entailment), P(neutral), P(contradiction)) read as full / partial / no support,
  for three-way models; ``None`` for binary ones (entailment / not_entailment).

Support-level names count too (citetrain's cross-encoder judge, ``kind: crossencoder``):
``supported`` is entailment, ``partially_supported`` the neutral (partial) role and
``not_supported`` the contradiction (no support) role, so such a model is three-way.

A premise too long for ``max_length`` is read in overlapping windows (a quarter of the room
overlaps) and the pair takes the window with the highest P(entailment), as WiCE and SummaC do
for long evidence: a cited web page is judged on its best passage, not on its first 500 tokens.
``windows=False`` cuts the premise instead (the TRUE / ALCE convention).

``premise="select"`` keeps, of a premise too long for ``max_length``, the sentences that best
cover the statement's content words (:func:`~citetrain.nli.premises.select_evidence`, greedy
coverage, then overlap, in page order) — what a ``kind: crossencoder`` judge is trained on, so it
is read the same way at inference: its ``config.json`` carries ``citetrain_premise`` and that is
the default for it.
``premise`` is ``"windows"`` (default otherwise), ``"select"`` or ``"cut"``; the cache revision
says which (``+win2`` / ``+sel`` / nothing; ``+win`` answers, read before a pair's windows
stopped depending on the other statements of its batch, are not reused).

A BERT classifier (citetrain's cross-encoder judge) computes its last layer for the first token
only, the one its head reads (:mod:`citetrain.nli.first_token`): the same answers for less work.
``first_token=False`` runs the whole last layer. With int8 weights (dynamic quantization, whose
activation scales depend on the rows quantized together) the answers move by about 1e-3, so
they key the cache apart (``+first``).
"""
from __future__ import annotations

import hashlib
import re
from functools import partial
from itertools import islice
from typing import Any, Callable, Mapping, Sequence

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIResult, Pair
from citetrain.nli.hf import HFBackend
from citetrain.nli.premises import read_pairs
from citetrain.nli.tokens import token_lengths

DEFAULT_MAX_LENGTH = 512
ENTAIL = {"entailment", "entail", "entails", "entailed", "supported", "full_support"}
NEUTRAL = {"neutral", "partially_supported", "partial_support", "partial"}
CONTRADICT = {"contradiction", "contradict", "contradicts", "contradictory", "contradicted",
              "not_supported", "no_support", "unsupported"}
NOT_ENTAIL = {"not_entailment", "non_entailment", "not_entail", "non_entail", "not_entailed"}


PREMISE_MODES = ("windows", "select", "cut")
CALL_BATCHES = 16  # forward batches per engine call, their rows sorted by length across them all
_TAGS = {"windows": "+win2", "select": "+sel", "cut": ""}  # win2: each pair its own overlap
# premise select: answers remembered by the text the model reads, across calls (about 100 bytes
# each). A union less one passage is often read as the union (its best sentences are elsewhere):
# 80 of the 1,113 rows of bench/judge_throughput.py's 40 ExpertQA answers.
READ_MEMORY = 65_536


def read_key(premise: str, statement: str) -> bytes:
    """A pair's key as the model reads it (premise as selected, statement with its hint)."""
    return hashlib.blake2b(f"{premise}\0{statement}".encode(), digest_size=16).digest()


def _norm(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def label_indices(id2label: Mapping[Any, str]) -> dict[str, int]:
    """Indices of ``entailment`` and, where present, ``neutral``, ``contradiction`` and
    ``not_entailment`` among a model's labels (names matched case-insensitively)."""
    found: dict[str, int] = {}
    for idx, name in id2label.items():
        key = _norm(name)
        for role, names in (("entailment", ENTAIL), ("neutral", NEUTRAL),
                            ("contradiction", CONTRADICT), ("not_entailment", NOT_ENTAIL)):
            if key in names:
                if role in found:
                    raise CitetrainError(f"labels {dict(id2label)}: two labels mean {role}")
                found[role] = int(idx)
    if "entailment" not in found:
        names = ", ".join(str(v) for _, v in sorted(id2label.items(), key=lambda kv: int(kv[0])))
        raise CitetrainError(
            f"model labels ({names}) include no entailment label; set id2label/label2id in its "
            "config.json (e.g. entailment / neutral / contradiction)")
    return found


def position_limit(model: Any) -> int | None:
    """The longest input ``model`` can embed: ``max_position_embeddings``, less RoBERTa's offset
    (its position ids start after its pad id, so 514 positions hold 512 tokens); ``None`` when the
    config gives no limit."""
    positions = getattr(getattr(model, "config", None), "max_position_embeddings", None)
    if positions is None:
        return None
    model = model.get_base_model() if hasattr(model, "get_base_model") else model  # peft
    embeddings = getattr(getattr(model, "base_model", None), "embeddings", None)
    offset = getattr(embeddings, "padding_idx", None)  # RoBERTa, XLM-RoBERTa, CamemBERT, ...
    return int(positions) - (int(offset) + 1 if isinstance(offset, int) else 0)


def encode_pairs(tokenizer: Any, premises: Sequence[str], hyps: Sequence[str],
                 max_length: int, count: Callable[[list[str]], list[int]] | None = None
                 ) -> tuple[dict[str, list], list[bool]]:
    """Token ids of (premise, statement) pairs cut to ``max_length`` from the premise, and for
    each pair whether its statement left room for a premise token; a statement that does not is
    cut too (``longest_first``) rather than refused, as the fast tokenizer does under
    ``only_first``. Unpadded lists; :func:`tokenizer.pad` makes a batch of them. ``count`` as in
    :func:`~citetrain.nli.premises.select_premises`."""
    room = max_length - tokenizer.num_special_tokens_to_add(pair=True)
    count = count or partial(token_lengths, tokenizer)
    fits = [n < room for n in count(list(hyps))] if hyps else []
    out: dict[str, list] = {}
    for rows, mode in (([i for i, ok in enumerate(fits) if ok], "only_first"),
                       ([i for i, ok in enumerate(fits) if not ok], "longest_first")):
        if rows:
            part = tokenizer([premises[i] for i in rows], [hyps[i] for i in rows],
                             truncation=mode, max_length=max_length)
            for k, v in part.items():
                column = out.setdefault(k, [None] * len(fits))
                for i, row in zip(rows, v):
                    column[i] = row
    return out, fits


def probabilities(logits: Any) -> Any:
    """Softmax over the last axis as a float32 CPU tensor, computed by numpy
    (``scipy.special.softmax``). Right after an exported model's forward pass (OpenVINO, ONNX
    Runtime) the runtime's threads still hold the cores, and a torch kernel that opens a parallel
    region waits for one: on 2 busy cores up to a time slice (~4 ms) a batch (the judge bench's
    forward passes took 3.1-3.3 s this way, 3.2-3.7 s with torch's;
    experiments/studies/pruned-judge.md)."""
    import numpy as np
    import torch
    from scipy.special import softmax

    values = logits.detach().float().cpu().numpy()
    return torch.from_numpy(np.ascontiguousarray(softmax(values, axis=-1), dtype=np.float32))


def length_batches(enc: Any, batch_size: int, padding_side: str = "right"):
    """``(order, batches)``: the encoded rows longest first, in batches of ``batch_size`` cut to
    their own longest row (``enc`` is padded to the longest of all), and ``order[i]``, the row
    the ``i``-th batched row is. Padding is masked, so a row's answer is the same in any batch
    up to float rounding; sorting only spares the padding's arithmetic. Each batch is its own
    contiguous tensor (a compiled model would compile again for a view's strides)."""
    import torch

    lengths = enc["attention_mask"].sum(dim=1)
    order = torch.argsort(lengths, descending=True, stable=True)
    batches = []
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        width = int(lengths[idx].max())
        cols = slice(-width, None) if padding_side == "left" else slice(0, width)
        batches.append({k: v[idx][:, cols].contiguous() for k, v in enc.items()})
    return order, batches


class ClassifierNLI(HFBackend):
    """Sequence-pair classifier NLI backend (see the module docstring).

    ``ClassifierNLI(model, revision=None, device="auto", dtype="auto", batch_size=16,
    max_length=512, threshold=None, trust_remote_code=False)``: ``model`` is a local directory or
    a hub id; the options are :class:`~citetrain.nli.hf.HFBackend`'s (``max_length`` is also
    capped at the tokenizer's ``model_max_length``); ``threshold`` decides by
    ``P(entailment) >= threshold`` instead of the arg-max label; ``premise`` how a premise too
    long for ``max_length`` is read (``windows`` / ``select`` / ``cut``; default: the model
    config's ``citetrain_premise``, else ``windows``; ``windows=False`` means ``cut``);
    ``compile`` reads through :func:`~citetrain.nli.hf.compile_for_inference` (PyTorch weights
    in fp32, bf16 or fp16; not int8 or ONNX); ``first_token`` (default on) computes a BERT
    classifier's last layer for the first token only (see the module docstring).
    """

    kind = "classifier"
    auto_class = "AutoModelForSequenceClassification"
    default_max_length = DEFAULT_MAX_LENGTH

    def __init__(self, model: str, *, windows: bool = True, premise: str | None = None,
                 compile: bool = False, first_token: bool = True,
                 **options: Any) -> None:
        if premise is not None and premise not in PREMISE_MODES:
            raise CitetrainError(f"classifier NLI: premise must be one of "
                                 f"{', '.join(PREMISE_MODES)}, not {premise!r}")
        self._premise_option = premise if windows else "cut"
        self.cut_statements = 0  # statements longer than max_length, read cut (premise select)
        # premise select: answers by text as read, across calls (:meth:`_remember`)
        self.read_memory: dict[bytes, tuple[Any, bool]] = {}
        super().__init__(model, **options)
        self.revision += _TAGS[self.premise]
        if first_token:
            from citetrain.nli.first_token import first_token as trim

            trimmed = trim(self.model)  # the model itself where it cannot be trimmed
            if trimmed is not self.model:
                self.model = trimmed
                self.revision += "+first" if self.rows_alone else ""
        self.compiled = bool(compile)
        if self.compiled:
            from citetrain.nli.hf import compile_for_inference
            from citetrain.nli.onnx import ExportedClassifier

            if self.rows_alone or isinstance(self.model, ExportedClassifier):
                raise CitetrainError(f"classifier NLI {model}: compile reads PyTorch weights in "
                                     "fp32, bf16 or fp16, not int8 or an exported model")
            self.model = compile_for_inference(self.model)

    @property
    def call_size(self) -> int:
        """Pairs per ``predict`` the engine hands over: ``CALL_BATCHES`` forward batches. Rows
        are sorted by their length as read (after premise selection, which the engine's
        character-count order cannot see) across the whole call, so each batch is padded to
        about its own rows' length, and pairs read as one text share a row across it."""
        return self.batch_size * CALL_BATCHES

    @property
    def windows(self) -> bool:
        """Whether long premises are read in overlapping windows."""
        return self.premise == "windows"

    def truncates(self, pairs: Sequence[Pair]) -> list[bool]:
        """Nothing is cut when premises are read in windows."""
        return [False] * len(pairs) if self.windows else super().truncates(pairs)

    def _encode(self, pairs: Sequence[Pair]):
        """``(enc, owner, same, keys, fit)``: token rows (``None`` when every pair was read before),
        per row the pair it belongs to (several rows per long premise), ``same``: for each pair
        this call reads, the pair whose rows it takes (itself, or an earlier pair read as the
        same text: premise selection and coverage hint can make two premises one text), and
        under ``select`` each pair's key as read (:func:`read_key`) and ``fit``: whether each
        owning pair's statement left room for its premise; a pair not in ``same`` was read by an
        earlier call and its answer is in :attr:`read_memory`."""
        premises, hyps = read_pairs(pairs, self.tokenizer, self.max_length, self.premise, self.hint,
                                    self.token_counts)
        if self.premise == "select":
            keys = [read_key(p, h) for p, h in zip(premises, hyps)]
            first: dict[bytes, int] = {}
            same = {k: first.setdefault(key, k) for k, key in enumerate(keys)
                    if key not in self.read_memory}
            owner = [k for k, j in same.items() if j == k]
            self.cut_statements += sum(not self.read_memory[key][1] for key in keys
                                       if key in self.read_memory)
            if not owner:
                return None, owner, same, keys, {}
            rows, fits = encode_pairs(self.tokenizer, [premises[k] for k in owner],
                                      [hyps[k] for k in owner], self.max_length, self.token_counts)
            fit = dict(zip(owner, fits))
            self.cut_statements += sum(not fit[j] for j in same.values())
            enc = self.tokenizer.pad(rows, padding=True, return_tensors="pt")
            return enc, owner, same, keys, fit
        same = {k: k for k in range(len(pairs))}
        if self.windows:
            # a pair's windows overlap by a quarter of the room its own statement leaves (not the
            # call's longest statement's), so a pair is read the same in any batch; a statement
            # leaving under 16 tokens has its premise cut instead
            strides: dict[int | None, list[int]] = {}
            for k, n in enumerate(self.token_counts(hyps)):
                room = self.max_length - n - 4
                strides.setdefault(room // 4 if room >= 16 else None, []).append(k)
            if list(strides) != [None]:
                rows: dict[str, list] = {}
                owner: list[int] = []
                for stride, ks in strides.items():
                    how = ({"truncation": "longest_first"} if stride is None else
                           {"truncation": "only_first", "stride": stride,
                            "return_overflowing_tokens": True})
                    part = self.tokenizer([premises[k] for k in ks], [hyps[k] for k in ks],
                                          max_length=self.max_length, **how)
                    owner += [ks[i] for i in part.pop("overflow_to_sample_mapping", range(len(ks)))]
                    for key, column in part.items():
                        rows.setdefault(key, []).extend(column)
                enc = self.tokenizer.pad(rows, padding=True, return_tensors="pt")
                return enc, owner, same, None, {}
        enc = self.tokenizer(premises, hyps, padding=True, truncation="longest_first",
                             max_length=self.max_length, return_tensors="pt")
        return enc, list(range(len(pairs))), same, None, {}

    def model_inputs(self, pairs: Sequence[Pair]) -> list[dict[str, Any]]:
        """The token batches the model reads for ``pairs`` (premise read, hint, token limit,
        length-sorted batches of ``batch_size``), e.g. to calibrate an int8 export on; pairs this
        backend read before (premise select's memory) are not read again."""
        enc = self._encode(pairs)[0]
        if enc is None:
            return []
        return length_batches(enc, self.batch_size, getattr(self.tokenizer, "padding_side", "right"))[1]

    def _remember(self, answers: Mapping[bytes, tuple[Any, bool]]) -> None:
        """Keep ``answers`` (key as read -> probabilities, statement fit) in :attr:`read_memory`,
        the oldest forgotten past ``READ_MEMORY`` entries."""
        self.read_memory.update(answers)
        for key in list(islice(self.read_memory, max(0, len(self.read_memory) - READ_MEMORY))):
            del self.read_memory[key]

    def forget(self) -> None:
        """Drop :attr:`read_memory` and the remembered token counts (``NLIEngine.forget``)."""
        self.read_memory.clear()
        self.token_counts.clear()

    def _setup(self, model: str) -> None:
        try:
            self.labels = label_indices(self.model.config.id2label)
        except CitetrainError as exc:
            raise CitetrainError(f"{model}: {exc}") from None
        self.three_way = "neutral" in self.labels and "contradiction" in self.labels
        limit = getattr(self.tokenizer, "model_max_length", None) or self.max_length
        positions = position_limit(self.model) or limit
        self.max_length = int(min(self.max_length, limit, positions))  # never past the model's positions
        self.premise = (self._premise_option
                        or getattr(self.model.config, "citetrain_premise", None) or "windows")
        from citetrain.nli.hints import HINT_MODES

        self.hint = getattr(self.model.config, "citetrain_hint", None) or "none"
        for key, value, modes in (("citetrain_premise", self.premise, PREMISE_MODES),
                                  ("citetrain_hint", self.hint, HINT_MODES)):
            if value not in modes:
                raise CitetrainError(f"{model}: config {key} {value!r} is not one of "
                                     f"{', '.join(modes)}")
        if self.hint != "none":
            self.revision += f"+hint-{self.hint}"

    def _forward(self, enc: Any) -> Any:
        """Softmax over the labels of every encoded row, in row order (float32, on the CPU)."""
        import torch

        rows = []
        with torch.inference_mode():
            if self.rows_alone:  # each row alone without its padding (hf.quantize_int8)
                n = len(enc["input_ids"])
                order = torch.arange(n)
                parts = [{k: v[r:r + 1, enc["attention_mask"][r].bool()] for k, v in enc.items()}
                         for r in range(n)]
            else:
                order, parts = length_batches(enc, self.batch_size,
                                              getattr(self.tokenizer, "padding_side", "right"))
            for part in parts:
                alone = self.compiled and len(part["input_ids"]) == 1
                if alone:  # a compiled graph for one row would be a second compile: add a copy
                    part = {k: v.repeat(2, 1) for k, v in part.items()}
                logits = self.model(**{k: v.to(self.device) for k, v in part.items()}).logits
                logits = logits[:1] if alone else logits
                rows.append(probabilities(logits))
        all_probs = torch.empty(len(order), rows[0].shape[1])
        all_probs[order] = torch.cat(rows)
        return all_probs

    def predict(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        """Softmax over the model's labels for a batch of pairs."""
        import torch

        if not pairs:
            return []
        enc, owner, same, keys, fit = self._encode(pairs)
        e = self.labels["entailment"]
        read: dict[int, Any] = {}  # pair -> its probabilities, for the pairs this call reads
        if owner:
            all_probs = self._forward(enc)
            best_row: dict[int, int] = {}
            for r, k in enumerate(owner):  # each pair: its window with the highest P(entailment)
                if k not in best_row or all_probs[r, e] > all_probs[best_row[k], e]:
                    best_row[k] = r
            read = {k: all_probs[best_row[j]] for k, j in same.items()}
        probs = torch.stack([read[k] if k in read else self.read_memory[keys[k]][0]
                             for k in range(len(pairs))])
        if keys is not None:
            self._remember({keys[j]: (read[j], fit[j]) for j in owner})
        top = probs.argmax(dim=-1).tolist()
        out = []
        for row, best in zip(probs.tolist(), top):
            prob = row[e]
            label = prob >= self.threshold if self.threshold is not None else best == e
            support = None
            if self.three_way:
                support = (prob, row[self.labels["neutral"]], row[self.labels["contradiction"]])
            out.append(NLIResult(float(prob), bool(label), support))
        return out
