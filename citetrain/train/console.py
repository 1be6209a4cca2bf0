"""The training loop on the terminal: one formatted line per logging step instead of the
Trainer's raw dicts (``{'loss': '0.6704', 'grad_norm': ..., 'eval_fs_vs_ps': 'nan'}``), with its
progress bar only where stderr is a terminal (:func:`citetrain.io.console.show_progress`)."""
from __future__ import annotations

import math
from typing import Any

from transformers import PrinterCallback, ProgressCallback, TrainerCallback

from citetrain.io.console import show_progress

# Trainer bookkeeping that is not a figure of the model
_SKIP = {"total_flos", "epoch", "eval_runtime", "eval_samples_per_second", "eval_steps_per_second",
         "train_samples_per_second", "train_steps_per_second", "eval_n", "eval_ndcg_groups"}
_NAMES = {"learning_rate": "lr", "train_loss": "loss", "train_runtime": "seconds"}
# meta-evaluation figures a judge's eval line leaves to the run's logs (trainer_state.json)
_EVAL_LONG = {"ndcg@5", "ndcg@10", "ndcg@20", "pearson", "kendall"}


def _value(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        try:
            v = float(v)
        except (TypeError, ValueError):
            return None
    if math.isnan(v):
        return None
    return f"{v:.3g}" if abs(v) < 1e-3 and v else f"{v:.4g}"


# the longest step line the terminal gets; a longer one keeps the key figures and the run's log
# (:func:`citetrain.io.console.to_log`) gets the whole line
MAX_LINE = 160
# the figures a capped line keeps first, in this order of preference
_KEY = ("loss", "learning_rate", "train_loss", "grad_norm", "reward", "rewards/margins",
        "rewards/accuracies", "kl", "roc_auc", "citation_f1", "lenient_f1", "train_runtime")


def _parts(step: int, max_steps: int, logs: dict[str, Any]) -> tuple[str, list[tuple[str, str]]]:
    """The line's head and its ``(key, "name value")`` figures, or ``("", [])``."""
    evals = {k[5:]: v for k, v in logs.items()
             if k.startswith("eval_") and k not in _SKIP and k[5:] not in _EVAL_LONG}
    if "roc_auc" in evals:  # on binary labels the one-vs-one mean and its one pair repeat it
        evals = {k: v for k, v in evals.items()
                 if k == "roc_auc" or not (k in ("roc_auc_mean", "fs_vs_ns")
                                          and _value(v) == _value(evals["roc_auc"]))}
    rest = {k: v for k, v in logs.items() if not k.startswith("eval_") and k not in _SKIP}
    parts = [(k, f"{_NAMES.get(k, k)} {s}") for k, v in (evals or rest).items()
             if (s := _value(v)) is not None]
    if not parts:
        return "", []
    head = f"step {step}/{max_steps}" if max_steps > 0 else f"step {step}"
    if evals:
        head += " eval:"
    elif "train_runtime" in logs:
        head += " done:"
    return head, parts


def _capped(head: str, parts: list[tuple[str, str]], width: int) -> str:
    """``head`` and as many figures as fit in ``width`` characters, the key ones (:data:`_KEY`)
    first, shown in their logged order, and how many more the log holds."""
    rank = {k: i for i, k in enumerate(_KEY)}
    order = sorted(range(len(parts)), key=lambda i: (rank.get(parts[i][0], len(_KEY)), i))
    kept: set[int] = set()
    for i in order:
        more = len(parts) - len(kept) - 1
        tail = f"  (+{more} in the log)" if more else ""
        trial = "  ".join([head, *(parts[j][1] for j in sorted(kept | {i}))]) + tail
        if len(trial) <= width:
            kept.add(i)
    left = len(parts) - len(kept)
    return "  ".join([head, *(parts[j][1] for j in sorted(kept))]) + f"  (+{left} in the log)"


def format_logs(step: int, max_steps: int, logs: dict[str, Any],
                width: int | None = None) -> str | None:
    """``step 20/705  loss 0.6704  lr 7.9e-05  grad_norm 6.6``, ``... eval: loss 0.25  roc_auc
    0.93`` or the end-of-training line; ``None`` when nothing is left to show. NaN figures (a
    class pair absent from the evaluated subset) and the Trainer's bookkeeping are left out. With
    ``width``, a longer line keeps the key figures (step, loss, lr, ...) that fit and says how
    many more the log holds (:func:`console_line`)."""
    head, parts = _parts(step, max_steps, logs)
    if not parts:
        return None
    line = "  ".join([head, *(p for _, p in parts)])
    if width is not None and len(line) > width:
        return _capped(head, parts, width)
    return line


def console_line(step: int, max_steps: int, logs: dict[str, Any]) -> str | None:
    """The step line for the terminal: :func:`format_logs` capped to :data:`MAX_LINE` characters
    (whole under ``--verbose``); a capped line's every figure, and the raw dict, go to the run's
    log file (:func:`citetrain.io.console.to_log`)."""
    from citetrain.io.console import to_log, verbose

    head, parts = _parts(step, max_steps, logs)
    if not parts:
        return None
    line = "  ".join([head, *(p for _, p in parts)])
    if verbose() or len(line) <= MAX_LINE:
        return line
    to_log(f"{line}\n  {logs}")
    return _capped(head, parts, MAX_LINE)


class LogLines(TrainerCallback):
    """Prints :func:`format_logs` lines (main process only)."""

    def on_log(self, args, state, control, logs=None, **kwargs):
        if state.is_world_process_zero and logs:
            line = console_line(state.global_step, state.max_steps, logs)
            if line:
                print(line, flush=True)


class BarWithLines(ProgressCallback):
    """The Trainer's progress bar, with :func:`format_logs` lines written above it."""

    def on_log(self, args, state, control, logs=None, **kwargs):
        if state.is_world_process_zero and logs:
            line = console_line(state.global_step, state.max_steps, logs)
            if line and self.training_bar is not None:
                self.training_bar.write(line)
            elif line:
                print(line, flush=True)


def use_log_lines(trainer: Any, progress: bool = True) -> None:
    """Replace the Trainer's printing callbacks with :class:`BarWithLines` (a terminal) or
    :class:`LogLines` (a log file, or ``progress`` off)."""
    trainer.remove_callback(ProgressCallback)
    trainer.remove_callback(PrinterCallback)
    trainer.add_callback(BarWithLines() if show_progress(progress) else LogLines())
