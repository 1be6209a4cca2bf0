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


def format_logs(step: int, max_steps: int, logs: dict[str, Any]) -> str | None:
    """``step 20/705  loss 0.6704  lr 7.9e-05  grad_norm 6.6``, ``... eval: loss 0.25  roc_auc
    0.93`` or the end-of-training line; ``None`` when nothing is left to show. NaN figures (a
    class pair absent from the evaluated subset) and the Trainer's bookkeeping are left out."""
    evals = {k[5:]: v for k, v in logs.items()
             if k.startswith("eval_") and k not in _SKIP and k[5:] not in _EVAL_LONG}
    if "roc_auc" in evals:  # on binary labels the one-vs-one mean and its one pair repeat it
        evals = {k: v for k, v in evals.items()
                 if k == "roc_auc" or not (k in ("roc_auc_mean", "fs_vs_ns")
                                          and _value(v) == _value(evals["roc_auc"]))}
    rest = {k: v for k, v in logs.items() if not k.startswith("eval_") and k not in _SKIP}
    parts = [f"{_NAMES.get(k, k)} {s}" for k, v in (evals or rest).items()
             if (s := _value(v)) is not None]
    if not parts:
        return None
    head = f"step {step}/{max_steps}" if max_steps > 0 else f"step {step}"
    if evals:
        head += " eval:"
    elif "train_runtime" in logs:
        head += " done:"
    return "  ".join([head, *parts])


class LogLines(TrainerCallback):
    """Prints :func:`format_logs` lines (main process only)."""

    def on_log(self, args, state, control, logs=None, **kwargs):
        if state.is_world_process_zero and logs:
            line = format_logs(state.global_step, state.max_steps, logs)
            if line:
                print(line, flush=True)


class BarWithLines(ProgressCallback):
    """The Trainer's progress bar, with :func:`format_logs` lines written above it."""

    def on_log(self, args, state, control, logs=None, **kwargs):
        if state.is_world_process_zero and logs:
            line = format_logs(state.global_step, state.max_steps, logs)
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
