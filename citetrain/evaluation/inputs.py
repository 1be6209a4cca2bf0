"""What one ``citetrain eval`` run works on: the suite (a suite file, or one predictions file
made into a suite, with the command line's overrides), its records and its output folder."""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from citetrain.config import validate
from citetrain.errors import CitetrainError
from citetrain.io.assets import resolve
from citetrain.io.readers import sha256_file
from citetrain.evaluation.options import MODEL_OPTIONS, SCORE_CHUNK
from citetrain.metrics.suites import Suite, SuiteData, SuiteModel, load_suite
from citetrain.records import Record


@dataclass
class RunOptions:
    """The command line's settings that are not suite keys."""

    format: str | None = None
    skip_invalid: bool | None = None
    limit: int | None = None
    out: str | None = None
    cache: bool | str | None = None  # None: the suite's
    progress: bool = True
    score_chunk: int = SCORE_CHUNK

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "RunOptions":
        return cls(format=args.format, skip_invalid=args.skip_invalid, limit=args.limit,
                   out=args.out, cache=False if args.no_cache else args.cache,
                   progress=not args.no_progress, score_chunk=args.score_chunk)


def load_target(args: argparse.Namespace) -> Suite:
    """The suite ``args.target`` names (a ``.yaml`` suite, or a predictions / questions file),
    with ``--metrics``, ``--nli`` and the checkpoint options applied."""
    target = Path(args.target)
    if not target.suffix and not target.exists():  # a bare name: the shipped suite, if any
        target = resolve(target, "suite")
    if target.suffix in (".yaml", ".yml"):
        suite = load_suite(target, args.set)
    else:
        if args.set:
            raise CitetrainError("--set applies to suite files only")
        suite = Suite(name=target.stem, data=[SuiteData(path=str(target))])
    if args.metrics:
        from citetrain.metrics.registry import parse_metric_list

        suite.metrics = parse_metric_list(args.metrics)
    if args.nli:
        suite.nli = args.nli
    if getattr(args, "strict", False) and "longbench_cite" in suite.metrics:
        suite.options.setdefault("longbench_cite", {})["strict"] = True
    apply_model_options(suite, args)
    return suite


def apply_model_options(suite: Suite, args: argparse.Namespace) -> None:
    """``--model`` and the checkpoint options over the suite's ``model:`` (validated again)."""
    given = {key: getattr(args, flag) for flag, key in MODEL_OPTIONS.items()
             if getattr(args, flag, None) is not None}
    if args.model is None and suite.model is None:
        if given:
            flag = next(f for f, k in MODEL_OPTIONS.items() if k in given).replace("_", "-")
            raise CitetrainError(f"--{flag}: needs --model CKPT or a suite with a model: key")
        return
    data = suite.model.model_dump() if suite.model is not None else {}
    if args.model is not None:
        data["path"] = args.model
    data.update(given)
    suite.model = validate(SuiteModel, data, "--model" if suite.model is None else "model")


def read_inputs(suite: Suite, opts: RunOptions, *, quiet: bool = False) -> tuple[list[Record], list[str]]:
    """Every data file's records in suite order (each cut to its limit) and the notes on skipped
    records (printed on stderr unless ``quiet``)."""
    from citetrain.io.readers import read_records

    records: list[Record] = []
    notes: list[str] = []
    for d in suite.data:
        res = read_records(d.path, d.format if opts.format is None else opts.format,
                           skip_invalid=d.skip_invalid if opts.skip_invalid is None else True)
        limit = opts.limit or d.limit
        records.extend(res.records[:limit] if limit else res.records)
        if res.skipped:
            notes.append(res.summary())
            if not quiet:
                print(f"citetrain eval: {res.summary()}", file=sys.stderr)
    return records, notes


def input_hashes(suite: Suite) -> list[dict[str, str]]:
    """``[{"path", "sha256"}]`` of the suite's data files (what a partial run is checked against)."""
    return [{"path": str(Path(d.path).resolve()), "sha256": sha256_file(d.path)} for d in suite.data]


def out_dir(suite: Suite, opts: RunOptions) -> Path:
    """``--out``, else the suite's ``out``, else ``eval_results/<suite name>``."""
    return Path(opts.out or suite.out or Path("eval_results") / suite.name)
