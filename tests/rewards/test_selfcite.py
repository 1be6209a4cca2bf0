"""SelfCite's context-ablation reward (citetrain/rewards/selfcite.py): the value equals
log p(r | e) - log p(r | C \\ e) computed directly with the model, batching changes nothing, and a
model that copies from its context rewards citing the passage that holds the statement's words
over citing a distractor."""
from __future__ import annotations

import pytest

from citetrain.rewards.selfcite import SelfCiteReward, ablation_prompt, response_cases
from citetrain.text.prompts import generator_prompt
from tests.rewards.selfcite_models import DOCS, QUESTION, STATEMENT, copy_lm, tiny_llama, tokenizer


@pytest.fixture(scope="module")
def tok():
    return tokenizer()


def direct_log_prob(model, tok, keep, target_text, prefix="", mean=True):
    """The token log-probabilities of ``target_text`` after the prompt over ``keep``, one
    unpadded sequence, straight from the model's logits."""
    import torch

    head = tok(ablation_prompt(QUESTION, DOCS, keep))["input_ids"]
    if prefix:
        head += tok(" " + prefix, add_special_tokens=False)["input_ids"]
    target = tok(" " + target_text, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([head + target])).logits[0]
    lp = torch.log_softmax(logits, -1)
    values = [float(lp[len(head) - 1 + j, t]) for j, t in enumerate(target)]
    return sum(values) / len(values) if mean else sum(values)


def test_ablation_prompt_keeps_the_passage_numbers():
    text = ablation_prompt(QUESTION, DOCS, [3, 1])
    assert "Document [1](Title: A): The harbour" in text and "Document [3](Title: C)" in text
    assert "Document [2]" not in text and text.endswith("Answer:")


@pytest.mark.parametrize("max_words", [None, 2])
def test_ablation_prompt_is_the_generator_prompt_over_the_kept_passages(max_words):
    # all passages kept: byte for byte the prompt the generator trains on
    assert ablation_prompt(QUESTION, DOCS, [1, 2, 3], max_words) == generator_prompt(
        QUESTION, DOCS, max_words)
    # passages 1 and 3 kept: the generator prompt over those two, with their original numbers
    two = generator_prompt(QUESTION, [DOCS[0], DOCS[2]], max_words)
    assert ablation_prompt(QUESTION, DOCS, [3, 1, 3], max_words) == two.replace(
        "Document [2](Title: C)", "Document [3](Title: C)")
    assert ablation_prompt(QUESTION, DOCS, [], max_words) == generator_prompt(QUESTION, [], max_words)


@pytest.mark.parametrize("normalize", [True, False])
def test_reward_equals_hold_minus_drop_by_hand(tok, normalize):
    model = tiny_llama(tok)
    reward = SelfCiteReward(model, tok, normalize=normalize)
    got = reward.selfcite([""] * 3, [" [2]", " [1][3]", " []"], docs=[DOCS] * 3,
                          statement=[STATEMENT] * 3, question=[QUESTION] * 3)
    expected = [direct_log_prob(model, tok, hold, STATEMENT, mean=normalize)
                - direct_log_prob(model, tok, drop, STATEMENT, mean=normalize)
                for hold, drop in (([2], [1, 3]), ([1, 3], [2]), ([], [1, 2, 3]))]
    assert got == pytest.approx(expected, abs=1e-4)
    parts = reward.components(response_cases(QUESTION, DOCS, f"{STATEMENT[:-1]} [2]."))[0]
    full = direct_log_prob(model, tok, [1, 2, 3], STATEMENT, mean=normalize)
    assert parts["necessity"] == pytest.approx(full - direct_log_prob(model, tok, [1, 3], STATEMENT,
                                                                      mean=normalize), abs=1e-4)
    assert parts["sufficiency"] == pytest.approx(direct_log_prob(model, tok, [2], STATEMENT,
                                                                 mean=normalize) - full, abs=1e-4)
    assert parts["necessity"] + parts["sufficiency"] == pytest.approx(got[0], abs=1e-4)


def test_whole_answer_is_the_mean_over_statements_with_the_earlier_ones_as_prefix(tok):
    model = tiny_llama(tok, seed=1)
    second = "The harbour of Arlo is grey."
    answer = f"{STATEMENT[:-1]} [2]. {second[:-1]} [1][9]."  # [9] is out of range: dropped
    got = SelfCiteReward(model, tok).selfcite([""], [answer], docs=[DOCS], question=[QUESTION])[0]
    first = (direct_log_prob(model, tok, [2], STATEMENT)
             - direct_log_prob(model, tok, [1, 3], STATEMENT))
    prefix = f"{STATEMENT[:-1]} [2]."
    then = (direct_log_prob(model, tok, [1], second, prefix)
            - direct_log_prob(model, tok, [2, 3], second, prefix))
    assert got == pytest.approx((first + then) / 2, abs=1e-4)
    assert SelfCiteReward(model, tok).selfcite([""], [""], docs=[DOCS])[0] == 0.0


def test_batching_and_deduplication_change_no_value(tok):
    model = tiny_llama(tok)
    completions = [" [2]", " [1]", " [2]", " [3]"]  # " [2]" twice: scored once
    kwargs = dict(docs=[DOCS] * 4, statement=[STATEMENT] * 4, question=[QUESTION] * 4)
    one_pass = SelfCiteReward(model, tok, max_batch_tokens=100_000)
    per_row = SelfCiteReward(model, tok, max_batch_tokens=1)
    a, b = one_pass.selfcite([""] * 4, completions, **kwargs), per_row.selfcite([""] * 4, completions, **kwargs)
    assert a == pytest.approx(b, abs=1e-4) and a[0] == a[2]
    assert one_pass.forward_passes == 1 and per_row.forward_passes == 6  # 3 sets x (hold, drop)


def test_citing_the_passage_that_holds_the_words_beats_a_distractor(tok):
    reward = SelfCiteReward(copy_lm(len(tok)), tok)
    right, wrong, both, none = reward.selfcite(
        [""] * 4, [" [2]", " [1]", " [1][2]", " []"], docs=[DOCS] * 4,
        statement=[STATEMENT] * 4, question=[QUESTION] * 4)
    assert right > 0 > wrong
    assert both > wrong and right > none


def test_length_limit_penalises_long_multi_passage_citations(tok):
    model = tiny_llama(tok)
    plain = SelfCiteReward(model, tok)
    capped = SelfCiteReward(model, tok, max_cited_tokens=5)
    kwargs = dict(docs=[DOCS] * 2, statement=[STATEMENT] * 2)
    a, b = plain.selfcite([""] * 2, [" [2]", " [1][2]"], **kwargs), capped.selfcite(
        [""] * 2, [" [2]", " [1][2]"], **kwargs)
    assert b[0] == pytest.approx(a[0]) and b[1] == pytest.approx(a[1] - 1000.0)


def test_bad_batch_size_is_one_clear_error(tok):
    from citetrain.errors import CitetrainError

    with pytest.raises(CitetrainError, match="max_batch_tokens"):
        SelfCiteReward(tiny_llama(tok), tok, max_batch_tokens=0)


def test_grpo_mix_scores_selfcite_with_the_policy_beside_the_nli_rewards(tok):
    from citetrain.errors import CitetrainError
    from citetrain.train.grpo import reward_functions
    from citetrain.train.recipe_schema import RLSection

    model = tiny_llama(tok)
    rl = RLSection(rewards={"recall": 1.0, "selfcite": 0.5})
    funcs, weights = reward_functions(rl, model, tok)
    assert [f.__name__ for f in funcs] == ["recall", "selfcite"] and weights == [1.0, 0.5]
    docs = [[{"title": d.title, "text": d.text} for d in DOCS]]
    direct = SelfCiteReward(model, tok).selfcite([""], [" [2]"], docs=docs, statement=[STATEMENT])
    assert funcs[1]([""], [" [2]"], docs=docs, statement=[STATEMENT]) == pytest.approx(direct)
    with pytest.raises(CitetrainError, match="rl.selfcite.model is null"):
        reward_functions(rl)
