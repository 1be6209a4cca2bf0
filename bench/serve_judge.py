"""Benchmark: a bounded load test of ``citetrain serve`` on this machine.

Starts ``citetrain serve crossencoder:PATH`` on localhost (one row per ``--workers`` value), then
``--clients`` concurrent clients (httpx, asyncio) each post one record at a time for ``--seconds``
(ExpertQA rand_val answers from ``../shared/data`` when present, else seeded synthetic records:
the records of ``bench/judge_throughput.py``); requests in flight at the end are waited for.
Prints per row requests/s, statements/s, p50 / p99 latency and errors (any non-200), and, as the
baseline, the statements/s of the judge in one process (``citetrain judge``'s computation: the
Python API on the same records, same threads, no cache). The judge is ``--crossencoder PATH``
(default ``runs/judge-crossencoder/final``, else all-MiniLM-L6-v2 with a fresh 3-way head: the same
speed). Figures only; nothing is asserted.
Run: ``python bench/serve_judge.py [--clients 32] [--seconds 60] [--workers 1,2] [--records 40]``.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from judge_throughput import MINILM, crossencoder_path, load_records  # noqa: E402


def start_server(path: str, workers: int, threads: int, extra: list[str], log: Path):
    from bench._common import start_server as start

    try:
        return start([f"crossencoder:{path}", "--workers", str(workers), "--threads",
                      str(max(1, threads // workers)), "--timeout", "600", *extra], log, 120)
    except RuntimeError as exc:
        raise SystemExit(str(exc)) from None


async def load(url: str, bodies: list[dict], clients: int, seconds: float) -> dict:
    import httpx

    latencies: list[float] = []
    statuses: dict[int, int] = {}
    statements = 0
    stop = time.perf_counter() + seconds

    async def client(k: int, http: httpx.AsyncClient) -> None:
        nonlocal statements
        i = k
        while time.perf_counter() < stop:
            start = time.perf_counter()
            try:
                r = await http.post(f"{url}/score", json={"records": [bodies[i % len(bodies)]]})
                status = r.status_code
            except httpx.HTTPError:
                status = -1
            latencies.append(time.perf_counter() - start)
            statuses[status] = statuses.get(status, 0) + 1
            if status == 200:
                statements += sum(len(rec["statements"]) for rec in r.json()["records"])
            i += clients

    began = time.perf_counter()
    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(timeout=900, limits=limits) as http:
        await asyncio.gather(*(client(k, http) for k in range(clients)))
    wall = time.perf_counter() - began
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else latencies * 99
    return {"requests": len(latencies), "wall": wall, "statements": statements,
            "p50": statistics.median(latencies), "p99": q[98],
            "errors": sum(n for s, n in statuses.items() if s != 200), "statuses": statuses}


def baseline(path: str, records, threads: int, options: dict) -> tuple[int, float]:
    import torch

    from citetrain.judges.registry import make_judge

    torch.set_num_threads(threads)
    judge = make_judge(f"crossencoder:{path}", progress=False, cache=False, **options)
    res = judge.score(records, progress=False)
    return res.statements, res.seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--workers", default="1", help="comma-separated worker counts, one row each")
    ap.add_argument("--threads", type=int, default=2, help="torch threads in all (split among workers)")
    ap.add_argument("--records", type=int, default=40)
    ap.add_argument("--crossencoder", help="a trained cross-encoder folder, or 'config' (MiniLM's "
                    "shape, random weights)")
    ap.add_argument("--dtype", help="fp32 (default) or int8, for the server and the baseline")
    ap.add_argument("--union-first", action="store_true")
    ap.add_argument("--subsets", choices=("all", "needed"), help="the judge's subset search "
                    "(default all; needed: the same ratings from fewer pairs)")
    args = ap.parse_args()

    records, source = load_records(args.records)
    tmp = tempfile.TemporaryDirectory(prefix="citetrain-serve-bench-")
    path, what = crossencoder_path(args.crossencoder, records, Path(tmp.name),
                                   MINILM["num_hidden_layers"])
    options = {k: v for k, v in (("dtype", args.dtype), ("union_first", args.union_first or None),
                                 ("subsets", args.subsets)) if v is not None}
    extra = ((["--dtype", args.dtype] if args.dtype else []) + (["--union-first"] if args.union_first else [])
             + (["--subsets", args.subsets] if args.subsets else []))
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch threads "
          f"{args.threads}; records: {source}; cross-encoder: {what}; {options or 'fp32'}")
    n, secs = baseline(path, records, args.threads, options)
    print(f"\nbaseline, citetrain judge in one process: {n} statements in {secs:.1f} s = "
          f"{n / secs:.2f} statements/s\n")
    bodies = [r.to_dict() for r in records]
    print(f"{'server':<24}{'clients':>8}{'requests':>9}{'req/s':>8}{'stmt/s':>8}{'p50 s':>8}"
          f"{'p99 s':>8}{'errors':>7}")
    for workers in (int(w) for w in args.workers.split(",")):
        log = Path(f"/tmp/citetrain-serve-bench-{workers}.log")
        proc, url = start_server(path, workers, args.threads, extra, log)
        try:
            out = asyncio.run(load(url, bodies, args.clients, args.seconds))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        print(f"{f'{workers} worker(s)':<24}{args.clients:>8}{out['requests']:>9}"
              f"{out['requests'] / out['wall']:>8.2f}{out['statements'] / out['wall']:>8.2f}"
              f"{out['p50']:>8.2f}{out['p99']:>8.2f}{out['errors']:>7}"
              + (f"  {out['statuses']}" if out["errors"] else ""))


if __name__ == "__main__":
    main()
