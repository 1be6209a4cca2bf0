"""A child process for the kill-and-resume tests, instrumented by environment variables.

``python -m tests.reliability.child cli ARGS...`` runs ``citetrain ARGS...``;
``python -m tests.reliability.child train ARGS...`` runs ``python -m citetrain.train ARGS...``.

``CT_PAIRS_LOG``   every pair the lexical NLI answers is appended here (one JSON line, fsynced)
``CT_BATCH``       the lexical backend's batch size
``CT_STOP_AFTER``  NLI: once this many batches are answered, the next one writes ``CT_MARKER``
                   and waits (forever) to be killed
``CT_STOP_SAVE``   training: the checkpoint save of this step writes ``CT_MARKER`` and waits to
                   be killed after the weights and optimizer are on disk but before the trainer
                   state (the file the Trainer writes last)
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def _block() -> None:
    """Say where we are, then wait for the parent's SIGKILL."""
    Path(os.environ["CT_MARKER"]).write_text("stopped\n")
    while True:
        time.sleep(60)


def _instrument_nli() -> None:
    from citetrain.nli.lexical import LexicalNLI

    log = os.environ.get("CT_PAIRS_LOG")
    stop = int(os.environ.get("CT_STOP_AFTER", "-1"))
    batch = os.environ.get("CT_BATCH")
    init, predict = LexicalNLI.__init__, LexicalNLI.predict
    answered = [0]

    def new_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if batch:
            self.batch_size = int(batch)

    def new_predict(self, pairs):
        if answered[0] == stop:
            _block()
        out = predict(self, pairs)
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                fh.writelines(json.dumps([str(p[0]), p[1]]) + "\n" for p in pairs)
                fh.flush()
                os.fsync(fh.fileno())
        answered[0] += 1
        return out

    LexicalNLI.__init__, LexicalNLI.predict = new_init, new_predict


def _instrument_saves() -> None:
    from transformers import Trainer

    step = int(os.environ.get("CT_STOP_SAVE", "-1"))
    save_rng = Trainer._save_rng_state

    def new_save_rng(self, output_dir):
        if self.state.global_step == step:
            _block()
        return save_rng(self, output_dir)

    Trainer._save_rng_state = new_save_rng


def main(argv: list[str]) -> int:
    mode, rest = argv[0], argv[1:]
    _instrument_nli()
    if mode == "train":
        _instrument_saves()
        from citetrain.cli.recipe_run import main as train_main

        return train_main(rest)
    from citetrain.cli.main import main as cli_main

    return cli_main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
