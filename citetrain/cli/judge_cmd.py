"""``citetrain judge PREDICTIONS --judge NAME``: CiteEval ratings from a judge, with throughput."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="score citations with a judge (cross-encoder, generative, teacher, NLI)",
                       description="Rate every statement's citations (edits, rating, context) and every "
                       "response (CiteEval Full and Cited) with a judge; --iterations T executes the "
                       "judge's edits and re-scores T times (CiteEval §5).")
    p.add_argument("predictions", help="predictions file (any supported format)")
    p.add_argument("--judge", required=True, help="crossencoder:PATH | generative:PATH | teacher:MODEL | "
                   "nli:NAME (e.g. nli:lexical)")
    p.add_argument("--out", help="folder for judge_report.json, statements.jsonl, responses.jsonl "
                   "(default: none, printed only)")
    p.add_argument("--format", default="auto", help="input format (default auto)")
    p.add_argument("--skip-invalid", action="store_true", help="skip bad records instead of stopping")
    p.add_argument("--limit", type=int, help="judge only the first N records (default: every record)")
    p.add_argument("--iterations", type=int, default=0, help="improve citations T times with the judge's edits")
    p.add_argument("--rating", choices=("itercoe", "editdist", "ensemble"),
                   help="generative/teacher rating (default itercoe)")
    p.add_argument("--max-new-tokens", type=int, help="generative judge: cap on new tokens (default 512)")
    p.add_argument("--batch-size", type=int, help="generative judge: prompts per batch (default 4)")
    p.add_argument("--base-url", help="teacher: OpenAI-compatible endpoint (default $OPENAI_BASE_URL)")
    p.add_argument("--dtype", help="crossencoder / nli model: auto, fp32, bf16, fp16 or int8 (CPU "
                   "serving: bf16 where the CPU has AMX / AVX512-BF16, else int8 Linear layers; default: the "
                   "model's own, auto)")
    p.add_argument("--union-first", action="store_true", default=None,
                   help="crossencoder / nli: ask a statement's cited passages alone, then the union of "
                   "its passages unless one of them supports it, before the other passages alone "
                   "(fewer calls on mostly unsupported answers; default: off)")
    p.add_argument("--subsets", choices=("all", "needed"), help="crossencoder / nli: 'needed' stops "
                   "a statement's subset search once its edits are settled: the same ratings with "
                   "fewer calls; statements.jsonl then lists only the subsets found (default all)")
    p.add_argument("--compile", action="store_true", default=None,
                   help="crossencoder / nli: torch.compile the model (the first batch compiles; default: off)")
    p.add_argument("--query-recall", type=float, help="crossencoder / nli: a statement is asked "
                   "against the question only if it holds this share of its content words (default "
                   "1.0; 0: every statement, the NLI alone)")
    p.add_argument("--response-recall", type=float, help="crossencoder / nli: the same against the "
                   "earlier statements (default 0.8)")
    p.add_argument("--workers", type=int, help="crossencoder / nli: score shards of the records in "
                   "N processes, the cores shared out among them (e.g. 2 on 2 CPU cores; default 1)")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.set_defaults(run=run)


OPTIONS = {"generative": ("rating", "max_new_tokens", "batch_size"), "teacher": ("rating", "base_url"),
           "crossencoder": ("dtype", "union_first", "subsets", "compile", "workers", "query_recall",
                            "response_recall"),
           "nli": ("dtype", "union_first", "subsets", "compile", "workers", "query_recall",
                   "response_recall")}


def _options(args: argparse.Namespace) -> dict:
    """The options the judge's kind takes, where given on the command line."""
    names = OPTIONS.get(args.judge.partition(":")[0], ())
    return {k: getattr(args, k) for k in names if getattr(args, k) is not None}


def run(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from citetrain.io.readers import read_records
    from citetrain.io.writers import atomic_write_text
    from citetrain.judges.registry import make_judge

    res = read_records(args.predictions, args.format, skip_invalid=args.skip_invalid)
    records = res.records[: args.limit] if args.limit else res.records
    if res.skipped:
        print(res.summary())
    judge = make_judge(args.judge, progress=not args.no_progress, **_options(args))
    judged = judge.score(records, progress=not args.no_progress)
    s = judged.summary()
    print(f"judge {judge.name} on {len(records)} records, {s['statements']} statements")
    for key in ("citeeval_full", "citeeval_cited"):
        print(f"  {key:<16}{s.get(key, float('nan')):8.2f}")
    unparsed = s["info"].get("unparsed")
    if unparsed is not None:
        print(f"  {'unparsed':<16}{unparsed:8d}  {s['info'].get('unparsed_reasons', {})}")
    print(f"  {'seconds':<16}{s['seconds']:8.2f}\n  {'statements/s':<16}{s['statements_per_second']:8.2f}")
    history = None
    if args.iterations:
        from citetrain.judges.improve import improve

        imp = improve(judge, records, args.iterations, progress=not args.no_progress, first=judged)
        history = imp.history
        print(f"\n{'iteration':<10}{'full':>8}{'cited':>8}{'edits':>8}")
        for h in history:
            print(f"{h['iteration']:<10}{h['citeeval_full']:8.2f}{h['citeeval_cited']:8.2f}"
                  f"{h.get('edits_executed', 0):8d}")
    if args.out:
        out = Path(args.out)
        rows = lambda xs: "".join(json.dumps(x, ensure_ascii=False, default=str) + "\n" for x in xs)
        atomic_write_text(out / "judge_report.json",
                          json.dumps({**s, "input": args.predictions, "iterations": history},
                                     indent=2, default=str) + "\n")
        atomic_write_text(out / "statements.jsonl", rows(judged.result.per_statement))
        atomic_write_text(out / "responses.jsonl", rows(judged.result.per_record))
        if history is not None:
            from citetrain.io.patch import write_in_input_format

            write_in_input_format(res, imp.records + res.records[len(records):],
                                  out / f"improved{Path(args.predictions).suffix}")
        print(f"\nwrote {out}/judge_report.json, statements.jsonl, responses.jsonl")
    return 0
