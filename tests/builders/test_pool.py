"""The sentence pool's search: which words it indexes, however large the pool grows."""
from citetrain.builders.pool import MAX_POSTINGS, SentencePool


def pool(max_postings: int = MAX_POSTINGS) -> SentencePool:
    """30 passages of one sentence each: "Brenfield" in 5 of them, "harbour" in 6."""
    sents = [[f"The Brenfield archive holds record {k}."] for k in range(5)]
    sents += [[f"The harbour office filed report {k}."] for k in range(6)]
    sents += [[f"A quiet village planted tree {k}."] for k in range(19)]
    return SentencePool(sents, [str(p) for p in range(30)], max_postings=max_postings)


def test_a_word_in_more_sentences_than_max_postings_finds_nothing():
    small = pool(max_postings=5)  # cap = min(max(20, 30 // 200), 5) = 5
    assert len(list(small.related({"brenfield"}, -1))) == 5
    assert list(small.related({"harbour"}, -1)) == []
    assert [k for k, _ in small.related({"harbour", "brenfield"}, -1)] == [0, 1, 2, 3, 4]


def test_small_pools_keep_twenty_postings_per_word():
    assert MAX_POSTINGS >= 20
    found = pool().related({"harbour"}, 5)  # cap 20: indexed; its own passage (5) left out
    assert [k for k, _ in found] == [6, 7, 8, 9, 10]
