"""Scoring is linear in what it reads (issue 86): a statement's earlier statements and a subset's
passages are read from their parts, never re-joined, so 10× the statements cost about 10× (the
old joining cost the square), with every statement asked against the ones before it."""
from __future__ import annotations

import random

from citetrain.metrics.citeeval import citeeval
from citetrain.nli.engine import NLIEngine
from citetrain.nli.lexical import LexicalNLI
from citetrain.records import Doc, Record
from tests.scaling import scaling_ratio, seconds

BOUND = 20  # 10× the statements: linear ~10, quadratic ~100
WORDS = [f"w{i}" for i in range(40)]


def _record(n: int, seed: int = 0) -> Record:
    """``n`` statements of 30 words each, all drawn from 40 words: from the third on, the
    earlier statements hold every word of a statement, so each is asked against them."""
    rng = random.Random(seed)
    out = " ".join(" ".join(rng.choice(WORDS) for _ in range(30)) + f" [{1 + k % 3}]."
                   for k in range(n))
    docs = [Doc(title=f"T{i}", text=" ".join(rng.choice(WORDS) for _ in range(40))) for i in range(3)]
    return Record(id="r", question="What?", docs=docs, output=out)


def _score(record: Record) -> None:
    citeeval([record], NLIEngine(LexicalNLI(), progress=False))


def test_many_statements_cost_linear_in_their_number():
    small, large = _record(200), _record(2000)
    engine = NLIEngine(LexicalNLI(), progress=False)
    rows = citeeval([small], engine).per_statement
    assert sum(r["context"] == "response" for r in rows) > 100  # read against the earlier ones
    ratio = scaling_ratio(lambda: seconds(lambda: _score(small)),
                          lambda: seconds(lambda: _score(large)), BOUND)
    assert ratio < BOUND, ratio


def test_long_passages_are_read_once_per_record():
    """Ten statements against 40 passages of 8 KB read the passages once: about the cost of one
    statement against them (the joined subsets of old read them once per premise)."""
    rng = random.Random(1)
    docs = [Doc(title=f"T{i}", text=" ".join(rng.choice(WORDS) + str(rng.randrange(999))
                                             for _ in range(1600))) for i in range(40)]

    def record(n: int) -> Record:
        return Record(id="r", question="What?", docs=docs,
                      output=" ".join(f"w1 w2 w3 statement {k} [{k + 1}]." for k in range(n)))

    one, ten = record(1), record(10)
    ratio = scaling_ratio(lambda: seconds(lambda: _score(one)),
                          lambda: seconds(lambda: _score(ten)), 4)
    assert ratio < 4, ratio
