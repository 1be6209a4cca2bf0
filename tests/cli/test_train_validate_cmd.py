"""``citetrain train`` (dry run, shell assignments, the launch itself) and ``citetrain validate``."""
from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from citetrain.cli.main import main

REPO = Path(__file__).resolve().parents[2]
ZERO3 = str(REPO / "launch" / "zero3.yaml")
NO_NOTICE = ["--mixed_precision", "no", "--dynamo_backend", "no"]
BASE = {"name": "t", "kind": "refiner", "model": {"tiny": {}}, "data": {"dataset": "some/path"},
        "train": {"output_dir": "out"}}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    # no accelerate default config: the launcher passes accelerate's defaults explicitly
    monkeypatch.setattr("citetrain.train.launcher._default_config_exists", lambda: False)
    monkeypatch.setattr("citetrain.train.threads.cpu_cores", lambda: 2)  # the machine's cores
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: "/bin/accelerate" if name == "accelerate"
                        else real_which(name, *a, **k))


def write_recipe(tmp_path: Path, launch: dict | None = None, **extra) -> str:
    data = {**BASE, **extra, **({"launch": launch} if launch is not None else {})}
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return str(path)


def dry_run(capsys, *argv: str) -> str:
    assert main(["train", *argv, "--dry-run"]) == 0
    return capsys.readouterr().out.strip()


def test_dry_run_single_process(tmp_path, capsys):
    r = write_recipe(tmp_path)
    assert dry_run(capsys, r) == shlex.join(
        ["accelerate", "launch", "--num_processes", "1", "--num_machines", "1", *NO_NOTICE,
         "--num_cpu_threads_per_process", "2", "-m", "citetrain.train", r])


def test_dry_run_two_processes_sets_threads_and_multi_gpu(tmp_path, capsys):
    r = write_recipe(tmp_path, {"num_processes": 2})
    assert dry_run(capsys, r) == ("OMP_NUM_THREADS=1 accelerate launch --num_processes 2 --num_machines 1 "
                                  f"--mixed_precision no --dynamo_backend no --num_cpu_threads_per_process 1 "
                                  f"--multi_gpu -m citetrain.train {shlex.quote(r)}")


def test_dry_run_config_file_and_env(tmp_path, capsys):
    r = write_recipe(tmp_path, {"config_file": ZERO3, "num_processes": 8, "env": {"NCCL_DEBUG": "WARN x"}})
    assert dry_run(capsys, r) == (f"NCCL_DEBUG='WARN x' OMP_NUM_THREADS=1 accelerate launch --config_file "
                                  f"{shlex.quote(ZERO3)} --num_processes 8 --num_machines 1 "
                                  f"--num_cpu_threads_per_process 1 -m citetrain.train {shlex.quote(r)}")


def test_dry_run_multi_gpu_false_and_existing_threads(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    r = write_recipe(tmp_path, {"num_processes": 2, "multi_gpu": False})
    assert dry_run(capsys, r) == "CITETRAIN_USER_THREADS=1 " + shlex.join(
        ["accelerate", "launch", "--num_processes", "2", "--num_machines", "1", *NO_NOTICE, "-m", "citetrain.train", r])


def test_overrides_change_the_launch_and_are_forwarded(tmp_path, capsys):
    r = write_recipe(tmp_path)
    out = dry_run(capsys, r, "--set", "launch.num_processes=2", "--set", "train.max_steps=4")
    assert out == ("OMP_NUM_THREADS=1 accelerate launch --num_processes 2 --num_machines 1 "
                   "--mixed_precision no --dynamo_backend no --num_cpu_threads_per_process 1 "
                   f"--multi_gpu -m citetrain.train {shlex.quote(r)} --set launch.num_processes=2 --set train.max_steps=4")


def test_falls_back_to_python_module_without_the_cli(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda *a, **k: None)
    r = write_recipe(tmp_path)
    assert dry_run(capsys, r) == shlex.join([sys.executable, "-m", "accelerate.commands.launch", "--num_processes",
                                             "1", "--num_machines", "1", *NO_NOTICE,
                                             "--num_cpu_threads_per_process", "2", "-m", "citetrain.train", r])


def test_dry_run_and_emit_shell_exclude_each_other(tmp_path):
    with pytest.raises(SystemExit) as e:
        main(["train", write_recipe(tmp_path), "--dry-run", "--emit-shell"])
    assert e.value.code == 2


def test_train_runs_accelerate_and_returns_its_exit_code(tmp_path, monkeypatch, capfd):
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    fake = bin_ / "accelerate"
    fake.write_text('#!/bin/sh\necho "ran OMP=$OMP_NUM_THREADS $*"\nexit 7\n', encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: str(fake) if name == "accelerate" else None)
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "dataset_dict.json").write_text("{}")
    r = write_recipe(tmp_path, {"num_processes": 2}, data={"dataset": str(tmp_path / "ds")})
    assert main(["train", r, "--set", "train.max_steps=1"]) == 7
    assert capfd.readouterr().out.strip() == (f"ran OMP=1 launch --quiet --num_processes 2 --num_machines 1 "
                                              f"--mixed_precision no --dynamo_backend no --num_cpu_threads_per_process 1 "
                                                  f"--multi_gpu -m citetrain.train {r} --set train.max_steps=1")
    assert main(["--debug", "train", r]) == 7  # --debug keeps the launcher's traceback
    assert capfd.readouterr().out.strip() == (f"ran OMP=1 launch --num_processes 2 --num_machines 1 "
                                              f"--mixed_precision no --dynamo_backend no --num_cpu_threads_per_process 1 --multi_gpu -m citetrain.train {r}")
    missing = write_recipe(tmp_path, {"num_processes": 2}, data={"dataset": str(tmp_path / "nope")})
    assert main(["train", missing]) == 2  # found before launching: accelerate does not run
    out, err = capfd.readouterr()
    assert out == "" and err == (f"citetrain train: error: {missing}: data.dataset: {tmp_path / 'nope'} "
                                 "is not a dataset folder (build one with `citetrain build SPEC`, or "
                                 "give data.build)\n")
    built = write_recipe(tmp_path, data={"dataset": str(tmp_path / "nope"), "build": "nope.yaml"})
    assert main(["train", built]) == 2
    assert capfd.readouterr().err == f"citetrain train: error: {built}: data.build: nope.yaml not found\n"


def test_train_rejects_a_bad_recipe_before_launching(tmp_path, capsys):
    r = write_recipe(tmp_path, {"config_file": "missing.yaml"})
    assert main(["train", r, "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citetrain train: error:") and "missing.yaml not found" in err


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_emit_shell_can_be_evaled_by_bash(tmp_path):
    r = write_recipe(tmp_path, {"config_file": ZERO3, "num_processes": 16, "num_machines": 2,
                                "env": {"WANDB_TAGS": "a b;c"}}, name="it's mine")
    cli = shlex.join([sys.executable, "-m", "citetrain.cli.main", "train", r, "--emit-shell"])
    script = (f'eval "$({cli})" || exit 9; printf "%s|" "$CT_NAME" "$CT_CONFIG_FILE" "$CT_NUM_PROCESSES" '
              '"$CT_NUM_MACHINES" "$CT_PROCESSES_PER_MACHINE" "$CT_MULTI_GPU"; bash -c \'printf "%s" "$WANDB_TAGS"\'')
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"it's mine|{ZERO3}|16|2|8|0|a b;c"


# ---- validate --------------------------------------------------------------------------------

def test_validate_ok(tmp_path, capsys):
    r = write_recipe(tmp_path)
    assert main(["validate", r]) == 0
    assert capsys.readouterr().out == f"{r}: ok (refiner, lora, tiny llama, 1 process)\n"
    assert main(["validate", r, "--set", "model.tiny=null", "--set", "model.name_or_path=org/m",
                 "--set", "launch.num_processes=4"]) == 0
    assert capsys.readouterr().out == f"{r}: ok (refiner, lora, org/m, 4 processes)\n"


def test_validate_reports_every_error_at_once(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("name: t\nkind: refiner\nmethod: full\nmodel: {tiny: {}}\ndata: {dataset: d}\n"
                    "trian: {output_dir: out}\nlaunch: {num_procs: 2}\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"citetrain validate: error: {path}: ")
    assert "trian: unknown key; did you mean 'train'?" in err
    assert "launch.num_procs: unknown key; did you mean 'num_processes'?" in err
    assert "train: Field required" in err
    assert err.count("\n  - ") >= 3


def test_validate_reports_launch_problems(tmp_path, capsys):
    r = write_recipe(tmp_path, {"config_file": "nope.yaml", "num_processes": 3, "num_machines": 2})
    assert main(["validate", r]) == 2
    err = capsys.readouterr().err
    assert "2 errors" in err and "nope.yaml not found" in err and "multiple of launch.num_machines" in err
