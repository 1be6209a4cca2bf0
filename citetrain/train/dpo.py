"""``kind: dpo``: trl's ``DPOTrainer`` on preference pairs made from a built refiner or generator
set: the gold completion chosen over a perturbed or the original citation set
(:func:`citetrain.rewards.preference.preference_pairs`), or over the worst of ``rl.samples``
completions sampled from the starting model and ranked by the recipe's reward mix
(``rl.rejected: sampled``; the best is then the chosen one), or SelfCite's best and worst
citation sets by the context-ablation reward (``rl.rejected: selfcite``,
:mod:`citetrain.rewards.selfcite_pairs`). With ``model.adapter`` the SFT adapter
trains on and a frozen copy of it is the reference model."""
from __future__ import annotations

from typing import Any

from citetrain.errors import CitetrainError
from citetrain.train import components as S
from citetrain.train.recipe_schema import Recipe, RLSection


def sampled_pairs(model: Any, tokenizer: Any, examples: Any, records: dict[str, Any],
                  recipe: Recipe) -> list[dict[str, Any]]:
    """One pair per prompt whose ``rl.samples`` sampled completions do not all tie: the best and
    the worst by the reward mix (:func:`citetrain.rewards.preference.ranked_pair`)."""
    import torch

    from citetrain.rewards.preference import ranked_pair, reward_columns
    from citetrain.models.generate import generate_texts
    from citetrain.train.grpo import reward_functions

    rl = recipe.rl or RLSection()
    rows = reward_columns(examples, records, rl.task)
    funcs, weights = reward_functions(rl, model, tokenizer)
    prompts = [r["prompt"] for r in rows for _ in range(rl.samples)]
    torch.manual_seed(recipe.train.seed)
    outs = generate_texts(model, tokenizer, prompts, max_new_tokens=rl.max_completion_length,
                          batch_size=recipe.eval.batch_size, max_length=recipe.data.max_length,
                          temperature=rl.temperature)
    columns = {k: [r[k] for r in rows for _ in range(rl.samples)] for k in rows[0] if k != "prompt"}
    total = [0.0] * len(outs)
    for fn, w in zip(funcs, weights):
        for i, v in enumerate(fn(prompts, outs, **columns)):
            total[i] += w * v
    pairs = []
    for j, row in enumerate(rows):
        lo = j * rl.samples
        pair = ranked_pair(row["prompt"], outs[lo:lo + rl.samples], total[lo:lo + rl.samples])
        if pair:
            pairs.append({"id": row["id"], "unit": row["unit"], **pair})
    return pairs


def selfcite_rows(model: Any, tokenizer: Any, examples: Any, records: dict[str, Any],
                  recipe: Recipe) -> tuple[list[dict[str, Any]], int]:
    """SelfCite pairs (:mod:`citetrain.rewards.selfcite_pairs`): ``rl.samples`` outputs sampled
    per prompt from the starting model, the given and drawn citation sets, ranked by the reward."""
    import torch

    from citetrain.rewards.selfcite_pairs import selfcite_pairs
    from citetrain.models.generate import generate_texts
    from citetrain.train.grpo import selfcite_reward

    rl = recipe.rl or RLSection()
    examples = list(examples)
    prompts = [ex["prompt"] for ex in examples for _ in range(rl.samples)]
    torch.manual_seed(recipe.train.seed)
    outs = generate_texts(model, tokenizer, prompts, max_new_tokens=rl.max_completion_length,
                          batch_size=recipe.eval.batch_size, max_length=recipe.data.max_length,
                          temperature=rl.temperature)
    sampled = [outs[j * rl.samples:(j + 1) * rl.samples] for j in range(len(examples))]
    return selfcite_pairs(examples, records, selfcite_reward(rl, model, tokenizer),
                          n=rl.selfcite.candidates, seed=recipe.train.seed,
                          max_ids=rl.selfcite.max_ids, sampled=sampled)


def pairs_dataset(s: Any, examples: Any, what: str) -> Any:
    """The DPO pairs of ``examples`` as a ``datasets.Dataset`` (made on the main process first)."""
    import datasets

    from citetrain.rewards.preference import preference_pairs

    recipe, rl = s.recipe, s.recipe.rl or RLSection()
    if not s.records:
        raise CitetrainError("kind dpo makes its pairs from the records: no records.jsonl beside "
                             "the dataset (rebuild it with `citetrain build`)")
    if rl.rejected == "sampled":
        rows = sampled_pairs(s.model, s.tokenizer, examples, s.records, recipe)
        skipped = len(examples) - len(rows)
    elif rl.rejected == "selfcite":
        rows, skipped = selfcite_rows(s.model, s.tokenizer, examples, s.records, recipe)
    else:
        rows, skipped = preference_pairs(examples, s.records, rl.task, rl.rejected,
                                         recipe.train.seed)
    if s.main:
        print(f"[citetrain] {what}: {len(rows)} preference pairs ({rl.rejected}); {skipped} "
              "examples without a distinct rejected completion left out", flush=True)
    if not rows:
        raise CitetrainError(f"{what}: no preference pair could be made")
    return datasets.Dataset.from_list(rows)


def dpo_config(recipe: Recipe, has_eval: bool):
    """trl's ``DPOConfig`` from the recipe (``rl.beta`` when given)."""
    from trl import DPOConfig

    rl = recipe.rl or RLSection()
    kwargs = S.trainer_kwargs(recipe, has_eval, eval_batch_size=recipe.train.batch_size)
    kwargs.update(max_length=recipe.data.max_length)
    if rl.beta is not None:
        kwargs["beta"] = rl.beta
    if rl.sft_weight:  # DPO plus the chosen completion's NLL (RPO)
        kwargs.update(loss_type=["sigmoid", "sft"], loss_weights=[1.0, rl.sft_weight])
    kwargs.update(S.best_checkpoint_kwargs(recipe, has_eval))
    return DPOConfig(**kwargs)


def train_dpo(recipe: Recipe, extra_callbacks: tuple[Any, ...] = ()) -> dict[str, Any]:
    """One DPO run; the summary of :func:`citetrain.train.session.train_and_save`, with the
    chosen-minus-rejected reward margin of every logged step (``margins``)."""
    from trl import DPOTrainer

    from citetrain.train.session import prepare, train_and_save

    s = prepare(recipe, extra_callbacks)
    train_set = pairs_dataset(s, s.train_set, "train")
    eval_set = pairs_dataset(s, s.eval_small, "eval") if s.eval_small is not None else None
    trainer = DPOTrainer(model=s.model, args=dpo_config(recipe, eval_set is not None),
                         train_dataset=train_set, eval_dataset=eval_set,
                         processing_class=s.tokenizer, peft_config=S.peft_config(recipe),
                         callbacks=s.callbacks)
    return train_and_save(s, trainer)
