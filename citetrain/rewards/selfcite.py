"""SelfCite's context-ablation reward: a citation is good when the cited passages alone let the
model say the statement, and removing them makes it hard to say.

For a statement ``r`` of a response to question ``q`` over passages ``C``, with cited passages
``e`` (the ``[k]`` marks of the statement, ids outside ``1..|C|`` dropped), and the response's
earlier statements ``h`` (as written, marks included)::

    necessity   = log p(r | q, C, h) - log p(r | q, C \\ e, h)
    sufficiency = log p(r | q, e, h) - log p(r | q, C, h)
    reward      = necessity + sufficiency = log p(r | q, e, h) - log p(r | q, C \\ e, h)

(Chuang et al., "SelfCite: Self-Supervised Alignment for Context Attribution in Large Language
Models", ICML 2025, §2: probability drop and probability hold). As in the paper's code:

* only the statement's own tokens are scored: its citation marks are removed from ``r`` and never
  scored, while the earlier statements ``h`` are the conditioning prefix with their marks;
* ``log p`` is the *mean* token log-probability of ``r`` (``normalize=True``, the paper's
  length normalisation); ``normalize=False`` sums the token log-probabilities instead;
* the full-context term ``log p(r | q, C, h)`` cancels in the reward and is not computed
  (:meth:`SelfCiteReward.components` computes it, for necessity and sufficiency apart);
* ablated passages are removed from the prompt while the kept ones keep their numbers
  (``Document [3](Title: ...)`` stays ``[3]``), as the paper keeps its ``<C{i}>`` chunk ids;
* optionally (``max_cited_tokens``), a statement citing more than one passage whose cited text
  exceeds that many tokens loses ``1000``, the paper's guard against citing everything.

A whole response's reward is the mean of its statements' rewards (the paper re-ranks each
statement's citations on its own; the mean keeps responses of any length comparable); a
response with no statement scores 0. The scoring prompt is the generator prompt of
:func:`citetrain.text.prompts.generator_prompt` (through the tokenizer's chat template when it
has one), followed by the answer so far. The scoring model is any causal LM - the policy itself
during GRPO, or one loaded by :meth:`SelfCiteReward.from_pretrained`. The ablated contexts of a
batch go through the model together, sorted by length and packed so that no forward pass holds
more than ``max_batch_tokens`` (padded) tokens; identical sequences are scored once.
"""
from __future__ import annotations

__all__ = ["SelfCiteReward"]

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from citetrain.errors import CitetrainError
from citetrain.records import Doc
from citetrain.rewards.citation import as_docs, completion_text
from citetrain.text.marks import alce_ids
from citetrain.text.prompts import generator_prompt
from citetrain.text.statements import statements

LENGTH_PENALTY = 1000.0
"""Subtracted when the cited text is over ``max_cited_tokens`` (SelfCite's length limit)."""


@dataclass(frozen=True)
class Case:
    """One statement to score: the question, all passages, the answer so far (``prefix``, marks
    kept), the statement's text without marks, and the 1-based ids it cites."""

    question: str
    docs: tuple[Doc, ...]
    prefix: str
    statement: str
    ids: tuple[int, ...]


def passages(docs: Any) -> list[Doc]:
    """A ``docs`` column entry as passages: :class:`Doc` objects, ``{"title", "text"}`` objects
    or texts."""
    return [d if isinstance(d, Doc) else as_docs([d])[0] for d in docs or []]


def ablation_prompt(question: str, docs: Sequence[Doc], keep: Sequence[int],
                    max_words: int | None = None) -> str:
    """The generator prompt (:func:`~citetrain.text.prompts.generator_prompt`) over the passages
    ``keep`` (1-based ids) only, in order, each with its original number."""
    kept = sorted(set(keep))
    return generator_prompt(question, [docs[k - 1] for k in kept], max_words, ids=kept)


def response_cases(question: str, docs: Sequence[Doc], response: str) -> list[Case]:
    """One :class:`Case` per statement of a whole response (sentences as the metrics split them)."""
    out, before = [], []
    n = len(docs)
    for st in statements(response, first_line_only=False):
        if st.text.strip():
            ids = tuple(dict.fromkeys(k for k in st.citations if 1 <= k <= n))
            out.append(Case(question, tuple(docs), " ".join(before), st.text.strip(), ids))
        before.append(st.raw.strip())
    return out


def statement_case(question: str, docs: Sequence[Doc], statement: str, marks: str,
                   prefix: str = "") -> Case:
    """The :class:`Case` of a refiner completion: ``marks`` (``" [2][5]"``) for ``statement``."""
    n = len(docs)
    ids = tuple(dict.fromkeys(k for k in alce_ids(marks) if 1 <= k <= n))
    return Case(question, tuple(docs), prefix, statement.strip(), ids)


class SelfCiteReward:
    """``SelfCiteReward(model, tokenizer, max_batch_tokens=8192, normalize=True,
    max_doc_words=None, max_cited_tokens=None)``: the reward of the module docstring with
    ``model`` as the scorer; :meth:`selfcite` has TRL's reward-function signature."""

    def __init__(self, model: Any, tokenizer: Any, *, max_batch_tokens: int = 8192,
                 normalize: bool = True, max_doc_words: int | None = None,
                 max_cited_tokens: int | None = None) -> None:
        if max_batch_tokens < 1:
            raise CitetrainError(f"selfcite: max_batch_tokens must be >= 1, got {max_batch_tokens}")
        self.model, self.tokenizer = model, tokenizer
        self.max_batch_tokens = max_batch_tokens
        self.normalize = normalize
        self.max_doc_words = max_doc_words
        self.max_cited_tokens = max_cited_tokens
        self.forward_passes = 0  # model calls so far (batching is visible to callers and tests)

    @classmethod
    def from_pretrained(cls, path: str, **options: Any) -> "SelfCiteReward":
        """The reward scored by the causal LM at ``path`` (a model folder, a LoRA adapter folder
        or a hub id); a clear error when it cannot be loaded."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(path)
            if (Path(path) / "adapter_config.json").is_file():
                from peft import AutoPeftModelForCausalLM

                model = AutoPeftModelForCausalLM.from_pretrained(path)
            else:
                model = AutoModelForCausalLM.from_pretrained(path)
        except (OSError, ValueError) as exc:
            raise CitetrainError(f"selfcite model {path!r}: cannot be loaded "
                                 f"({str(exc).splitlines()[0]})") from None
        return cls(model.eval(), tokenizer, **options)

    # -- tokens ------------------------------------------------------------------------------
    def _head(self, case: Case, keep: Sequence[int]) -> list[int]:
        """Token ids of the scoring prompt over ``keep`` and the answer so far."""
        prompt = ablation_prompt(case.question, case.docs, keep, self.max_doc_words)
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            text = tok.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                           add_generation_prompt=True)
            ids = tok(text, add_special_tokens=False)["input_ids"]
        else:
            ids = tok(prompt)["input_ids"]
        if case.prefix:
            ids = ids + tok(" " + case.prefix, add_special_tokens=False)["input_ids"]
        return ids

    def _target(self, case: Case) -> list[int]:
        return self.tokenizer(" " + case.statement, add_special_tokens=False)["input_ids"]

    # -- scoring -----------------------------------------------------------------------------
    def log_probs(self, sequences: Sequence[tuple[list[int], list[int]]]) -> list[float]:
        """The (mean or summed) log-probability of each ``target`` after its ``head``, for
        ``(head, target)`` token lists, batched under ``max_batch_tokens``."""
        import torch

        order = sorted(range(len(sequences)), key=lambda i: -len(sequences[i][0]) - len(sequences[i][1]))
        out = [0.0] * len(sequences)
        pad = self.tokenizer.pad_token_id
        pad = pad if pad is not None else (self.tokenizer.eos_token_id or 0)
        device = next(self.model.parameters()).device
        training = getattr(self.model, "training", False)
        self.model.eval()
        try:
            pos = 0
            while pos < len(order):
                width = len(sequences[order[pos]][0]) + len(sequences[order[pos]][1])
                rows = max(1, self.max_batch_tokens // max(width, 1))
                batch = order[pos:pos + rows]
                pos += len(batch)
                ids = torch.full((len(batch), width), pad, dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for r, i in enumerate(batch):
                    seq = sequences[i][0] + sequences[i][1]
                    ids[r, :len(seq)] = torch.tensor(seq)
                    mask[r, :len(seq)] = 1
                with torch.inference_mode():
                    logits = self.model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
                self.forward_passes += 1
                for r, i in enumerate(batch):
                    head, target = sequences[i]
                    if not target:
                        continue
                    lp = torch.log_softmax(logits[r, len(head) - 1:len(head) + len(target) - 1].float(), -1)
                    tok = lp.gather(-1, torch.tensor(target, device=lp.device)[:, None]).squeeze(-1)
                    out[i] = float(tok.mean() if self.normalize else tok.sum())
        finally:
            self.model.train(training)
        return out

    def _scored(self, cases: Sequence[Case], keeps: Sequence[Sequence[int]]) -> list[float]:
        """log p(statement | kept passages) for each (case, keep), identical sequences once."""
        seqs: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        index = []
        for case, keep in zip(cases, keeps):
            key = (tuple(self._head(case, keep)), tuple(self._target(case)))
            index.append(seqs.setdefault(key, len(seqs)))
        values = self.log_probs([(list(h), list(t)) for h, t in seqs])
        return [values[j] for j in index]

    def _penalty(self, case: Case) -> float:
        if self.max_cited_tokens is None or len(case.ids) < 2:
            return 0.0
        text = " ".join(case.docs[k - 1].text for k in case.ids)
        n = len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        return LENGTH_PENALTY if n > self.max_cited_tokens else 0.0

    def case_rewards(self, cases: Sequence[Case]) -> list[float]:
        """log p(r | e) - log p(r | C \\ e) (minus the length penalty) for each case."""
        holds = [c.ids for c in cases]
        drops = [[k for k in range(1, len(c.docs) + 1) if k not in c.ids] for c in cases]
        got = self._scored(list(cases) * 2, holds + drops)
        n = len(cases)
        return [got[i] - got[n + i] - self._penalty(c) for i, c in enumerate(cases)]

    def components(self, cases: Sequence[Case]) -> list[dict[str, float]]:
        """``necessity``, ``sufficiency`` and ``reward`` of each case (three passes per case)."""
        n = len(cases)
        full = [list(range(1, len(c.docs) + 1)) for c in cases]
        drops = [[k for k in f if k not in c.ids] for c, f in zip(cases, full)]
        got = self._scored(list(cases) * 3, [c.ids for c in cases] + drops + full)
        return [{"necessity": got[2 * n + i] - got[n + i], "sufficiency": got[i] - got[2 * n + i],
                 "reward": got[i] - got[n + i]} for i in range(n)]

    # -- TRL -----------------------------------------------------------------------------------
    def selfcite(self, prompts: Sequence[Any], completions: Sequence[Any], docs: Sequence[Any],
                 statement: Sequence[str] | None = None, question: Sequence[str] | None = None,
                 prefix: Sequence[str] | None = None, **_: Any) -> list[float]:
        """TRL reward function: one value per completion (a refiner's marks for ``statement``,
        or a whole answer with marks; see the module docstring)."""
        cases: list[Case] = []
        owner: list[int] = []
        for i, c in enumerate(completions):
            text, ctx = completion_text(c), passages(docs[i])
            q = str(question[i]) if question else ""
            if statement:
                mine = [statement_case(q, ctx, str(statement[i]), text,
                                       str(prefix[i]) if prefix else "")]
            else:
                mine = response_cases(q, ctx, text)
            cases.extend(mine)
            owner.extend([i] * len(mine))
        values = self.case_rewards(cases) if cases else []
        sums, counts = [0.0] * len(completions), [0] * len(completions)
        for i, v in zip(owner, values):
            sums[i] += v
            counts[i] += 1
        return [s / k if k else 0.0 for s, k in zip(sums, counts)]

    __call__ = selfcite
