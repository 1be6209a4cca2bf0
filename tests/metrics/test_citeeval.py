"""CiteEval with the NLI silver judge and from parsed ITERCOE outputs, against hand-computed values.

TableNLI entails a hypothesis iff the premise contains every phrase of one listed set. Doc texts
are distinct phrases; weights are the published ones (keep 1.0030, delete-misleading 0.0694,
add-evidence 0.0, add-credibility 0.4340, intercept -0.0109).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from citetrain.metrics.citeeval import citeeval, citeeval_from_judgements, silver_edits
from citetrain.analysis.editdist import Action
from citetrain.metrics.itercoe import parse_context_labels, parse_itercoe, render_citeeval_prompt
from citetrain.nli.engine import NLIEngine
from citetrain.nli.lexical import LexicalNLI
from citetrain.records import Doc, Record, join_docs
from citetrain.text.statements import statements
from tests.nli_table import TableNLI

SAMPLE = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "citeeval" / \
    "system_eval_examples.json"

DM, DS, DR = Action.DELETE_MISLEADING, Action.DELETE_SUBSTANDARD, Action.DELETE_REDUNDANT
AE, AR, AC = Action.ADD_EVIDENCE, Action.ADD_REFINEMENT, Action.ADD_CREDIBILITY

TEXTS = ["nile long", "moon cheese", "nile is long indeed", "amazon wide", "amazon water",
         "lakes calm"]
DOCS = [Doc(title=f"T{i}", text=t) for i, t in enumerate(TEXTS, 1)]
OUTPUT = ("You asked about rivers. The Nile is long [1][2]. The Amazon is wide [4]. "
          "Lakes are calm. Fish can fly. The Nile is long and the Amazon is wide.")
TABLE = {
    "You asked about rivers.": [{"about rivers"}],  # in the question
    "The Nile is long.": [{"nile long"}, {"nile is long indeed"}],  # doc 1 or doc 3 alone
    "The Amazon is wide.": [{"amazon wide", "amazon water"}],  # docs 4 + 5 together
    "Lakes are calm.": [{"lakes calm"}],  # doc 6
    "The Nile is long and the Amazon is wide.": [{"The Nile is long.", "The Amazon is wide."}],
}
# statement ratings (EDITDIST):
NILE = (1.0030 + 0.0694 + 0.4340) / 3 - 0.0109  # keep 1, delete-misleading 2, add-credibility 3
AMAZON = (1.0030 + 0.0) / 2 - 0.0109  # keep 4, add-evidence 5


class CountingEngine(NLIEngine):
    def __init__(self, backend):
        super().__init__(backend, progress=False)
        self.calls = 0

    def results(self, pairs):
        self.calls += 1
        return super().results(pairs)


def records():
    return [
        Record(id="r", question="Tell me about rivers and lakes.", docs=DOCS, output=OUTPUT),
        Record(id="empty", question="q", docs=DOCS, output=""),
        Record(id="model", question="q", docs=DOCS, output="Fish can fly [1]."),
    ]


def test_contexts_edits_ratings_and_scenarios():
    """Contexts by φ alone (``query_recall=0, response_recall=0``; docs/concepts/support.md)."""
    eng = CountingEngine(TableNLI(TABLE))
    res = citeeval(records(), eng, query_recall=0, response_recall=0)
    rows = [r for r in res.per_statement if r["id"] == "r"]
    assert [r["context"] for r in rows] == [
        "query", "retrieval", "retrieval", "retrieval", "model", "response"]
    # [1][2]: doc 2 supports nothing -> misleading; uncited doc 3 entails alone -> credibility
    assert rows[1]["edits"] == [("delete-misleading", 2), ("add-credibility", 3)]
    assert rows[1]["rating"] == pytest.approx(NILE)
    # [4]: {4, 5} is the minimal supporting pair, C = {4} does not entail -> add-evidence 5
    assert rows[2]["support"] == [[4, 5]] and rows[2]["edits"] == [("add-evidence", 5)]
    assert rows[2]["rating"] == pytest.approx(AMAZON)
    # uncited retrieval statement: 0 in Full, N/A in Cited
    assert rows[3]["edits"] == [("add-evidence", 6)]
    assert (rows[3]["full"], rows[3]["cited"]) == (0.0, None)
    assert all(rows[i]["full"] is None and rows[i]["cited"] is None for i in (0, 4, 5))
    # Full = mean(NILE, AMAZON, 0) over the one record with applicable statements; Cited = mean
    # (NILE, AMAZON). "model" (cited but model-labelled) has none; "empty" is skipped.
    assert res.scores["citeeval_full"] == pytest.approx(100 * (NILE + AMAZON) / 3)
    assert res.scores["citeeval_cited"] == pytest.approx(100 * (NILE + AMAZON) / 2)
    assert res.info["skipped_ids"] == ["empty"] and res.info["records_not_applicable_full"] == 1
    assert res.per_record[1] == {"id": "model", "n_statements": 1, "citeeval_full": None,
                                 "n_applicable_full": 0, "citeeval_cited": None,
                                 "n_applicable_cited": 0}
    assert res.info["contexts"] == {"query": 1, "retrieval": 3, "model": 2, "response": 1}
    # rounds: query, response, single docs, union of the rest, pairs, triples, then the cited sets
    # of the retrieval statements -> 7 engine calls for all records together
    assert eng.calls == 7


def test_context_needs_the_premise_to_hold_the_statements_words():
    """By default (``query_recall`` 1.0) "You asked about rivers." is not query context: the
    question "Tell me about rivers and lakes." lacks "asked" (recall 1/2), so the statement is
    not asked against it and, no doc entailing it, it is ``model`` context: still N/A, the same
    scores. With ``query_recall=0.5`` it is asked, and the table entails it: ``query``. The last
    statement's words (nile, long, amazon, wide) are all in the earlier statements (recall 1 >=
    ``response_recall`` 0.8): ``response`` as before."""
    strict = citeeval(records(), CountingEngine(TableNLI(TABLE)))
    rows = [r for r in strict.per_statement if r["id"] == "r"]
    assert [r["context"] for r in rows] == [
        "model", "retrieval", "retrieval", "retrieval", "model", "response"]
    assert strict.info["query_recall"] == 1.0 and strict.info["contexts"]["model"] == 3
    assert strict.scores["citeeval_full"] == pytest.approx(100 * (NILE + AMAZON) / 3)
    half = citeeval(records(), CountingEngine(TableNLI(TABLE)), query_recall=0.5)
    assert [r["context"] for r in half.per_statement if r["id"] == "r"][0] == "query"
    with pytest.raises(ValueError, match="query_recall.*between 0 and 1"):
        citeeval(records(), CountingEngine(TableNLI(TABLE)), query_recall=1.5)


def test_response_context_is_asked_only_with_the_earlier_words():
    """"Amazon and Nile rivers are long." holds amazon, nile, river, long; the earlier statement
    "The Nile is long." holds nile, long (recall 2/4 < 0.8): not asked against it. With
    ``response_recall=0.5`` it is asked, and the table entails it from the earlier statement."""
    table = {**TABLE, "Amazon and Nile rivers are long.": [{"The Nile is long."}]}
    rec = Record(id="a", question="q", docs=DOCS,
                 output="The Nile is long [1]. Amazon and Nile rivers are long.")
    backend = TableNLI(table)
    rows = citeeval([rec], NLIEngine(backend, progress=False)).per_statement
    assert [r["context"] for r in rows] == ["retrieval", "model"]
    assert ("The Nile is long.", "Amazon and Nile rivers are long.") not in backend.calls
    rows = citeeval([rec], NLIEngine(TableNLI(table), progress=False),
                    response_recall=0.5).per_statement
    assert [r["context"] for r in rows] == ["retrieval", "response"]


def test_asks_only_what_a_later_round_reads():
    """A statement the question entails is not asked against the earlier statements, and the
    cited set of a statement no doc supports (context model) is not asked: same rows, fewer pairs."""
    table = TableNLI(TABLE)
    rec = Record(id="q", question="On the nile long river.", docs=DOCS,
                 output="Fish can fly [1][2]. The Nile is long [1][2].")
    rows = citeeval([rec], NLIEngine(table, progress=False)).per_statement
    assert [r["context"] for r in rows] == ["model", "query"]
    asked = set(table.calls)
    assert ("Fish can fly.", "The Nile is long.") not in asked  # the response context
    assert (join_docs(DOCS, [1, 2]), "Fish can fly.") not in asked  # the cited set C
    # a statement with words the question lacks is not asked against it (query_recall 1.0)
    assert ("On the nile long river.", "Fish can fly.") not in asked
    assert ("On the nile long river.", "The Nile is long.") in asked
    # a retrieval statement's cited set is still asked (its edits read it)
    table = TableNLI(TABLE)
    rec = Record(id="n", question="q", docs=DOCS, output="The Nile is long [1][2].")
    row = citeeval([rec], NLIEngine(table, progress=False)).per_statement[0]
    assert row["context"] == "retrieval" and (join_docs(DOCS, [1, 2]), "The Nile is long.") in table.calls
    assert row["edits"] == [("delete-misleading", 2), ("add-credibility", 3)]


def test_scenario_cut_and_out_of_range():
    rec = Record(id="x", question="q", docs=DOCS[:2], output="The Nile is long [1][7][1][2].")
    res = citeeval([rec], NLIEngine(TableNLI(TABLE), progress=False), scenario="cited")
    assert set(res.scores) == {"citeeval_cited"}
    # 7 out of range -> misleading; the repeated 1 -> redundant; 2 supports nothing -> misleading
    row = res.per_statement[0]
    assert row["edits"] == [("delete-misleading", 7), ("delete-redundant", 1),
                            ("delete-misleading", 2)]
    # actions: keep, DM, DR, DM -> (1.0030 + 0.0694 + 0.5318 + 0.0694) / 4 - 0.0109
    assert row["rating"] == pytest.approx(1.6736 / 4 - 0.0109)
    # at most 1 citation: only [1] is read -> no edits -> 1.0
    res = citeeval([rec], NLIEngine(TableNLI(TABLE), progress=False), at_most_citations=1)
    assert res.per_statement[0]["citations"] == [1] and res.per_statement[0]["rating"] == 1.0
    with pytest.raises(ValueError):
        citeeval([rec], NLIEngine(TableNLI(TABLE)), scenario="all")


def test_three_way_partial_support_gives_substandard():
    # doc 2 partially supports (three-way output), doc 1 entails alone and is not cited
    rec = Record(id="p", question="q", docs=DOCS[:2], output="The Nile is long [2].")
    backend = TableNLI({"The Nile is long.": [{"nile long"}]}, partial={
        "The Nile is long.": ["moon cheese"]})
    row = citeeval([rec], NLIEngine(backend, progress=False)).per_statement[0]
    assert row["edits"] == [("delete-substandard", 2), ("add-refinement", 1)]
    assert row["rating"] == pytest.approx((0.7977 + 0.0162) / 2 - 0.0109)


def test_silver_edit_rules():
    t, f = True, False
    # redundant: 1 entails alone, 2 only with 3; the rest of C = {1} entails without 2
    assert silver_edits([1, 2], 3, [t, f, f], [f] * 3, t, {1: f, 2: t},
                        [frozenset({1}), frozenset({2, 3})]) == [(DR, 2)]
    # greedy: any two of {1, 2, 3} entail; 1 goes (loo), then {3} / {2} alone do not -> kept
    sup = [frozenset(s) for s in ({1, 2}, {1, 3}, {2, 3})]
    assert silver_edits([1, 2, 3], 3, [f] * 3, [f] * 3, t, {1: t, 2: t, 3: t}, sup) == [(DR, 1)]
    # substandard: 2 is partial (in {2, 3}), uncited 1 entails alone; no add-evidence after it
    assert silver_edits([2], 3, [t, f, f], [f] * 3, f, {}, [frozenset({1}), frozenset({2, 3})]) \
        == [(DS, 2), (AR, 1)]
    # evidence: the subset needing fewest additions ({2, 3} shares 2 with C) wins over {1, 4}
    assert silver_edits([2], 4, [f] * 4, [f] * 4, f, {},
                        [frozenset({1, 4}), frozenset({2, 3})]) == [(AE, 3)]
    # an uncited doc: evidence from the pair {1, 4}
    assert silver_edits([], 4, [f] * 4, [f] * 4, f, {},
                        [frozenset({2, 3, 4}), frozenset({1, 4})]) == [(AE, 1), (AE, 4)]
    # no supporting subset of size <= k: evidence from nowhere -> id 0
    assert silver_edits([], 2, [f, f], [f, f], f, {}, []) == [(AE, 0)]
    # credibility stops at 3 citations
    assert silver_edits([1], 4, [t] * 4, [f] * 4, t, {}, [frozenset({d}) for d in range(1, 5)]) \
        == [(AC, 2), (AC, 3)]


def test_from_judgements():
    recs = records()[:1] + [Record(id="b", docs=DOCS, output="Lakes are calm [6].")]
    itercoe = [
        # r: 6 statements, sentences 2 and 3 cited; labels query, retrieval x3, model, response
        """<editing sentence_id="1">N/A</editing><rating sentence_id="1">5</rating>
<editing sentence_id="2"><DELETE citation="2"> DELETE REASON 1 </DELETE></editing>
<rating sentence_id="2"> 3 </rating>
<editing sentence_id="3"> N/A </editing>
<editing sentence_id="4"><ADD citation="6"> ADD REASON 1 </ADD></editing>
<rating sentence_id="4">1</rating>""",
        "garbage",
    ]
    contexts = [parse_context_labels(
        "".join(f'<category sentence_id="{i}"> {c} </category>'
                for i, c in enumerate([1, 2, 2, 2, 4, 3], 1)), 6),
        parse_context_labels("", 1)]  # unreadable -> retrieval
    judg = [parse_itercoe(itercoe[0], 6), parse_itercoe(itercoe[1], 1)]
    res = citeeval_from_judgements(recs, judg, contexts=contexts)
    rows = res.per_statement
    # r: s2 cited, rating 3 -> 0.5; s3 cited, unparsed (missing rating) -> left out;
    # s4 uncited retrieval -> Full 0. Full = mean(0.5, 0) = 0.25, Cited = 0.5.
    # b: unparsed and cited -> no applicable statement in either scenario.
    assert [r["full"] for r in rows] == [None, 0.5, None, 0.0, None, None, None]
    assert res.per_record[0]["citeeval_full"] == 0.25
    assert res.scores == {"citeeval_full": 25.0, "citeeval_cited": 50.0}
    # unparsed: r's sentences 3 (no rating), 5, 6 (no block) and b's only sentence
    assert res.info["unparsed"] == 4 and res.info["contexts_defaulted"] == 1
    assert res.info["unparsed_reasons"] == {"missing rating": 1, "no editing block": 3}
    # EDITDIST of sentence 2's edits: cites [1, 2], delete-misleading 2 ->
    # (1.0030 + 0.0694) / 2 - 0.0109 = 0.5253; ensemble = mean with ITERCOE's 0.5
    ed = citeeval_from_judgements(recs, judg, "cited", contexts=contexts, rating="editdist")
    assert ed.scores == {"citeeval_cited": pytest.approx(52.53)}
    en = citeeval_from_judgements(recs, judg, "cited", contexts=contexts, rating="ensemble")
    assert en.scores["citeeval_cited"] == pytest.approx(100 * (0.5 + 0.5253) / 2)
    with pytest.raises(ValueError):
        citeeval_from_judgements(recs, judg[:1])


def test_citeeval_sample_with_lexical_nli():
    if not SAMPLE.exists():
        pytest.skip(f"CiteEval sample not found at {SAMPLE}")
    from citetrain.io.readers import read_records

    recs = read_records(SAMPLE).records
    res = citeeval(recs, NLIEngine(LexicalNLI(), progress=False), max_subset_size=2)
    n = sum(len(statements(r.output, first_line_only=False)) for r in recs)
    assert len(res.per_statement) == n and res.info["records"] == len(recs)
    assert all(0.0 <= r["rating"] <= 1.0 for r in res.per_statement if r["rating"] is not None)
    assert 0.0 <= res.scores["citeeval_full"] <= res.scores["citeeval_cited"] <= 100.0
    prompt = render_citeeval_prompt(recs[0], statements(recs[0].output, first_line_only=False))
    assert f'<passage id="{len(recs[0].docs)}">' in prompt and "[[" not in prompt


def test_union_first_gives_the_same_ratings_with_fewer_pairs():
    """The lexical NLI is monotone (more premise text never lowers recall), so asking the union of
    the docs first changes no context, edit or rating; it saves single-doc pairs."""
    from citetrain.nli.registry import make_engine
    from citetrain.synth.records import synth_records

    records = synth_records(30, seed=3)
    # answers from another invented world: most statements are supported by no passage
    others = synth_records(30, seed=4)
    unsupported = [r.model_copy(update={"output": o.output}) for r, o in zip(records, others)]
    key = lambda r: (r["context"], r["edits"], r["rating"], r["full"], r["cited"])
    calls = {}
    for name, recs in (("supported", records), ("unsupported", unsupported)):
        plain, first = (make_engine("lexical", cache=False, progress=False) for _ in range(2))
        a = citeeval(recs, plain)
        b = citeeval(recs, first, union_first=True)
        assert [key(r) for r in a.per_statement] == [key(r) for r in b.per_statement]
        assert a.scores == b.scores and b.info["union_first"] is True
        calls[name] = (plain.stats.unique, first.stats.unique)
    assert calls["unsupported"][1] < 0.8 * calls["unsupported"][0]
    # supported answers: a cited doc that entails alone spares the union (an uncited supported
    # statement asks it once more than the metric's order), so fewer calls here too
    assert calls["supported"][1] < calls["supported"][0]


class HashNLI:
    """A deliberately non-monotone model: entailment by a hash of the pair (about one in three),
    three-way support with partial support for another third."""

    is_baseline, batch_size, model_id, revision = True, 64, "hash", "1"

    def cost(self, pair):
        return len(pair[0])

    def predict(self, pairs):
        from hashlib import blake2b

        from citetrain.nli.base import NLIResult

        out = []
        for p, h in pairs:
            v = blake2b(f"{p}\0{h}".encode(), digest_size=2).digest()[0] % 3
            out.append(NLIResult(float(v == 0), v == 0, ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0),
                                                          (0.0, 1.0, 0.0))[v]))
        return out


def test_needed_subsets_stop_once_the_edits_are_settled():
    """"The Nile is long [1]." with doc 1 alone supporting and docs 4 + 5 together too: the whole
    search reports both subsets; ``subsets="needed"`` stops after the singles (the cited doc
    entails alone), with the same edits and rating from the 6 single-doc pairs instead of
    6 + 1 + 5 + 1: the singles, the union of the 5 that fail alone, that union minus each doc
    (minus 4 and minus 5 fail), then the one pair inside neither failing set, {4, 5}; no triple is
    left outside them."""
    table = {"The Nile is long.": [{"nile long"}, {"amazon wide", "amazon water"}]}
    rec = Record(id="n", question="q", docs=DOCS, output="The Nile is long [1].")
    rows, pairs = {}, {}
    for mode in ("all", "needed"):
        backend = TableNLI(table)
        res = citeeval([rec], NLIEngine(backend, progress=False), subsets=mode)
        rows[mode], pairs[mode] = res.per_statement[0], len(backend.calls)
        assert res.info["subsets"] == mode
    assert rows["all"]["support"] == [[1], [4, 5]] and rows["needed"]["support"] == [[1]]
    # no uncited doc entails alone (no add-credibility): the citation is kept, EDITDIST exactly 1
    assert rows["all"]["edits"] == rows["needed"]["edits"] == []
    assert rows["all"]["rating"] == rows["needed"]["rating"] == 1.0
    # the cited set {1} reads as doc 1 alone: the engine asks it once
    assert (pairs["all"], pairs["needed"]) == (6 + 1 + 5 + 1, 6)


@pytest.mark.parametrize("union_first", [False, True])
def test_needed_subsets_give_the_same_ratings_with_fewer_pairs(union_first):
    """Under any model (a hashed, non-monotone one, and the lexical one), in either order, the
    same contexts, edits and ratings with ``subsets="needed"``, from fewer pairs."""
    from citetrain.synth.records import synth_records

    records = synth_records(30, seed=5)
    key = lambda r: (r["context"], r["edits"], r["rating"], r["full"], r["cited"])  # noqa: E731
    for make in (HashNLI, LexicalNLI):
        got, pairs = {}, {}
        for mode in ("all", "needed"):
            engine = NLIEngine(make(), progress=False)
            res = citeeval(records, engine, subsets=mode, union_first=union_first)
            got[mode], pairs[mode] = res, engine.stats.unique
        assert [key(r) for r in got["all"].per_statement] == [key(r) for r in got["needed"].per_statement]
        assert got["all"].scores == got["needed"].scores
        assert pairs["needed"] < pairs["all"], make


def test_needed_subsets_are_for_the_metric():
    from citetrain.analysis.support import analyse, analyses_of

    stmts = analyses_of(Record(id="n", question="q", docs=DOCS, output="The Nile is long [1]."))
    with pytest.raises(ValueError, match="builders keep every supporting subset"):
        analyse(stmts, NLIEngine(LexicalNLI(), progress=False), subsets="needed")
    with pytest.raises(ValueError, match="subsets"):
        citeeval([], NLIEngine(LexicalNLI(), progress=False), subsets="some")


def test_needed_subsets_ask_only_the_docs_alone_the_edits_read():
    """"X [1]." where docs 1, 2 and 4 each support X alone: doc 1 (cited) first; the edits then
    read the first two uncited docs that support alone (add-credibility up to 3 citations), asked
    two at a time in id order: 2 and 3 (one found), then 4 (the second): 4 pairs, not 6 + the union
    of the docs that fail alone. "Y." (uncited) with docs 3 and 5 supporting, union first: the
    union, then docs one at a time until one supports: 1, 2, 3; add-evidence 3."""
    table = {"X.": [{"nile long"}, {"moon cheese"}, {"amazon wide"}],
             "Y.": [{"nile is long indeed"}, {"amazon water"}]}
    cases = {"X.": (Record(id="x", question="q", docs=DOCS, output="X [1]."), False),
             "Y.": (Record(id="y", question="q", docs=DOCS, output="Y."), True)}
    for hyp, (rec, first) in cases.items():
        rows, asked = {}, {}
        for mode in ("all", "needed"):
            backend = TableNLI(table)
            rows[mode] = citeeval([rec], NLIEngine(backend, progress=False), subsets=mode,
                                  union_first=first).per_statement[0]
            asked[mode] = sorted(p for p, _ in backend.calls)  # the engine sorts a round by length
        assert rows["all"]["edits"] == rows["needed"]["edits"], hyp
        assert rows["all"]["rating"] == rows["needed"]["rating"], hyp
        alone = [join_docs(DOCS, [d]) for d in range(1, 7)]
        if hyp == "X.":
            assert rows["needed"]["edits"] == [("add-credibility", 2), ("add-credibility", 4)]
            assert rows["needed"]["rating"] == pytest.approx((1.0030 + 2 * 0.4340) / 3 - 0.0109)
            assert asked["needed"] == sorted(alone[:4])
            assert len(asked["all"]) == 6 + 1
        else:
            assert rows["needed"]["edits"] == [("add-evidence", 3)]
            assert asked["needed"] == sorted([join_docs(DOCS, range(1, 7))] + alone[:3])
            assert len(asked["all"]) == 1 + 6 + 1
