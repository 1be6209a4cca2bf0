"""How a cross-encoder reads a long premise: the sentences that best cover the statement."""
from __future__ import annotations

from tests.nli.tiny_models import build_bert_classifier


def _count_words(texts):
    return [len(t.split()) for t in texts]


def test_select_evidence_covers_the_statement_in_page_order():
    from citetrain.nli.premises import select_evidence

    page = ("The town has a river. Its mayor is Ann Lee. The bridge opened in 1901. "
            "Lee was born in Oslo. Rain falls often.")
    got = select_evidence(page, "Mayor Ann Lee was born in Oslo.", 12, _count_words)
    assert got == "Its mayor is Ann Lee. Lee was born in Oslo."  # both halves, page order
    assert select_evidence(page, "The bridge opened in 1901.", 5, _count_words) == (
        "The bridge opened in 1901.")
    assert select_evidence(page, "anything", 100, _count_words) == page  # fits: unchanged
    assert len(select_evidence(page, "river", 3, _count_words).split()) <= 3


def test_a_passage_read_against_several_statements_is_split_and_counted_once(tmp_path, monkeypatch):
    """select_premises counts the sentences of every distinct premise of a batch in one call,
    and the evidence it picks is what each pair alone would get."""
    from transformers import AutoTokenizer

    from citetrain.nli.premises import select_evidence, select_premises, token_lengths

    tok = AutoTokenizer.from_pretrained(str(build_bert_classifier(
        tmp_path / "three", ("contradiction", "entailment", "neutral"))))
    page = ("The town has a river. Its mayor is Ann Lee. The bridge opened in 1901. "
            "Lee was born in Oslo. Rain falls often.")
    other = "A cat sat on the mat. The dog barked at night. Birds sang in the morning."
    pairs = [(page, "Ann Lee was born in Oslo."), (other, "The dog barked."),
             (page, "The bridge opened in 1901."), (page, "It rains often.")]
    calls = []

    def counting(tokenizer, texts):
        calls.append(list(texts))
        return token_lengths(tokenizer, texts)

    monkeypatch.setattr("citetrain.nli.premises.token_lengths", counting)
    got = select_premises(pairs, tok, 24)
    monkeypatch.undo()
    # one call for the statements, one for the sentences of the two distinct premises (8)
    assert [len(c) for c in calls] == [4, 8]
    extra = tok.num_special_tokens_to_add(pair=True)
    alone = [select_evidence(p, h, 24 - len(tok(h, add_special_tokens=False)["input_ids"]) - extra,
                             lambda t: token_lengths(tok, t)) for p, h in pairs]
    assert got == alone and got[0] != page  # cut, each statement its own evidence
