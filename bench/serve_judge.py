"""Benchmark: a bounded load test of ``citetrain serve`` on this machine.

Starts ``citetrain serve JUDGE`` on localhost (one row per ``--workers`` value), then
``--clients`` concurrent clients (httpx, asyncio) each post one record at a time for ``--seconds``
(ExpertQA rand_val answers from ``../shared/data`` when present, else seeded synthetic records:
the records of ``bench/judge_throughput.py``); requests in flight at the end are waited for.
Prints per row requests/s, statements/s, p50 / p99 latency and errors (any non-200), and, as the
baseline, the statements/s of the judge in one process (``citetrain judge``'s computation: the
Python API on the same records, same threads, no cache). The judge is ``--judge NAME`` (e.g.
``nli:lexical``: offline, no model), else the cross-encoder ``--crossencoder PATH`` (default
``runs/judge-crossencoder/final``, else all-MiniLM-L6-v2 with a fresh 3-way head: the same speed).

``--heavy`` adds a second row per server: the same light clients beside one heavy client that
posts, back to back, requests at the size cap within the work limits (``--heavy-records`` records
of 20 passages and two statements whose subset search asks every pair and triple, padded to
``--max-body-bytes``); the light clients' p50 / p99 against the row without it show what a heavy
request costs the others (the server's fair batching bounds it to about one batch; each row
gives the batches scored and the seconds per batch, from ``/health`` with the token: with
several workers, those of the worker that answered). Figures
only; nothing is asserted.
Run: ``python bench/serve_judge.py [--judge nli:lexical] [--heavy] [--clients 32] [--seconds 60]
[--workers 1,2] [--records 40]``.

``--hostile MODES`` (issue 86; ``all``, or some of ``long-passages many-statements cjk
refusal-trickle slow-reader worst timeout rss``): each mode against a fresh ``citetrain serve
nli:lexical`` at default limits (payloads: ``bench/_hostile.py``), ``--light-clients`` light
clients (one small record a request) for ``--seconds`` alone, then beside the mode's load; one
table row a mode: the light p50 / p99 of both runs, the mode's requests (statuses, latencies),
the server's RSS (``VmRSS``) and CPU seconds (``utime + stime``). ``worst`` also times the worst
request within the caps alone; ``timeout`` (``--timeout 2``) how long the server's CPU burns
after a 504 and after a client gives up; ``rss`` the RSS after ``--rss-requests`` worst-case
requests against the caches' byte caps. The caps themselves are calibrated by ``citetrain serve
JUDGE --calibrate`` (a user's job, so a command: :mod:`citetrain.serve.calibrate`).
"""
from __future__ import annotations

import argparse
import asyncio
import json
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

from bench._common import stop_server  # noqa: E402
from judge_throughput import MINILM, crossencoder_path, load_records  # noqa: E402


TOKEN = "bench-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def start_server(judge: str, workers: int, threads: int, extra: list[str], log: Path):
    from bench._common import start_server as start

    env = {**os.environ, "CITETRAIN_SERVE_TOKEN": TOKEN}  # /health then counts the batches
    try:
        return start([judge, "--workers", str(workers), "--threads", str(max(1, threads // workers)),
                      "--timeout", "600", *extra], log, 180, env=env)
    except RuntimeError as exc:
        raise SystemExit(str(exc)) from None


def heavy_body(max_bytes: int, max_calls: int, max_items: int, records: int | None) -> dict:
    """A request at the size cap within the work limits: costly records (every pair and triple
    of 20 passages asked), as many as the NLI-call bound allows, padded to ``max_bytes``."""
    from bench._common import heavy_record
    from citetrain.serve.cost import calls_per_statement

    per_record = 2 * calls_per_statement(20)
    n = min(records or max_items, max_items, max_calls // per_record)
    recs = [heavy_record(f"heavy-{i}", 20, 2) for i in range(n)]
    room = max_bytes - len(json.dumps({"records": recs})) - 1000
    filler = " filler"
    for rec in recs:  # the same words in every passage: longer premises, no new entailment
        for doc in rec["docs"]:
            doc["text"] += filler * max(0, room // (len(recs) * len(rec["docs"]) * len(filler)))
    return {"records": recs}


async def load(url: str, bodies: list[dict], clients: int, seconds: float,
               heavy: dict | None = None) -> dict:
    import httpx

    latencies: list[float] = []
    heavy_latencies: list[float] = []
    statuses: dict[int, int] = {}
    statements = 0
    stop = time.perf_counter() + seconds

    async def post(http: httpx.AsyncClient, body: dict) -> tuple[int, float, dict | None]:
        start = time.perf_counter()
        try:
            r = await http.post(f"{url}/score", json=body)
            status, got = r.status_code, (r.json() if r.status_code == 200 else None)
        except httpx.HTTPError:
            status, got = -1, None
        return status, time.perf_counter() - start, got

    async def client(k: int, http: httpx.AsyncClient) -> None:
        nonlocal statements
        i = k
        while time.perf_counter() < stop:
            status, took, got = await post(http, {"records": [bodies[i % len(bodies)]]})
            latencies.append(took)
            statuses[status] = statuses.get(status, 0) + 1
            if got is not None:
                statements += sum(len(rec["statements"]) for rec in got["records"])
            i += clients

    async def heavy_client(http: httpx.AsyncClient) -> None:
        while time.perf_counter() < stop:
            status, took, _ = await post(http, heavy)
            heavy_latencies.append(took)
            if status != 200:
                statuses[f"heavy {status}"] = statuses.get(f"heavy {status}", 0) + 1

    began = time.perf_counter()
    limits = httpx.Limits(max_connections=clients + 1)
    async with httpx.AsyncClient(timeout=900, limits=limits, headers=AUTH) as http:
        before = (await http.get(f"{url}/health")).json()["batches"]
        jobs = [client(k, http) for k in range(clients)] + ([heavy_client(http)] if heavy else [])
        await asyncio.gather(*jobs)
        batches = (await http.get(f"{url}/health")).json()["batches"] - before
    wall = time.perf_counter() - began
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else latencies * 99
    return {"requests": len(latencies), "wall": wall, "statements": statements,
            "p50": statistics.median(latencies), "p99": q[98], "heavy": heavy_latencies,
            "batches": batches,
            "errors": sum(n for s, n in statuses.items() if s != 200), "statuses": statuses}


def baseline(judge_name: str, records, threads: int, options: dict) -> tuple[int, float]:
    import torch

    from citetrain.judges.registry import make_judge

    torch.set_num_threads(threads)
    judge = make_judge(judge_name, progress=False, cache=False, **options)
    judge.score(records[:1], progress=False)  # warm: libraries loaded on first use, as the server
    if getattr(judge, "engine", None) is not None:
        judge.engine.forget()
    res = judge.score(records, progress=False)
    return res.statements, res.seconds


def row(label: str, clients: int, out: dict) -> str:
    line = (f"{label:<24}{clients:>8}{out['requests']:>9}{out['requests'] / out['wall']:>8.2f}"
            f"{out['statements'] / out['wall']:>8.2f}{out['p50']:>8.2f}{out['p99']:>8.2f}"
            f"{out['errors']:>7}")
    line += f"  {out['batches']} batches, {out['wall'] / max(out['batches'], 1):.2f} s each"
    if out["heavy"]:
        line += (f"; heavy: {len(out['heavy'])} requests, median {statistics.median(out['heavy']):.1f} s")
    return line + (f"  {out['statuses']}" if out["errors"] else "")


# ---- hostile load (issue 86): each mode against a fresh `citetrain serve nli:lexical` at default limits ----

HOSTILE = ("long-passages", "many-statements", "cjk", "refusal-trickle", "slow-reader", "worst",
           "timeout", "rss")


def start_default(extra: list[str], name: str):
    from bench._common import start_server as start

    env = {**os.environ, "CITETRAIN_SERVE_TOKEN": TOKEN}
    return start(["nli:lexical", *extra], Path(f"/tmp/citetrain-serve-hostile-{name}.log"), 120, env=env)


def heavy_load(mode: str, url: str, stop: float, seconds: float, pid: int):
    """The heavy load of ``mode`` (a coroutine), beside the light clients until ``stop``."""
    import _hostile as H

    seed = int(time.time())
    if mode == "long-passages":
        return H.heavy_posts(url, AUTH, lambda i: H.long_passages_body(seed + i), 1, stop)
    if mode == "many-statements":
        return H.heavy_posts(url, AUTH, lambda i: H.many_statements_body(seed + i), 1, stop)
    if mode == "cjk":  # 1,950 Chinese / Japanese sentences (scored), 3,990 (split, 422), 20,000 (422 unsplit)
        shapes = [(1950, False), (1950, True), (3990, False), (20000, True)]
        return H.heavy_posts(url, AUTH, lambda i: H.cjk_body(seed + i, *shapes[i % 4]), 2, stop)
    if mode == "worst":
        return H.heavy_posts(url, AUTH, lambda i: H.worst_body(seed + i), 4, stop)
    if mode == "refusal-trickle":
        return H.trickle(url, TOKEN, 100, seconds)
    if mode == "slow-reader":  # replies of 2,000 statements (1.1 MB), read at 1 KB/s past --send-timeout
        body = json.dumps(H.many_statements_body(seed)).encode()
        return H.slow_readers(url, TOKEN, body, 8, max(seconds, 45), pid)
    raise ValueError(mode)


async def heavy_mode(mode: str, pid: int, url: str, seconds: float, light: int, checks: list) -> str:
    import _hostile as H

    idle = H.rss_bytes(pid)
    base = await H.light_load(url, AUTH, light, time.perf_counter() + seconds)
    if mode == "worst":  # first alone
        body = H.worst_body(int(time.time()) - 1)
        work = H.plan_work(body)
        async with __import__("httpx").AsyncClient(timeout=300, headers=AUTH) as http:
            status, took = await H.post(http, url, json.dumps(body).encode())
        checks.append(f"worst request alone ({H.WORST}, {H.body_bytes(body):,} bytes, estimated work "
                      f"{work:,} of --max-work {H.default_limit('max_work'):,}): {status} in {took:.2f} s (target: within 5 s)"
                      f"; load {H.load_average()}")
    cpu0, rss0 = H.cpu_seconds(pid), H.rss_bytes(pid)
    stop = time.perf_counter() + seconds
    heavy = asyncio.ensure_future(heavy_load(mode, url, stop, seconds, pid))
    under = await H.light_load(url, AUTH, light, stop)
    got = await heavy
    cpu, rss = H.cpu_seconds(pid) - cpu0, H.rss_bytes(pid)
    b50, b99, _ = H.quantiles(base["latencies"])
    p50, p99, top = H.quantiles(under["latencies"])
    if mode == "worst":
        checks.append(f"light p99 beside 4 concurrent worst-case requests: {p99:.2f} s (target: at most "
                      f"1 s; baseline {b99:.2f} s); light answers {under['statuses']}")
    if mode == "refusal-trickle":
        checks.append(f"100 trickling sockets after a refusal: good requests {under['statuses']}, "
                      f"p99 {p99:.2f} s, max {top:.2f} s (target: within --header-timeout 10 s)")
    return (f"| {mode} | {b50:.3f} / {b99:.3f} | {p50:.3f} / {p99:.3f} (max {top:.2f}) "
            f"{under['statuses']} | {H.summary(got)} | {idle / 2**20:.0f} -> {rss / 2**20:.0f} MB "
            f"(+{(rss - idle) / 2**20:.0f}; +{(rss - rss0) / 2**20:.0f} in the load) | {cpu:.1f} | "
            f"{H.load_average()} |")


async def timeout_check(pid: int, url: str, checks: list) -> None:
    """--timeout 2: four worst-case requests at once get 504; then a light request, and how long
    the server's CPU keeps burning after the last 504; then a client that gives up after 1 s."""
    import httpx

    import _hostile as H

    seed = int(time.time())
    bodies = [json.dumps(H.worst_body(seed + i)).encode() for i in range(5)]
    light = json.dumps(H.light_body()).encode()
    for case in ("504", "disconnect"):
        done = asyncio.Event()
        watch = asyncio.ensure_future(H.cpu_watch(pid, done))
        async with httpx.AsyncClient(timeout=60 if case == "504" else 1.0, headers=AUTH) as http:
            if case == "504":
                got = await asyncio.gather(*(H.post(http, url, b) for b in bodies[:4]))
            else:
                got = [await H.post(http, url, bodies[4])]
            gone = time.perf_counter()
        async with httpx.AsyncClient(timeout=60, headers=AUTH) as http:
            status, took = await H.post(http, url, light)
        await asyncio.sleep(4)
        done.set()
        busy = H.busy_until(await watch, gone)
        what = ("4 concurrent worst-case requests, --timeout 2: " + ", ".join(f"{s} in {t:.1f} s" for s, t in got)
                if case == "504" else f"a worst-case request whose client gives up after 1 s ({got[0][0]})")
        checks.append(f"{what}; the next light request {status} in {took:.2f} s (target: 200 within "
                      f"3 s); server CPU busy until {busy:.2f} s after (target: within 1 s); load "
                      f"{H.load_average()}")


def rss_check(pid: int, url: str, requests: int, limit_s: float, checks: list) -> None:
    """``requests`` worst-case requests (fresh words each, two clients), the server's RSS against
    the idle server's and the caches' byte caps."""
    import _hostile as H

    caps = sum(H.cache_caps().values())
    idle = H.rss_bytes(pid)
    seed, start = int(time.time()), time.perf_counter()
    got: list = []
    while len(got) < requests and time.perf_counter() - start < limit_s:
        stop = time.perf_counter()  # one request per client per round
        got += asyncio.run(H.heavy_posts(url, AUTH, lambda i: H.worst_body(seed + len(got) + i), 2, stop))
        if len(got) % 20 == 0:
            print(f"  rss: {len(got)} requests, {H.rss_bytes(pid) / 2**20:.0f} MB, "
                  f"{time.perf_counter() - start:.0f} s, load {H.load_average()}", flush=True)
    rss = H.rss_bytes(pid)
    checks.append(f"RSS after {len(got)} worst-case requests ({H.summary(got)}): {rss / 2**20:.0f} MB "
                  f"against {idle / 2**20:.0f} MB idle (+{(rss - idle) / 2**20:.0f} MB; target: within "
                  f"the caches' caps {caps / 2**20:.0f} MB + 300 MB = +{caps / 2**20 + 300:.0f} MB); "
                  f"load {H.load_average()}")


def hostile(modes: list[str], seconds: float, light: int, rss_requests: int, rss_seconds: float) -> None:
    import _hostile as H

    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {H.load_average()}; "
          f"nli:lexical at default limits; {light} light clients, {seconds:.0f} s a phase\n")
    print("| mode | light p50 / p99 s, alone | light p50 / p99 s, beside the mode | the mode's requests "
          "| server RSS idle -> after | server CPU s | load |\n|---|---|---|---|---|---|---|")
    checks: list[str] = []
    for mode in modes:
        proc, url = start_default(["--timeout", "2"] if mode == "timeout" else [], mode)
        try:
            if mode == "timeout":
                asyncio.run(timeout_check(proc.pid, url, checks))
            elif mode == "rss":
                rss_check(proc.pid, url, rss_requests, rss_seconds, checks)
            else:
                print(asyncio.run(heavy_mode(mode, proc.pid, url, seconds, light, checks)), flush=True)
        finally:
            stop_server(proc, 60)
    print("\n" + "\n".join(f"- {c}" for c in checks))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--workers", default="1", help="comma-separated worker counts, one row each")
    ap.add_argument("--threads", type=int, default=2, help="torch threads in all (split among workers)")
    ap.add_argument("--records", type=int, default=40)
    ap.add_argument("--judge", help="the judge served, e.g. nli:lexical (default: the cross-encoder)")
    ap.add_argument("--crossencoder", help="a trained cross-encoder folder, or 'config' (MiniLM's "
                    "shape, random weights)")
    ap.add_argument("--dtype", help="fp32 (default) or int8, for the server and the baseline")
    ap.add_argument("--union-first", action="store_true")
    ap.add_argument("--subsets", choices=("all", "needed"), help="the judge's subset search "
                    "(default all; needed: the same ratings from fewer pairs)")
    ap.add_argument("--heavy", action="store_true", help="a second row with one heavy client")
    ap.add_argument("--heavy-records", type=int, help="records per heavy request (default: as many "
                    "as --max-items and --max-nli-calls allow)")
    ap.add_argument("--max-body-bytes", type=int, default=1_000_000, help="the server's size cap")
    ap.add_argument("--max-nli-calls", type=int, default=250_000, help="the server's work limit")
    ap.add_argument("--hostile", help="comma-separated heavy modes against nli:lexical at default "
                    f"limits, or 'all': {', '.join(HOSTILE)}")
    ap.add_argument("--light-clients", type=int, default=4, help="light clients of --hostile")
    ap.add_argument("--rss-requests", type=int, default=200, help="worst-case requests of --hostile rss")
    ap.add_argument("--rss-seconds", type=float, default=1800, help="at most this long for them")
    args = ap.parse_args()
    if args.hostile:
        modes = list(HOSTILE) if args.hostile == "all" else args.hostile.split(",")
        return hostile(modes, args.seconds, args.light_clients, args.rss_requests, args.rss_seconds)

    records, source = load_records(args.records)
    tmp = tempfile.TemporaryDirectory(prefix="citetrain-serve-bench-")
    if args.judge:
        judge, what = args.judge, args.judge
    else:
        path, what = crossencoder_path(args.crossencoder, records, Path(tmp.name),
                                       MINILM["num_hidden_layers"])
        judge = f"crossencoder:{path}"
    options = {k: v for k, v in (("dtype", args.dtype), ("union_first", args.union_first or None),
                                 ("subsets", args.subsets)) if v is not None}
    extra = ((["--dtype", args.dtype] if args.dtype else []) + (["--union-first"] if args.union_first else [])
             + (["--subsets", args.subsets] if args.subsets else [])
             + ["--max-body-bytes", str(args.max_body_bytes), "--max-nli-calls", str(args.max_nli_calls)])
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch threads "
          f"{args.threads}; records: {source}; judge: {what}; {options or 'fp32'}")
    n, secs = baseline(judge, records, args.threads, options)
    print(f"\nbaseline, citetrain judge in one process: {n} statements in {secs:.1f} s = "
          f"{n / secs:.2f} statements/s")
    heavy = heavy_body(args.max_body_bytes, args.max_nli_calls, 64, args.heavy_records) if args.heavy else None
    if heavy:
        print(f"heavy request: {len(heavy['records'])} records, {len(json.dumps(heavy)):,} bytes")
    bodies = [r.to_dict() for r in records]
    print(f"\n{'server (light clients)':<24}{'clients':>8}{'requests':>9}{'req/s':>8}{'stmt/s':>8}"
          f"{'p50 s':>8}{'p99 s':>8}{'errors':>7}")
    for workers in (int(w) for w in args.workers.split(",")):
        log = Path(f"/tmp/citetrain-serve-bench-{workers}.log")
        proc, url = start_server(judge, workers, args.threads, extra, log)
        try:
            for load_heavy in ((None, heavy) if heavy else (None,)):
                out = asyncio.run(load(url, bodies, args.clients, args.seconds, load_heavy))
                label = f"{workers} worker(s)" + (" + heavy" if load_heavy else "")
                print(row(label, args.clients, out), flush=True)
        finally:
            stop_server(proc, 60)


if __name__ == "__main__":
    main()
