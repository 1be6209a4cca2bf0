"""Re-check the deterministic CPU rows of the Results page (``docs/results/index.md``).

Each check re-measures one row at the working tree's code (metric parity tests, NLI call counts,
subset-search pair counts, the lexical judge's ROC-AUC, the no-model refiners' and the fitted
ranker's F1 with their fixed seeds) and compares the figures with the page's: within the row's
stated spread where the cell gives one (``0.830 ± 0.006``, ``98.21 ± 0.19``), else exactly at the
page's printed precision (half a unit of its last digit; counts exactly). GPU, timing and
training rows are not re-checked; the page says so in their "last re-checked" column.

Prints one line a check (name, page figure, measured figure, OK / DRIFT / FAIL) and exits 1 if any
check drifted or could not run. ``--update`` writes today's date and commit (``git rev-parse
--short HEAD``) into the "last re-checked" column of every row that was re-checked and held.
``--list`` lists the checks; ``--only A,B`` runs those, also the ones left out of the default set
because they are long (the NLI engine's 500-record run against ALCE's loop, the quickstart).

Run: ``python bench/recheck_results.py [--update] [--only NAME,...] [--list]``.
"""
from __future__ import annotations

import argparse
import atexit
import datetime as _dt
import functools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "results" / "index.md"
DATA = REPO.parent / "shared" / "data"
RECHECKED = "last re-checked"

# --- the page: figures, spreads, rows ------------------------------------------------------------

_NUM = re.compile(r"[−-]?\d[\d,]*(?:\.\d+)?")
_SPREAD = re.compile(r"\s*±\s*(\d[\d,]*(?:\.\d+)?)")


@dataclass(frozen=True)
class Figure:
    """A figure as the page prints it: its value, the spread it states (``± x``; None if none)
    and its decimals (the printed precision)."""
    value: float
    spread: float | None
    decimals: int

    @property
    def tolerance(self) -> float:
        """The stated spread, else half a unit of the last printed digit (exact at the page's
        precision; 0.5 for a count, so counts must be equal)."""
        if self.spread is not None:
            return self.spread
        return 0.5 * 10.0 ** -self.decimals

    def holds(self, measured: float) -> bool:
        return abs(measured - self.value) <= self.tolerance + 1e-9

    def __str__(self) -> str:
        text = f"{self.value:,.{self.decimals}f}"
        return text if self.spread is None else f"{text} ± {self.spread:g}"


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-"))


def parse_figures(cell: str) -> list[Figure]:
    """Every figure of a table cell, in order, each with the ``± spread`` right after it (if
    any); ``**bold**`` and thousands separators are read through. Numbers inside parentheses
    (``(+0.037)``, ``(P ≥ 0.5)``) and spreads themselves are not figures."""
    text = cell.replace("**", "")
    depth, figures, i = 0, [], 0
    while i < len(text):
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = _NUM.match(text, i)
            if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "._")):
                raw = m.group(0)
                spread = _SPREAD.match(text, m.end())
                figures.append(Figure(_number(raw), _number(spread.group(1)) if spread else None,
                                      len(raw.split(".")[1]) if "." in raw else 0))
                i = spread.end() if spread else m.end()
                continue
            if m:
                i = m.end()
                continue
        i += 1
    return figures


def split_row(line: str) -> list[str]:
    """The cells of a markdown table line (``| a | b |``), stripped."""
    inner = line.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|"):
        inner = inner[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


def join_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


@dataclass
class Row:
    """One table row of the page: its line number, cells, and its table's header."""
    index: int
    cells: list[str]
    header: list[str]

    def cell(self, column: str) -> str:
        return self.cells[self.header.index(column)]


def find_row(lines: Sequence[str], section: str, first_cell: str) -> Row:
    """The one table row under the heading ``section`` (any level, exact text) whose first cell,
    bold marks dropped, starts with ``first_cell``. Raises ``LookupError`` if none or several."""
    found, in_section, header = [], False, None
    for i, line in enumerate(lines):
        heading = re.match(r"^#+\s+(.*)$", line)
        if heading:
            in_section = heading.group(1).strip() == section
            header = None
            continue
        if not line.startswith("|"):
            header = None
            continue
        cells = split_row(line)
        if header is None:
            header = cells
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        if in_section and cells[0].replace("**", "").startswith(first_cell):
            found.append(Row(i, cells, header))
    if len(found) != 1:
        raise LookupError(f"{len(found)} rows starting with {first_cell!r} under {section!r}")
    return found[0]


# --- checks ------------------------------------------------------------------------------------

@dataclass
class Check:
    """One row of the page re-measured: ``columns`` are the cells holding its figures (each cell
    may hold several), ``measure`` returns the measured figures in the same order (a bool for a
    pass / fail row, whose page cell is then shown as is)."""
    name: str
    section: str
    row: str
    columns: Sequence[str]
    measure: Callable[[], list[float] | bool]
    default: bool = True
    note: str = ""
    pick: Sequence[int] | None = None  # which of the cells' figures are compared (default all)


@dataclass
class Outcome:
    check: Check
    status: str  # OK, DRIFT, FAIL
    page: str
    measured: str
    seconds: float
    detail: list[str] = field(default_factory=list)


def page_figures(row: Row, check: Check) -> list[Figure]:
    figs = [f for col in check.columns for f in parse_figures(row.cell(col))]
    return figs if check.pick is None else [figs[i] for i in check.pick]


def compare(figures: Sequence[Figure], measured: Sequence[float]) -> tuple[bool, list[str]]:
    """Whether every measured figure holds its page figure; the drifted ones described."""
    if len(figures) != len(measured):
        return False, [f"{len(measured)} figures measured against the page's {len(figures)}"]
    drift = [f"{f} -> {m:.{max(f.decimals, 2)}f} (off {abs(m - f.value):.{max(f.decimals, 2) + 1}g}"
             f", allowed {f.tolerance:g})" for f, m in zip(figures, measured) if not f.holds(m)]
    return not drift, drift


def run_check(check: Check, lines: Sequence[str]) -> Outcome:
    start = time.perf_counter()
    row = find_row(lines, check.section, check.row)
    try:
        got = check.measure()
    except Exception as exc:  # a check that cannot run is a failure, not a crash of the rest
        return Outcome(check, "FAIL", " / ".join(row.cell(c) for c in check.columns), "",
                       time.perf_counter() - start, [f"{type(exc).__name__}: {exc}"])
    took = time.perf_counter() - start
    if isinstance(got, bool):
        return Outcome(check, "OK" if got else "DRIFT", "pass", "pass" if got else "fail", took)
    figures = page_figures(row, check)
    ok, detail = compare(figures, got)
    measured = " / ".join(f"{m:,.{f.decimals}f}" for f, m in zip(figures, got)) if \
        len(figures) == len(got) else " / ".join(f"{m:g}" for m in got)
    return Outcome(check, "OK" if ok else "DRIFT", " / ".join(map(str, figures)), measured, took,
                   detail)


def update_page(text: str, stamps: dict[tuple[str, str], str]) -> str:
    """``text`` with the "last re-checked" cell of each (section, row) in ``stamps`` set to its
    stamp; every other line unchanged."""
    lines = text.split("\n")
    for (section, first), stamp in stamps.items():
        row = find_row(lines, section, first)
        if RECHECKED not in row.header:
            raise LookupError(f"the table of {first!r} under {section!r} has no {RECHECKED!r} column")
        cells = list(row.cells)
        cells[row.header.index(RECHECKED)] = stamp
        lines[row.index] = join_row(cells)
    return "\n".join(lines)


# --- measurements (each run once, shared by the rows that read it) -----------------------------

_TMP = Path(tempfile.mkdtemp(prefix="recheck-results-"))
atexit.register(shutil.rmtree, _TMP, ignore_errors=True)
WICE = DATA / "wice" / "entailment_retrieval_claim" / "dev.jsonl"
QUOTESUM = DATA / "quotesum" / "dev.jsonl"
ATTRIBUTIONBENCH = DATA / "attributionbench" / "dev_all_subset_balanced.jsonl"
EXPERTQA = [DATA / "expertqa" / "annotated_splits" / f"{s}.jsonl"
            for s in ("rand_val", "rand_test", "domain_val", "domain_test")]


def _env() -> dict[str, str]:
    """The measurements run this checkout's code (``REPO`` first on the path), offline."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
            "PYTHONPATH": path}


def _run(argv: Sequence[str], timeout: float = 900) -> str:
    env = _env()
    proc = subprocess.run([str(a) for a in argv], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        raise RuntimeError(f"{' '.join(map(str, argv[:4]))} ... exited {proc.returncode}: "
                           + " | ".join(tail))
    return proc.stdout


def _citetrain(*args: object, timeout: float = 900) -> str:
    return _run([sys.executable, "-m", "citetrain", *args], timeout)


def pytest_passes(*node_ids: str) -> bool:
    env = _env()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                           *node_ids], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=900)
    return proc.returncode == 0


@functools.cache
def nli_engine_500() -> dict:
    """``python bench/nli_engine.py --records 500 --threads 2``: its counts and the identity of
    the scores with ALCE's loop (the timings are not compared)."""
    out = _run([sys.executable, "bench/nli_engine.py", "--records", "500", "--threads", "2",
                "--json", _TMP / "nli_engine.json"])
    fig = json.loads((_TMP / "nli_engine.json").read_text())
    batches = re.search(r"model pairs \d+ in (\d+) batches", out)
    fig["batches"] = int(batches.group(1)) if batches else math.nan
    return fig


@functools.cache
def builder_subsets() -> dict[int, tuple[float, bool]]:
    """``python bench/builder_subsets.py --passages 10,50,100,300,700 --records 10``: per
    passages, the build's pairs a statement and whether gold equals the exhaustive search's."""
    out = _run([sys.executable, "bench/builder_subsets.py", "--passages", "10,50,100,300,700",
                "--records", "10"])
    rows = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+\d+\s+(\d+)\s+\|\s+([\d.]+)\s+[\d.]+\s+\|\s+[\d.]+\s+[\d.]+\s+\|\s+"
                     r"(\S+)", line)
        if m:
            same = m.group(4)
            rows[int(m.group(1))] = (float(m.group(3)),
                                     same == "-" or same.split("/")[0] == same.split("/")[1])
    return rows


@functools.cache
def lexical_auc(name: str) -> float:
    files = {"wice": [WICE], "attributionbench": [ATTRIBUTIONBENCH], "expertqa": EXPERTQA}[name]
    out = _TMP / f"meta-{name}"
    _citetrain("meta-eval", *files, "--split", "validation", "--nli", "lexical", "--no-progress",
               "--out", out)
    result = json.loads((out / "meta_eval.json").read_text())["results"]
    return next(iter(result.values()))["roc_auc_mean"]


_RUNS: list[Path] = []


@functools.cache
def refine_eval(data: str, inputs: str, seed: int = 0, *extra: str) -> dict[tuple[str, str], float]:
    """F1 by (refiner, input) of ``citetrain refine-eval`` on QuoteSum dev or WiCE dev's
    validation side (``extra``: more options)."""
    out = _TMP / f"refine-{data}-{inputs}-{seed}-{len(_RUNS)}"
    _RUNS.append(out)
    args = ([QUOTESUM, "--format", "quotesum"] if data == "quotesum" else
            [WICE, "--format", "wice_evidence", "--split", "validation"])
    _citetrain("refine-eval", *args, "--inputs", inputs, "--seed", seed, *extra, "--out", out)
    report = json.loads((out / "refine_eval.json").read_text())
    return {(r["refiner"], r["input"]): r["f1"] for r in report["rows"]}


def f1(data: str, refiner: str, inputs: str, *extra: str) -> float:
    """One row's F1 from the default run of ``data`` (QuoteSum: removed and half wrong, WiCE:
    removed; ``--joint``, seed 0) or from a run with ``extra`` options instead of ``--joint``."""
    rows = refine_eval(data, "removed,half" if data == "quotesum" else "removed", 0,
                       *(extra or ("--joint",)))
    return rows[(refiner, inputs)]


REFINER_COLUMNS = ["QuoteSum, removed", "QuoteSum, half wrong", "WiCE held-out"]


def refiner_f1s(refiner: str, *wice: str) -> list[float]:
    """A refiner row's three F1s: QuoteSum removed and half wrong, WiCE held-out (``wice``: that
    run's options, as :func:`f1` takes them)."""
    return [f1("quotesum", refiner, "removed"), f1("quotesum", refiner, "half"),
            f1("wice", refiner, "removed", *wice)]


def spans_half_mean() -> list[float]:
    """``baseline:spans`` from half-wrong QuoteSum marks, the mean over input draws ``--seed``
    0-9."""
    vals = [refine_eval("quotesum", "half", s)[("baseline:spans", "half")] for s in range(10)]
    return [sum(vals) / len(vals)]


@functools.cache
def ranker(inputs: str) -> tuple[str, float | None]:
    """A ranker fitted on WiCE dev's train side (``--cv 5`` for the removed one): its file and
    its cross-validated F1."""
    path = _TMP / f"ranker-{inputs}.json"
    cv = ["--cv", "5"] if inputs == "removed" else []
    out = _citetrain("fit-ranker", WICE, "--format", "wice_evidence", "--inputs", inputs, *cv,
                     "--out", path)
    m = re.search(r"F1 ([\d.]+) \+- [\d.]+ \(mean \+- sd", out)
    return str(path), float(m.group(1)) if m else None


def ranker_f1(data: str, inputs: str, fitted: str = "removed") -> float:
    path, _ = ranker(fitted)
    rows = refine_eval(data, inputs, 0, "--refiner", f"ranker:{path}")
    return next(v for (name, inp), v in rows.items() if name.startswith("ranker:") and inp == inputs)


def _pairs_a_statement() -> list[float]:
    return [builder_subsets()[n][0] for n in (10, 50, 100, 300, 700)]


PARITY = "Metric parity"
ENGINE = "Builders and the NLI engine (speed, NLI calls)"
JUDGES = "Judges"
REFINERS = "Refiners against human citations"

CHECKS: list[Check] = [
    Check("parity-alce", PARITY, "ALCE citation recall / precision", ["result"],
          lambda: pytest_passes("tests/metrics/test_alce.py::test_rounds_match_the_eval_py_loop")),
    Check("parity-alce-engine", PARITY, "ALCE through the NLI engine", ["result"],
          lambda: nli_engine_500()["identical"] is True, default=False,
          note="ALCE's one-pair loop over 500 records: 2 minutes idle, over 12 on shared cores; "
               "--only parity-alce-engine,engine-calls-500"),
    Check("parity-aliice-authors", PARITY, "ALiiCE, `semantics=\"authors\"`", ["result"],
          lambda: pytest_passes("tests/metrics/test_aliice_authors.py")),
    Check("parity-aliice-paper", PARITY, "ALiiCE, `semantics=\"paper\"`", ["result"],
          lambda: pytest_passes("tests/text/test_claims.py", "-k", "appendix_d")),
    Check("parity-editdist", PARITY, "CiteEval EDITDIST", ["result"],
          lambda: pytest_passes("tests/analysis/test_editdist.py")),
    Check("parity-lenient", PARITY, "Generate-then-Refine", ["result"],
          lambda: pytest_passes("tests/metrics/test_lenient.py")),
    Check("parity-longbench-cite", PARITY, "LongBench-Cite", ["result"],
          lambda: pytest_passes("tests/metrics/test_longbench_cite_parity.py")),
    Check("engine-calls-500", ENGINE, "ALCE scoring through the engine", ["figure"],
          lambda: [nli_engine_500()["engine_model_pairs"], nli_engine_500()["batches"],
                   nli_engine_500()["baseline_pairs"]], pick=[0, 1, 2],
          default=False, note="counts only, the timings not compared; the same run as "
                              "parity-alce-engine"),
    Check("builder-subsets", ENGINE, "gold citations: pruned subset search", ["figure"],
          _pairs_a_statement, pick=[0, 1, 2, 3, 4],
          note="pairs a statement only; the seconds are not compared"),
    Check("builder-subsets-gold", ENGINE, "gold citations: pruned subset search", ["figure"],
          lambda: all(builder_subsets()[n][1] for n in (10, 50, 100)),
          note="gold equal to the exhaustive search's up to 100 passages"),
    Check("judge-lexical", JUDGES, "lexical recall", ["WiCE", "AttributionBench", "ExpertQA"],
          lambda: [lexical_auc("wice"), lexical_auc("attributionbench"), lexical_auc("expertqa")]),
    Check("refine-trivial", REFINERS, "`baseline:trivial`", REFINER_COLUMNS,
          lambda: refiner_f1s("baseline:trivial")),
    Check("refine-lexical", REFINERS, "`lexical` (pair refiner", REFINER_COLUMNS,
          lambda: refiner_f1s("lexical", "--threshold", "0", "--max-ids", "5")),
    Check("refine-lexical-joint", REFINERS, "`lexical`, `--joint`", REFINER_COLUMNS,
          lambda: refiner_f1s("lexical+joint")),
    Check("refine-cover", REFINERS, "`baseline:cover`", REFINER_COLUMNS,
          lambda: refiner_f1s("baseline:cover")),
    Check("refine-spans", REFINERS, "`baseline:spans`", REFINER_COLUMNS,
          lambda: [f1("quotesum", "baseline:spans", "removed"), *spans_half_mean(),
                   f1("wice", "baseline:spans", "removed")],
          note="half wrong: the mean over --seed 0-9 within the stated sd"),
    Check("refine-ranker", REFINERS, "`ranker:` (fitted",
          ["seeds", "QuoteSum, removed", "WiCE held-out"],
          lambda: [ranker("removed")[1], ranker_f1("quotesum", "removed"),
                   ranker_f1("wice", "removed")], pick=[1, 5, 6],
          note="5-fold CV F1 within its sd, then the two F1s exactly"),
    Check("refine-ranker-half", REFINERS, "`ranker:` fitted with `--inputs half`",
          ["WiCE held-out"], lambda: [ranker_f1("wice", "half", fitted="half")]),
]


def quickstart() -> list[float]:
    """``citetrain quickstart --seed 0`` (the default run): ALCE, lenient and ALiiCE citation F1,
    each unrefined / trivial / refined. About 5½ minutes on 2 idle cores, much longer on shared
    ones: left out of the default set."""
    out = _TMP / "quickstart"
    _citetrain("quickstart", "--seed", "0", "--out", out, "--no-progress", timeout=3600)
    report = json.loads((out / "report.json").read_text())
    return [report["f1"][m][k] for m in ("alce", "lenient", "aliice")
            for k in ("unrefined", "trivial", "refined")]


CHECKS.append(Check("quickstart", "Quickstart", "`citetrain quickstart` (the default run",
                    ["ALCE", "lenient", "ALiiCE"], quickstart, default=False,
                    note="trains a LoRA classifier, 5-15 minutes: only with --only quickstart"))


# --- command line ------------------------------------------------------------------------------

def git_head() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                          text=True, check=True).stdout.strip()


def checkout_state(commit: str | None) -> tuple[str, list[str]]:
    """The commit to stamp and the code files that differ from it: ``--commit`` for a checkout
    that is not a git work tree (``git archive HEAD`` unpacked elsewhere, to measure HEAD's code
    while the work tree has edits in progress), else HEAD and the work tree's edits."""
    if commit:
        return commit, []
    return git_head(), dirty_code()


def dirty_code() -> list[str]:
    """Tracked files under citetrain/ and bench/ that differ from HEAD (the figures are measured
    on the working tree, the stamp names HEAD)."""
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                          "citetrain", "bench"], cwd=REPO, capture_output=True, text=True).stdout
    return [line[3:] for line in out.splitlines() if line.strip()]


def select(only: str | None) -> list[Check]:
    if not only:
        return [c for c in CHECKS if c.default]
    names = [n.strip() for n in only.split(",") if n.strip()]
    known = {c.name: c for c in CHECKS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown check(s): {', '.join(unknown)} (--list lists them)")
    return [known[n] for n in names]


def format_outcome(o: Outcome) -> str:
    line = f"{o.status:5} {o.check.name:24} page {o.page} | measured {o.measured} ({o.seconds:.0f}s)"
    return "\n".join([line, *(f"      {d}" for d in o.detail)])


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", type=Path, default=PAGE)
    ap.add_argument("--only", help="comma-separated check names (default: the default set)")
    ap.add_argument("--list", action="store_true", help="list the checks and exit")
    ap.add_argument("--commit", help="the commit this checkout holds, where it is not a git work "
                    "tree (default: git rev-parse --short HEAD)")
    ap.add_argument("--update", action="store_true",
                    help="write today's date and commit into the rows that held")
    args = ap.parse_args(argv)
    if args.list:
        for c in CHECKS:
            print(f"{c.name:24} {'default' if c.default else '--only ':8} {c.section}: {c.row}"
                  + (f" ({c.note})" if c.note else ""))
        return 0
    text = args.page.read_text()
    lines = text.split("\n")
    head, dirty = checkout_state(args.commit)
    print(f"re-checking {args.page} with the code of {REPO} at {head}"
          + (f" (the working tree differs from it in {', '.join(dirty)})" if dirty else ""))
    outcomes = []
    for check in select(args.only):
        outcome = run_check(check, lines)
        outcomes.append(outcome)
        print(format_outcome(outcome), flush=True)
    bad = [o for o in outcomes if o.status != "OK"]
    print(f"{len(outcomes) - len(bad)} OK, {sum(o.status == 'DRIFT' for o in bad)} DRIFT, "
          f"{sum(o.status == 'FAIL' for o in bad)} FAIL")
    if args.update:
        stamp = f"{_dt.date.today().isoformat()} {head}"
        stamps = {(o.check.section, o.check.row): stamp for o in outcomes}
        for o in bad:  # a row with any bad check keeps its old stamp
            stamps.pop((o.check.section, o.check.row), None)
        if stamps:
            args.page.write_text(update_page(args.page.read_text(), stamps))
            print(f"stamped {len(stamps)} rows of {args.page} with {stamp}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
