"""What a build found, as counts for the manifest and a table for people."""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from citetrain.analysis.support import is_empty_statement
from citetrain.analysis.subsets import exhaustive_calls


def statement_counts(rows: Sequence[dict[str, Any]], n_docs: dict[str, int],
                     max_subset: int) -> dict[str, Any]:
    """Statements by kind of support, NLI calls spent vs an exhaustive search, contexts,
    edit actions (kept citations as ``keep``) and truncated premises."""
    rows = [r for r in rows if not is_empty_statement(r["text"])]
    single = sum(any(len(s) == 1 for s in r["support"]) for r in rows)
    by_set = sum(bool(r["support"]) and all(len(s) > 1 for s in r["support"]) for r in rows)
    actions = Counter(a for r in rows for a, _ in r["edits"])
    actions["keep"] = sum(1 for r in rows if r["context"] == "retrieval"
                          for c in dict.fromkeys(r["citations"])
                          if 1 <= c <= n_docs[r["id"]] and all(c != d for _, d in r["edits"]))
    return {
        "statements": len(rows),
        "supported_by_single_doc": single,
        "supported_by_set_only": by_set,
        "supported_by_none": len(rows) - single - by_set,
        "nli_calls": sum(r["calls"] for r in rows),
        "nli_calls_exhaustive": sum(exhaustive_calls(n_docs[r["id"]], max_subset) for r in rows),
        "nli_calls_claims": sum(r.get("claim_calls", 0) for r in rows),
        "truncated_statements": sum(bool(r["truncated"]) for r in rows),
        "contexts": dict(sorted(Counter(r["context"] for r in rows).items())),
        "actions": dict(sorted(actions.items())),
    }


def summary_table(counts: dict[str, Any], examples: dict[str, int], dropped: dict[str, int]) -> str:
    """A fixed-width table of the build's figures."""
    st = counts["statements"] or 1
    calls, full = counts["nli_calls"], counts["nli_calls_exhaustive"] or 1
    lines: list[tuple[str, str]] = [
        ("statements", f"{counts['statements']}"),
        ("  supported by a single doc", f"{counts['supported_by_single_doc']} "
                                        f"({100 * counts['supported_by_single_doc'] / st:.1f}%)"),
        ("  supported by a set only", f"{counts['supported_by_set_only']} "
                                      f"({100 * counts['supported_by_set_only'] / st:.1f}%)"),
        ("  supported by none", f"{counts['supported_by_none']} "
                                f"({100 * counts['supported_by_none'] / st:.1f}%)"),
        ("  premises truncated", f"{counts['truncated_statements']}"),
        ("NLI calls (subset search)", f"{calls} vs {counts['nli_calls_exhaustive']} exhaustive "
                                      f"({100 * calls / full:.1f}%)"),
    ]
    if counts.get("nli_calls_claims"):
        lines.append(("NLI calls (claim searches)", str(counts["nli_calls_claims"])))
    lines += [(f"context {k}", str(v)) for k, v in counts["contexts"].items()]
    lines += [(f"label {k}", str(v)) for k, v in counts["actions"].items()]
    lines += [(f"examples {k}", str(v)) for k, v in examples.items()]
    lines += [(f"dropped: {k}", str(v)) for k, v in sorted(dropped.items())]
    w = max(len(a) for a, _ in lines)
    return "\n".join(f"{a:<{w}}  {b}" for a, b in lines)
