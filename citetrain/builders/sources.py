"""A build's input: records from the spec's sources, each with its file and line, and every
problem found on the way (reported with file, line and field; nothing dropped without a count)."""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from citetrain.io.readers import ReadResult, read_records, sha256_file
from citetrain.metrics.suites import SuiteData
from citetrain.records import Record
from citetrain.text.statements import statements


@dataclass(frozen=True)
class Item:
    """One input record and where it came from."""

    record: Record
    path: str
    line: int


@dataclass
class Sources:
    """Kept items in input order, problems (dicts with path, line, field, reason, detail, action)
    and per-file facts for the manifest."""

    items: list[Item] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)

    def dropped(self) -> Counter[str]:
        """Dropped input records by reason."""
        return Counter(p["reason"] for p in self.problems if p["action"] == "dropped")

    def warnings(self) -> Counter[str]:
        """Kept records with a problem, by reason."""
        return Counter(p["reason"] for p in self.problems if p["action"] == "kept")


def _synthetic(spec: Any) -> ReadResult:
    """Seeded synthetic records as a :class:`ReadResult` (path ``synthetic:n=N,seed=S``, then
    ``,docs=MIN-MAX`` unless the passages per record are the default; the "hash" is the sha256 of
    their JSONL text, so a changed generator invalidates a resume)."""
    import json

    from citetrain.synth.records import DOCS, synth_records

    records = synth_records(spec.n, spec.seed, n_docs=spec.docs)
    name = f"synthetic:n={spec.n},seed={spec.seed}"
    if spec.docs != DOCS:
        name += f",docs={spec.docs[0]}-{spec.docs[1]}"
    text = "".join(json.dumps(r.to_dict(), sort_keys=True) + "\n" for r in records)
    return ReadResult(records, [], "synthetic", len(records),
                      paths=[hashlib.sha256(text.encode()).hexdigest()],
                      origins=[(name, i + 1) for i in range(len(records))])


def read_sources(sources: Sequence[SuiteData], first_line_only: bool = False) -> Sources:
    """Read every source; drop (and report) records without docs and repeated ids; report, but
    keep, citation ids beyond the docs (the refiner learns to remove them)."""
    out = Sources()
    seen: dict[str, tuple[str, int]] = {}

    def problem(path: str, line: int | None, fld: str | None, reason: str, detail: str,
                action: str) -> None:
        out.problems.append({"path": path, "line": line, "field": fld, "reason": reason,
                             "detail": detail, "action": action})

    for src in sources:
        res = _synthetic(src.synthetic) if getattr(src, "synthetic", None) else \
            read_records(src.path, src.format, skip_invalid=src.skip_invalid)
        for s in res.skipped:
            problem(s.path, s.line, s.field, s.reason, s.detail, "dropped")
        pairs = list(zip(res.records, res.origins))
        if src.limit is not None:
            pairs = pairs[: src.limit]
        digest = res.paths[0] if res.format == "synthetic" else sha256_file(src.path)
        out.files.append({"path": res.origins[0][0] if res.format == "synthetic" else src.path,
                          "format": res.format, "sha256": digest,
                          "records": len(res.records), "used": len(pairs),
                          "skipped": len(res.skipped)})
        for rec, (path, line) in pairs:
            if rec.id in seen:
                first = seen[rec.id]
                problem(path, line, "id", "duplicate record id",
                        f"id {rec.id!r} already read at {first[0]}:{first[1]}", "dropped")
                continue
            seen[rec.id] = (path, line)
            if not rec.docs:
                problem(path, line, "docs", "record without docs", "no passages to cite", "dropped")
                continue
            bad = sorted({c for st in statements(rec.output, first_line_only=first_line_only)
                          for c in st.citations if not 1 <= c <= len(rec.docs)})
            if bad:
                problem(path, line, "output", "citation ids beyond the docs",
                        f"ids {bad} with {len(rec.docs)} docs", "kept")
            out.items.append(Item(rec, path, line))
    return out
