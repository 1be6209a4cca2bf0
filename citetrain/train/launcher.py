"""From a recipe's ``launch`` section to an ``accelerate launch`` command line.

``citetrain train RECIPE`` runs :func:`launch_command`'s argv with its extra environment;
``--dry-run`` prints it and ``--emit-shell`` prints :func:`shell_assignments` for SLURM scripts
(``launch/slurm.sbatch``) to ``eval``, so no script ever parses the YAML itself.
"""
from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

import yaml

from citetrain.train.recipe_schema import Recipe
from citetrain.train.threads import USER_THREADS, threads_per_process

# the accelerate config distributed types that a ``--multi_gpu`` flag would silently replace
_MULTI_GPU_TYPES = {"MULTI_GPU", "NO"}


def launch_errors(recipe: Recipe) -> list[str]:
    """Problems with the ``launch`` section that accelerate would only report with a traceback."""
    ln, errs = recipe.launch, []
    if ln.config_file:
        cfg = Path(ln.config_file)
        if not cfg.is_file():
            errs.append(f"launch.config_file: {ln.config_file} not found")
        elif ln.multi_gpu:
            try:
                kind = (yaml.safe_load(cfg.read_text(encoding="utf-8")) or {}).get("distributed_type")
            except (yaml.YAMLError, AttributeError):
                kind = None
                errs.append(f"launch.config_file: {ln.config_file} is not a YAML mapping")
            if kind and str(kind) not in _MULTI_GPU_TYPES:
                errs.append(f"launch.multi_gpu: true would override {ln.config_file}'s "
                            f"distributed_type {kind}; leave multi_gpu unset")
    if ln.num_processes % ln.num_machines:
        errs.append(f"launch.num_processes ({ln.num_processes}) is the total over all machines: "
                    f"it must be a multiple of launch.num_machines ({ln.num_machines})")
    bad = [k for k in ln.env if not k.isidentifier() or not k.isascii()]
    if bad:
        errs.append(f"launch.env: not environment variable names: {', '.join(bad)}")
    return errs


def uses_multi_gpu_flag(recipe: Recipe) -> bool:
    """``--multi_gpu`` when asked for, or by default for several processes without a config file."""
    ln = recipe.launch
    if ln.multi_gpu is not None:
        return ln.multi_gpu
    return ln.num_processes > 1 and not ln.config_file


def process_threads(recipe: Recipe, environ: Mapping[str, str] | None = None) -> int | None:
    """CPU threads for each process: the cores of a machine shared among its processes, or
    ``None`` when ``OMP_NUM_THREADS`` is set in ``launch.env`` or the environment."""
    environ = os.environ if environ is None else environ
    ln = recipe.launch
    return threads_per_process(max(ln.num_processes // ln.num_machines, 1),
                               {**environ, **ln.env})


def launch_env(recipe: Recipe, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``launch.env``, plus ``OMP_NUM_THREADS`` (:func:`process_threads`) for several processes
    unless it is set already (the DeepSpeed launcher does not limit threads: on CPU, two
    processes that each take every core are ~10x slower)."""
    env = dict(recipe.launch.env)
    threads = process_threads(recipe, environ)
    if recipe.launch.num_processes > 1 and threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    if threads is None:  # the user's own thread count: the run does not second-guess it
        env[USER_THREADS] = "1"
    return env


def default_config_path() -> str:
    """Where ``accelerate config`` writes the default config that ``accelerate launch`` reads when
    no ``--config_file`` is given: ``$HF_HOME/accelerate/default_config.yaml``. Found the way
    accelerate finds it, without importing accelerate (and torch) in the parent process."""
    cache = os.environ.get("HF_HOME", os.path.join(os.environ.get("XDG_CACHE_HOME", "~/.cache"),
                                                   "huggingface"))
    return os.path.join(os.path.expanduser(cache), "accelerate", "default_config.yaml")


def _default_config_exists() -> bool:
    """Whether ``accelerate config`` has written a default config file."""
    return os.path.isfile(default_config_path())


def launch_command(recipe: Recipe, recipe_path: str, overrides: list[str],
                   environ: Mapping[str, str] | None = None) -> tuple[list[str], dict[str, str]]:
    """``(argv, extra_env)`` that start ``python -m citetrain.train`` under accelerate."""
    ln = recipe.launch
    argv = ["accelerate", "launch"]
    if ln.config_file:
        argv += ["--config_file", ln.config_file]
    argv += ["--num_processes", str(ln.num_processes), "--num_machines", str(ln.num_machines)]
    if not ln.config_file and not _default_config_exists():
        # what accelerate uses anyway with no config file, said explicitly: it then prints no
        # four-line "values were not passed" notice (with a config file, its values stay in force)
        argv += ["--mixed_precision", "no", "--dynamo_backend", "no"]
    threads = process_threads(recipe, environ)
    if threads is not None:  # accelerate's own default without --cpu is one thread per process
        argv += ["--num_cpu_threads_per_process", str(threads)]
    if uses_multi_gpu_flag(recipe):
        argv.append("--multi_gpu")
    argv += ["-m", "citetrain.train", str(recipe_path)]
    for item in overrides:
        argv += ["--set", item]
    return argv, launch_env(recipe, environ)


def format_command(argv: list[str], env: Mapping[str, str]) -> str:
    """A command line to paste into a shell: ``K=V ... argv`` (values quoted, names never)."""
    assigns = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    return " ".join([*assigns, shlex.join(argv)])


def shell_assignments(recipe: Recipe) -> str:
    """``CT_*`` shell variables (and ``export``s for ``launch.env``) for ``eval`` in a job script."""
    ln = recipe.launch
    values = {
        "CT_NAME": recipe.name,
        "CT_OUTPUT_DIR": recipe.train.output_dir,
        "CT_CONFIG_FILE": ln.config_file or "",
        "CT_NUM_PROCESSES": str(ln.num_processes),
        "CT_NUM_MACHINES": str(ln.num_machines),
        "CT_PROCESSES_PER_MACHINE": str(max(ln.num_processes // ln.num_machines, 1)),
        "CT_MULTI_GPU": "1" if uses_multi_gpu_flag(recipe) else "0",
    }
    lines = [f"{k}={shlex.quote(v)}" for k, v in values.items()]
    lines += [f"export {k}={shlex.quote(v)}" for k, v in ln.env.items()]
    return "\n".join(lines) + "\n"
