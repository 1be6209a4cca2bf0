"""``citetrain eval PREDICTIONS|SUITE.yaml``: score predictions and write a report."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="score predictions with citation metrics",
                       description="Score a predictions file (or an eval/SUITE.yaml) with citation "
                       "metrics; writes report.json, statements.jsonl and table.txt.")
    p.add_argument("target", help="predictions file (.jsonl/.json, any supported format) or suite .yaml")
    p.add_argument("--metrics", help="comma list: alce,lenient,aliice,citeeval,correctness "
                   "(default alce,lenient,aliice)")
    p.add_argument("--nli", help="lexical | seq2seq:PATH | classifier:PATH | llm:MODEL (default lexical)")
    p.add_argument("--format", default=None, help="input format (default auto)")
    p.add_argument("--skip-invalid", action="store_true", default=None,
                   help="skip bad records (reported with reasons) instead of stopping")
    p.add_argument("--limit", type=int, help="score only the first N records")
    p.add_argument("--out", help="output folder (default eval_results/<name>)")
    p.add_argument("--cache", help="NLI cache file (default ~/.cache/citetrain/nli.sqlite for models)")
    p.add_argument("--no-cache", action="store_true", help="do not use the NLI cache")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a suite key, e.g. --set nli=lexical:0.6")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from citetrain.metrics.evaluate import evaluate
    from citetrain.io.readers import read_records
    from citetrain.nli.registry import make_engine
    from citetrain.metrics.suites import Suite, SuiteData, load_suite

    target = Path(args.target)
    if target.suffix in (".yaml", ".yml"):
        suite = load_suite(target, args.set)
    else:
        if args.set:
            from citetrain.errors import CitetrainError

            raise CitetrainError("--set applies to suite files only")
        suite = Suite(name=target.stem, data=[SuiteData(path=str(target))])
    if args.metrics:
        from citetrain.metrics.registry import parse_metric_list

        suite.metrics = parse_metric_list(args.metrics)
    if args.nli:
        suite.nli = args.nli
    records, notes = [], []
    for d in suite.data:
        res = read_records(d.path, d.format if args.format is None else args.format,
                           skip_invalid=d.skip_invalid if args.skip_invalid is None else True)
        got = res.records[: (args.limit or d.limit)] if (args.limit or d.limit) else res.records
        records.extend(got)
        if res.skipped:
            notes.append(res.summary())
            print(f"citetrain eval: {res.summary()}", file=sys.stderr)
    cache = False if args.no_cache else (args.cache or suite.cache)
    engine = make_engine(suite.nli, cache=cache, progress=not args.no_progress, **suite.nli_options)
    report = evaluate(records, suite.metrics, engine, options=suite.options, progress=not args.no_progress)
    report.info.update(suite=suite.name, inputs=[d.path for d in suite.data], input_notes=notes)
    out = Path(args.out or suite.out or Path("eval_results") / suite.name)
    paths = report.write(out)
    print(report.table())
    print(f"\nwrote {paths['report']}, {paths['statements']}, {paths['table']}")
    return 0
