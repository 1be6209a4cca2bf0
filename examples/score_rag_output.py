"""Score a RAG framework's JSONL output with ``citetrain.evaluate``.

A RAG pipeline (LlamaIndex, LangChain, Haystack, your own) usually logs one JSON line per query:
the question, the answer with ``[k]`` marks, and the retrieved passages in the order the marks
number them. Map each line to citetrain's fields (``question``, ``docs``, ``output``) and score:
no model is needed with the lexical NLI baseline (report paper figures with ``--nli true``).

    python examples/score_rag_output.py                          # examples/predictions.jsonl
    python examples/score_rag_output.py rag_log.jsonl --nli true --out eval_results/rag

Lines already in a format citetrain reads (ALCE, as examples/predictions.jsonl) pass unchanged;
lines shaped ``{"query", "response", "source_nodes": [{"text", "metadata": {"title"}}]}``
(LlamaIndex) or ``{"query", "answer", "contexts": ["..."]}`` (RAGAS-style) are mapped first.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import citetrain

HERE = Path(__file__).resolve().parent


def to_record(row: dict, i: int) -> dict:
    """One logged RAG answer as a citetrain record (ALCE fields)."""
    if {"question", "docs", "output"} <= row.keys():
        return row
    if "source_nodes" in row:  # LlamaIndex Response: nodes with text and metadata
        docs = [{"title": (n.get("metadata") or {}).get("title", ""), "text": n["text"]}
                for n in row["source_nodes"]]
    else:  # a plain list of passage texts
        docs = [{"title": "", "text": t} for t in row.get("contexts", [])]
    return {"id": str(row.get("id", i)), "question": row.get("query", ""), "docs": docs,
            "output": row.get("response", row.get("answer", ""))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", default=str(HERE / "predictions.jsonl"))
    ap.add_argument("--metrics", default="alce,lenient")
    ap.add_argument("--nli", default="lexical", help="lexical, true, classifier:PATH, ...")
    ap.add_argument("--out", default=None, help="also write report.json, statements.jsonl, table.txt")
    args = ap.parse_args()

    lines = Path(args.path).read_text(encoding="utf-8").splitlines()
    records = [to_record(json.loads(line), i) for i, line in enumerate(lines) if line.strip()]
    report = citetrain.evaluate(records, metrics=args.metrics.split(","), nli=args.nli,
                                progress=False)
    print(report.table())
    if args.out:
        report.write(args.out)
        print(f"written to {args.out}")
    print("scores:", json.dumps({k: round(v, 2) for k, v in report.flat_scores().items()
                                 if v is not None}))


if __name__ == "__main__":
    main()
