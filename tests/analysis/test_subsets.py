"""Minimal supporting subset search: hand-computed cases, pruned == exhaustive under any monotone
judge (hypothesis), batched runs == solo runs, and a run through a real NLIEngine(TableNLI).

Pruned rounds (see the module docstring): singletons; the union of the remaining docs (when >= 2
remain); when it entails, >= 3 remain and max_size >= 2, the union minus each doc (leave-one-out,
"LOO", in the order of the removed doc); then pairs, triples, ... up to max_size, skipping sets
already known, sets containing a supporting set found and sets inside a set known to fail. A round
with nothing to ask is skipped, so a search takes at most max_size + 2 rounds."""
from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from citetrain.analysis.subsets import SubsetSearch, exhaustive_calls, is_covered, run_searches
from citetrain.nli.base import NLIResult
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, join_docs
from tests.nli_table import TableNLI

YES = NLIResult(1.0, True)
NO = NLIResult(0.0, False)


def fs(*sets) -> list[frozenset[int]]:
    return [frozenset(s) for s in sets]


class Judge:
    """A scripted monotone judge: a subset entails iff it contains one member of ``family``.
    Records every subset it is asked, in order."""

    def __init__(self, family) -> None:
        self.family = [frozenset(s) for s in family]
        self.asked: list[tuple[int, ...]] = []

    def __call__(self, subset) -> NLIResult:
        self.asked.append(tuple(subset))
        return YES if is_covered(subset, self.family) else NO


def solo(n_docs: int, family, max_size: int = 3, exhaustive: bool = False):
    """One search driven by ``run_searches`` with one judge; returns (search, judge, rounds)."""
    judge = Judge(family)
    search = SubsetSearch(n_docs, max_size, exhaustive)
    rounds = run_searches([search], lambda jobs: [judge(q) for _, q in jobs])
    return search, judge, rounds


# --- hand-computed cases --------------------------------------------------------------------------

def test_pair_only_support_pruned():
    s, judge, rounds = solo(4, [{2, 3}])
    assert s.done
    assert s.support == fs({2, 3})
    assert s.gold == [2, 3]
    assert s.supported and s.union_entails is True
    assert s.single == [False] * 4
    # pair {2,3} among 4 docs, max_size 3: 4 singletons fail, so all 4 remain; union (1,2,3,4)
    # entails; LOO (2,3,4) yes, (1,3,4) no, (1,2,4) no, (1,2,3) yes. Pairs: every pair but (2,3)
    # lies inside the failing (1,3,4) or (1,2,4) -> only (2,3) is asked (yes). Triples: all four
    # are known from the LOO round -> an empty round, skipped.
    loo = [(2, 3, 4), (1, 3, 4), (1, 2, 4), (1, 2, 3)]
    assert judge.asked == [(1,), (2,), (3,), (4,), (1, 2, 3, 4)] + loo + [(2, 3)]
    assert s.calls == 4 + 1 + 4 + 1 == 10 == len(judge.asked)
    assert rounds == 4  # singletons, union, LOO, pairs (no triples left to ask)


def test_two_disjoint_pairs_pruned():
    # {1,2} and {3,4} among 4 docs, max_size 3: 4 singletons fail; union (1,2,3,4) entails; every
    # LOO triple still holds one of the pairs -> all 4 entail, nothing is known to fail (but the
    # singletons, which cannot contain a pair), so all 6 pairs are asked: (1,2) and (3,4) entail.
    # Triples: all known from LOO. 4 + 1 + 4 + 6 = 15 == exhaustive's 4 + 6 + 4 + 1.
    s, judge, rounds = solo(4, [{1, 2}, {3, 4}])
    loo = [(2, 3, 4), (1, 3, 4), (1, 2, 4), (1, 2, 3)]
    pairs = list(combinations(range(1, 5), 2))
    assert judge.asked == [(1,), (2,), (3,), (4,), (1, 2, 3, 4)] + loo + pairs
    assert s.support == fs({1, 2}, {3, 4}) and s.gold == [1, 2, 3, 4] and s.supported
    assert s.calls == 4 + 1 + 4 + 6 == 15 == solo(4, [{1, 2}, {3, 4}], exhaustive=True)[0].calls
    assert rounds == 4  # singletons, union, LOO, pairs


def test_pair_only_support_exhaustive():
    s, judge, rounds = solo(4, [{2, 3}], exhaustive=True)
    assert s.support == fs({2, 3}) and s.gold == [2, 3] and s.supported
    singles = [(d,) for d in range(1, 5)]
    assert judge.asked == (singles + list(combinations(range(1, 5), 2))
                           + list(combinations(range(1, 5), 3)) + [(1, 2, 3, 4)])
    # every subset of size <= 3 plus the union of all 4 docs (4 > max_size)
    assert s.calls == exhaustive_calls(4, 3) + 1 == 4 + 6 + 4 + 1 == 15
    assert s.union_entails is True
    assert rounds == 1


def test_two_separate_single_docs():
    s, judge, _ = solo(4, [{1}, {3}])
    assert s.support == fs({1}, {3})
    assert s.gold == [1, 3]
    assert s.single == [True, False, True, False]
    assert [r.label for r in s.single_results] == [True, False, True, False]
    assert s.remaining == [2, 4]
    # the union of the rest {2, 4} is asked and fails: no pairs are asked
    assert judge.asked == [(1,), (2,), (3,), (4,), (2, 4)]
    assert s.calls == 4 + 1
    assert s.union_entails is False
    assert s.supported


def test_single_doc_plus_pair_among_rest():
    # doc 1 alone, and {2, 4} together; {1, x} pairs are never asked (1 is not "remaining")
    s, judge, rounds = solo(4, [{1}, {2, 4}])
    assert s.support == fs({1}, {2, 4})
    assert s.gold == [1, 2, 4]
    # 4 singletons (1 entails), rest (2,3,4); union (2,3,4) entails; LOO of 3 docs asks the three
    # pairs, by removed doc: (3,4) no, (2,4) yes, (2,3) no. The pairs round then has nothing new,
    # and the only triple of the rest is the union itself, already known.
    assert judge.asked == [(1,), (2,), (3,), (4,), (2, 3, 4), (3, 4), (2, 4), (2, 3)]
    assert s.calls == 4 + 1 + 3 == 8
    assert rounds == 3  # singletons, union, LOO


@pytest.mark.parametrize("n", [2, 3, 5, 10])
@pytest.mark.parametrize("exhaustive", [False, True])
def test_unsupported(n, exhaustive):
    s, judge, _ = solo(n, [], exhaustive=exhaustive)
    assert s.support == [] and s.gold == [] and not s.supported
    assert s.union_entails is False
    if exhaustive:
        assert s.calls == exhaustive_calls(n, 3) + (n > 3)
    else:
        assert judge.asked == [(d,) for d in range(1, n + 1)] + [tuple(range(1, n + 1))]
        assert s.calls == n + 1


def test_supported_only_by_more_than_max_size():
    # {1,2,3,4} needs all four docs: no subset of size <= 3 supports, but the union does
    for exhaustive in (False, True):
        s, _, _ = solo(5, [{1, 2, 3, 4}], exhaustive=exhaustive)
        assert s.support == [] and s.gold == []
        assert s.supported and s.union_entails is True
    s, judge, rounds = solo(5, [{1, 2, 3, 4}])
    # 5 singletons fail; union (1..5) entails; LOO: (2,3,4,5), (1,3,4,5), (1,2,4,5), (1,2,3,5)
    # fail, (1,2,3,4) entails. A pair or triple of 1..5 leaves out at least one of docs 1..4, so it
    # lies inside the failing 1..5 minus that doc: no pair or triple is asked.
    loo = [(2, 3, 4, 5), (1, 3, 4, 5), (1, 2, 4, 5), (1, 2, 3, 5), (1, 2, 3, 4)]
    assert judge.asked == [(d,) for d in range(1, 6)] + [(1, 2, 3, 4, 5)] + loo
    assert s.calls == 5 + 1 + 5 == 11
    assert rounds == 3  # singletons, union, LOO


@pytest.mark.parametrize("exhaustive", [False, True])
def test_no_docs(exhaustive):
    s, judge, rounds = solo(0, [{1}], exhaustive=exhaustive)
    assert s.done and judge.asked == [] and s.calls == 0 and rounds == 0
    assert s.support == [] and s.gold == [] and not s.supported
    assert s.single == [] and s.remaining == []
    assert s.queries() == []


@pytest.mark.parametrize("exhaustive", [False, True])
@pytest.mark.parametrize("entails", [False, True])
def test_one_doc(exhaustive, entails):
    s, judge, _ = solo(1, [{1}] if entails else [], exhaustive=exhaustive)
    assert judge.asked == [(1,)] and s.calls == 1
    assert s.support == (fs({1}) if entails else [])
    assert s.gold == ([1] if entails else [])
    assert s.supported is entails
    assert s.single == [entails]


def test_max_size_one():
    # pair-only support: singletons and the union, never a pair
    s, judge, _ = solo(4, [{2, 3}], max_size=1)
    assert judge.asked == [(1,), (2,), (3,), (4,), (1, 2, 3, 4)]
    assert s.calls == 5 and s.support == [] and s.gold == [] and s.supported
    e, ej, _ = solo(4, [{2, 3}], max_size=1, exhaustive=True)
    assert ej.asked == [(1,), (2,), (3,), (4,), (1, 2, 3, 4)]
    assert e.calls == 5 and e.support == [] and e.supported
    # a single supporting doc
    s, judge, _ = solo(3, [{2}], max_size=1)
    assert judge.asked == [(1,), (2,), (3,), (1, 3)]
    assert s.support == fs({2}) and s.gold == [2] and s.supported


def test_max_size_must_be_positive():
    with pytest.raises(ValueError):
        SubsetSearch(3, 0)


def test_all_docs_entail_alone():
    s, judge, _ = solo(3, [{1}, {2}, {3}])
    assert judge.asked == [(1,), (2,), (3,)]  # nothing remains: no union
    assert s.support == fs({1}, {2}, {3}) and s.gold == [1, 2, 3] and s.supported
    assert s.union_entails is False  # "the union of the remaining docs" is empty


def test_support_is_minimal_and_ordered():
    # {1,2} and {1,2,3} and {3,4}: the triple is not minimal; ordered by size then ids
    for exhaustive in (False, True):
        s, _, _ = solo(5, [{3, 4}, {1, 2, 3}, {1, 2}], exhaustive=exhaustive)
        assert s.support == fs({1, 2}, {3, 4})
        assert s.gold == [1, 2, 3, 4]


def test_exhaustive_calls_values():
    assert exhaustive_calls(5, 3) == 25
    assert exhaustive_calls(10, 3) == 175
    assert exhaustive_calls(4, 3) == 14
    assert exhaustive_calls(3, 3) == 7
    assert exhaustive_calls(2, 3) == 3
    assert exhaustive_calls(1, 3) == 1
    assert exhaustive_calls(0, 3) == 0
    assert exhaustive_calls(10, 1) == 10
    assert exhaustive_calls(10, 2) == 55


def test_answer_count_must_match():
    s = SubsetSearch(3)
    assert s.queries() == [(1,), (2,), (3,)]
    with pytest.raises(ValueError):
        s.answer([NO, NO])


def test_is_covered():
    assert is_covered((1, 2, 3), fs({2, 3}))
    assert not is_covered((1, 2), fs({2, 3}))
    assert not is_covered((1, 2), [])


# --- property: pruned == exhaustive under any monotone judge ----------------------------------------

@st.composite
def cases(draw):
    n = draw(st.integers(0, 10))
    k = draw(st.integers(1, 4))
    if n == 0:
        family = []
    else:
        member = st.sets(st.integers(1, n), min_size=1, max_size=n)
        family = draw(st.lists(member, min_size=0, max_size=3))
    return n, k, family


@settings(max_examples=400, deadline=None)
@given(cases())
# The leave-one-out round costs at most n extra calls when it prunes nothing: 4 docs, max_size 2,
# {1,2} or {3,4}: 4 singletons, union, 4 LOO triples that all entail, 6 pairs = 15 calls against
# exhaustive's 4 + 6 + union = 11. Per statement pruned <= exhaustive + n; over realistic records
# pruned spends far fewer (test_batched_equals_solo, bench/builder_subsets.py).
@example((4, 2, [{1, 2}, {3, 4}]))
def test_pruned_equals_exhaustive(case):
    n, k, family = case
    p, pj, p_rounds = solo(n, family, k)
    e, ej, e_rounds = solo(n, family, k, exhaustive=True)
    assert p.support == e.support
    assert p.gold == e.gold
    assert p.supported == e.supported
    assert p.single == e.single
    assert p.calls == len(pj.asked) and e.calls == len(ej.asked)
    assert len(set(pj.asked)) == len(pj.asked)  # pruned never asks a subset twice
    assert e.calls == exhaustive_calls(n, k) + (n > k)
    # singletons, union, LOO, then sizes 2..k: at most k + 2 rounds
    assert p_rounds <= k + 2 and e_rounds == (1 if n else 0)
    # the support is exactly the minimal members of the family of size <= k
    fam = {frozenset(f) for f in family}
    minimal = {f for f in fam if len(f) <= k and not any(o < f for o in fam)}
    assert set(p.support) == minimal
    assert p.supported == bool(fam)
    assert p.calls <= e.calls + n


def random_family(rng: random.Random, n: int) -> list[set[int]]:
    if n == 0:
        return []
    return [set(rng.sample(range(1, n + 1), rng.randint(1, n))) for _ in range(rng.randint(0, 3))]


@pytest.mark.parametrize("exhaustive", [False, True])
def test_batched_equals_solo(exhaustive):
    rng = random.Random(7)
    specs = [(rng.randint(0, 10), rng.randint(1, 4)) for _ in range(200)]
    families = [random_family(rng, n) for n, _ in specs]
    judges = [Judge(f) for f in families]
    searches = [SubsetSearch(n, k, exhaustive) for n, k in specs]
    batch_sizes: list[int] = []

    def ask(jobs):
        batch_sizes.append(len(jobs))
        return [judges[i](q) for i, q in jobs]

    rounds = run_searches(searches, ask)
    assert all(s.done for s in searches)
    assert sum(batch_sizes) == sum(s.calls for s in searches)
    assert rounds == len(batch_sizes) <= (1 if exhaustive else max(k for _, k in specs) + 2)
    for (n, k), family, batched, judge in zip(specs, families, searches, judges):
        alone, alone_judge, _ = solo(n, family, k, exhaustive)
        assert batched.support == alone.support
        assert batched.gold == alone.gold
        assert batched.supported == alone.supported
        assert batched.union_entails == alone.union_entails
        assert batched.calls == alone.calls
        assert judge.asked == alone_judge.asked


def test_200_random_records_pruned_equals_exhaustive_with_fewer_calls():
    rng = random.Random(11)
    specs = [(rng.randint(0, 10), 3) for _ in range(200)]
    judges = [Judge(random_family(rng, n)) for n, _ in specs]

    def run(exhaustive):
        searches = [SubsetSearch(n, k, exhaustive) for n, k in specs]
        run_searches(searches, lambda jobs: [judges[i](q) for i, q in jobs])
        return searches

    pruned, full = run(False), run(True)
    assert [p.support for p in pruned] == [e.support for e in full]
    assert [p.gold for p in pruned] == [e.gold for e in full]
    assert sum(p.calls for p in pruned) < sum(e.calls for e in full)


# --- through a real NLIEngine(TableNLI) --------------------------------------------------------------

TEXTS = ["Alpha passage about rivers.", "Beta passage about mountains.", "Gamma passage about lakes.",
         "Delta passage about deserts.", "Epsilon passage about forests.", "Zeta passage about seas."]


def engine_records():
    """(docs, {statement: family of doc-id sets}) for a few hand-built records."""
    docs5 = [Doc(title=f"T{i}", text=TEXTS[i]) for i in range(5)]
    docs3 = [Doc(title=f"T{i}", text=TEXTS[i]) for i in range(3)]
    docs6 = [Doc(title=f"T{i}", text=TEXTS[i]) for i in range(6)]
    return [
        (docs5, {"one doc": [{2}], "two docs separately": [{1}, {4}], "pair only": [{2, 5}],
                 "triple only": [{1, 3, 5}], "nothing": [], "four needed": [{1, 2, 3, 4}]}),
        (docs3, {"all three": [{1, 2, 3}], "mixed": [{3}, {1, 2}]}),
        (docs6, {"pair or single": [{6}, {2, 3}, {1, 4, 5}]}),
    ]


@pytest.mark.parametrize("max_size", [2, 3])
def test_through_engine(max_size):
    records = engine_records()
    table: dict[str, list[set[str]]] = {}
    for r, (docs, statements) in enumerate(records):
        for hyp, family in statements.items():
            table[f"{hyp} #{r}"] = [{docs[d - 1].text for d in f} for f in family]
    engine = NLIEngine(TableNLI(table, batch_size=4), progress=False)
    items = [(r, docs, f"{hyp} #{r}", family)
             for r, (docs, statements) in enumerate(records) for hyp, family in statements.items()]

    def run(exhaustive):
        searches = [SubsetSearch(len(docs), max_size, exhaustive) for _, docs, _, _ in items]

        def ask(jobs):
            pairs = [(join_docs(items[i][1], q), items[i][2]) for i, q in jobs]
            return engine.results(pairs)

        run_searches(searches, ask)
        return searches

    pruned, exhaustive = run(False), run(True)
    for (_, docs, hyp, family), p, e in zip(items, pruned, exhaustive):
        assert p.support == e.support, hyp
        assert p.gold == e.gold, hyp
        assert p.supported == e.supported, hyp
        assert p.calls <= e.calls, hyp
        fam = [frozenset(f) for f in family]
        assert set(p.support) == {f for f in fam if len(f) <= max_size}, hyp
        assert p.supported == bool(fam), hyp
    assert sum(p.calls for p in pruned) < sum(e.calls for e in exhaustive)
    # exhaustive asked a superset of pruned's pairs: the second run hit the engine's memo only
    assert engine.stats.memory_hits > 0


# --- union first (the judge's order) ---------------------------------------------------------------

def union_first(n_docs: int, family, cited=(), max_size: int = 3):
    judge = Judge(family)
    search = SubsetSearch(n_docs, max_size, union_first=True, cited=tuple(cited))
    run_searches([search], lambda jobs: [judge(q) for _, q in jobs])
    return search, judge


def test_union_first_unsupported_asks_the_cited_docs_then_the_union():
    s, judge = union_first(5, [], cited=(4, 2, 9))  # 9 is beyond the docs: never asked
    assert judge.asked == [(2,), (4,), (1, 2, 3, 4, 5)]
    assert s.calls == 3 and not s.supported and s.union_entails is False
    assert s.single == [False] * 5 and s.support == []


def test_union_first_a_cited_doc_that_entails_spares_the_union():
    """Doc 2 is cited and entails alone: the statement is supported whatever the union says, so
    the union of all docs is never asked; the other docs alone next, then the search goes on
    (the union of the docs that fail alone, {1, 3, 4}, fails: done)."""
    s, judge = union_first(4, [{2}], cited=(2,))
    assert judge.asked == [(2,), (1,), (3,), (4,), (1, 3, 4)]
    assert s.support == fs({2}) and s.supported and s.union_entails is False


def test_union_first_uncited_asks_the_union_first():
    s, judge = union_first(3, [])
    assert judge.asked == [(1, 2, 3)] and not s.supported


def test_union_first_supported_goes_on_without_asking_the_union_twice():
    s, judge = union_first(4, [{2, 3}])
    # union (yes), the four singletons (no): the union of the remaining docs is the union asked
    # first, so the search goes straight to the leave-one-out round, then the pair (2, 3)
    assert judge.asked == [(1, 2, 3, 4), (1,), (2,), (3,), (4,),
                           (2, 3, 4), (1, 3, 4), (1, 2, 4), (1, 2, 3), (2, 3)]
    assert s.support == fs({2, 3}) and s.union_entails is True


@settings(max_examples=300, deadline=None)
@given(cases(), st.sets(st.integers(1, 10), max_size=4))
def test_union_first_equals_the_pruned_search(case, cited):
    """Under any monotone judge: the same subsets, and the same single-doc decisions for the cited
    docs (all the judge's edits read of docs alone when nothing entails)."""
    n, k, family = case
    p, _, _ = solo(n, family, k)
    u, uj = union_first(n, family, cited, k)
    assert u.support == p.support and u.gold == p.gold and u.supported == p.supported
    assert u.single == p.single
    for d in cited:
        if d <= n:
            assert u.single_results[d - 1] is not None or p.supported
    assert len(set(uj.asked)) == len(uj.asked)
    if not p.supported and n >= 2:
        assert u.calls == 1 + len([d for d in cited if d <= n]) <= p.calls


# --- many passages: the candidate pool -------------------------------------------------------------

class ScoredJudge(Judge):
    """A monotone judge whose single-doc answers carry a score (the pool ranks by it)."""

    def __init__(self, family, scores) -> None:
        super().__init__(family)
        self.scores = scores

    def __call__(self, subset) -> NLIResult:
        res = super().__call__(subset)
        return NLIResult(self.scores.get(subset[0], 0.0) if len(subset) == 1 else res.prob, res.label)


def pooled(n_docs, family, scores, pool=None, max_size=3, exhaustive=False):
    judge = ScoredJudge(family, scores)
    search = SubsetSearch(n_docs, max_size, exhaustive, pool=pool)
    run_searches([search], lambda jobs: [judge(q) for _, q in jobs])
    return search, judge


def test_auto_pool_by_hand():
    from citetrain.analysis.subsets import auto_pool

    assert auto_pool(10, 3) == 10  # never more than the docs
    # budget max(2000, 5n): C(22,2) + C(22,3) = 231 + 1540 = 1771 <= 2000 < 253 + 1771 = 2024
    assert auto_pool(100, 3) == 22
    # 700 docs: budget 3500; C(27,2) + C(27,3) = 351 + 2925 = 3276 <= 3500 < 378 + 3276 = 3654
    assert auto_pool(700, 3) == 27
    # max_size 2, 100 docs: C(63,2) = 1953 <= 2000 < C(64,2) = 2016
    assert auto_pool(100, 2) == 63


def test_a_pair_among_60_docs_is_found_in_the_pool_with_few_calls():
    scores = {d: 0.01 * (d % 7) for d in range(1, 61)}
    scores.update({17: 0.6, 42: 0.55})  # each half of the pair reads best alone
    s, judge = pooled(60, [{17, 42}], scores, pool=8)
    assert s.support == fs({17, 42}) and s.gold == [17, 42] and s.supported
    # 60 singles, the union of all 60, the pool's union, the pool minus each (8), then pairs
    # and triples in the pool that nothing known rules out
    assert judge.asked[:60] == [(d,) for d in range(1, 61)]
    assert judge.asked[60] == tuple(range(1, 61)) and len(judge.asked[61]) == 8
    assert s.calls == len(judge.asked) <= 60 + 2 + 8 + 28 + 56


def test_within_the_pool_the_search_is_the_exhaustive_one():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(2, 12)
        family = [frozenset(rng.sample(range(1, n + 1), rng.randint(1, min(3, n))))
                  for _ in range(rng.randint(0, 3))]
        scores = {d: rng.random() for d in range(1, n + 1)}
        a, _ = pooled(n, family, scores, pool=12)
        b, _ = pooled(n, family, scores, pool=12, exhaustive=True)
        assert (a.support, a.gold, a.supported) == (b.support, b.gold, b.supported)


def test_outside_the_pool_a_joint_subset_is_missed_but_what_is_found_is_exact():
    scores = {d: 0.0 for d in range(1, 31)}
    scores.update({1: 0.9, 2: 0.8, 3: 0.7, 4: 0.6})
    family = [{1, 2}, {29, 30}]  # {29, 30} scores lowest: outside a pool of 4
    s, _ = pooled(30, family, scores, pool=4)
    full, _ = pooled(30, family, scores, pool=30)
    assert full.support == fs({1, 2}, {29, 30})
    assert s.support == fs({1, 2}) and s.supported
    assert set(s.support) <= set(full.support)  # every subset found is a minimal one


def test_when_the_pool_fails_together_the_search_stops():
    scores = {d: 1.0 - d / 100 for d in range(1, 41)}
    s, judge = pooled(40, [{39, 40}], scores, pool=5)  # the pair lies outside the pool
    assert s.union_entails and s.supported and s.support == []
    assert judge.asked[-1] == (1, 2, 3, 4, 5) and s.calls == 40 + 1 + 1
