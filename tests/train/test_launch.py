"""The launcher (recipe -> accelerate command) and the launch/ configs: keys accelerate accepts,
the SLURM script, and a real two-process CPU launch."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from citetrain.train.launcher import (
    format_command,
    launch_command,
    launch_env,
    launch_errors,
    shell_assignments,
)
from citetrain.train.recipe import load_recipe

REPO = Path(__file__).resolve().parents[2]
LAUNCH = REPO / "launch"
BASE = {"name": "t", "kind": "refiner", "model": {"tiny": {}}, "data": {"dataset": "some/path"},
        "train": {"output_dir": "out"}}


def write_recipe(tmp_path: Path, launch: dict | None = None, **extra) -> Path:
    data = {**BASE, **extra, **({"launch": launch} if launch is not None else {})}
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def command(tmp_path, launch=None, overrides=(), environ=None):
    path = write_recipe(tmp_path, launch)
    recipe = load_recipe(path, list(overrides))
    return launch_command(recipe, str(path), list(overrides), environ={} if environ is None else environ), str(path)


NO_NOTICE = ["--mixed_precision", "no", "--dynamo_backend", "no"]


@pytest.fixture(autouse=True)
def two_cores(monkeypatch):
    """The launcher's commands as on a 2-core machine, whatever this host has."""
    monkeypatch.setattr("citetrain.train.threads.cpu_cores", lambda: 2)


@pytest.fixture
def no_default_config(monkeypatch):
    monkeypatch.setattr("citetrain.train.launcher._default_config_exists", lambda: False)


def test_one_process_without_config(tmp_path, no_default_config):
    (argv, env), path = command(tmp_path)
    assert argv == ["accelerate", "launch", "--num_processes", "1", "--num_machines", "1",
                    *NO_NOTICE, "--num_cpu_threads_per_process", "2", "-m", "citetrain.train", path]
    assert env == {}


def test_several_processes_without_config_use_multi_gpu_and_one_thread(tmp_path, no_default_config):
    (argv, env), path = command(tmp_path, {"num_processes": 2})
    assert argv == ["accelerate", "launch", "--num_processes", "2", "--num_machines", "1",
                    *NO_NOTICE, "--num_cpu_threads_per_process", "1", "--multi_gpu", "-m",
                    "citetrain.train", path]
    assert env == {"OMP_NUM_THREADS": "1"}


def test_accelerates_own_default_config_keeps_its_precision(tmp_path, monkeypatch):
    """With a default config from ``accelerate config``, its values stay in force: no flags."""
    monkeypatch.setattr("citetrain.train.launcher._default_config_exists", lambda: True)
    (argv, _), path = command(tmp_path)
    assert argv == ["accelerate", "launch", "--num_processes", "1", "--num_machines", "1",
                    "--num_cpu_threads_per_process", "2", "-m", "citetrain.train", path]


@pytest.mark.slow  # ten seconds or more on 2 CPU cores
def test_the_default_config_is_looked_for_where_accelerate_keeps_it(tmp_path):
    """Found without importing accelerate in the parent: the same path as accelerate's own."""
    code = ("from accelerate.commands.config import default_config_file as a\n"
            "from citetrain.train.launcher import default_config_path as c\n"
            "assert c() == a, (c(), a)\n")
    for env in ({"HF_HOME": str(tmp_path / "hf")}, {"XDG_CACHE_HOME": str(tmp_path / "xdg")}):
        base = {k: v for k, v in os.environ.items() if k not in ("HF_HOME", "XDG_CACHE_HOME")}
        got = subprocess.run([sys.executable, "-c", code], env={**base, **env},
                             capture_output=True, text=True, timeout=120)
        assert got.returncode == 0, got.stderr[-1000:]


def test_accelerate_parses_the_command_without_its_defaults_notice(tmp_path, no_default_config, caplog):
    """accelerate's own validation of the command (what ``accelerate launch`` runs before
    starting processes) prints no "values were not passed" notice."""
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser

    (argv, _), _ = command(tmp_path)
    args = launch_command_parser().parse_args(argv[2:])
    with caplog.at_level("WARNING"):
        _validate_launch_command(args)
    assert args.mixed_precision == "no" and args.dynamo_backend.lower() == "no"
    assert "were not passed" not in caplog.text


def test_config_file_leaves_the_distributed_type_to_it(tmp_path):
    cfg = str(LAUNCH / "zero3.yaml")
    (argv, env), path = command(tmp_path, {"config_file": cfg, "num_processes": 8})
    assert argv == ["accelerate", "launch", "--config_file", cfg, "--num_processes", "8",
                    "--num_machines", "1", "--num_cpu_threads_per_process", "1", "-m",
                    "citetrain.train", path]
    assert env == {"OMP_NUM_THREADS": "1"}


@pytest.mark.parametrize("multi_gpu, config, expected", [
    (True, True, True), (True, False, True), (False, False, False), (None, True, False), (None, False, True)])
def test_multi_gpu_flag(tmp_path, multi_gpu, config, expected):
    launch = {"num_processes": 2, "multi_gpu": multi_gpu}
    if config:
        launch["config_file"] = str(LAUNCH / "ddp.yaml")
    (argv, _), _ = command(tmp_path, launch)
    assert ("--multi_gpu" in argv) is expected


def test_overrides_are_applied_and_forwarded(tmp_path):
    sets = ["launch.num_processes=4", "train.max_steps=3"]
    (argv, env), path = command(tmp_path, overrides=sets)
    assert argv[argv.index("--num_processes") + 1] == "4"
    assert argv[-5:] == [path, "--set", "launch.num_processes=4", "--set", "train.max_steps=3"]
    assert env["OMP_NUM_THREADS"] == "1"


def test_recipe_env_and_existing_thread_setting_win(tmp_path):
    recipe = load_recipe(write_recipe(tmp_path, {"num_processes": 2, "env": {"OMP_NUM_THREADS": "4", "A": "b"}}))
    user = {"CITETRAIN_USER_THREADS": "1"}  # the run then says nothing of its thread count
    assert launch_env(recipe, {}) == {"OMP_NUM_THREADS": "4", "A": "b", **user}
    recipe = load_recipe(write_recipe(tmp_path, {"num_processes": 2}))
    assert launch_env(recipe, {"OMP_NUM_THREADS": "2"}) == user


def test_format_command_quotes_values_not_names():
    line = format_command(["accelerate", "launch", "a b"], {"X": "1 2", "OMP_NUM_THREADS": "1"})
    assert line == "X='1 2' OMP_NUM_THREADS=1 accelerate launch 'a b'"


def test_launch_errors_all_at_once(tmp_path):
    recipe = load_recipe(write_recipe(tmp_path, {
        "config_file": "nowhere.yaml", "num_processes": 3, "num_machines": 2, "env": {"BAD-NAME": "1"}}))
    errs = launch_errors(recipe)
    assert len(errs) == 3
    assert "nowhere.yaml not found" in errs[0] and "multiple" in errs[1] and "BAD-NAME" in errs[2]
    recipe = load_recipe(write_recipe(tmp_path, {"config_file": str(LAUNCH / "zero2.yaml"), "multi_gpu": True,
                                                 "num_processes": 2}))
    assert "override" in launch_errors(recipe)[0] and "DEEPSPEED" in launch_errors(recipe)[0]


def test_shipped_recipes_launch_sections_are_valid(monkeypatch):
    monkeypatch.chdir(REPO)  # recipes name launch/*.yaml from the repository root
    for path in sorted((REPO / "recipes").glob("*.yaml")):
        recipe = load_recipe(path.relative_to(REPO))
        assert launch_errors(recipe) == [], path.name


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_shell_assignments_survive_eval(tmp_path):
    tricky = "it's $HOME `x` \"q\""
    recipe = load_recipe(write_recipe(tmp_path, {"num_processes": 4, "num_machines": 2, "env": {"TRICKY": tricky}},
                                      name=tricky))
    script = 'eval "$1"; printf "%s|" "$CT_NAME" "$CT_CONFIG_FILE" "$CT_NUM_PROCESSES" "$CT_NUM_MACHINES" ' \
             '"$CT_PROCESSES_PER_MACHINE" "$CT_MULTI_GPU"; bash -c \'printf "%s" "$TRICKY"\''
    out = subprocess.run(["bash", "-c", script, "bash", shell_assignments(recipe)],
                         capture_output=True, text=True, check=True).stdout
    assert out == f"{tricky}||4|2|2|1|{tricky}"


# ---- launch/ ---------------------------------------------------------------------------------

YAMLS = ["cpu-2proc.yaml", "ddp.yaml", "fsdp.yaml", "zero2.yaml", "zero3.yaml"]


def test_launch_folder_holds_the_expected_configs():
    assert sorted(p.name for p in LAUNCH.glob("*.yaml")) == YAMLS
    assert (LAUNCH / "slurm.sbatch").is_file()


@pytest.mark.parametrize("name", YAMLS)
def test_launch_yaml_is_accepted_by_accelerate(name):
    from accelerate.commands.config.config_args import (
        ClusterConfig,
        load_config_from_file,
    )
    from accelerate.commands.launch import launch_command_parser

    path = LAUNCH / name
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# ") and f"accelerate launch --config_file launch/{name}" in text
    assert isinstance(yaml.safe_load(text), dict)
    cfg = load_config_from_file(str(path))  # raises on unknown top-level keys
    assert isinstance(cfg, ClusterConfig)
    # nested sections become `accelerate launch` arguments (fsdp_config.x -> --fsdp_x)
    dests = {a.dest for a in launch_command_parser()._actions}
    for section in ("deepspeed_config", "fsdp_config"):
        for key in getattr(cfg, section):
            assert key in dests, f"{name}: {section}.{key} is not an accelerate launch option"


def test_launch_yaml_contents():
    from accelerate.commands.config.config_args import load_config_from_file
    from accelerate.utils import DistributedType

    load = lambda n: load_config_from_file(str(LAUNCH / n))
    ddp, fsdp, z2, z3, cpu = (load(n) for n in ("ddp.yaml", "fsdp.yaml", "zero2.yaml", "zero3.yaml", "cpu-2proc.yaml"))
    assert ddp.distributed_type == DistributedType.MULTI_GPU and ddp.num_machines == 1
    assert fsdp.distributed_type == DistributedType.FSDP
    assert fsdp.fsdp_config["fsdp_version"] == 2 and fsdp.fsdp_config["fsdp_reshard_after_forward"] is True
    assert fsdp.fsdp_config["fsdp_auto_wrap_policy"] == "TRANSFORMER_BASED_WRAP"
    assert fsdp.fsdp_config["fsdp_state_dict_type"] == "SHARDED_STATE_DICT"
    assert fsdp.fsdp_config["fsdp_cpu_ram_efficient_loading"] is True
    assert z2.distributed_type == z3.distributed_type == DistributedType.DEEPSPEED
    assert z2.deepspeed_config["zero_stage"] == 2 and z3.deepspeed_config["zero_stage"] == 3
    assert z3.deepspeed_config["zero3_save_16bit_model"] is True and z3.deepspeed_config["zero3_init_flag"] is True
    for z in (z2, z3):  # "auto": DeepSpeed takes these from the TrainingArguments
        assert not {"gradient_accumulation_steps", "gradient_clipping"} & set(z.deepspeed_config)
    assert cpu.distributed_type == DistributedType.MULTI_GPU and cpu.num_processes == 2 and cpu.use_cpu


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_slurm_script_parses():
    subprocess.run(["bash", "-n", str(LAUNCH / "slurm.sbatch")], check=True)


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/bash\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_slurm_script_launches_one_accelerate_per_node(tmp_path):
    """Fake scontrol/srun/accelerate; the real citetrain supplies the recipe's values."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    # a long node list: `scontrol ... | head -n 1` under pipefail dies of SIGPIPE (exit 141)
    _stub(bin_, "scontrol", "printf 'gpu-a\\ngpu-b\\n'; seq 1 200000 | sed 's/^/gpu-/'\n")
    _stub(bin_, "srun", 'while [[ $1 == --* ]]; do shift; done\n'
                        'for i in 0 1; do SLURM_NODEID=$i "$@"; done\n')
    _stub(bin_, "accelerate", 'echo "FOO=$FOO $*"\n')
    _stub(bin_, "citetrain", f'exec {sys.executable} -m citetrain "$@"\n')
    recipe = write_recipe(tmp_path, {"config_file": str(LAUNCH / "zero3.yaml"), "num_processes": 16,
                                     "num_machines": 2, "env": {"FOO": "x y"}})
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}", "SLURM_NNODES": "2",
           "SLURM_JOB_NODELIST": "gpu-[a,b]"}
    out = subprocess.run(["bash", str(LAUNCH / "slurm.sbatch"), str(recipe), "--set", "train.max_steps=5"],
                         env=env, capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    rest = (f"--config_file {LAUNCH / 'zero3.yaml'} --num_machines 2 --num_processes 16 "
            f"--main_process_ip gpu-a --main_process_port 29500 -m citetrain.train {recipe} "
            "--set train.max_steps=5")
    assert out.stdout.splitlines() == [f"FOO=x y launch --machine_rank {i} {rest}" for i in (0, 1)]


@pytest.mark.parametrize("cores, launch, threads, omp", [
    (8, {}, "8", None),                                        # one process takes every core
    (8, {"num_processes": 2}, "4", "4"),                       # two share them
    (8, {"num_processes": 4, "num_machines": 2}, "4", "4"),    # per machine: 2 processes each
    (2, {"num_processes": 4}, "1", "1"),                       # never below one
])
def test_each_process_gets_its_share_of_the_cores(tmp_path, monkeypatch, cores, launch, threads, omp):
    monkeypatch.setattr("citetrain.train.threads.cpu_cores", lambda: cores)
    (argv, env), _ = command(tmp_path, launch)
    assert argv[argv.index("--num_cpu_threads_per_process") + 1] == threads
    assert env.get("OMP_NUM_THREADS") == omp


def test_a_thread_setting_of_the_user_is_left_to_accelerate(tmp_path):
    user = {"CITETRAIN_USER_THREADS": "1"}
    (argv, env), _ = command(tmp_path, {"num_processes": 2}, environ={"OMP_NUM_THREADS": "3"})
    assert "--num_cpu_threads_per_process" not in argv and env == user
    (argv, env), _ = command(tmp_path, {"env": {"OMP_NUM_THREADS": "5"}})
    assert "--num_cpu_threads_per_process" not in argv and env == {"OMP_NUM_THREADS": "5", **user}


def test_accelerate_hands_the_threads_to_the_process(tmp_path, no_default_config):
    """What accelerate's simple launcher puts in the process's environment from our argv: without
    the flag it would be OMP_NUM_THREADS=1 (its default without --cpu)."""
    from accelerate.commands.launch import (_validate_launch_command, launch_command_parser,
                                            prepare_simple_launcher_cmd_env)

    (argv, _), _ = command(tmp_path)
    args, *_ = _validate_launch_command(launch_command_parser().parse_args(argv[2:]))
    _, env = prepare_simple_launcher_cmd_env(args)
    assert env["OMP_NUM_THREADS"] == "2"
    bare = [a for a in argv[2:] if a not in ("--num_cpu_threads_per_process", "2")]
    args, *_ = _validate_launch_command(launch_command_parser().parse_args(bare))
    assert prepare_simple_launcher_cmd_env(args)[1]["OMP_NUM_THREADS"] == "1"
