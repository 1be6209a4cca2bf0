"""The citation rewards as TRL calls them: a few GRPO steps of a tiny causal LM on prompts whose
dataset carries docs and statements; every reward is logged and the adapter-free model trains."""
from __future__ import annotations


def test_grpo_trainer_calls_the_citation_rewards(tmp_path):
    import datasets
    import torch
    from transformers import AutoModelForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    from citetrain.models.tiny import TinySpec, tiny_config, train_tokenizer
    from citetrain.nli.registry import make_engine
    from citetrain.rewards import CitationRewards

    docs = ["Paris is the capital of France.", "The Eiffel Tower is 330 metres tall.",
            "Bananas are yellow."]
    statements = ["Paris is the capital of France.", "The Eiffel Tower is 330 metres tall."]
    prompts = [f"Docs: [1] {docs[0]} [2] {docs[1]} [3] {docs[2]} Statement: {s} Citations:"
               for s in statements] * 4
    data = datasets.Dataset.from_dict({"prompt": prompts, "docs": [docs] * len(prompts),
                                       "statement": statements * 4})
    tok = train_tokenizer(prompts + [" [1] [2] [3]"] * 20, 300)
    torch.manual_seed(0)
    spec = TinySpec(family="llama", hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                    num_attention_heads=4, num_key_value_heads=2, vocab_size=300)
    model = AutoModelForCausalLM.from_config(tiny_config(spec, tok))
    rewards = CitationRewards(make_engine("lexical", cache=False, progress=False))
    funcs, weights = rewards.mix(recall=1.0, precision=1.0, wellformed=0.5)
    args = GRPOConfig(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=4,
                      num_generations=4, max_completion_length=6, logging_steps=1, report_to="none",
                      use_cpu=True, reward_weights=weights, save_strategy="no",
                      remove_unused_columns=False)
    trainer = GRPOTrainer(model=model, reward_funcs=funcs, args=args, train_dataset=data,
                          processing_class=tok)
    trainer.train()
    logged = [h for h in trainer.state.log_history if "reward" in h]
    assert logged and all(f"rewards/{n}/mean" in logged[0] for n in ("recall", "precision", "wellformed"))
    for h in logged:
        assert all(0.0 <= h[f"rewards/{n}/mean"] <= 1.0 for n in ("recall", "precision", "wellformed"))
