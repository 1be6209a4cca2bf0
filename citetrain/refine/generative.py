"""Generate-then-Refine: replace each statement's citations with a refiner's ids, leaving the
text byte-identical outside the marks.

A mark group is the marks and the whitespace before them (``" [1][2]"``, ``" [1, 2]"``). Within
each sentence every group is removed and the refined ids go before the sentence's final
punctuation, so ``strip_marks(refined) == strip_marks(original)`` for every record. Marks after a
closing quote (``'... Battle." [1] The ...'``) open the next sentence as Punkt splits it; there the
whitespace between the two sentences belongs to the group, as :func:`strip_marks` counts it.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from citetrain.records import Record
from citetrain.text.marks import MARK, strip_marks
from citetrain.text import prompts as P
from citetrain.text.splitter import split_sentences
from citetrain.text.statements import statements

_TRAIL = re.compile(r"(?:\s*[.!?;:,\"'”’)\]])*\s*$")


def sentence_spans(output: str) -> list[tuple[int, int]]:
    """Character spans of the output's sentences (as the metrics split them) in ``output``."""
    spans, pos = [], 0
    for sent in split_sentences(output):
        start = output.find(sent, pos)
        if start < 0:  # the splitter normalised something: fall back to no replacement
            raise ValueError(f"sentence not found in output: {sent[:40]!r}")
        spans.append((start, start + len(sent)))
        pos = start + len(sent)
    return spans


def replace_citations(output: str, ids: Sequence[Sequence[int] | None]) -> str:
    """``output`` with sentence k's marks replaced by ``ids[k]`` (``None``: left as it is)."""
    spans = sentence_spans(output)
    parts, pos = [], 0
    for (a, b), new in zip(spans, list(ids) + [None] * (len(spans) - len(ids))):
        if new is not None and MARK.match(output, a) and not output[pos:a].strip():
            a = pos  # a sentence that starts with marks: the space before them is their group's
        parts.append(output[pos:a])
        sent = output[a:b]
        if new is not None:
            bare = strip_marks(sent)
            tail = _TRAIL.search(bare).start()
            marks = "".join(f"[{i}]" for i in new)
            sent = bare[:tail] + (" " + marks if marks else "") + bare[tail:]
        parts.append(sent)
        pos = b
    parts.append(output[pos:])
    return "".join(parts)


def refiner_prompts(record: Record, max_words: int | None = None) -> list[str]:
    """One refiner prompt per statement (question, numbered docs, the statement as written)."""
    return [P.refiner_prompt(record.question, record.docs, st.raw.strip() or st.text, max_words)
            for st in statements(record.output, first_line_only=False)]


COUNT_KEYS = ("statements", "ids", "dropped_out_of_range", "not_ids", "records_unchanged")


def apply_refiner_outputs(records: Sequence[Record], outputs: Sequence[Sequence[str]],
                          counts: dict[str, int] | None = None) -> tuple[list[Record], dict[str, int]]:
    """Records with each statement's marks replaced by the ids in its refiner output.

    ``outputs[r][k]`` is the refiner's text for statement ``k`` of record ``r``. Ids outside the
    record's docs are dropped and counted; an output that is not ids at all leaves the
    statement's citations as they were and is counted (``not_ids``); a record whose text cannot
    be re-assembled is kept unchanged and counted (``records_unchanged``). Nothing raises.
    """
    counts = counts if counts is not None else {}
    for key in COUNT_KEYS:
        counts.setdefault(key, 0)
    refined = []
    for rec, outs in zip(records, outputs):
        ids: list[list[int] | None] = []
        for out in outs:
            counts["statements"] += 1
            got = P.parse_ids_strict(out)
            if got is None:
                counts["not_ids"] += 1
                ids.append(None)
                continue
            keep = [i for i in got if 1 <= i <= len(rec.docs)]
            counts["ids"] += len(keep)
            counts["dropped_out_of_range"] += len(got) - len(keep)
            ids.append(keep)
        try:
            output = replace_citations(rec.output, ids)
        except ValueError:
            counts["records_unchanged"] += 1
            output = rec.output
        refined.append(rec.model_copy(update={"output": output}))
    return refined, counts


def refine_records(records: Sequence[Record], model: Any, tokenizer: Any, *, max_new_tokens: int = 24,
                   batch_size: int = 8, max_length: int | None = None, max_words: int | None = None,
                   progress: bool = True, counts: dict[str, int] | None = None,
                   ) -> tuple[list[Record], dict[str, int]]:
    """Refined copies of ``records`` and counts (see :func:`apply_refiner_outputs`); ``counts``
    accumulates across calls when given."""
    from citetrain.models.generate import generate_texts

    prompts = [refiner_prompts(r, max_words) for r in records]
    flat = [p for ps in prompts for p in ps]
    outs = generate_texts(model, tokenizer, flat, max_new_tokens=max_new_tokens,
                          batch_size=batch_size, max_length=max_length, progress=progress)
    grouped, pos = [], 0
    for ps in prompts:
        grouped.append(outs[pos:pos + len(ps)])
        pos += len(ps)
    return apply_refiner_outputs(records, grouped, counts)
