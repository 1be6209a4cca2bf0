"""Benchmark: what the start-up hook behind ``accelerate launch recipes/X.yaml`` costs.

(a) the hook's .pth line as site executes it, for a script that is not a recipe (``sys.argv[0]``
    a ``.py`` path): microseconds per start-up, timed in process over many executions;
(b) interpreter start-up (``python -c pass`` and ``python script.py``), median of ``--runs`` runs,
    with the hook on and switched off (``CITETRAIN_RECIPE_HOOK=0``): the difference is within the
    run-to-run spread (printed beside it);
(c) what a recipe pays for the extra interpreter: ``python RECIPE --dry-run`` against
    ``python -m citetrain.train RECIPE --dry-run``.
Figures only; nothing is asserted. Run: ``python bench/recipe_hook.py [--runs 30]``.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

from citetrain.cli.recipe_hook import ENV, PTH_LINE

REPO = Path(__file__).resolve().parents[1]


def line_cost(n: int = 200_000) -> float:
    """Seconds per execution of the .pth line with a non-recipe ``sys.argv``."""
    saved = sys.argv
    sys.argv = ["script.py"]
    try:
        code = compile(PTH_LINE, "<pth>", "exec")
        return timeit.timeit(lambda: exec(code, {}), number=n) / n
    finally:
        sys.argv = saved


def startup(argv: list[str], runs: int, hook: bool) -> list[float]:
    env = {**os.environ, ENV: "1" if hook else "0"}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, *argv], env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def row(name: str, on: list[float], off: list[float]) -> str:
    med_on, med_off = statistics.median(on), statistics.median(off)
    spread = statistics.quantiles(off, n=4)
    return (f"{name:<34} {med_on * 1e3:8.1f} {med_off * 1e3:8.1f} {(med_on - med_off) * 1e3:+8.1f}"
            f"   {spread[0] * 1e3:.1f}-{spread[2] * 1e3:.1f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=30)
    args = p.parse_args()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")
    print(f"(a) the .pth line, non-recipe script: {line_cost() * 1e6:.2f} us per start-up")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.py"
        script.write_text("pass\n")
        print(f"\n(b) start-up, median ms over {args.runs} runs")
        print(f"{'':<34} {'hook on':>8} {'off':>8} {'diff':>8}   off IQR")
        for name, argv in (("python -c pass", ["-c", "pass"]), ("python script.py", [str(script)])):
            off = startup(argv, args.runs, hook=False)
            on = startup(argv, args.runs, hook=True)
            print(row(name, on, off))
    recipe = str(REPO / "recipes" / "tiny-cpu.yaml")
    runs = max(3, args.runs // 6)
    file_form = startup([recipe, "--dry-run"], runs, hook=True)
    module_form = startup(["-m", "citetrain.train", recipe, "--dry-run"], runs, hook=True)
    print(f"\n(c) a recipe, median s over {runs} runs: python RECIPE --dry-run "
          f"{statistics.median(file_form):.2f}, python -m citetrain.train RECIPE --dry-run "
          f"{statistics.median(module_form):.2f}")


if __name__ == "__main__":
    main()
