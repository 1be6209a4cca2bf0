"""Benchmark inputs: the reference read from the human marks, then marks removed, wrong or half
wrong, deterministically by seed, with the text outside the marks unchanged."""
import pytest

from citetrain.errors import CitetrainError
from citetrain.records import Doc, Record
from citetrain.refine.inputs import VARIANTS, gold_from_marks, make_inputs, parse_variants
from citetrain.text.marks import strip_marks
from citetrain.text.statements import statements

DOCS = [Doc(title=f"T{i}", text=f"Passage {i}.") for i in range(1, 6)]
HUMAN = [
    # a QuoteSum-like answer: a mid-sentence mark, two marks at one place, an uncited sentence
    Record(id="r1", question="q", docs=DOCS,
           output="Denitrification [2] releases nitrogen gas [1][2]. The soil holds it. "
                  "Plants take up nitrate [3], and microbes fix it [4, 5]."),
    Record(id="r2", question="q", docs=DOCS[:2],
           output="Rain falls in May [1]. Rivers rise in June [1][2]. Lakes fill [2]."),
    Record(id="r3", question="q", docs=DOCS, output="Snow melts early [5]."),
]


def gold_records():
    return [gold_from_marks(r) for r in HUMAN]


def cited(record):
    return [sorted(set(st.citations)) for st in statements(record.output, first_line_only=False)]


def test_gold_comes_from_the_human_marks_per_statement():
    r1, r2, r3 = gold_records()
    assert r1.gold == [[1, 2], [], [3, 4, 5]]
    assert r2.gold == [[1], [1, 2], [2]]
    assert r3.gold == [[5]]
    given = Record(id="g", docs=DOCS, output="Rain falls [1].", gold=[[2]])
    assert gold_from_marks(given).gold == [[2]]  # a given reference is kept


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_text_outside_the_marks_is_identical_and_the_seed_decides(variant, seed):
    records = gold_records()
    first = make_inputs(records, variant, seed)
    assert [strip_marks(r.output) for r in first] == [strip_marks(r.output) for r in HUMAN]
    again = make_inputs(gold_records(), variant, seed)
    assert [r.output for r in again] == [r.output for r in first]
    assert [r.gold for r in first] == [r.gold for r in records]  # the reference travels along


def test_removed_cites_nothing():
    assert all(ids == [] for r in make_inputs(gold_records(), "removed") for ids in cited(r))


def test_wrong_cites_as_many_wrong_ids_as_it_can():
    counts = {}
    for r in make_inputs(gold_records(), "wrong", 3, counts):
        for ids, gold in zip(cited(r), r.gold):
            assert not set(ids) & set(gold)
            assert all(1 <= i <= len(r.docs) for i in ids)
            assert len(ids) == min(len(gold), len(r.docs) - len(gold))
    # short: r1's "Plants take up" cites 3 of 5 passages (2 wrong ids left for it), r2's
    # "Rivers rise" both of its 2 passages (none left)
    assert counts == {"short_of_wrong": 2, "records_dropped": 0}
    outputs = {make_inputs(gold_records(), "wrong", s)[0].output for s in range(10)}
    assert len(outputs) > 1  # another seed draws other wrong ids


def test_half_keeps_half_of_the_referenced_statements():
    kept_total = 0
    for seed in range(20):
        for r in make_inputs(gold_records(), "half", seed):
            pairs = [(ids, g) for ids, g in zip(cited(r), r.gold) if g]
            kept = [ids == g for ids, g in pairs]
            assert len(pairs) // 2 <= sum(kept) <= (len(pairs) + 1) // 2
            assert all(not set(ids) & set(g) for ids, g in pairs if ids != g)
            kept_total += sum(kept)
    # 1 + 3 + 1 referenced statements, half kept in expectation: 2.5 a seed
    assert 20 * 2 <= kept_total <= 20 * 3


def test_bad_variants_and_records_without_reference_are_refused():
    assert parse_variants("removed, half,removed") == ["removed", "half"]
    with pytest.raises(CitetrainError, match="unknown input variant.*shuffled"):
        parse_variants("removed,shuffled")
    with pytest.raises(CitetrainError, match="record r1: no field 'gold'"):
        make_inputs(HUMAN, "removed")
