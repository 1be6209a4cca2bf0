"""What reaches the terminal: citetrain's own lines, its progress bars and errors; the libraries'
chatter (transformers' load reports and weight-loading bars, third-party deprecation warnings,
DeepSpeed's accelerator notice, datasets' bars) goes to a log file instead, unless ``--verbose``
(``CITETRAIN_VERBOSE=1``) asks for everything.

:func:`quiet_libraries` is called once by the long-running entry points (``citetrain
quickstart``, training) with the log file of their run folder.
"""
from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

VERBOSE_ENV = "CITETRAIN_VERBOSE"
LIBRARY_LOGGERS = ("transformers", "datasets", "accelerate", "peft", "trl", "DeepSpeed",
                   "torch", "huggingface_hub", "sentence_transformers", "bitsandbytes",
                   "py.warnings")
_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"
# citetrain's own lines that are for the log file only (:func:`to_log`): a step line's every figure
LOG_ONLY = "citetrain.log"
_handler: logging.Handler | None = None
_bars = True  # False: no progress bar on the terminal either (:func:`no_progress_bars`)


def verbose() -> bool:
    """Whether the user asked to see everything (``--verbose`` / ``CITETRAIN_VERBOSE=1``)."""
    return os.environ.get(VERBOSE_ENV, "") not in ("", "0", "false", "no")


def show_progress(flag: bool = True) -> bool:
    """Progress bars only when asked for and stderr is a terminal (a log file gets none)."""
    return bool(flag) and (verbose() or (_bars and sys.stderr.isatty()))


def no_progress_bars() -> None:
    """No progress bar on the terminal for the rest of this process, citetrain's included
    (:func:`show_progress` says no unless ``--verbose``): ``citetrain quickstart``, whose terminal
    gets one line per stage and per logged training step."""
    global _bars
    _bars = False


def to_log(message: str) -> None:
    """``message`` to the log file of :func:`quiet_libraries` only (nowhere before it is called,
    or under ``--verbose``)."""
    logging.getLogger(LOG_ONLY).info(message)


def _no_gpu() -> bool:
    try:
        import torch

        return not torch.cuda.is_available()
    except ImportError:  # pragma: no cover - torch is a dependency
        return True


def quiet_libraries(log_file: str | Path | None) -> Path | None:
    """Send the libraries' logging and warnings to ``log_file`` (appended; ``None``: dropped) and
    hide their progress bars; returns the log file. Does nothing under ``--verbose``. Calling it
    again moves the log to the new file."""
    global _handler
    if verbose():
        return None
    if _no_gpu():  # DeepSpeed would print "[WARNING] Setting accelerator to CPU" on first use
        os.environ.setdefault("DS_ACCELERATOR", "cpu")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    if log_file is not None:
        path = Path(log_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    else:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter(_FORMAT))
    logging.captureWarnings(True)
    own = logging.getLogger(LOG_ONLY)
    own.setLevel(logging.INFO)
    for name in (*LIBRARY_LOGGERS, LOG_ONLY):
        logger = logging.getLogger(name)
        if _handler is not None:
            logger.removeHandler(_handler)
        logger.handlers = [h for h in logger.handlers if not _is_console(h)]
        logger.addHandler(handler)
        logger.propagate = False
    _handler = handler
    _quiet_transformers()
    return Path(log_file) if log_file is not None else None


def _is_console(handler: logging.Handler) -> bool:
    return (isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler)
            and getattr(handler, "stream", None) in (sys.stdout, sys.stderr, sys.__stdout__,
                                                     sys.__stderr__))


def _quiet_transformers() -> None:
    try:
        from transformers.utils import logging as tlog
    except ImportError:  # pragma: no cover
        return
    tlog.disable_default_handler()  # its stderr handler; "transformers" logs to the file now
    tlog.set_verbosity_warning()
    tlog.disable_progress_bar()  # "Loading weights", "Writing model shards"
    try:
        import datasets

        datasets.disable_progress_bars()
    except ImportError:  # pragma: no cover
        pass
