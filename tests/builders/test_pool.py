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


def test_a_saved_pool_maps_its_arrays_and_answers_as_the_built_one(tmp_path):
    import random

    import numpy as np

    built = pool(max_postings=5)
    mapped = SentencePool.open(built.save(tmp_path / "pool"))
    assert built.folder is None and mapped.folder == tmp_path / "pool"
    assert isinstance(mapped.arrays["post"], np.memmap) and len(mapped) == len(built) == 30
    for words, passage in [({"brenfield"}, -1), ({"harbour", "brenfield", "record"}, 2),
                           ({"quiet", "tree", "unknownword"}, 12), (set(), -1)]:
        assert list(mapped.related(words, passage)) == list(built.related(words, passage))
    assert [mapped.random(random.Random(s), 3) for s in range(5)] == \
        [built.random(random.Random(s), 3) for s in range(5)]
    assert mapped.text(11) == "A quiet village planted tree 0."


def test_ranking_counts_every_shared_word_and_keeps_other_groups_only():
    sents = [["Kowal moved to Brenfield in 1998."],           # 0: group a
             ["Kowal founded the Brenfield school."],          # 1: group a (the asker's)
             ["The Brenfield school moved its library."],      # 2: group b, 3 shared words
             ["Kowal visited Brenfield."],                     # 3: group c, 2 shared words
             ["Snow covers Mount Ferro."]]                     # 4: group d, none
    p = SentencePool(sents, ["a", "a", "b", "c", "d"])
    got = [k for k, _ in p.related({"kowal", "brenfield", "school", "move"}, 1)]
    assert got == [2, 3]  # 2 shares brenfield, school, move; 3 shares kowal, brenfield
    assert [k for k, _ in p.related({"snow"}, -1)] == [4]


def test_an_empty_pool_finds_and_draws_nothing(tmp_path):
    import random

    empty = SentencePool.open(SentencePool([], []).save(tmp_path / "p"))
    assert len(empty) == 0 and list(empty.related({"kowal"}, -1)) == []
    assert empty.random(random.Random(0), -1) is None


def test_a_pool_of_another_format_is_refused(tmp_path):
    import json

    import pytest

    folder = pool().save(tmp_path / "pool")
    (folder / "pool.json").write_text(json.dumps({"format": 0, "sentences": 30, "top": 64}))
    from citetrain.errors import CitetrainError

    with pytest.raises(CitetrainError, match="format 0.*--fresh"):
        SentencePool.open(folder)
