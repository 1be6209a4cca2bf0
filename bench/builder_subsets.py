"""Benchmark: NLI calls per statement for the pruned vs exhaustive minimal-subset search.

For 5 and 10 docs per record (``max_subset`` 3), makes seeded synthetic statements whose support
looks like retrieval-augmented answers:

- ~45% supported by one doc alone (a quarter of those by two docs, each alone);
- ~15% supported only jointly: by a pair (two thirds) or a triple (one third) of docs;
- ~40% supported by no doc or combination of docs.

The judge is monotone (a set of docs entails iff it contains one of the statement's supporting
sets), so both searches must find the same minimal subsets. All statements of a setting run
together through :func:`run_searches` (one batched ``ask`` per round), once pruned and once
exhaustive. Prints calls per statement (overall and per kind of support), the ratio
pruned / exhaustive, and whether the targets (support, gold, supported) are identical; exits
non-zero only when they differ. The target for the ratio is <= 15% at 10 docs.
Run: ``python bench/builder_subsets.py [--statements 1000] [--seed 0]``.

``--passages 10,50,100,300,700`` prints the long-context table instead: ``--records`` synthetic
records (``citetrain synth --docs N,N``) per row, scored with the lexical NLI (no cache) as a
build does (gold targets: every statement's minimal subsets, ``max_subset`` 3) and as
``--metrics citeeval`` does; per row NLI pairs asked per statement and seconds per record, and
the share of statements whose gold targets equal the exhaustive search's at ``max_subset`` 2
(where it is affordable: up to 100 passages), with the default pool of ``max_subset`` 2 and,
stricter, with the smaller pool that ``max_subset`` 3 uses.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from citetrain.analysis.subsets import (  # noqa: E402
    SubsetSearch, exhaustive_calls, is_covered, run_searches,
)
from citetrain.nli.base import NLIResult  # noqa: E402

MAX_SUBSET = 3
DOCS = (5, 10)
TARGET = 0.15  # pruned / exhaustive calls at 10 docs
YES, NO = NLIResult(1.0, True), NLIResult(0.0, False)
KINDS = ("one doc", "two docs separately", "pair only", "triple only", "none")


def make_statements(n: int, n_docs: int, rng: random.Random) -> list[tuple[str, list[frozenset[int]]]]:
    """``n`` (kind, supporting family) pairs over docs 1..n_docs."""
    ids = range(1, n_docs + 1)
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.45:
            if rng.random() < 0.25:
                out.append(("two docs separately", [frozenset({d}) for d in rng.sample(ids, 2)]))
            else:
                out.append(("one doc", [frozenset({rng.choice(ids)})]))
        elif r < 0.60:
            if rng.random() < 2 / 3:
                out.append(("pair only", [frozenset(rng.sample(ids, 2))]))
            else:
                out.append(("triple only", [frozenset(rng.sample(ids, 3))]))
        else:
            out.append(("none", []))
    return out


def run(n_docs: int, families: list[list[frozenset[int]]], exhaustive: bool):
    searches = [SubsetSearch(n_docs, MAX_SUBSET, exhaustive) for _ in families]

    def ask(jobs):
        return [YES if is_covered(q, families[i]) else NO for i, q in jobs]

    t0 = time.perf_counter()
    rounds = run_searches(searches, ask)
    return searches, rounds, time.perf_counter() - t0


def long_context(passages: list[int], n_records: int, seed: int) -> None:
    """The long-context table (see the module docstring)."""
    from citetrain.analysis.subsets import auto_pool
    from citetrain.analysis.support import analyse, analyses_of
    from citetrain.metrics.citeeval import citeeval
    from citetrain.nli.registry import make_engine
    from citetrain.records import join_docs
    from citetrain.synth.records import synth_records

    def gold_at(stmts, max_size, exhaustive, pool):
        engine = make_engine("lexical", cache=False, progress=False)
        searches = [SubsetSearch(len(s.docs), max_size, exhaustive, pool=pool) for s in stmts]
        run_searches(searches, lambda jobs: engine.results(
            [(join_docs(stmts[i].docs, q), stmts[i].text) for i, q in jobs]))
        return [x.gold for x in searches]

    print(f"lexical NLI, {n_records} synthetic records per row (seed {seed}), max_subset 3\n")
    print(f"{'passages':>8} {'pool':>5} {'stmts':>6} | {'build: pairs/stmt':>17} {'s/record':>9} | "
          f"{'citeeval: pairs/stmt':>20} {'s/record':>9} | {'gold = exhaustive, max 2':>24} "
          f"{'(with the max-3 pool)':>22}")
    for n in passages:
        records = synth_records(n_records, seed, n_docs=(n, n))
        stmts = [a for r in records for a in analyses_of(r)]
        engine = make_engine("lexical", cache=False, progress=False)
        start = time.perf_counter()
        analyse(stmts, engine, max_size=3, search_all=True)
        build_s = (time.perf_counter() - start) / n_records
        build_calls = engine.stats.requested / len(stmts)
        engine = make_engine("lexical", cache=False, progress=False)
        start = time.perf_counter()
        citeeval(records, engine)
        cite_s = (time.perf_counter() - start) / n_records
        cite_calls = engine.stats.requested / len(stmts)
        agree = ["-", "-"]
        if n <= 100:
            searched = [s for s in stmts if s.text.strip()]
            exact = gold_at(searched, 2, True, None)
            for k, pool in enumerate((None, auto_pool(n, 3))):
                same = sum(x == y for x, y in zip(gold_at(searched, 2, False, pool), exact))
                agree[k] = f"{same}/{len(exact)} ({100 * same / len(exact):.1f}%)"
        print(f"{n:>8} {auto_pool(n, 3):>5} {len(stmts):>6} | {build_calls:>17.1f} {build_s:>9.2f} | "
              f"{cite_calls:>20.1f} {cite_s:>9.2f} | {agree[0]:>24} {agree[1]:>22}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--statements", type=int, default=1000, help="statements per setting")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--passages", help="comma-separated passages per record: the long-context table")
    ap.add_argument("--records", type=int, default=5, help="records per row of --passages")
    args = ap.parse_args()
    if args.passages:
        return long_context([int(x) for x in args.passages.split(",")], args.records, args.seed)
    rng = random.Random(args.seed)

    print(f"statements per setting: {args.statements}  max_subset: {MAX_SUBSET}  seed: {args.seed}")
    all_same, ratio_at_10 = True, None
    for n_docs in DOCS:
        stmts = make_statements(args.statements, n_docs, rng)
        families = [f for _, f in stmts]
        pruned, p_rounds, p_wall = run(n_docs, families, exhaustive=False)
        full, e_rounds, e_wall = run(n_docs, families, exhaustive=True)
        same = all(p.support == e.support and p.gold == e.gold and p.supported == e.supported
                   for p, e in zip(pruned, full))
        all_same &= same
        p_calls = sum(s.calls for s in pruned)
        e_calls = sum(s.calls for s in full)
        n = len(stmts)
        ratio = p_calls / e_calls
        if n_docs == 10:
            ratio_at_10 = ratio
        print(f"\n{n_docs} docs per record, {n} statements")
        print(f"  exhaustive: {e_calls / n:7.2f} calls/statement ({exhaustive_calls(n_docs, MAX_SUBSET)} "
              f"subsets of size <= {MAX_SUBSET}"
              f"{' + the union of all docs' if n_docs > MAX_SUBSET else ''}), {e_rounds} round, "
              f"{e_wall * 1e3:.0f} ms")
        print(f"  pruned:     {p_calls / n:7.2f} calls/statement, {p_rounds} rounds, {p_wall * 1e3:.0f} ms")
        print(f"  ratio pruned/exhaustive: {ratio:.3f} ({100 * ratio:.1f}%)")
        by_kind: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for (kind, _), p, e in zip(stmts, pruned, full):
            by_kind[kind].append((p.calls, e.calls))
        print("  by kind of support      share   pruned  exhaustive  share of pruned calls")
        for kind in KINDS:
            rows = by_kind.get(kind, [])
            if not rows:
                continue
            pc, ec = sum(r[0] for r in rows), sum(r[1] for r in rows)
            print(f"    {kind:<21} {100 * len(rows) / n:5.1f}%  {pc / len(rows):7.2f}  {ec / len(rows):10.2f}"
                  f"  {100 * pc / p_calls:20.1f}%")
        supported = sum(p.supported for p in pruned)
        gold = sum(len(p.gold) for p in pruned)
        print(f"  targets identical (support, gold, supported): {same}  "
              f"(supported {supported}/{n}, gold citations {gold})")
    if ratio_at_10 is not None:
        verdict = "met" if ratio_at_10 <= TARGET else "NOT met"
        print(f"\ntarget pruned <= {100 * TARGET:.0f}% of exhaustive at 10 docs: {verdict} "
              f"({100 * ratio_at_10:.1f}%)")
    print(f"targets identical in every setting: {all_same}")
    if not all_same:
        raise SystemExit("pruned and exhaustive searches disagree")


if __name__ == "__main__":
    main()
