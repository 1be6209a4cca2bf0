"""The trivial baseline: cite every passage that shares a content word with the statement."""
from __future__ import annotations

from typing import Sequence

from citetrain.nli.lexical import content_words
from citetrain.records import Record
from citetrain.refine.generative import apply_refiner_outputs
from citetrain.builders.refiner_pairs import statement_texts
from citetrain.text.prompts import render_ids


def shared_word_ids(statement: str, passages: Sequence[str]) -> list[int]:
    """1-based ids of the passages sharing at least one content word (the lexical NLI's
    stemmed, stop-word-free words) with ``statement``."""
    return _shared(statement, [content_words(p)[0] for p in passages])


def _shared(statement: str, passage_words: Sequence[set[str]]) -> list[int]:
    words = content_words(statement)[0]
    return [i for i, pw in enumerate(passage_words, 1) if words & pw]


def shared_word_baseline(records: Sequence[Record]) -> list[Record]:
    """Records whose statements cite every passage that shares a word with them (each
    passage's words read once per record)."""
    outputs = []
    for r in records:
        passage_words = [content_words(f"{d.title} {d.text}")[0] for d in r.docs]
        outputs.append([render_ids(_shared(s, passage_words)) for s in statement_texts(r)])
    return apply_refiner_outputs(records, outputs)[0]
