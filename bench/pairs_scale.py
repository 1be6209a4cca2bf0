"""Benchmark: ``citetrain build`` of ``kind: pairs`` at growing inputs, toward a million pairs.

Writes plain-text corpora of ``--sizes`` passages (``format: text``; by default each passage the
joined documents of one record of ``citetrain synth``'s seeded stream: invented organisations,
people, places and numbers, ~12 sentences, so no two passages are alike; ``--text FILE`` takes the
first N blank-line paragraphs of your own file instead) and builds each with
``data_builders/pairs.yaml``'s settings (6 pairs a passage, windows of 6 sentences) in
``--processes`` processes, in its own ``citetrain build`` process. Prints per size the pairs made,
wall seconds, pairs/s, milliseconds per pair and process (flat when the build scales linearly),
the peak RSS of the largest process (``wait4``'s ``ru_maxrss`` over the build and its workers;
pages the processes share, such as the mapped sentence pool, count in each), the peak of the
build's summed PSS (``/proc/PID/smaps_rollup`` of the build and its workers every 0.5 s: shared
pages counted once, so the memory the build holds), and what a million pairs would take at the
largest size's rate. Also times
:meth:`~citetrain.builders.pool.SentencePool.related` (the search behind ``other_passage`` and
``add_fact``) on each size's sentence pool, with ``MAX_POSTINGS`` and without it (``no cap``):
the cap keeps a search's cost bounded as pools grow.
Figures only; nothing is asserted.
Run: ``python bench/pairs_scale.py [--sizes 1000,4000] [--processes 2] [--text FILE]``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def write_corpus(path: Path, n: int, text: Path | None) -> None:
    """``n`` blank-line-separated passages: synthetic records' joined docs, or ``text``'s first."""
    if text is not None:
        from citetrain.builders.passages import read_text

        paras = [p for _, p in read_text(str(text))][:n]
        if len(paras) < n:
            raise SystemExit(f"{text}: {len(paras)} paragraphs, fewer than {n}")
    else:
        from citetrain.synth.records import synth_records

        paras = []
        for start in range(0, n, 1000):  # one seeded stream, a piece at a time
            paras += [" ".join(d.text for d in r.docs)
                      for r in synth_records(min(n, start + 1000), seed=0, start=start)]
    path.write_text("".join(p.replace("\n", " ") + "\n\n" for p in paras), encoding="utf-8")


def spec_file(path: Path, corpus: Path, out: Path, processes: int) -> None:
    spec = {"name": path.stem, "kind": "pairs", "sources": [{"path": str(corpus), "format": "text"}],
            "pairs": {"per_passage": 6, "window": 6, "min_words": 5, "processes": processes},
            "shard_size": 256, "seed": 0, "split": {"validation": 0.1}, "out": str(out)}
    path.write_text(json.dumps(spec), encoding="utf-8")  # JSON is YAML


def query_ms(corpus: Path, queries: int = 200) -> tuple[int, float, float]:
    """The size of the sentence pool of ``corpus``'s passages and the mean time (ms) of its
    ``related`` search, with ``MAX_POSTINGS`` and without (every word under ``len / 200``)."""
    from citetrain.builders.passages import read_text, split_passages
    from citetrain.builders.pool import SentencePool
    from citetrain.nli.lexical import content_words

    sents = [s for _, s in split_passages([p for _, p in read_text(str(corpus))])]
    picks = random.Random(0).sample(range(len(sents)), min(queries, len(sents)))
    asks = [(set(content_words(" ".join(sents[i][:3]))[0]), i) for i in picks]
    out = []
    for cap in ({}, {"max_postings": len(sents) ** 2}):
        pool = SentencePool(sents, [str(i) for i in range(len(sents))], **cap)
        start = time.perf_counter()
        for words, i in asks:
            next(iter(pool.related(words, i)), None)
        out.append(1e3 * (time.perf_counter() - start) / max(1, len(asks)))
    return len(pool), out[0], out[1]


def tree_pss_mb(pid: int) -> float:
    """The proportional set size (MB) of a process and its descendants summed: each page shared
    by k of them counts 1/k to each, so the sum is the memory the tree holds (0 once gone)."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                total += next(int(x.split()[1]) for x in f if x.startswith("Pss:")) / 1024
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except (OSError, StopIteration):
            continue
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,4000", help="passages per build, comma-separated")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--text", type=Path, help="a .txt file of blank-line paragraphs to read")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="citetrain-pairs-scale-"))
    print(f"{platform.machine()}, {os.cpu_count()} cores; {args.processes} processes; passages: "
          f"{args.text or 'synthetic records, docs joined'}\n")
    print(f"{'passages':>8} {'pairs':>8} {'seconds':>8} {'pairs/s':>8} {'ms/pair/proc':>13} "
          f"{'peak RSS MB':>12} {'peak PSS MB':>12} {'pool':>8} {'ms/query':>9} {'no cap':>7}")
    rate = 0.0
    for n in sizes:
        corpus, spec, out = tmp / f"text-{n}.txt", tmp / f"pairs-{n}.yaml", tmp / f"out-{n}"
        write_corpus(corpus, n, args.text)
        spec_file(spec, corpus, out, args.processes)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "citetrain.cli.main", "build", str(spec),
                                 "--no-progress"], env=env, stdout=subprocess.DEVNULL)
        pss = 0.0
        while True:  # the build's memory, shared pages counted once, until it ends
            done, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if done:
                break
            pss = max(pss, tree_pss_mb(proc.pid))
            time.sleep(0.5)
        seconds = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"citetrain build failed on {n} passages (status {status})")
        pairs = sum(json.loads((out / "manifest.json").read_text())["pairs"].values())
        rate = pairs / seconds
        pool, ms, uncapped = query_ms(corpus)
        print(f"{n:>8} {pairs:>8} {seconds:>8.1f} {rate:>8.1f} "
              f"{1e3 * seconds * args.processes / pairs:>13.2f} {usage.ru_maxrss / 1024:>12.0f} "
              f"{pss:>12.0f} "
              f"{pool:>8} {ms:>9.2f} {uncapped:>7.2f}", flush=True)
    print(f"\na million pairs at the last rate: {1e6 / rate / 3600:.1f} h in {args.processes} "
          f"processes here (the pairs spread over processes; they map one sentence pool)")


if __name__ == "__main__":
    main()
