"""Training logs to wandb (offline), tensorboard and trackio, in-loop scores included: one run
reports to every tracker installed at once."""
import importlib.util
import time
from pathlib import Path

import pytest

from citetrain.train.recipe import load_recipe
from citetrain.runner import run_recipe as train

from .conftest import REPO, tiny_overrides

TRACKERS = ("wandb", "tensorboard", "trackio")


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_trackers_receive_loss_and_citation_scores(tiny_data, tmp_path, monkeypatch):
    installed = [t for t in TRACKERS if importlib.util.find_spec(t) is not None]
    if not installed:
        pytest.skip("no tracker installed (pip install -e '.[tracking]')")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("TRACKIO_DIR", str(tmp_path / "trackio"))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    sets = tiny_overrides(tiny_data, out, **{"train.max_steps": 3, "train.save_steps": 3,
                                             "eval.steps": 3,
                                             "logging.report_to": f"[{', '.join(installed)}]"})
    started = time.time() - 1
    summary = train(load_recipe(REPO / "recipes" / "tiny-cpu.yaml", sets))
    assert summary["in_loop"]
    if "tensorboard" in installed:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        events = list(out.rglob("events.out.tfevents.*"))
        assert events
        acc = EventAccumulator(str(events[0].parent))
        acc.Reload()
        tags = acc.Tags()["scalars"]
        assert "train/loss" in tags and "eval/citation_f1" in tags
    if "wandb" in installed:
        runs = list(tmp_path.rglob("offline-run-*"))
        assert runs and any(p.suffix == ".wandb" for p in runs[0].iterdir())
    if "trackio" in installed:  # its folder is read when trackio is first imported in the process
        from trackio.utils import TRACKIO_DIR

        assert any(p.is_file() and p.stat().st_mtime >= started
                   for p in Path(TRACKIO_DIR).rglob("*")), f"trackio wrote nothing to {TRACKIO_DIR}"
