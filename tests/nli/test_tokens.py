"""Token counts remembered per text (citetrain.nli.tokens)."""
from __future__ import annotations

import pytest

from citetrain.nli.tokens import _ENTRY, TokenCounts, token_lengths
from tests.nli.tiny_models import train_tokenizer

CORPUS = ["The river Oder flows north into the Baltic Sea near Szczecin.",
          "Ann Lee, the mayor since 2019, was born in Oslo; she studied law.",
          "Water boils at 100 degrees, and it freezes at 0 degrees Celsius."]
PAIRS = [(CORPUS[0], "The Oder flows north."), (CORPUS[1], "Lee was born in Oslo in 1970."),
         (CORPUS[0] + " " + CORPUS[2], "Water boils at 100 degrees."), ("", "An empty premise."),
         (CORPUS[2], "")]


def _tokenizers():
    from citetrain.models.tiny import train_tokenizer as byte_bpe

    return {"wordpiece": train_tokenizer(CORPUS, kind="wordpiece", style="bert", vocab_size=200),
            "metaspace-bpe": train_tokenizer(CORPUS, kind="bpe", style="t5", vocab_size=200),
            "byte-level-bpe": byte_bpe(CORPUS, 300)}


@pytest.mark.parametrize("name", ["wordpiece", "metaspace-bpe", "byte-level-bpe"])
def test_a_pair_is_as_long_as_the_tokenizer_makes_it(name):
    """pair_lengths adds the two texts' counts and the template's special tokens: the length of
    the pair the tokenizer itself encodes, for three kinds of tokenizer."""
    tok = _tokenizers()[name]
    counts = TokenCounts(tok)
    want = [len(tok(p, h)["input_ids"]) for p, h in PAIRS]
    assert counts.pair_lengths([p for p, _ in PAIRS], [h for _, h in PAIRS]) == want
    assert counts([p for p, _ in PAIRS]) == token_lengths(tok, [p for p, _ in PAIRS])


def test_each_text_is_tokenized_once_and_the_memory_stays_bounded(monkeypatch):
    tok = _tokenizers()["wordpiece"]
    calls: list[list[str]] = []

    def counting(tokenizer, texts):
        calls.append(list(texts))
        return token_lengths(tokenizer, texts)

    monkeypatch.setattr("citetrain.nli.tokens.token_lengths", counting)
    entry = lambda t: _ENTRY + len(t)  # noqa: E731 - an entry's bytes: its text and its own
    cap = sum(entry(t) for t in CORPUS[:3]) + entry("a")  # three texts and one letter fit
    counts = TokenCounts(tok, max_bytes=cap)
    first = counts([CORPUS[0], CORPUS[1], CORPUS[0]])
    assert calls == [[CORPUS[0], CORPUS[1]]]  # distinct texts, one batched call
    assert first[0] == first[2] and first[:2] == token_lengths(tok, CORPUS[:2])
    assert counts([CORPUS[1], CORPUS[2]]) == token_lengths(tok, CORPUS[1:])
    assert calls[1] == [CORPUS[2]]  # only the new text
    assert len(counts.seen) == 3 and counts.bytes == cap - entry("a")
    counts(["a", "b"])  # two letters more pass the cap: the memory starts over with them
    assert set(counts.seen) == {"a", "b"} and counts.bytes == entry("a") + entry("b")
    calls.clear()  # a remembered text beside new ones when the memory starts over: all counted
    big = CORPUS[0] * (cap // len(CORPUS[0]))
    assert counts(["a", big]) == token_lengths(tok, ["a", big])
    assert calls == [["a", big]] and big not in counts.seen  # alone over the cap: not kept
    counts.clear()
    assert not counts.seen and counts.bytes == 0


def test_a_classifier_backend_asks_each_premise_once_across_calls(tmp_path, monkeypatch):
    """Whether a premise is cut, and what is read of it, tokenize each text once per backend:
    the second round of the same passages against other statements counts only the statements."""
    from citetrain.nli.classifier import ClassifierNLI
    from tests.nli.tiny_models import build_bert_classifier

    path = build_bert_classifier(tmp_path / "m", ("contradiction", "entailment", "neutral"))
    nli = ClassifierNLI(str(path), device="cpu", max_length=24, premise="select")
    long = ("the dog sat on a mat . " * 8) + "a cat is on the mat ."
    first = [(long, "a cat is on the mat ."), ("the dog ran", "the dog ran .")]
    cut = nli.truncates(first)
    assert cut == [len(nli.tokenizer(p, h)["input_ids"]) > 24 for p, h in first] == [True, False]
    calls: list[list[str]] = []

    def counting(tokenizer, texts):
        calls.append(list(texts))
        return token_lengths(tokenizer, texts)

    monkeypatch.setattr("citetrain.nli.tokens.token_lengths", counting)
    before = nli.predict(first)
    assert all(t not in (long, "the dog ran") for c in calls for t in c)  # counted by truncates
    calls.clear()
    nli.truncates([(long, "the dog sat .")])
    assert calls == [["the dog sat ."]]
    monkeypatch.undo()
    fresh = ClassifierNLI(str(path), device="cpu", max_length=24, premise="select")
    assert [r.support for r in fresh.predict(first)] == [r.support for r in before]
