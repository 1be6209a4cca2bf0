"""The quickstart's report: a printed table, ``report.json`` and ``report.png``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citetrain.io.writers import atomic_writer, atomic_write_text

NAMES = {"unrefined": "unrefined answers", "trivial": "trivial (shares a word)",
         "refined": "refined (pair refiner)"}
LABELS = {"alce": "ALCE citation F1", "lenient": "lenient F1", "aliice": "ALiiCE F1"}


def table(f1: dict[str, dict[str, float]]) -> str:
    """Metric rows, one column per variant, and the refined-minus-unrefined gain."""
    cols = list(NAMES)
    lines = [f"{'metric':<18}" + "".join(f"{c:>12}" for c in cols) + f"{'gain':>9}"]
    for metric, row in f1.items():
        lines.append(f"{LABELS[metric]:<18}" + "".join(f"{row[c]:>12.2f}" for c in cols)
                     + f"{row['refined'] - row['unrefined']:>+9.2f}")
    return "\n".join(lines)


def toy_note(training: dict[str, Any]) -> str:
    """What the quickstart's scores mean: its refiner is a tiny toy model trained for seconds, so
    they show that the pipeline works end to end, not that the refiner is a good one."""
    steps, seconds = training.get("steps", "?"), training.get("seconds")
    took = f" in {seconds:.0f} s" if isinstance(seconds, (int, float)) else ""
    return (f"the refiner is a tiny toy model (a small encoder with LoRA, {steps} steps{took} on "
            "a CPU, synthetic data): these scores show that the pipeline works end to end, not "
            "a good refiner; on real answers it can make citations worse")


def write_json(report: dict[str, Any], path: Path) -> None:
    atomic_write_text(path, json.dumps(report, indent=2) + "\n")


def write_png(report: dict[str, Any], path: Path) -> None:
    """Left: each metric's F1 before, trivial and after. Right: the training loss and the
    in-loop citation F1 of the validation records over steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f1 = report["f1"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    metrics = list(f1)
    width = 0.26
    colors = {"unrefined": "#9e9e9e", "trivial": "#f0b429", "refined": "#2a7ab0"}
    for j, name in enumerate(NAMES):
        xs = [i + (j - 1) * width for i in range(len(metrics))]
        bars = ax1.bar(xs, [f1[m][name] for m in metrics], width, label=NAMES[name],
                       color=colors[name])
        ax1.bar_label(bars, fmt="%.1f", fontsize=8)
    ax1.set_xticks(range(len(metrics)), [LABELS[m] for m in metrics])
    ax1.set_ylim(0, 118)
    ax1.set_ylabel("F1 (%)")
    ax1.set_title(f"held-out answers ({report['plan']['test_records']} records)")
    ax1.legend(loc="upper center", ncol=3, fontsize=7)
    tr = report["training"]
    ax2.plot([r["step"] for r in tr["losses"]], [r["loss"] for r in tr["losses"]],
             color="#555555", label="training loss")
    ax2.set_xlabel("step")
    ax2.set_ylabel("loss")
    ax3 = ax2.twinx()
    ax3.plot([r["step"] for r in tr["inloop"]], [r["citation_f1"] for r in tr["inloop"]],
             "o-", color="#2a7ab0", label="in-loop citation F1 (validation)")
    ax3.set_ylabel("citation F1 (%)")
    ax3.set_ylim(0, 105)
    ax2.set_title("training")
    handles = ax2.get_legend_handles_labels()[0] + ax3.get_legend_handles_labels()[0]
    ax2.legend(handles, [h.get_label() for h in handles], loc="center right", fontsize=8)
    fig.tight_layout()
    with atomic_writer(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)
