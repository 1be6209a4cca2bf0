"""``kind: grpo``: trl's ``GRPOTrainer`` on the prompts of a built refiner or generator set,
rewarded by the citation rewards of :mod:`citetrain.rewards.citation` and SelfCite's
context-ablation reward (:mod:`citetrain.rewards.selfcite`, scored by the policy itself unless
``rl.selfcite.model`` names a scorer) with the recipe's weights (``rl.rewards``), LoRA / QLoRA /
full as the recipe says, from ``model.adapter`` when given."""
from __future__ import annotations

from typing import Any

from citetrain.errors import CitetrainError
from citetrain.train import components as S
from citetrain.train.recipe_schema import Recipe, RLSection


def reward_dataset(examples: Any, records: dict[str, Any], rl: RLSection) -> Any:
    """A ``datasets.Dataset`` of prompts with the reward columns (:func:`reward_columns`)."""
    import datasets

    from citetrain.rewards.preference import reward_columns

    if not records:
        raise CitetrainError("kind grpo scores completions against the records' passages: no "
                             "records.jsonl beside the dataset (rebuild it with `citetrain build`)")
    rows = reward_columns(examples, records, rl.task)
    if "preservation" in rl.rewards and not all("original" in r for r in rows):
        raise CitetrainError("rl.rewards: preservation needs an `original` column in the dataset")
    return datasets.Dataset.from_list(rows)


def selfcite_reward(rl: RLSection, model: Any = None, tokenizer: Any = None):
    """The SelfCite reward (:mod:`citetrain.rewards.selfcite`) scored by ``rl.selfcite.model``,
    or by ``model`` (the policy) when that is null."""
    from citetrain.rewards.selfcite import SelfCiteReward

    opts = rl.selfcite
    kwargs = dict(max_batch_tokens=opts.max_batch_tokens, normalize=opts.normalize,
                  max_cited_tokens=opts.max_cited_tokens)
    if opts.model is not None:
        return SelfCiteReward.from_pretrained(opts.model, **kwargs)
    if model is None or tokenizer is None:
        raise CitetrainError("rl.selfcite.model is null (score with the trained model), but no "
                             "model was given to score with")
    return SelfCiteReward(model, tokenizer, **kwargs)


def reward_functions(rl: RLSection, model: Any = None, tokenizer: Any = None):
    """``(reward_funcs, reward_weights)`` of the recipe's mix, in its order; ``selfcite`` is
    scored by ``model`` / ``tokenizer`` (the policy) unless ``rl.selfcite.model`` names one."""
    from citetrain.nli.registry import make_engine
    from citetrain.rewards.citation import CitationRewards

    nli_names = {k: w for k, w in rl.rewards.items() if k != "selfcite"}
    funcs = {}
    if nli_names:
        engine = make_engine(rl.nli, progress=False, **rl.nli_options)
        funcs.update(zip(nli_names, CitationRewards(engine, at_most_citations=rl.at_most_citations)
                         .mix(**nli_names)[0]))
    if "selfcite" in rl.rewards:
        funcs["selfcite"] = selfcite_reward(rl, model, tokenizer).selfcite
    return [funcs[k] for k in rl.rewards], [float(w) for w in rl.rewards.values()]


def grpo_config(recipe: Recipe, has_eval: bool, weights: list[float]):
    """trl's ``GRPOConfig`` from the recipe: the shared schedule and checkpoints, the group size,
    completion length, temperature, KL coefficient and reward weights."""
    from trl import GRPOConfig

    rl = recipe.rl or RLSection()
    kwargs = S.trainer_kwargs(recipe, has_eval, eval_batch_size=recipe.train.batch_size)
    kwargs.update(num_generations=rl.num_generations, max_completion_length=rl.max_completion_length,
                  temperature=rl.temperature, reward_weights=weights, log_completions=False,
                  num_generations_eval=rl.num_generations)
    if rl.beta is not None:
        kwargs["beta"] = rl.beta
    kwargs.update(S.best_checkpoint_kwargs(recipe, has_eval))
    return GRPOConfig(**kwargs)


def train_grpo(recipe: Recipe, extra_callbacks: tuple[Any, ...] = ()) -> dict[str, Any]:
    """One GRPO run; the summary of :func:`citetrain.train.session.train_and_save` with the mean
    reward of every logged step (``rewards``)."""
    from trl import GRPOTrainer

    from citetrain.train.session import prepare, train_and_save

    rl = recipe.rl or RLSection()
    s = prepare(recipe, extra_callbacks, completion_key=None)
    train_set = reward_dataset(s.train_set, s.records, rl)
    eval_set = (reward_dataset(s.eval_small, s.records, rl) if s.eval_small is not None else None)
    funcs, weights = reward_functions(rl, s.model, s.tokenizer)
    trainer = GRPOTrainer(model=s.model, reward_funcs=funcs,
                          args=grpo_config(recipe, eval_set is not None, weights),
                          train_dataset=train_set, eval_dataset=eval_set,
                          processing_class=s.tokenizer, peft_config=S.peft_config(recipe),
                          callbacks=s.callbacks)
    return train_and_save(s, trainer)
