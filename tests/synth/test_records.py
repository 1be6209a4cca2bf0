"""Seeded synthetic data: reproducible, a realistic case mix, gold the lexical NLI agrees with.

Citation ids: no case is meant to produce an id outside ``1..len(docs)``, so every id of every
record must be in range (out-of-range handling is tested with the metrics, not generated here).
"""
from __future__ import annotations

import re
from collections import Counter

import pytest

from citetrain.records import join_docs
from citetrain.synth.records import CASES, KINDS, case_counts, synth_records
from citetrain.text.marks import parse_marks

N = 2000


@pytest.fixture(scope="module")
def records():
    return synth_records(N, seed=0)


def _split(output: str) -> list[str]:
    """The generator's sentences (each ends with '.', the next opens with a capital)."""
    return re.split(r"(?<=\.) (?=[A-Z])", output)


def test_reproducible_for_a_seed_and_different_across_seeds():
    a = [r.to_dict() for r in synth_records(40, seed=3)]
    assert a == [r.to_dict() for r in synth_records(40, seed=3)]
    assert a[:15] == [r.to_dict() for r in synth_records(15, seed=3)]  # a longer run extends
    b = [r.to_dict() for r in synth_records(40, seed=4)]
    assert sum(x["output"] != y["output"] for x, y in zip(a, b)) >= 35
    assert len({r["id"] for r in a}) == 40


def test_schema(records):
    for r in records:
        extra = r.model_extra
        assert set(extra) == {"gold", "case"}
        assert 4 <= len(r.docs) <= 6 and r.question.endswith(("?", "."))
        assert "\n" not in r.output  # one line: ALCE reads the first line only
        sents = _split(r.output)
        assert 2 <= len(sents) <= 5 and len(sents) == len(extra["gold"]) == len(extra["case"])
        assert set(extra["case"]) <= set(CASES)
        for d in r.docs:
            assert d.title and 2 <= d.text.count(". ") + 1 <= 4
    assert all(len(r.docs) == 3 for r in synth_records(20, seed=1, n_docs=(3, 3)))
    with pytest.raises(ValueError):
        synth_records(1, n_docs=(2, 3))


def test_case_proportions(records):
    counts = case_counts(records)
    total = sum(counts.values())
    kinds = Counter()
    for case, n in counts.items():
        kinds[case.split(":")[0]] += n
    share = {k: kinds[k] / total for k in KINDS}
    bands = {"correct": (.33, .47), "missing": (.11, .19), "misleading": (.11, .19),
             "redundant": (.07, .13), "multi": (.07, .13), "unsupported": (.07, .13)}
    for kind, (lo, hi) in bands.items():
        assert lo <= share[kind] <= hi, (kind, share[kind])
    mid = sum("multi:mid" in r.model_extra["case"] for r in records) / len(records)
    assert 0.10 <= mid <= 0.20
    assert all(counts[c] > 0 for c in CASES)


def test_citations_follow_the_case(records):
    for r in records:
        for sent, gold, case in zip(_split(r.output), r.model_extra["gold"], r.model_extra["case"]):
            st = parse_marks(sent)
            cites, g = list(st.citations), set(gold)
            assert all(1 <= i <= len(r.docs) for i in cites + gold), (r.id, sent)
            assert gold == sorted(g)
            kind = case.split(":")[0]
            assert bool(gold) == (kind != "unsupported")
            if case in ("missing", "multi:none", "unsupported:uncited"):
                assert not cites
            elif case == "correct":
                assert cites and set(cites) <= g
            elif case == "misleading":
                assert len(cites) == 1 and cites[0] not in g
            elif case == "redundant:extra":
                assert len(cites) == 2 and len(set(cites) & g) == 1
            elif case == "redundant:repeat":
                assert len(cites) == 2 and cites[0] == cites[1] and cites[0] in g
            elif case == "multi:both":
                assert len(gold) == 2 and sorted(cites) == gold
            elif case == "multi:one":
                assert len(gold) == 2 and len(cites) == 1 and cites[0] in g
            elif case == "multi:mid":  # one mark after each clause, the first mid-sentence
                assert len(st.groups) == 2 and st.groups[0].word_index < st.n_words
                assert sorted(cites) == gold and len(gold) == 2
            elif case == "unsupported:cited":
                assert len(cites) == 1


@pytest.fixture(scope="module")
def split_records(records):
    """300 records with the project's own statement splitter (Punkt by default)."""
    from citetrain.text.statements import statements

    sub = records[:300]
    return sub, [statements(r.output, first_line_only=False) for r in sub]


@pytest.fixture(scope="module")
def engine():
    from citetrain.nli.engine import NLIEngine
    from citetrain.nli.lexical import LexicalNLI

    return NLIEngine(LexicalNLI(), progress=False)


def test_lexical_nli_agrees_with_gold(split_records, engine):
    """Each gold set entails its statement; no single passage outside gold does (and for facts
    split across two passages, no single gold passage either)."""
    sub, stmts = split_records
    pairs, owner, want = [], [], []
    n_statements = 0
    misaligned = 0  # the splitter may cut a statement the generator wrote as one (rare)
    for r, sts in zip(sub, stmts):
        gold, cases = r.model_extra["gold"], r.model_extra["case"]
        if [s.text for s in sts] != [parse_marks(x).text for x in _split(r.output)]:
            misaligned += len(gold)
            n_statements += len(gold)
            continue
        for st, g, case in zip(sts, gold, cases):
            key = (r.id, n_statements)
            n_statements += 1
            if g:
                pairs.append((join_docs(r.docs, g), st.text)), owner.append(key), want.append(True)
            for j in range(1, len(r.docs) + 1):
                alone = j in g and not case.startswith("multi")
                pairs.append((join_docs(r.docs, [j]), st.text))
                owner.append(key), want.append(alone)
    got = engine.entails(pairs)
    bad = len({k for k, w, x in zip(owner, want, got) if w != x}) + misaligned
    assert 1 - bad / n_statements >= 0.95, f"{bad} of {n_statements} disagree"


def test_gold_citations_score_full_marks_and_injected_errors_do_not(split_records, engine):
    from citetrain.metrics.alce import alce

    sub, stmts = split_records
    oracle = []
    sub, stmts = zip(*[(r, sts) for r, sts in zip(sub, stmts)
                       if len(sts) == len(r.model_extra["gold"])])
    for r, sts in zip(sub, stmts):
        text = " ".join(f"{st.text[:-1]} {''.join(f'[{i}]' for i in g)}." if g else st.text
                        for st, g in zip(sts, r.model_extra["gold"]))
        oracle.append(r.model_copy(update={"output": text}))
    best = alce(oracle, engine)
    assert best.scores["citation_prec"] == pytest.approx(100.0)
    for row, g in zip(best.per_statement, [g for r in sub for g in r.model_extra["gold"]]):
        assert row["recall"] == int(bool(g))
    got = alce(sub, engine).scores
    assert got["citation_f1"] < best.scores["citation_f1"] - 15


def test_cli_writes_a_readable_file(tmp_path, capsys):
    from citetrain.cli.main import main
    from citetrain.io.readers import read_records

    out = tmp_path / "synth.jsonl"
    assert main(["synth", "--n", "30", "--seed", "5", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "wrote 30 records" in printed and "misleading" in printed
    back = read_records(out, "alce").records
    assert [r.to_dict() for r in back] == [r.to_dict() for r in synth_records(30, seed=5)]
    assert main(["synth", "--n", "2", "--docs", "2,3", "--out", str(out)]) == 2


def test_many_passages_per_record_and_sizes_the_world_cannot_make():
    from citetrain.errors import CitetrainError

    rec = synth_records(1, n_docs=(300, 300))[0]
    assert len(rec.docs) == 300 and len({d.text for d in rec.docs}) >= 290
    assert synth_records(1, n_docs=(300, 300))[0] == rec  # seeded
    with pytest.raises(CitetrainError, match="2000 passages per record: the synthetic world has 1250 entities"):
        synth_records(1, n_docs=(2000, 2000))
    with pytest.raises(CitetrainError, match=r"1250-1250 passages per record: .* holds about \d+ passages"):
        synth_records(1, n_docs=(1250, 1250))


def test_a_long_stream_is_made_piece_by_piece():
    assert synth_records(12, seed=5) == synth_records(7, seed=5) + synth_records(12, seed=5, start=7)
