"""The lexical NLI on Chinese, Japanese and mixed text: character bigrams for CJK runs."""
from __future__ import annotations

import pytest

from citetrain.nli.lexical import LexicalNLI, cjk_tokens, content_tokens, content_words


def keys(text: str) -> list[str]:
    return [key for _, key, _ in content_tokens(text)]


def test_cjk_runs_give_bigrams_and_single_characters():
    assert cjk_tokens("北京是首都") == ["北京", "京是", "是首", "首都"]
    assert cjk_tokens("在") == ["在"]
    # punctuation ends a run: 在 stands alone; numbers are number tokens
    assert keys("人口2100万，在北京。") == ["人口", "2100", "万", "在北", "北京"]
    assert content_tokens("1949年")[0] == ("1949", "1949", True)
    assert keys("東京タワーは高い") == ["東京", "京タ", "タワ", "ワー", "ーは", "は高", "高い"]


def test_mixed_text_reads_each_run_by_its_rule():
    assert keys("GPT-4是OpenAI的模型") == ["gpt", "4", "是", "openai", "的模", "模型"]
    # full-width digits in CJK text read as ASCII
    assert keys("成立于１９４９年") == keys("成立于1949年")


def test_text_without_cjk_keeps_its_tokens():
    assert keys("The cats were sitting on 3 mats in 1,999.") == ["cat", "sit", "3", "mat", "1999"]
    # the Latin words of a mixed text are those of the text without its CJK runs
    assert keys("Cats 北京 were sitting") == ["cat", "北京", "sit"]


def test_scores_on_chinese_pairs():
    nli = LexicalNLI(threshold=0.7)
    full, part, number, nothing = nli.predict([
        # hypothesis 北京 京是 是中 中国 国的 的首 首都: all 7 in the premise
        ("北京是中国的首都，也是政治中心。", "北京是中国的首都。"),
        # premise 北京 京是 是首 首都: 北京 京是 首都 = 3 of 7
        ("北京是首都。", "北京是中国的首都。"),
        # numbers are tokens and must all be in the premise (see below)
        ("人口约2000万。", "人口约2100万。"),
        ("北京。", "。"),  # no content token
    ])
    assert (full.prob, full.label) == (1.0, True)
    assert part.prob == pytest.approx(3 / 7) and not part.label
    # hypothesis: 人口 口约 2100 万 -> 人口 口约 万 in the premise: 3 of 4, 2100 missing
    assert number.prob == pytest.approx(3 / 4) and not number.label
    assert (nothing.prob, nothing.label) == (0.0, False)
    assert content_words("人口约2100万。")[1] == frozenset({"2100"})


def test_revision_names_the_cjk_tokens():
    assert LexicalNLI(0.6).revision == "v2-t0.6"
