"""ExpertQA (Malaviya et al., NAACL 2024): one line holds one question and its systems' answers.

Line: ``{question, answers: {system: {answer_string, attribution: ["[n] url"], claims:
[{claim_string, evidence: ["[n] url\\n\\npassage"], support, ...}], ...}}, metadata}``.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any

from citetrain.io.formats._common import RecordError, check_type, make_record, optional, require
from citetrain.records import Doc, Record

_HEAD = re.compile(r"\s*\[(\d+)\]\s*(\S*)")


def expertqa_id(question: str, system: str) -> str:
    """``f"{sha1(question)[:10]}:{system}"``: one id per (question, system)."""
    return f"{hashlib.sha1(question.encode('utf-8')).hexdigest()[:10]}:{system}"


def parse_evidence(entry: str, field: str) -> tuple[int, str, str]:
    """``"[n] url\\n\\npassage"`` -> ``(n, url, passage)``; the passage may be absent (``""``)."""
    head, _, passage = entry.partition("\n")
    m = _HEAD.match(head)
    if m is None:
        raise RecordError(field, "evidence without '[n]' prefix",
                          f"expected '[n] url' at the start, got {entry[:40]!r}")
    return int(m.group(1)), m.group(2), passage.strip()


def claim_passages(claim: dict[str, Any], field: str) -> list[tuple[int, str, str]]:
    """The ``(n, url, passage)`` triples of one claim's ``evidence`` list."""
    evidence = optional(claim, "evidence", list, [], prefix=f"{field}.")
    return [parse_evidence(check_type(e, str, f"{field}.evidence[{j}]"), f"{field}.evidence[{j}]")
            for j, e in enumerate(evidence)]


def _answer_record(question: str, system: str, ans: dict[str, Any], meta: Any) -> Record:
    where = f"answers.{system}."
    output = require(ans, "answer_string", prefix=where)
    urls: dict[int, str] = {}
    for i, a in enumerate(require(ans, "attribution", list, prefix=where)):
        n, url, _ = parse_evidence(check_type(a, str, f"{where}attribution[{i}]"),
                                   f"{where}attribution[{i}]")
        urls.setdefault(n, url)
    passages: dict[int, list[str]] = {}
    claims, annotations = [], []
    for i, claim in enumerate(optional(ans, "claims", list, [], prefix=where)):
        cf = f"{where}claims[{i}]"
        check_type(claim, dict, cf)
        text = require(claim, "claim_string", prefix=f"{cf}.")
        triples = claim_passages(claim, cf)
        for n, url, passage in triples:
            urls.setdefault(n, url)
            if passage and passage not in passages.setdefault(n, []):
                passages[n].append(passage)
        claims.append(text)
        labels = {k: v for k, v in claim.items() if k not in ("claim_string", "evidence")}
        annotations.append({"claim": text, **labels, "evidence_ids": [n for n, _, _ in triples]})
    # ids in the answer are the attribution numbers: doc n sits at position n (gaps stay empty)
    docs = [Doc(title=urls.get(n, ""), text="\n".join(passages.get(n, [])))
            for n in range(1, max(urls, default=0) + 1)]
    extra = {k: ans[k] for k in ("usefulness", "revised_answer_string") if k in ans}
    return make_record(id=expertqa_id(question, system), question=question, docs=docs,
                       output=output, claims=claims, annotations=annotations, system=system,
                       metadata=meta, **extra)


def convert_expertqa(item: dict[str, Any], default_id: str) -> list[Record]:
    """One :class:`Record` per (question, system) of an ExpertQA line.

    id = ``sha1(question)[:10]:system``; output = ``answer_string``; doc n = attribution ``[n]``
    (title = its url, text = the unique evidence passages cited as ``[n]`` in the claims' evidence,
    joined by ``"\\n"``; empty when the annotators quoted none); ``claims`` = claim strings;
    ``annotations`` = per-claim human labels ``{claim, support, worthiness, ..., evidence_ids}``.
    """
    question = require(item, "question")
    answers = require(item, "answers", dict)
    meta = item.get("metadata")
    return [_answer_record(question, system, check_type(ans, dict, f"answers.{system}"), meta)
            for system, ans in answers.items()]
