"""A deterministic LongBench-Cite judge for a fake chat server: its answer depends on the prompt.

Shared by the parity test and the run of LongCite's own scorer (outside the project) that gave the
expected numbers, so both see the same answers. The question is told from the answer forms the
prompt lists ([[Fully supported]] / [[Unrelevant]] / [[Yes]]); statement, snippet, question and
sentence are read from their ``<tag>`` blocks; words are lower-case ASCII runs and single CJK
characters.

* support: share of the statement's distinct words found in the snippet: >= 0.7 fully,
  >= 0.4 partially, else no support;
* relevance: that share >= 0.25 relevant, else unrelevant;
* need citation: "Yes" when the sentence has at least 4 distinct words not in the question; a
  sentence holding "ambivalent" gets "[[Yes/No]]" (read as yes);
* a statement (or sentence) holding the word "retry" k times gets k answers without a readable
  ``[[...]]`` for the same prompt before a good one (counted per prompt).
"""
from __future__ import annotations

import re
import threading
from collections import Counter

_WORD = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")
BAD_ANSWERS = ("Rating: fully supported, I think", "[[5 stars]]")


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def block(prompt: str, tag: str) -> str:
    m = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", prompt, re.DOTALL)
    return m.group(1) if m else ""


def share(statement: str, snippet: str) -> float:
    ws = words(statement)
    return len(ws & words(snippet)) / len(ws) if ws else 0.0


def verdict(prompt: str) -> str:
    """The good answer to a prompt (no retries)."""
    if "[[Fully supported]]" in prompt:
        s = share(block(prompt, "statement"), block(prompt, "snippet"))
        level = "Fully supported" if s >= 0.7 else "Partially supported" if s >= 0.4 else "No support"
        return f"Rating: [[{level}]]"
    if "[[Unrelevant]]" in prompt:
        s = share(block(prompt, "statement"), block(prompt, "snippet"))
        return "Rating: [[Relevant]]" if s >= 0.25 else "Rating: [[Unrelevant]]"
    if "[[Yes]]" in prompt:
        sentence = block(prompt, "sentence")
        if "ambivalent" in sentence:
            return "Need Citation: [[Yes/No]]"
        new = words(sentence) - words(block(prompt, "question"))
        return "Need Citation: [[Yes]]" if len(new) >= 4 else "Need Citation: [[No]]"
    return "I cannot tell which question this is."


class LongBenchFake:
    """The answer function (``ChatServer(answer=LongBenchFake())``); thread-safe."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, prompt: str) -> str:
        text = block(prompt, "statement") or block(prompt, "sentence")
        with self.lock:
            n = self.seen[prompt]
            self.seen[prompt] += 1
        if n < len(re.findall(r"\bretry\b", text.lower())):
            return BAD_ANSWERS[n % 2]
        return verdict(prompt)
