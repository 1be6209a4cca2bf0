"""Premises of parts (citetrain/text/joined.py): the lazy text is the joined one, its length and
blankness are known without building it, and equal premises dedupe."""
from citetrain.records import Doc, doc_parts, docs_premise, join_docs
from citetrain.text.joined import Joined, Parts, is_blank, text_of


def test_a_joined_premise_is_the_joined_text():
    parts = Parts(["one", "", "three words here", "  "], " ")
    for ids in [(0,), (2, 0), (0, 1, 2, 3), ()]:
        want = " ".join(parts.texts[i] for i in ids)
        got = parts.join(ids)
        assert str(got) == text_of(got) == want and len(got) == len(want)
        assert is_blank(got) == (not want.strip())
    for n in range(5):
        want = " ".join(parts.texts[:n])
        assert str(parts.prefix(n)) == want and len(parts.prefix(n)) == len(want)
        assert parts.prefix(n).blank == (not want.strip())


def test_equal_premises_are_equal_and_hash_alike():
    parts, other = Parts(["a", "b"], "\n"), Parts(["a", "b"], "\n")
    assert parts.join((0, 1)) == parts.join([0, 1]) and hash(parts.join((0, 1))) == hash(parts.join([0, 1]))
    assert parts.join((0, 1)) != parts.join((1, 0))  # order is part of the text
    assert parts.join((0, 1)) != other.join((0, 1))  # another record's parts: another premise
    assert len({parts.prefix(2), parts.prefix(2), parts.join((0,))}) == 2


def test_docs_premises_are_join_docs():
    docs = [Doc(title=f"T{i}", text=f"Passage {i}.") for i in range(1, 5)]
    parts = doc_parts(docs)
    for ids in [(1,), (3, 1), (1, 2, 3, 4)]:
        assert str(docs_premise(parts, ids)) == join_docs(docs, ids)
    assert isinstance(docs_premise(parts, (1,)), Joined)


def test_a_parts_memo_is_built_once():
    parts, built = Parts(["x"], " "), []
    for _ in range(3):
        parts.memo("n", lambda p: built.append(1) or len(built))
    assert built == [1] and parts.chars == 1
