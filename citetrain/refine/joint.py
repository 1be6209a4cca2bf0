"""Joint support: cite the *set* of passages that supports a statement together.

A statement that quotes two sources, or a claim whose evidence is spread over several sentences,
is supported by no single passage; a refiner that asks one passage at a time cannot cite it. The
joint refiner asks a support scorer ``f`` (any :data:`~citetrain.refine.pairs.SupportFn`:
the lexical NLI's content-word recall, a ``kind: crossencoder`` classifier's P(supported)) about
unions of passages, read as one premise (the passages' :func:`~citetrain.records.format_doc`
texts in id order, joined by a new line):

1. **Candidates** (cheap, linear in the passages): the ``candidates`` passages sharing the most
   content words with the statement (``|W(s) ∩ W(p_i)|``, ties: the lower id, at least one word
   shared), plus the ids the statement already cites. Nothing past this step looks at the other
   passages, so a record with 120 passages costs what one with ``candidates`` does.
2. **Greedy union** (Nemhauser et al. 1978's greedy for monotone set functions): ``S = ∅``,
   ``f(∅) = 0``; each round asks ``f(S ∪ {c})`` for every candidate ``c ∉ S`` (all statements
   of all records in one batch) and adds the best ``c`` while its gain
   ``f(S ∪ {c}) - f(S) >= min_gain``, ``|S| < max_ids`` and ``f(S) < stop``.
3. **The given citations as a prior** (Generate-then-Refine keeps what the generator got right):
   a statement that cites ids ``G`` (in range) is also asked ``f(G)``; it keeps ``G`` when
   ``f(G) >= f(S) - keep_margin``, i.e. when the given set supports the statement about as well
   as the set the search found.
4. The statement cites its set when ``f(set) >= threshold``, else nothing.

Calls per statement: at most ``1 + candidates + (candidates - 1) + ...`` over ``max_ids`` rounds
(12 at the defaults), whatever the number of passages.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from citetrain.builders.refiner_pairs import statement_texts
from citetrain.nli.base import Pair
from citetrain.nli.lexical import content_words
from citetrain.records import Record, format_doc
from citetrain.refine.generative import apply_refiner_outputs
from citetrain.refine.pairs import SupportFn
from citetrain.text.prompts import render_ids
from citetrain.text.statements import statements


@dataclass(frozen=True)
class JointOptions:
    """The joint search's settings (see the module docstring)."""

    candidates: int = 5
    max_ids: int = 3
    min_gain: float = 0.1
    stop: float = 0.95
    threshold: float = 0.5
    keep_margin: float = 0.05
    use_given: bool = True

    def __post_init__(self) -> None:
        if self.candidates < 1 or self.max_ids < 1:
            raise ValueError("candidates and max_ids must be >= 1")
        for name in ("min_gain", "stop", "threshold", "keep_margin"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], not {getattr(self, name)}")


def candidate_ids(statement: set[str], passages: Sequence[set[str]], k: int) -> list[int]:
    """1-based ids of the ``k`` passages sharing the most content words with the statement
    (ties: the lower id; at least one word shared)."""
    ranked = sorted((-len(statement & p), i) for i, p in enumerate(passages, 1) if statement & p)
    return [i for _, i in ranked[:k]]


@dataclass
class _Search:
    """One statement's search state."""

    text: str
    docs: list[str]
    candidates: list[int]
    given: list[int]
    chosen: list[int] = field(default_factory=list)
    score: float = 0.0
    given_score: float | None = None
    done: bool = False

    def premise(self, ids: Sequence[int]) -> str:
        return "\n".join(self.docs[i - 1] for i in sorted(ids))

    def result(self, opts: JointOptions) -> list[int]:
        if self.given and self.given_score is not None and \
                self.given_score >= self.score - opts.keep_margin:
            best, score = sorted(self.given), self.given_score
        else:
            best, score = sorted(self.chosen), self.score
        return best if best and score >= opts.threshold else []


def _searches(record: Record, opts: JointOptions) -> list[_Search]:
    docs = [format_doc(d) for d in record.docs]
    words = [content_words(d)[0] for d in docs]
    split = statements(record.output, first_line_only=False)
    out = []
    for text, ids in zip(statement_texts(record, split), (st.citations for st in split)):
        given = sorted({i for i in ids if 1 <= i <= len(docs)}) if opts.use_given else []
        cands = candidate_ids(content_words(text)[0], words, opts.candidates)
        out.append(_Search(text, docs, list(dict.fromkeys([*cands, *given])), given))
    return out


def joint_choose(searches: Sequence[_Search], support: SupportFn, opts: JointOptions) -> None:
    """Run the greedy union search of every statement, one batched ``support`` call per round
    (the given sets are asked in the first)."""
    first = True
    while True:
        asks: list[tuple[_Search, int | None]] = []
        pairs: list[Pair] = []
        for s in searches:
            if s.done:
                continue
            if first and s.given:
                asks.append((s, None))
                pairs.append((s.premise(s.given), s.text))
            for c in s.candidates:
                if c not in s.chosen:
                    asks.append((s, c))
                    pairs.append((s.premise([*s.chosen, c]), s.text))
        first = False
        if not pairs:
            return
        best: dict[int, tuple[float, int]] = {}
        for (s, c), p in zip(asks, support(pairs)):
            if c is None:
                s.given_score = float(p)
            elif id(s) not in best or (float(p), -c) > (best[id(s)][0], -best[id(s)][1]):
                best[id(s)] = (float(p), c)
        for s in searches:
            if s.done:
                continue
            if id(s) not in best:
                s.done = True
                continue
            p, c = best[id(s)]
            if p - s.score >= opts.min_gain:
                s.chosen.append(c)
                s.score = p
            else:
                s.done = True
            if len(s.chosen) >= opts.max_ids or s.score >= opts.stop:
                s.done = True


def joint_refine(records: Sequence[Record], support: SupportFn, opts: JointOptions = JointOptions(),
                 counts: dict[str, int] | None = None) -> tuple[list[Record], dict[str, int]]:
    """Refined copies of ``records`` citing each statement's jointly supporting set, and the
    counts of :func:`~citetrain.refine.generative.apply_refiner_outputs`."""
    per_record = [_searches(r, opts) for r in records]
    joint_choose([s for rows in per_record for s in rows], support, opts)
    outputs = [[render_ids(s.result(opts)) for s in rows] for rows in per_record]
    return apply_refiner_outputs(records, outputs, counts)
