"""No-model refiners: what word overlap alone cites, the floor a trained refiner must clear.

Both read content words as the lexical NLI does (:func:`citetrain.nli.lexical.content_words`:
lower-cased, Porter-stemmed, English stop words dropped, numbers kept): ``W(s)`` of a statement
without its marks (:func:`~citetrain.builders.refiner_pairs.statement_texts`) and ``W(p_i)`` of
passage i read as the pair refiner reads it (:func:`~citetrain.records.format_doc`: title and
text).

* ``trivial``: every passage sharing a content word with the statement,
  ``{i : W(s) ∩ W(p_i) ≠ ∅}``.
* ``cover``: greedy set cover of ``W(s)`` by passages (Chvátal 1979, *A greedy heuristic for the
  set-covering problem*). With ``U = W(s)``: add the passage i maximising ``|U ∩ W(p_i)|`` (ties:
  the lower id), remove its words from U, and repeat while the best passage adds at least
  ``min_new`` = 2 words and fewer than ``max_ids`` = 3 are chosen; ids in increasing order.

Each statement's ids replace its marks through
:func:`~citetrain.refine.generative.apply_refiner_outputs`, the refiners' own mark replacer, so the
text outside the marks is byte-identical and the counts are those of every refiner.
"""
from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from citetrain.builders.refiner_pairs import statement_texts
from citetrain.nli.lexical import content_words
from citetrain.records import Record, format_doc
from citetrain.refine.generative import apply_refiner_outputs
from citetrain.text.prompts import render_ids
from citetrain.text.statements import statements

ChooseFn = Callable[[set[str], Sequence[set[str]]], list[int]]
P = TypeVar("P")


def words(text: str) -> set[str]:
    """``W(text)``: the lexical NLI's content words (stems and numbers)."""
    return content_words(text)[0]


def trivial_ids(statement: set[str], passages: Sequence[set[str]]) -> list[int]:
    """1-based ids of the passages sharing a content word with the statement."""
    return [i for i, p in enumerate(passages, 1) if statement & p]


def cover_ids(statement: set[str], passages: Sequence[set[str]], *, min_new: int = 2,
              max_ids: int = 3) -> list[int]:
    """Greedy cover of the statement's words (see the module docstring), ids increasing."""
    left, chosen = set(statement), []
    while len(chosen) < max_ids:
        gain, best = max(((len(left & p), -i) for i, p in enumerate(passages, 1)
                          if i not in chosen), default=(0, 0))
        if gain < min_new:
            break
        chosen.append(-best)
        left -= passages[-best - 1]
    return sorted(chosen)


BASELINES: dict[str, ChooseFn] = {"trivial": trivial_ids, "cover": cover_ids}


def refine_each_statement(records: Sequence[Record], read: Callable[[str], P],
                          choose: Callable[[str, list[P], list[int]], list[int]],
                          counts: dict[str, int] | None = None
                          ) -> tuple[list[Record], dict[str, int]]:
    """Refined copies of ``records``, each statement citing ``choose(text without marks,
    [read(passage), ...], its own ids)`` (passages read as :func:`~citetrain.records.format_doc`
    gives them), and the counts of :func:`~citetrain.refine.generative.apply_refiner_outputs`:
    the loop of every no-model refiner (the baselines, the quote cover, the evidence ranker)."""
    outputs = []
    for rec in records:
        passages = [read(format_doc(d)) for d in rec.docs]
        split = statements(rec.output, first_line_only=False)
        outputs.append([render_ids(choose(text, passages, st.citations))
                        for text, st in zip(statement_texts(rec, split), split)])
    return apply_refiner_outputs(records, outputs, counts)


def baseline_refine(records: Sequence[Record], choose: ChooseFn,
                    counts: dict[str, int] | None = None) -> tuple[list[Record], dict[str, int]]:
    """Refined copies of ``records`` citing ``choose(W(statement), [W(passage), ...])`` per
    statement, and the counts of :func:`~citetrain.refine.generative.apply_refiner_outputs`."""
    return refine_each_statement(records, words, lambda text, ps, _: choose(words(text), ps),
                                 counts)
