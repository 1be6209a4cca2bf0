"""Hand-built records and a scripted NLI whose minimal subsets, gold ids and edits are known."""
from citetrain.records import Doc, Record
from tests.nli_table import TableNLI

DOCS = [Doc(title="a", text="Alpha fact."), Doc(title="b", text="Beta fact."),
        Doc(title="c", text="Gamma fact."), Doc(title="d", text="Delta fact.")]
A, B, C, D = (d.text for d in DOCS)

# statement (marks removed) -> sets of passages whose concatenation entails it
TABLE = {
    "Pair only is true.": [{B, C}],                 # supported only by the pair {2, 3}
    "Two separately is true.": [{A}, {D}],          # by doc 1 and by doc 4, each alone
    "Nothing is true.": [],                         # by none
    "Redundant is true.": [{A}, {B, C}],            # cited [1][2]: 2 is redundant next to 1
}
OUTPUT = ("Pair only is true [1]. Two separately is true [2][3]. Nothing is true [4]. "
          "Redundant is true [1][2].")

# (gold ids, minimal subsets, context, silver edits) per statement, worked out by hand
EXPECTED = [
    ([2, 3], [[2, 3]], "retrieval",
     [["delete-misleading", 1], ["add-evidence", 2], ["add-evidence", 3]]),
    ([1, 4], [[1], [4]], "retrieval",
     [["delete-misleading", 2], ["delete-misleading", 3], ["add-evidence", 1]]),
    ([], [], "model", []),
    ([1, 2, 3], [[1], [2, 3]], "retrieval", [["delete-redundant", 2]]),
]


def record(rid: str = "r1", question: str = "Which facts hold?") -> Record:
    return Record(id=rid, question=question, docs=DOCS, output=OUTPUT)


def table_nli() -> TableNLI:
    return TableNLI(TABLE)


def variant(i: int) -> tuple[Record, dict]:
    """Record ``r{i}``: the same structure with its own passages and statements (no NLI pair is
    shared between variants)."""
    docs = [Doc(title=d.title, text=d.text.replace(" fact.", f" fact {i}.")) for d in DOCS]
    sub = {d.text: n.text for d, n in zip(DOCS, docs)}
    table = {h.replace(" is true.", f" is true {i}."): [{sub[t] for t in s} for s in sets]
             for h, sets in TABLE.items()}
    out = OUTPUT.replace(" is true [", f" is true {i} [")
    return Record(id=f"r{i}", question=f"Which facts hold, case {i}?", docs=docs, output=out), table


def variants_nli(n: int) -> TableNLI:
    table: dict = {}
    for i in range(n):
        table.update(variant(i)[1])
    return TableNLI(table)
