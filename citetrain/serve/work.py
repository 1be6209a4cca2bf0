"""What a request will cost the judge, bounded before any NLI call is made.

Three limits of :class:`~citetrain.serve.config.ServeConfig`, each refused with a 422 naming it:

* ``max_marks``: citation ids in the responses' marks (``[1]``, ``[1, 2]``), counted by one
  regular-expression pass; an id longer than :data:`MAX_ID_DIGITS` digits is refused too;
* ``max_statements``: the responses' sentences, split as the judge splits them; a response is
  split only when its sentence ends (``.``, ``!``, ``?``: Punkt breaks nowhere else) leave it
  within twice the limit, so a body of a million full stops costs one pass, not a split;
* ``max_nli_calls``: the pairs sent, or for records an upper bound on the NLI judge's calls
  (:func:`calls_per_statement` for each statement of a record with its passages).
"""
from __future__ import annotations

import re
from math import comb
from typing import Any, Sequence

from citetrain.analysis.subsets import auto_pool
from citetrain.records import Record
from citetrain.serve.bodies import RequestError
from citetrain.serve.config import ServeConfig
from citetrain.text.bounds import sentence_bound as _text_sentence_bound
from citetrain.text.marks import MARK
from citetrain.text.splitter import split_sentences

MAX_ID_DIGITS = 18
_DIGITS = re.compile(r"\d+")


def calls_per_statement(n_docs: int, max_size: int = 3) -> int:
    """An upper bound on one statement's NLI calls with ``n_docs`` passages: its two context
    premises, each passage alone, the unions (all docs, the remaining ones, the candidate pool),
    the pool minus each doc, its subsets of 2..``max_size`` docs, the cited set and the cited set
    minus each citation (:mod:`citetrain.analysis.subsets`, :mod:`citetrain.analysis.support`)."""
    pool = min(n_docs, auto_pool(n_docs, max_size))
    combos = sum(comb(pool, i) for i in range(2, max_size + 1))
    return 2 + n_docs + 3 + pool + combos + 1 + n_docs


def count_marks(text: str) -> tuple[int, int]:
    """``(ids, digits of the longest id)`` of the citation marks in ``text``."""
    ids = longest = 0
    for m in MARK.finditer(text):
        for d in _DIGITS.finditer(m.group(1)):
            ids += 1
            longest = max(longest, d.end() - d.start())
    return ids, longest


def sentence_bound(text: str) -> int:
    """At least as many as the sentences the judge's splitter finds in ``text``, in linear time:
    the sentence ends of every script it splits (``。！？…；`` too), counted as
    :func:`citetrain.text.bounds.sentence_bound` counts them for the splitter and language
    :func:`split_sentences` picks."""
    return _text_sentence_bound(text)


def statement_counts(records: Sequence[Record], limit: int) -> list[int]:
    """The statements of each record's response, as the judge splits it; a 422 when there are
    more than ``limit`` in all (from the sentence ends alone when they exceed it twice)."""
    texts = [r.output.strip() for r in records]
    bound = sum(sentence_bound(t) for t in texts if t)
    if bound > 2 * limit:
        raise RequestError(422, f"{bound} sentence ends in the responses; at most {limit} "
                                "statements per request (--max-statements)")
    counts = [len(split_sentences(t)) if t else 0 for t in texts]
    if sum(counts) > limit:
        raise RequestError(422, f"{sum(counts)} statements in the responses; at most {limit} per "
                                "request (--max-statements)")
    return counts


def check_work(kind: str, items: Sequence[Any], config: ServeConfig, judge: Any) -> list[int]:
    """Each item's cost for the batcher (an upper bound on its NLI calls; 1 a pair, and 1 a
    record for a judge without an NLI engine), or a 422 naming the limit the request exceeds."""
    if kind == "pairs":
        costs = [1] * len(items)
    else:
        marks = 0
        for record in items:
            ids, longest = count_marks(record.output)
            if longest > MAX_ID_DIGITS:
                raise RequestError(422, f"record {record.id[:40]!r}: a citation mark's id has "
                                        f"{longest} digits; at most {MAX_ID_DIGITS}")
            marks += ids
        if marks > config.max_marks:
            raise RequestError(422, f"{marks} citation ids in the responses' marks; at most "
                                    f"{config.max_marks} per request (--max-marks)")
        counts = statement_counts(items, config.max_statements)
        if getattr(judge, "engine", None) is None:  # not an NLI judge: one prompt per record
            return [1] * len(items)
        size = int(getattr(judge, "max_subset_size", 3))
        costs = [max(1, n * calls_per_statement(len(r.docs), size)) for r, n in zip(items, counts)]
    calls = sum(costs)
    if calls > config.max_nli_calls:
        what = (f"{calls} pairs" if kind == "pairs"
                else f"up to {calls} NLI calls for these statements and passages")
        raise RequestError(422, f"{what}; at most {config.max_nli_calls} per request "
                                "(--max-nli-calls): send fewer")
    return costs
