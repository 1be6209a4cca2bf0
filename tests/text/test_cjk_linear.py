"""Chinese and Japanese splitting linear in the text, with the splits it gave before.

Punkt reads the rest of an unspaced text after each sentence end, so splitting 2,000 Chinese
sentences took 3.7 s and 4,000 took 14.2 s (issue 86). The splitter now cuts the text where
Punkt always ends a sentence and splits the pieces alone; the original whole-text split is kept
here as the oracle.
"""
from __future__ import annotations

import random
import re
import time

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citetrain.text.languages import cjk_share
from citetrain.text.splitter import (_JA_QUOTE_PARTICLE, _LEAD_MARKS, _cjk_spans, _punkt,
                                     cjk_tokenizer, split_sentences)
from citetrain.text.statements import statements

_OLD_JA_QUOTED = re.compile(r"[」』]\s*$")

# every character the CJK rules treat apart (sentence ends, closers, openers, quotes, internal
# punctuation, whitespace of several kinds), words of both scripts and Latin, marks
PIECES = ["北京", "是", "首都", "東京", "です", "か", "本当", "と", "って", "彼", "Paris", "is",
          "Dr", "e.g", "3.14", "x", "_", "。", "！", "？", "…", "!", "?", "；", ".", "．", ";", "、",
          "，", "：", ",", ":", "」", "』", "）", "”", "’", ")", "]", "\"", "'", "「", "『", "（",
          "“", "(", "[1]", "[2,3]", " [4]", "-", "--", "..", " ", "  ", "\n", "\n\n", "\u3000",
          "\xa0", "\t", "\x1c", "«", "»", "·", "|"]


def old_cjk_split(text: str, language: str) -> list[str]:
    """The splitter's CJK path before issue 86: Punkt on the whole text, the regex search."""
    spans: list[list[int]] = []
    for a, b in cjk_tokenizer(language).span_tokenize(text):
        lead = _LEAD_MARKS.match(text, a, b)
        if spans and lead is not None:
            spans[-1][1], a = lead.end(), lead.end()
        if spans and language == "ja" and _OLD_JA_QUOTED.search(text, 0, spans[-1][1]) \
                and _JA_QUOTE_PARTICLE.match(text, a, b):
            spans[-1][1] = b
        elif text[a:b].strip():
            spans.append([a, b])
    english = _punkt()
    return [s.strip() for a, b in spans for s in english(text[a:b]) if s.strip()]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=50).map("".join), st.sampled_from(["zh", "ja"]))
def test_cut_spans_equal_punkts_whole_text_spans(text: str, language: str) -> None:
    assert list(_cjk_spans(text, language)) == list(cjk_tokenizer(language).span_tokenize(text))
    assert split_sentences(text, language=language) == old_cjk_split(text, language)


def test_cut_spans_equal_on_seeded_random_text() -> None:
    rng = random.Random(86)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))
        for language in ("zh", "ja"):
            assert list(_cjk_spans(text, language)) == \
                list(cjk_tokenizer(language).span_tokenize(text)), (text, language)
            assert split_sentences(text, language=language) == old_cjk_split(text, language)


def test_documented_cjk_splits_stay() -> None:
    assert split_sentences("北京是首都。[1]上海很大！[2]") == ["北京是首都。[1]", "上海很大！[2]"]
    assert split_sentences("「本当ですか？」と彼は聞いた。はい。") == [
        "「本当ですか？」と彼は聞いた。", "はい。"]
    assert split_sentences("他说：「好。」然后走了。Paris is big. It is old.") == [
        "他说：「好。」", "然后走了。", "Paris is big.", "It is old."]


def test_cjk_share_counts_as_the_one_character_matches_did() -> None:
    """Detection counts by removing the other characters, not by a list of matches."""
    cjk = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")
    letters = regex.compile(r"[\p{L}\p{N}]")
    rng = random.Random(7)
    pool = PIECES + ["한국어", "々", "ー", "٣", "Ⅻ", "½", "é", "\u0301", "ｶﾀｶﾅ", "𠀋", "\U0001f600"]
    for _ in range(2000):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 30)))
        n = len(letters.findall(text))
        assert cjk_share(text) == (len(cjk.findall(text)) / n if n else 0.0), text


def _best(fn, repeats: int = 5) -> float:
    """The least CPU seconds of ``repeats`` calls (other processes on a loaded machine inflate
    wall-clock seconds, not this process's CPU time)."""
    out = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        out = min(out, time.process_time() - start)
    return out


SENTENCES = {
    "zh": "北京是中国的首都，也是一座历史悠久的城市[1]。",
    "ja": "東京は日本の首都であり、「大きな都市です」と言われる[2]。",
    "zh-quoted": "他说：「这是真的吗？」然后走了[3]。",
    "zh-marks-after": "北京是中国的首都。[1][2]",  # no place to cut: one Punkt call
    "mixed": "巴黎是法国的首都[1]。Paris is big [2]. ",
    "en": "Paris is the capital of France and a large city [1]. ",
}


@pytest.mark.parametrize("kind", sorted(SENTENCES))
def test_splitting_is_linear_in_the_sentences(kind: str) -> None:
    """8× the sentences cost about 8× (the quadratic split cost about 64×); the ratio of the
    best of three runs, never a wall-clock time."""
    one = SENTENCES[kind]
    small, large = one * 1000, one * 8000
    assert len(split_sentences(large)) == 8 * len(split_sentences(small))
    ratio = _best(lambda: statements(large, first_line_only=False)) / \
        _best(lambda: statements(small, first_line_only=False))
    assert ratio < 16, f"{kind}: 8x the sentences took {ratio:.1f}x the time"
