"""Training examples (prompt / completion) from records and their statement analyses.

Each builder returns ``(examples, dropped)``: examples are dicts with ``prompt``, ``completion``
and bookkeeping columns (``id``, ``question``, ``unit``); ``dropped`` counts what was left out,
by reason. A completion starts with a space or a newline so that no token spans the boundary
between prompt and completion (the loss mask is cut there). Analyses are the rows of :func:`citetrain.analysis.support.analysis_row`.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any, Callable, Sequence

from citetrain.analysis.support import is_empty_statement
from citetrain.analysis.editdist import Action
from citetrain.metrics.itercoe import REASONS, render_citeeval_prompt
from citetrain.records import Record
from citetrain.rewards.preference import perturb, unit_rng
from citetrain.text import prompts as P
from citetrain.text.marks import Statement, attach_marks

Rows = Sequence[dict[str, Any]]
Example = dict[str, Any]
_REASON_OF = {action: (tag, n) for (tag, n), action in REASONS.items()}


def _usable(rows: Rows, dropped: Counter[str]) -> list[dict[str, Any]]:
    keep = [r for r in rows if not is_empty_statement(r["text"])]
    dropped["empty statement"] += len(rows) - len(keep)
    return keep


def refiner_examples(record: Record, rows: Rows, *, unit: str = "statement", perturb_p: float = 0.0,
                     seed: int = 0, max_words: int | None = None) -> tuple[list[Example], Counter[str]]:
    """Refiner examples: the statement(s) with their (possibly perturbed) citations -> gold ids."""
    dropped: Counter[str] = Counter()
    rows = _usable(rows, dropped)
    inputs = []
    for r in rows:
        rng = unit_rng(seed, record.id, r["statement"])
        if perturb_p and rng.random() < perturb_p:
            inputs.append((attach_marks(r["text"], perturb(r["citations"], len(record.docs), rng)), True))
        else:
            inputs.append((r["raw"].strip() or r["text"], False))
    base = {"id": record.id, "question": record.question}
    if unit == "response":
        if not rows:
            return [], dropped
        prompt = P.refiner_response_prompt(record.question, record.docs, [s for s, _ in inputs],
                                           max_words)
        return [{**base, "unit": "response", "prompt": prompt,
                 "completion": "\n" + P.refiner_response_completion([r["gold"] for r in rows]),
                 "perturbed": any(p for _, p in inputs)}], dropped
    return [{**base, "unit": f"statement {r['statement']}", "perturbed": pert,
             "prompt": P.refiner_prompt(record.question, record.docs, stmt, max_words),
             "completion": " " + P.render_ids(r["gold"])}
            for r, (stmt, pert) in zip(rows, inputs)], dropped


def generator_examples(record: Record, rows: Rows, *, max_words: int | None = None,
                       **_: Any) -> tuple[list[Example], Counter[str]]:
    """Generator example: question + docs -> the answer, each sentence with its gold citations
    (positional rows carry ``claims``: ``[char, gold]`` marks placed inside the sentence)."""
    dropped: Counter[str] = Counter()
    rows = _usable(rows, dropped)
    if not rows:
        dropped["no statements"] += 1
        return [], dropped
    answer = " ".join(_with_marks(r) for r in rows)
    return [{"id": record.id, "question": record.question, "unit": "response",
             "prompt": P.generator_prompt(record.question, record.docs, max_words),
             "completion": " " + answer}], dropped


def _with_marks(row: dict[str, Any]) -> str:
    """The sentence with gold marks: at its end, or after each claim (``claims``: ``[char, gold]``
    with ``char`` the claim's end in the mark-free text; the last claim's marks go at the end)."""
    claims, text = row.get("claims"), row["text"]
    if not claims:
        return attach_marks(text, row["gold"])
    out, pos = "", 0
    for char, gold in claims[:-1]:
        out += text[pos:char] + (" " + P.render_ids(gold) if gold else "")
        pos = char
    return out + attach_marks(text[pos:], claims[-1][1])


def likert(rating: float) -> int:
    """EDITDIST rating in [0, 1] -> ITERCOE's 1-5 scale (1 + round(4 r))."""
    return min(5, max(1, 1 + round(4 * rating)))


def _thinking(row: dict[str, Any]) -> str:
    alone = [s[0] for s in row["support"] if len(s) == 1]
    joint = [s for s in row["support"] if len(s) > 1]
    parts = []
    if alone:
        parts.append(f"Passage{'s' if len(alone) > 1 else ''} {', '.join(map(str, alone))} "
                     f"support{'s' if len(alone) == 1 else ''} the sentence on its own.")
    for s in joint:
        parts.append(f"Passages {' and '.join(map(str, s))} support it together.")
    return " ".join(parts) or "No passage supports the sentence."


def render_judgement(k: int, row: dict[str, Any]) -> str:
    """One sentence's ITERCOE answer block from its silver edits and rating."""
    lines = []
    for name, cid in row["edits"]:
        tag, n = _REASON_OF[Action(name)]
        lines.append(f'<{tag} citation="{cid}"> {tag} REASON {n} </{tag}>')
    body = "\n" + "\n".join(lines) + "\n" if lines else " N/A "
    return (f"<thinking> {_thinking(row)} </thinking>\n"
            f'<editing sentence_id="{k}">{body}</editing>\n'
            f'<rating sentence_id="{k}"> {likert(row["rating"])} </rating>')


def judge_prompt(record: Record, rows: Rows) -> str:
    """CiteEval's F.3 prompt over the given statements (numbered from 1)."""
    stmts = [Statement(text=r["text"], citations=tuple(r["citations"])) for r in rows]
    return render_citeeval_prompt(record, stmts)


def judge_examples(record: Record, rows: Rows, *, teacher: Callable[[str], str | None] | None = None,
                   **_: Any) -> tuple[list[Example], Counter[str]]:
    """Judge example over the response's retrieval statements: F.3 prompt -> silver (or the
    teacher's parsed) ``<editing>`` / ``<rating>`` blocks."""
    dropped: Counter[str] = Counter()
    rows = [r for r in _usable(rows, dropped) if r["context"] == "retrieval"]
    if not rows:
        dropped["no retrieval statement"] += 1
        return [], dropped
    prompt = judge_prompt(record, rows)
    if teacher is not None:
        completion = teacher(prompt)
        if completion is None:
            dropped["teacher output unparsable"] += 1
            return [], dropped
    else:
        completion = "\n".join(render_judgement(k, r) for k, r in enumerate(rows, 1))
    return [{"id": record.id, "question": record.question, "unit": "response",
             "prompt": prompt, "completion": "\n" + completion}], dropped


BUILDERS = {"refiner": refiner_examples, "generator": generator_examples, "judge": judge_examples}


def split_of(question: str, validation: float, seed: int = 0) -> str:
    """``"validation"`` for a fraction ``validation`` of questions (by hash), else ``"train"``:
    every example of a question lands on the same side."""
    h = int.from_bytes(hashlib.sha256(f"{seed}\0{question}".encode()).digest()[:8], "big")
    return "validation" if h / 2**64 < validation else "train"
