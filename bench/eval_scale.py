"""Benchmark: ``citetrain eval`` at 1k, 10k and 100k records: seconds per record and peak memory.

Writes ``--sizes`` seeded synthetic prediction files (``citetrain synth``'s records: 4-6
passages, 2-5 statements each; the first N of one seeded stream, so a larger file extends a
smaller one) and scores each in its own process with ``citetrain eval FILE --metrics
alce,lenient,aliice --nli lexical --no-cache --score-chunk 1000`` (streamed; see
citetrain/evaluation/stream.py). Prints, per size, wall seconds, seconds per record and the
process's peak RSS (``wait4``'s ``ru_maxrss``), and the RSS of the largest size against the
smallest. Figures only; nothing is asserted.
Run: ``python bench/eval_scale.py [--sizes 1000,10000,100000] [--metrics alce,lenient,aliice]``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def write_records(path: Path, n: int) -> None:
    from citetrain.synth.records import synth_records

    with open(path, "w", encoding="utf-8") as fh:
        for start in range(0, n, 1000):  # one seeded stream, a piece at a time
            batch = synth_records(min(n, start + 1000), seed=0, start=start)
            fh.writelines(json.dumps(r.to_dict()) + "\n" for r in batch)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--metrics", default="alce,lenient,aliice")
    ap.add_argument("--score-chunk", type=int, default=1000)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="citetrain-eval-scale-"))
    print(f"{platform.machine()}, {os.cpu_count()} cores; metrics {args.metrics}, lexical NLI, "
          f"--score-chunk {args.score_chunk}\n")
    print(f"{'records':>8} {'seconds':>9} {'s/record':>9} {'peak RSS MB':>12}")
    rss = {}
    for n in sizes:
        path = tmp / f"preds-{n}.jsonl"
        write_records(path, n)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "citetrain.cli.main", "eval", str(path),
                                 "--metrics", args.metrics, "--nli", "lexical", "--no-cache",
                                 "--no-progress", "--score-chunk", str(args.score_chunk), "--out",
                                 str(tmp / f"out-{n}")], env=env, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"citetrain eval failed on {n} records (status {status})")
        rss[n] = usage.ru_maxrss / 1024  # kB on Linux
        print(f"{n:>8} {seconds:>9.1f} {seconds / n:>9.4f} {rss[n]:>12.0f}", flush=True)
    if len(sizes) > 1:
        print(f"\npeak RSS at {sizes[-1]} records / at {sizes[0]}: {rss[sizes[-1]] / rss[sizes[0]]:.3f}")


if __name__ == "__main__":
    main()
