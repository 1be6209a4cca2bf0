"""The trivial baseline: cite every passage that shares a content word with the statement."""
from __future__ import annotations

from typing import Sequence

from citetrain.nli.lexical import content_words
from citetrain.records import Record
from citetrain.refine import apply_refiner_outputs
from citetrain.refine_pairs import statement_texts
from citetrain.builders.prompts import render_ids


def shared_word_ids(statement: str, passages: Sequence[str]) -> list[int]:
    """1-based ids of the passages sharing at least one content word (the lexical NLI's
    stemmed, stop-word-free words) with ``statement``."""
    words = content_words(statement)[0]
    return [i for i, p in enumerate(passages, 1) if words & content_words(p)[0]]


def shared_word_baseline(records: Sequence[Record]) -> list[Record]:
    """Records whose statements cite every passage that shares a word with them."""
    outputs = [[render_ids(shared_word_ids(s, [f"{d.title} {d.text}" for d in r.docs]))
                for s in statement_texts(r)] for r in records]
    return apply_refiner_outputs(records, outputs)[0]
