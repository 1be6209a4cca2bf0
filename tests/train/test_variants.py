"""Variants of labelled pairs (:mod:`citetrain.train.variants`): each edit on hand-written pairs,
their determinism, and the saved set that ``data.built`` and ``citetrain teacher`` read."""
from __future__ import annotations

import json
import random

import pytest

from citetrain.errors import CitetrainError
from citetrain.train.variants import EDITS, pair_variants, variant, write_variants

PREMISE = ("The bridge opened in 1932 after six years of work. It carries eight lanes of traffic. "
           "Engineers from Sydney designed its steel arch.")
CLAIM = "The bridge carries eight lanes of road traffic across the harbour"


def test_drop_span_deletes_one_to_three_consecutive_words():
    words = CLAIM.split()
    for seed in range(20):
        p, h = variant("drop_span", PREMISE, CLAIM, random.Random(seed))
        assert p == PREMISE
        kept = h.split()
        n = len(words) - len(kept)
        assert 1 <= n <= 3
        assert any(words[:i] + words[i + n:] == kept for i in range(len(words) - n + 1))
    assert variant("drop_span", PREMISE, "Five words are too few", random.Random(0)) is None


def test_premise_word_puts_premise_words_in_one_or_two_places():
    words = CLAIM.split()
    pool = set(PREMISE.replace(".", " ").split())
    for seed in range(20):
        _, h = variant("premise_word", PREMISE, CLAIM, random.Random(seed))
        new = h.split()
        assert len(new) == len(words)
        changed = [i for i, (a, b) in enumerate(zip(words, new)) if a != b]
        assert len(changed) <= 2
        assert all(new[i] in pool for i in changed)
    assert variant("premise_word", "12 34.", CLAIM, random.Random(0)) is None  # no premise word


def test_swap_words_swaps_two_neighbours():
    words = CLAIM.split()
    _, h = variant("swap_words", PREMISE, CLAIM, random.Random(3))
    new = h.split()
    i = next(k for k, (a, b) in enumerate(zip(words, new)) if a != b)
    assert new[i:i + 2] == [words[i + 1], words[i]] and new[i + 2:] == words[i + 2:]
    assert variant("swap_words", PREMISE, "Too short", random.Random(0)) is None


def test_drop_sentence_deletes_one_premise_sentence_and_keeps_the_claim():
    sentences = ["The bridge opened in 1932 after six years of work.",
                 "It carries eight lanes of traffic.",
                 "Engineers from Sydney designed its steel arch."]
    seen = set()
    for seed in range(30):
        p, h = variant("drop_sentence", PREMISE, CLAIM, random.Random(seed))
        assert h == CLAIM
        assert p in {" ".join(s for j, s in enumerate(sentences) if j != i) for i in range(3)}
        seen.add(p)
    assert len(seen) == 3
    assert variant("drop_sentence", "One sentence only.", CLAIM, random.Random(0)) is None


def test_other_premise_takes_another_premise_of_the_pool():
    p, h = variant("other_premise", PREMISE, CLAIM, random.Random(0), [PREMISE, "Other text."])
    assert (p, h) == ("Other text.", CLAIM)
    assert variant("other_premise", PREMISE, CLAIM, random.Random(0), [PREMISE]) is None


def test_an_unknown_edit_is_refused():
    with pytest.raises(CitetrainError, match="unknown edit 'shuffle'"):
        variant("shuffle", PREMISE, CLAIM, random.Random(0))
    with pytest.raises(CitetrainError, match="unknown edit"):
        pair_variants(_rows(), 1, edits=["shuffle"])
    with pytest.raises(CitetrainError, match="per_pair must be at least 1"):
        pair_variants(_rows(), 0)


def _rows() -> dict:
    claims = [CLAIM, "Engineers from Sydney designed the steel arch of the bridge in 1924",
              "The bridge opened to traffic in 1932 after six years"]
    return {"premise": [PREMISE, "Engineers from Sydney designed its arch. It took two years.",
                        "Work began in 1926. It ended in 1932."],
            "hypothesis": claims, "label": [2, 1, 0], "group": ["a", "b", "c"],
            "source": ["wice:x.jsonl", "wice:x.jsonl", "expertqa:y.jsonl"]}


def test_pair_variants_are_seeded_distinct_and_grow_with_per_pair():
    rows = _rows()
    two, made = pair_variants(rows, 2, seed=0)
    assert two == pair_variants(rows, 2, seed=0)[0]
    assert two != pair_variants(rows, 2, seed=1)[0]
    assert sum(made.values()) == len(two) == 6  # every pair has two edits that apply
    inputs = set(zip(rows["premise"], rows["hypothesis"]))
    out = [(r["premise"], r["hypothesis"]) for r in two]
    assert len(set(out)) == len(out) and not set(out) & inputs
    for g, label in zip("abc", (2, 1, 0)):
        mine = [r for r in two if r["group"] == f"{g}#variant"]
        assert len({r["transform"] for r in mine}) == 2 and {r["label"] for r in mine} == {label}
    # the pair c has only its own premise in its source format: no other_premise
    assert all(r["transform"] != "other_premise" for r in two if r["group"] == "c#variant")
    three, _ = pair_variants(rows, 3, seed=0)
    assert all(r in three for r in two)  # more per pair only adds to the variants
    all_edits, _ = pair_variants(rows, len(EDITS), seed=0)
    assert {r["transform"] for r in all_edits if r["group"] == "a#variant"} == set(EDITS)


def test_write_variants_saves_a_built_set_that_training_reads(tmp_path, capsys):
    import datasets

    from citetrain.cli.main import main
    from citetrain.train.pairs import training_pairs

    src = tmp_path / "human"
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(_rows())}).save_to_disk(
        str(src / "dataset"))
    man = write_variants(src, tmp_path / "var", per_pair=2, seed=0)
    assert man["pairs"] == {"input": 3, "train": 6}
    assert sum(man["by_transform"]["train"].values()) == 6
    assert json.loads((tmp_path / "var" / "manifest.json").read_text()) == man
    rows = training_pairs(None, [str(tmp_path / "var")], None, False, 0)
    assert len(rows) == 6 and set(rows["group"]) == {"a#variant", "b#variant", "c#variant"}

    assert main(["variants", str(src / "dataset"), "--out", str(tmp_path / "v2"), "--per-pair", "1",
                 "--edits", "drop_sentence"]) == 0
    assert "variants: 3 of 3 train pairs (drop_sentence 3)" in capsys.readouterr().out
    assert main(["variants", str(tmp_path), "--out", str(tmp_path / "v3")]) == 2
    assert "no pairs dataset" in capsys.readouterr().err
    assert main(["variants", str(src), "--out", str(tmp_path / "v4"), "--split", "test"]) == 2
    assert "no 'test' split (has train)" in capsys.readouterr().err
