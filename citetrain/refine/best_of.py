"""Best-of-N refinement (SelfCite §3.1): a causal-LM refiner samples N citation sets for each
statement and the one with the highest context-ablation reward (:mod:`citetrain.rewards.selfcite`)
replaces the statement's citations.

A statement's candidates are the distinct id sets of its N sampled outputs (ids out of range
dropped, at most ``max_ids`` each) and its given citations, listed first so that a tie keeps them
(:func:`citetrain.rewards.selfcite_pairs.candidate_sets` with nothing drawn at random). All
candidates of a chunk of records go to the reward in one call, so their ablated contexts are
batched together. The text stays byte-identical outside the marks
(:func:`citetrain.refine.generative.replace_citations`).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from citetrain.rewards.selfcite_pairs import candidate_sets
from citetrain.errors import CitetrainError
from citetrain.records import Record
from citetrain.refine.generative import COUNT_KEYS, refiner_prompts, replace_citations
from citetrain.refine.load import Refiner
from citetrain.rewards.selfcite import Case, SelfCiteReward, response_cases

SampleFn = Callable[[Sequence[str]], list[list[str]]]
"""``sample(prompts)``: N refiner outputs for each prompt."""


def model_sampler(model: Any, tokenizer: Any, n: int, *, temperature: float = 1.0, seed: int = 0,
                  max_new_tokens: int = 24, batch_size: int = 8, max_length: int | None = None,
                  progress: bool = False) -> SampleFn:
    """``n`` outputs per prompt sampled from a causal-LM refiner at ``temperature`` (seeded)."""
    import torch

    from citetrain.models.generate import generate_texts

    def sample(prompts: Sequence[str]) -> list[list[str]]:
        torch.manual_seed(seed)
        flat = [p for p in prompts for _ in range(n)]
        outs = generate_texts(model, tokenizer, flat, max_new_tokens=max_new_tokens,
                              batch_size=batch_size, max_length=max_length,
                              temperature=temperature, progress=progress)
        return [outs[j * n:(j + 1) * n] for j in range(len(prompts))]

    return sample


def best_of_n_refine(records: Sequence[Record], sample: SampleFn, reward: SelfCiteReward, *,
                     max_ids: int | None = 3, max_words: int | None = None,
                     counts: dict[str, int] | None = None) -> tuple[list[Record], dict[str, int]]:
    """Refined copies of ``records`` and the counts of
    :func:`~citetrain.refine.generative.apply_refiner_outputs` (``not_ids``: sampled outputs that
    are not ids; ``ids``: ids of the chosen sets), accumulated in ``counts`` when given."""
    from citetrain.text import prompts as P

    counts = counts if counts is not None else {}
    for key in COUNT_KEYS:
        counts.setdefault(key, 0)
    prompts = [refiner_prompts(r, max_words) for r in records]
    outs = sample([p for ps in prompts for p in ps])
    cases: list[Case] = []
    plan: list[list[tuple[int, int, list[tuple[int, ...]]] | None]] = []
    pos = 0
    for rec, ps in zip(records, prompts):
        mine = response_cases(rec.question, rec.docs, rec.output)
        slots: list[tuple[int, int, list[tuple[int, ...]]] | None] = []
        if len(mine) != len(ps):  # the statements and the prompts disagree: leave it as it is
            plan.append([None] * len(ps))
            pos += len(ps)
            continue
        for case, sampled in zip(mine, outs[pos:pos + len(ps)]):
            counts["statements"] += 1
            counts["not_ids"] += sum(P.parse_ids_strict(o) is None for o in sampled)
            sets = candidate_sets(case.ids, sampled, len(rec.docs), len(sampled) + 1, None, max_ids)
            slots.append((len(cases), len(cases) + len(sets), sets))
            cases.extend(Case(case.question, case.docs, case.prefix, case.statement, ids)
                         for ids in sets)
        plan.append(slots)
        pos += len(ps)
    values = reward.case_rewards(cases) if cases else []
    refined = []
    for rec, slots in zip(records, plan):
        ids: list[list[int] | None] = []
        for slot in slots:
            if slot is None:
                ids.append(None)
                continue
            lo, hi, sets = slot
            best = max(range(hi - lo), key=lambda i: values[lo + i])  # first of equals: given
            ids.append(list(sets[best]))
            counts["ids"] += len(sets[best])
        output = rec.output
        if any(i is not None for i in ids):
            try:
                output = replace_citations(rec.output, ids)
            except ValueError:
                counts["records_unchanged"] += 1
        else:
            counts["records_unchanged"] += 1
        refined.append(rec.model_copy(update={"output": output}))
    return refined, counts


def load_best_of(path: str, n: int, *, scorer: str | None = None, temperature: float = 1.0,
                 seed: int = 0, max_new_tokens: int = 24, batch_size: int = 8,
                 max_length: int | None = None, max_words: int | None = None, max_ids: int | None = 3,
                 max_batch_tokens: int = 8192, progress: bool = False) -> Refiner:
    """The causal-LM refiner at ``path`` as a best-of-``n`` refiner, re-ranked by the SelfCite
    reward of ``scorer`` (a causal LM path or hub id; ``None``: the refiner itself)."""
    from citetrain.models.loading import load_causal_lm
    from citetrain.refine.load import kind_of

    if n < 1:
        raise CitetrainError(f"--best-of: at least 1 sample per statement, got {n}")
    if kind_of(path) != "generative":
        raise CitetrainError(f"--best-of: {path} is a {kind_of(path)} refiner; best-of-N samples "
                             "citation sets from a causal-LM refiner")
    model, tokenizer = load_causal_lm(path, role="--refiner")
    reward = (SelfCiteReward.from_pretrained(scorer, max_batch_tokens=max_batch_tokens)
              if scorer else SelfCiteReward(model, tokenizer, max_batch_tokens=max_batch_tokens))
    sample = model_sampler(model, tokenizer, n, temperature=temperature, seed=seed,
                           max_new_tokens=max_new_tokens, batch_size=batch_size,
                           max_length=max_length, progress=progress)
    return Refiner("generative", f"{path}+best-of-{n}", lambda records, counts: best_of_n_refine(
        records, sample, reward, max_ids=max_ids, max_words=max_words, counts=counts))
