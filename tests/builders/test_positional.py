"""Positional generator targets: each atomic claim gets its own gold ids, placed where it stood."""
from types import SimpleNamespace

from citetrain.analysis.support import analyse, analyses_of, analysis_row
from citetrain.builders.positional import add_claim_targets
from citetrain.builders.sets import generator_examples
from citetrain.nli.engine import NLIEngine
from citetrain.records import Doc, Record
from citetrain.text.claims import atomic_claims
from tests.nli_table import TableNLI

DOCS = [Doc(title="a", text="Rivers flow north."), Doc(title="b", text="Lakes are deep."),
        Doc(title="c", text="Seas are salty.")]
SENTENCE = "The river flows north [3], and the lake is deep [1]."


def test_claims_get_their_own_gold_in_place():
    parse = atomic_claims(SENTENCE, semantics="paper")  # the builder's semantics
    first, second = (c.text for c in parse.claims)
    table = {first: [{"Rivers flow north."}], second: [{"Lakes are deep."}],
             "The river flows north, and the lake is deep.": [{"Rivers flow north.", "Lakes are deep."}]}
    rec = Record(id="p", question="Q?", docs=DOCS, output=SENTENCE)
    engine = NLIEngine(TableNLI(table), progress=False)
    stmts = analyses_of(rec)
    analyse(stmts, engine)
    rows = [analysis_row(s) for s in stmts]
    assert rows[0]["gold"] == [1, 2]  # the sentence as a whole needs both docs
    item = SimpleNamespace(record=rec)
    add_claim_targets([item], rows, SimpleNamespace(max_subset=3, exhaustive=False), engine)
    assert [g for _, g in rows[0]["claims"]] == [[1], [2]]
    (ex,), _ = generator_examples(rec, rows)
    assert ex["completion"] == " The river flows north [1], and the lake is deep [2]."
